// The line between the `inmanta` binary (cli/server.cpp, cli/token.cpp) and libinmanta_server.so,
// which holds the server with cpp-httplib, OpenSSL, libjwt, SQLite and libpq. The binary loads the
// module with dlopen() only for these commands, so a compile never maps those libraries.
// Both sides include this header, which uses the standard library only.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace inmanta::server {

// Changed whenever this header changes shape: a module built against another version is refused.
inline constexpr int kServerLaunchAbi = 4;
// The module's entry point (below), looked up with dlsym().
inline constexpr const char* kServerEntry = "inmanta_server_main";

// `inmanta deploy` (spec §9.2): the binary compiles and builds the resource set, the module does
// the rest — the store under data/deploy, the REST server on 127.0.0.1, the scheduler, the report —
// and calls `exportModel` to push the set to its own server with the exporter's client (D8).
struct DeployExport {
  long long version = 0;      // the version stored
  std::size_t resources = 0;  // how many resources it has
  std::string error;          // set when the export failed
};

struct DeployLaunch {
  std::string projectDir;  // absolute: data/deploy is made under it
  bool dryRun = false;
  bool incremental = false;   // deploy only what changed instead of a full repair (D4)
  double timeoutSeconds = 0;  // 0: wait until the work is done
  bool json = false;          // the report as one JSON document on stdout
  std::string listen;         // [ADDR:]PORT for the embedded REST server; empty = 127.0.0.1, any port
  bool progressBar = false;   // stdout is a terminal: a live progress line instead of one per resource
  bool color = false;
  std::string projectName = "deploy";      // [deploy] project
  std::string environmentName = "deploy";  // [deploy] environment
  // The id the deploy environment gets when this deploy makes it (the compile saw it as
  // config>environment); empty: a fresh one.
  std::string environmentId;
  // The modules' Python handlers (compiler/module_code.h, PythonHandlers): their resource types
  // and the call that runs one (JSON request → JSON answer); a call past the time-out fails its
  // resource (--handler-timeout).
  std::vector<std::string> pythonHandlerTypes;
  std::function<std::string(const std::string& request)> runPythonHandler;
  double handlerTimeoutSeconds = 600;
  // Pushes the compiled resource set to the server at host:port into environment `env`.
  std::function<DeployExport(const std::string& host, int port, const std::string& env)> exportModel;
};

// What the command line asked for.
struct ServerLaunch {
  enum class Command { serve, mintToken, deploy };
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
  // `inmanta deploy`
  const DeployLaunch* deploy = nullptr;
};

}  // namespace inmanta::server

// Runs the command and returns the process's exit status: for `serve` 0 after a clean stop on
// SIGTERM/SIGINT, 4 when the server cannot start (the reason on stderr); for `mintToken` 0 after
// printing the token, 1 with the reason on stderr; for `deploy` the exit codes of decision D3. Returns -1 when `abi` is
// not the module's kServerLaunchAbi.
extern "C" int inmanta_server_main(int abi, const inmanta::server::ServerLaunch* launch);
