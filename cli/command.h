// One subcommand of `inmanta` per file (as Nix's src/nix/*.cc): compile.cpp, export.cpp,
// project.cpp, module.cpp. main.cpp makes the app with the global flags, lets every command of
// the table (command.cpp) add its subcommand, parses, runs the parsed one and maps its errors to
// exit codes. A new command is a new file, a factory below and a line in the table.
#pragma once

#include <CLI/CLI.hpp>

#include <memory>
#include <string>
#include <vector>

namespace inmanta::cli {

// The flags of `inmanta` itself, given before the subcommand.
struct GlobalOptions {
  int verbosity = 0;       // -v, -vv
  bool trace = false;      // -X
  std::string configFile;  // -c
  std::string configDir = "/etc/inmanta/inmanta.d";
  std::string color = "auto";  // --color: auto, always or never
};

// Whether to colour what goes to file descriptor `fd`: --color always or never decides; with
// auto, NO_COLOR (set, not empty) says no, CLICOLOR_FORCE (set, not 0) says yes, TERM=dumb says
// no, and otherwise only a terminal gets colour (never a pipe or a file).
bool useColor(const std::string& mode, int fd);

// -v, -X and --color, on `inmanta` itself and after the commands that compile, into `globals`.
inline void addLogFlags(CLI::App& app, GlobalOptions& globals) {
  app.add_flag("-v,--verbose", globals.verbosity,
               "More log output: -v for the warnings about the bundled std and every place of a repeated one, "
               "-vv for info, -vvv for debug");
  app.add_flag("-X,--extended-errors", globals.trace, "Show internal details of failures");
  app.add_option("--color", globals.color,
                 "Colour the diagnostics: auto (on a terminal, unless NO_COLOR is set or TERM is dumb; "
                 "CLICOLOR_FORCE forces it), always or never")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->default_str("auto");
}

class Command {
 public:
  virtual ~Command() = default;
  // Adds the subcommand with its options (and its own subcommands) to `app` and returns it. The
  // options may write into `globals`, which outlives the command (export takes -v and -X too).
  virtual CLI::App* add(CLI::App& app, GlobalOptions& globals) = 0;
  // Runs the command after a parse that selected it; returns the exit status. User errors are
  // installer::ProjectError, anything else is internal: main reports both.
  virtual int run(const GlobalOptions& globals) = 0;
};

std::unique_ptr<Command> makeCompileCommand();
std::unique_ptr<Command> makeProjectCommand();
std::unique_ptr<Command> makeModuleCommand();
std::unique_ptr<Command> makeExportCommand();
std::unique_ptr<Command> makeDeployCommand();
std::unique_ptr<Command> makeServerCommand();
std::unique_ptr<Command> makeTokenCommand();
std::unique_ptr<Command> makeExecutorCommand();
std::unique_ptr<Command> makeCompletionCommand();
std::unique_ptr<Command> makeManCommand();

// Every command, in the order `inmanta --help` lists them.
std::vector<std::unique_ptr<Command>> makeCommands();

}  // namespace inmanta::cli
