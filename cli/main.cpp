// The `inmanta` command: the global flags, the subcommands of the table (command.h, one file
// each), the parse, and one place that maps errors to exit codes.
#include <CLI/CLI.hpp>

#include <exception>
#include <iostream>
#include <string_view>

#include "cli/command.h"
#include "cli/inmanta_cli/session.h"
#include "installer/installer.h"

#ifndef INMANTA_VERSION
#define INMANTA_VERSION "0.0.0"
#endif

int main(int argc, char** argv) {
  // The same binary is the management client when called as inmanta-cli (an installed symlink).
  std::string_view self = argc > 0 ? argv[0] : "";
  if (self.substr(self.rfind('/') + 1) == "inmanta-cli") return inmanta::cli::runInmantaCli(argc, argv);

  CLI::App app{"inmanta: compile, export and deploy Inmanta models (inmanta-cpp)", "inmanta"};
  app.require_subcommand(0, 1);
  app.set_version_flag("-V,--version", std::string("inmanta-cpp ") + INMANTA_VERSION +
                                           " (language of inmanta-core 19.1.0 with std 5.2.8)");
  inmanta::cli::GlobalOptions globals;
  inmanta::cli::addLogFlags(app, globals);
  app.add_option("-c,--config", globals.configFile, "Also read this configuration file (after .inmanta)")
      ->check(CLI::ExistingFile);
  app.add_option("--config-dir", globals.configDir,
                 "The folder of *.cfg configuration files (default /etc/inmanta/inmanta.d)");

  std::vector<std::unique_ptr<inmanta::cli::Command>> commands = inmanta::cli::makeCommands();
  std::vector<CLI::App*> subcommands;
  for (const auto& command : commands) subcommands.push_back(command->add(app, globals));

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);  // prints the help, the version or the error
    return code == 0 ? 0 : 2;
  }

  try {
    for (size_t i = 0; i < commands.size(); ++i)
      if (subcommands[i]->parsed()) return commands[i]->run(globals);
    std::cout << app.help();
    return 0;
  } catch (const inmanta::installer::ProjectError& e) {
    std::cerr << "Error: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "Error: InternalError: " << e.what() << "\n";
    return 1;
  }
}
