// The `inmanta-cli` command line: the global --host/--port, the command groups, the parse, and one
// place that turns failures into messages and exit codes (the reference's: 1 for a failed
// request or a refused combination of options, 2 for a usage error).
#include <iostream>
#include <memory>

#include "cli/inmanta_cli/session.h"

namespace inmanta::cli {

std::unique_ptr<CLI::App> makeInmantaCliApp(client::Session& session) {
  auto app = std::make_unique<CLI::App>(
      "inmanta-cli: manage the projects, environments, versions, agents and parameters of an Inmanta "
      "server (inmanta-cpp)",
      "inmanta-cli");
  app->require_subcommand(0, 1);
  app->add_option("--host", session.host, "The server hostname to connect to");
  app->add_option("--port", session.port, "The server port to connect to");

  client::addProjectCommands(*app, session);
  client::addEnvironmentCommands(*app, session);
  client::addAgentCommands(*app, session);
  client::addVersionCommands(*app, session);
  client::addParamCommands(*app, session);
  client::addTokenCommands(*app, session);
  client::addActionLogCommands(*app, session);
  client::addMonitorCommand(*app, session);
  return app;
}

int runInmantaCli(int argc, char** argv) {
  using client::CliError;
  client::Session session;
  std::unique_ptr<CLI::App> made = makeInmantaCliApp(session);
  CLI::App& app = *made;

  try {
    app.parse(argc, argv);  // the chosen command's callback runs here
    if (app.get_subcommands().empty()) std::cout << app.help();
    return 0;
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);  // prints the help or the usage error
    return code == 0 ? 0 : 2;
  } catch (const CliError& e) {
    if (*e.what() != '\0') std::cerr << "Error: " << e.what() << "\n";
    return e.code();
  } catch (const std::exception& e) {
    std::cerr << "Error: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace inmanta::cli
