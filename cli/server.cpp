// `inmanta server`: the orchestrator's REST server over its store (orchestrator spec §8), in
// libinmanta_server.so.
#include <iostream>

#include "cli/command.h"
#include "cli/server_module.h"
#include "compiler/shared_module.h"

#ifndef INMANTA_SERVER_MODULE_NAME
#error "INMANTA_SERVER_MODULE_NAME must be defined"
#endif
#ifndef INMANTA_VERSION
#define INMANTA_VERSION "0.0.0"
#endif

namespace inmanta::cli {

int runServerModule(server::ServerLaunch& launch, const GlobalOptions& globals, int failure) {
  launch.version = INMANTA_VERSION;
  launch.configFile = globals.configFile;
  launch.configDir = globals.configDir;
  launch.verbosity = globals.verbosity;
  const std::string what = "the orchestrator server";
  compiler::SharedModule module =
      compiler::loadSharedModule(what, INMANTA_SERVER_MODULE_NAME, "INMANTA_SERVER_MODULE", server::kServerEntry);
  if (module.entry == nullptr) {
    std::cerr << "Error: " << module.error << "\n";
    return failure;
  }
  using Entry = int (*)(int, const server::ServerLaunch*);
  int status = reinterpret_cast<Entry>(module.entry)(server::kServerLaunchAbi, &launch);
  if (status < 0) {
    std::cerr << "Error: "
              << compiler::sharedModuleMismatch(what, INMANTA_SERVER_MODULE_NAME, module,
                                                "launch interface " + std::to_string(server::kServerLaunchAbi) +
                                                    " expected")
              << "\n";
    return failure;
  }
  return status;
}

namespace {

// Exit status when the server cannot start (the reference's "start failed").
constexpr int kStartFailed = 4;

class ServerCommand : public Command {
 public:
  CLI::App* add(CLI::App& app, GlobalOptions& globals) override {
    CLI::App* cmd = app.add_subcommand("server",
                                       "Run the orchestrator's REST server (options: [server], [config] and [database] "
                                       "of the config files)");
    // The reference takes these before the subcommand; they only concern the server, so they
    // are added to the top level here.
    app.add_option("--log-file", launch_.logFile, "server: also write the log to this file");
    app.add_option("--log-file-level", launch_.logFileLevel,
                   "server: the level of the log file (trace, debug, info, warning, error; default info)")
        ->check(CLI::IsMember({"trace", "debug", "info", "warning", "error", "critical"}));
    // -v is also taken after `server`
    cmd->add_flag("-v,--verbose", globals.verbosity, "Log every request (debug)");
    return cmd;
  }
  int run(const GlobalOptions& globals) override {
    launch_.command = server::ServerLaunch::Command::serve;
    return runServerModule(launch_, globals, kStartFailed);
  }

 private:
  server::ServerLaunch launch_;
};

}  // namespace

std::unique_ptr<Command> makeServerCommand() { return std::make_unique<ServerCommand>(); }

}  // namespace inmanta::cli
