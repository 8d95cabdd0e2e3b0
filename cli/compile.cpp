// `inmanta compile [--install]`: compile the project's model with the run's settings.
#include <unistd.h>

#include <iostream>

#include "cli/builtin_modules.h"
#include "cli/command.h"
#include "cli/diagnostics_format.h"
#include "cli/huge_pages.h"
#include "cli/server_flags.h"
#include "compiler/driver.h"
#include "exporter/export.h"
#include "installer/installer.h"
#include "installer/python_env.h"

namespace inmanta::cli {

namespace {

class CompileCommand : public Command {
 public:
  CLI::App* add(CLI::App& app, GlobalOptions& globals) override {
    CLI::App* cmd = app.add_subcommand("compile", "Compile the project's model (main.cf with its modules)");
    cmd->add_option("--project", options_.projectDir,
                    "The project folder (default: the nearest folder upwards with a project.yml)");
    server_.add(cmd);
    cmd->add_flag("--install", install_,
                  "Install the project's missing modules and Python requirements first (as `inmanta project install`)");
    addLogFlags(*cmd, globals);  // as after export and deploy
    format_.add(cmd, true);
    return cmd;
  }

  int run(const GlobalOptions& globals) override {
    if (install_) {
      installer::InstallOptions installOptions;
      installOptions.projectDir = options_.projectDir;
      installer::installPythonRequirements(installer::resolveProject(installOptions, std::cerr), {}, std::cerr);
    }
    preferHugePages();
    options_.verbosity = globals.verbosity;
    options_.trace = globals.trace;
    compiler::PluginRegistry plugins;
    compiler::ResourceTypeRegistry types;
    registerBuiltinModules(plugins, types);
    options_.plugins = &plugins;
    options_.resourceTypes = &types;
    options_.keepMemoryAtExit = true;
    options_.color = useColor(globals.color, STDERR_FILENO);
    // with --json, stdout carries the document alone: the model's std::print output goes to stderr
    if (format_.json()) options_.diagnosticsJson = &std::cout;
    exporter::SettingsFlags settings;
    server_.applyTo(settings, globals.configFile, globals.configDir);
    return exporter::runCompileWithSettings(options_, settings, format_.json() ? std::cerr : std::cout, std::cerr);
  }

 private:
  compiler::CompileOptions options_;
  ServerFlags server_;
  bool install_ = false;
  DiagnosticsFormat format_;
};

}  // namespace

std::unique_ptr<Command> makeCompileCommand() { return std::make_unique<CompileCommand>(); }

}  // namespace inmanta::cli
