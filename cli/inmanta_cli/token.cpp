// inmanta-cli token create and bootstrap (the reference's `token` group): `create` asks the server
// for a token of an environment and the chosen client types; `bootstrap` mints one offline with the
// signing [auth_jwt_*] section of the configuration files, through the same module as `inmanta
// token` (libinmanta_server.so, loaded only then).
#include <iostream>

#include "cli/inmanta_cli/session.h"
#include "cli/server_module.h"

namespace inmanta::cli::client {

namespace {

struct TokenOptions {
  std::string environment;
  bool api = false, compiler = false, agent = false, json = false;
};

}  // namespace

void addTokenCommands(CLI::App& root, Session& session) {
  CLI::App* group = root.add_subcommand("token", "Subcommand to manage access tokens");
  group->require_subcommand(1);
  auto o = std::make_shared<TokenOptions>();

  CLI::App* create =
      group->add_subcommand("create", "Create a new token for an environment for the specified client types");
  addEnvironmentOption(*create, o->environment);
  create->add_flag("--api", o->api, "Add client_type api to the token.");
  create->add_flag("--compiler", o->compiler, "Add client_type compiler to the token.");
  create->add_flag("--agent", o->agent, "Add client_type agent to the token.");
  addJsonFlag(*create, o->json);
  create->callback([&session, o] {
    std::string tid = session.environmentId(o->environment);
    json clientTypes = json::array();
    if (o->api) clientTypes.push_back("api");
    if (o->compiler) clientTypes.push_back("compiler");
    if (o->agent) clientTypes.push_back("agent");
    json token = session.requestKey("POST", "/api/v1/environment_auth", "token", {{"client_types", clientTypes}}, tid);
    if (o->json) printJson(token);
    else std::cout << "Token: " << pythonStr(token) << "\n";
  });

  CLI::App* bootstrap = group->add_subcommand("bootstrap",
                                              "Generate a bootstrap token that provides access to everything. This "
                                              "token is only valid for 3600 seconds.");
  bootstrap->callback([] {
    // the reference's: every client type, no environment, one hour; the configuration is read as
    // the reference's Config.load_config() reads it (the standard files and INMANTA_* variables)
    server::ServerLaunch launch;
    launch.command = server::ServerLaunch::Command::mintToken;
    launch.clientTypes = {"api", "compiler", "agent"};
    launch.tokenExpire = 3600;
    launch.tokenPrefix = "Token: ";
    int status = runServerModule(launch, GlobalOptions{}, 1);
    if (status != 0) throw CliError("", status);  // the module has printed why
  });
}

}  // namespace inmanta::cli::client
