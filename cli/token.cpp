// `inmanta token`: mint a token offline with the signing key of the configuration (orchestrator
// spec §3.5, a divergence: the reference ecosystem has a separate tool), to bootstrap auth.
#include <sstream>

#include "cli/command.h"
#include "cli/server_module.h"

namespace inmanta::cli {

namespace {

class TokenCommand : public Command {
 public:
  CLI::App* add(CLI::App& app, GlobalOptions&) override {
    CLI::App* cmd = app.add_subcommand(
        "token", "Print a token signed with the [auth_jwt_*] section of the configuration that has sign=true");
    cmd->add_option("--client-types", clientTypes_, "Comma-separated client types: api, agent, compiler (default api)");
    cmd->add_option("-e,--environment", launch_.environment, "Scope the token to this environment");
    return cmd;
  }
  int run(const GlobalOptions& globals) override {
    launch_.command = server::ServerLaunch::Command::mintToken;
    std::stringstream in(clientTypes_);
    for (std::string item; std::getline(in, item, ',');) {
      item.erase(0, item.find_first_not_of(' '));
      item.erase(item.find_last_not_of(' ') + 1);
      if (!item.empty()) launch_.clientTypes.push_back(item);
    }
    return runServerModule(launch_, globals, 1);
  }

 private:
  std::string clientTypes_ = "api";
  server::ServerLaunch launch_;
};

}  // namespace

std::unique_ptr<Command> makeTokenCommand() { return std::make_unique<TokenCommand>(); }

}  // namespace inmanta::cli
