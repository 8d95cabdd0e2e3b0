// The line between the `inmanta` binary (cli/server.cpp, cli/token.cpp) and libinmanta_server.so,
// which holds the server with cpp-httplib, OpenSSL, libjwt, SQLite and libpq. The binary loads the
// module with dlopen() only for these commands, so a compile never maps those libraries.
// Both sides include this header, which uses the standard library only.
#pragma once

#include <string>
#include <vector>

namespace inmanta::server {

// Changed whenever this header changes shape: a module built against another version is refused.
inline constexpr int kServerLaunchAbi = 2;
// The module's entry point (below), looked up with dlsym().
inline constexpr const char* kServerEntry = "inmanta_server_main";

// What the command line asked for.
struct ServerLaunch {
  enum class Command { serve, mintToken };
  Command command = Command::serve;
  std::string version;  // ours, for serverstatus
  // the global flags
  std::string configFile;  // -c
  std::string configDir;   // --config-dir
  int verbosity = 0;       // -v: debug (the server logs at info without it)
  std::string logFile;     // --log-file: also log there
  std::string logFileLevel = "info";
  // `inmanta token` and `inmanta-cli token bootstrap`
  std::vector<std::string> clientTypes;
  std::string environment;    // empty: a token for every environment
  long long tokenExpire = 0;  // the token's lifetime in seconds; 0: the signing section's `expire`
  std::string tokenPrefix;    // printed before the token (`Token: ` for inmanta-cli)
};

}  // namespace inmanta::server

// Runs the command and returns the process's exit status: for `serve` 0 after a clean stop on
// SIGTERM/SIGINT, 4 when the server cannot start (the reason on stderr); for `mintToken` 0 after
// printing the token, 1 with the reason on stderr. Returns -1 when `abi` is not the module's
// kServerLaunchAbi.
extern "C" int inmanta_server_main(int abi, const inmanta::server::ServerLaunch* launch);
