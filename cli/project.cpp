// `inmanta project install|update|init|freeze`: the project's modules and its project.yml.
#include <iostream>

#include "cli/command.h"
#include "installer/installer.h"
#include "installer/project_tools.h"
#include "installer/python_env.h"

namespace inmanta::cli {

namespace {

class ProjectCommand : public Command {
 public:
  CLI::App* add(CLI::App& app, GlobalOptions&) override {
    CLI::App* cmd = app.add_subcommand("project", "Manage the project: its modules and project.yml");
    cmd->require_subcommand(1);
    install_ = cmd->add_subcommand(
        "install", "Install every module the project imports or requires and does not have, from its repo entries");
    update_ = cmd->add_subcommand(
        "update", "Install missing modules and move installed git clones to the newest version the constraints allow");
    for (CLI::App* sub : {install_, update_}) {
      sub->add_option("--project", installOptions_.projectDir, "The project folder (default: found upwards)");
      sub->add_flag("--pre", installOptions_.allowPrereleases,
                    "Allow pre-release versions (of modules and of Python packages)");
      sub->add_flag("--no-index", pipOptions_.noIndex,
                    "Install the modules' Python requirements without a package index (pip --no-index)");
      sub->add_option("--find-links", pipOptions_.findLinks,
                      "Also look for Python packages in this folder or URL (pip --find-links; repeatable)")
          ->allow_extra_args(false);
    }
    init_ = cmd->add_subcommand("init", "Create a new project: project.yml, main.cf and .gitignore");
    init_->add_option("NAME", initName_, "The project's name (also its folder's)")->required();
    init_->add_option("-o,--output-dir", initDir_, "Where to create the project folder (default: here)");
    freeze_ = cmd->add_subcommand("freeze", "Write the installed module versions into project.yml's requires");
    freeze_->add_option("--project", freezeOptions_.projectDir, "The project folder (default: found upwards)");
    freeze_->add_option("-o,--outfile", freezeOptions_.outFile,
                        "Write here instead of project.yml (- for standard output)");
    freeze_
        ->add_option("--operator", freezeOptions_.op, "==, ~= or >= (default: project.yml's freeze_operator, else ~=)")
        ->check(CLI::IsMember({"==", "~=", ">="}));
    freeze_->add_flag("--recursive,!--no-recursive", freezeOptions_.recursive,
                      "Freeze every module, not only those main.cf imports (default: project.yml's freeze_recursive)");
    return cmd;
  }

  int run(const GlobalOptions&) override {
    if (install_->parsed() || update_->parsed()) {
      if (update_->parsed()) installOptions_.mode = installer::ResolveMode::Update;
      installer::ResolveResult resolved = installer::resolveProject(installOptions_, std::cerr);
      pipOptions_.pre = installOptions_.allowPrereleases;
      pipOptions_.upgrade = update_->parsed();
      installer::installPythonRequirements(resolved, pipOptions_, std::cerr);
    } else if (init_->parsed()) {
      std::cerr << "created " << installer::initProject(initName_, initDir_) << "\n";
    } else if (freeze_->parsed()) {
      installer::freezeProject(freezeOptions_, std::cout, std::cerr);
    }
    return 0;
  }

 private:
  CLI::App* install_ = nullptr;
  CLI::App* update_ = nullptr;
  CLI::App* init_ = nullptr;
  CLI::App* freeze_ = nullptr;
  installer::InstallOptions installOptions_;
  installer::PipOptions pipOptions_;
  std::string initName_, initDir_ = ".";
  installer::FreezeOptions freezeOptions_;
};

}  // namespace

std::unique_ptr<Command> makeProjectCommand() { return std::make_unique<ProjectCommand>(); }

}  // namespace inmanta::cli
