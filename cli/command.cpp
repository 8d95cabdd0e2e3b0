#include "cli/command.h"

namespace inmanta::cli {

namespace {

using Factory = std::unique_ptr<Command> (*)();

// The table of commands, in the order of `inmanta --help`.
constexpr Factory kCommands[] = {
    makeCompileCommand, makeProjectCommand, makeModuleCommand,   makeExportCommand,     makeDeployCommand,
    makeServerCommand,  makeTokenCommand,   makeExecutorCommand, makeCompletionCommand, makeManCommand,
};

}  // namespace

std::vector<std::unique_ptr<Command>> makeCommands() {
  std::vector<std::unique_ptr<Command>> commands;
  for (Factory make : kCommands) commands.push_back(make());
  return commands;
}

}  // namespace inmanta::cli
