#include "cli/command.h"

#include <unistd.h>

#include <cstdlib>
#include <string_view>

namespace inmanta::cli {

namespace {

using Factory = std::unique_ptr<Command> (*)();

// The table of commands, in the order of `inmanta --help`.
constexpr Factory kCommands[] = {
    makeCompileCommand, makeProjectCommand, makeModuleCommand,   makeExportCommand,     makeDeployCommand,
    makeServerCommand,  makeTokenCommand,   makeExecutorCommand, makeCompletionCommand, makeManCommand,
};

}  // namespace

bool useColor(const std::string& mode, int fd) {
  if (mode == "always") return true;
  if (mode == "never") return false;
  auto variable = [](const char* name) { return std::string_view(std::getenv(name) ? std::getenv(name) : ""); };
  if (!variable("NO_COLOR").empty()) return false;
  if (std::string_view force = variable("CLICOLOR_FORCE"); !force.empty() && force != "0") return true;
  if (variable("TERM") == "dumb") return false;
  return isatty(fd) != 0;
}

std::vector<std::unique_ptr<Command>> makeCommands() {
  std::vector<std::unique_ptr<Command>> commands;
  for (Factory make : kCommands) commands.push_back(make());
  return commands;
}

}  // namespace inmanta::cli
