// `inmanta module list`: the modules the project uses, their versions and constraints.
#include <iostream>

#include "cli/command.h"
#include "installer/project_tools.h"

namespace inmanta::cli {

namespace {

class ModuleCommand : public Command {
 public:
  CLI::App* add(CLI::App& app, GlobalOptions&) override {
    CLI::App* cmd = app.add_subcommand("module", "Inspect the project's modules");
    cmd->require_subcommand(1);
    list_ = cmd->add_subcommand("list", "List the modules the project uses: version, path, constraint");
    list_->add_option("--project", listOptions_.projectDir, "The project folder (default: found upwards)");
    list_->add_flag("--json", listOptions_.json, "Print a JSON array");
    return cmd;
  }

  int run(const GlobalOptions&) override {
    if (list_->parsed()) installer::listModules(listOptions_, std::cout, std::cerr);
    return 0;
  }

 private:
  CLI::App* list_ = nullptr;
  installer::ListOptions listOptions_;
};

}  // namespace

std::unique_ptr<Command> makeModuleCommand() { return std::make_unique<ModuleCommand>(); }

}  // namespace inmanta::cli
