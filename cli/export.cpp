// `inmanta export`: compile, then write the resources to a file (-j) or push them to the server.
#include <iostream>

#include "cli/builtin_modules.h"
#include "cli/command.h"
#include "cli/diagnostics_format.h"
#include "cli/server_flags.h"
#include "exporter/export.h"

namespace inmanta::cli {

namespace {

class ExportCommand : public Command {
 public:
  CLI::App* add(CLI::App& app, GlobalOptions& globals) override {
    auto& ex = options_;
    CLI::App* cmd = app.add_subcommand("export", "Compile the project and export its resources (to a file with -j)");
    cmd->add_option("--project", ex.compile.projectDir,
                    "The project folder (default: the nearest folder upwards with a project.yml)");
    cmd->add_option("-j,--json", ex.jsonFile,
                    "Write the resources to this file as JSON instead of sending them to a server (offline)");
    cmd->add_flag("-g,--dependency-graph", ex.dependencyGraph,
                  "Also write the resources and their requires to dependencies.dot in the current folder");
    server_.add(cmd);
    cmd->add_flag("-d,--deploy", ex.push.deploy, "Release the new version for deployment");
    cmd->add_flag("--full", ex.push.full, "With -d: release as a full deploy (push_full_deploy)");
    cmd->add_option("--metadata", ex.push.metadata,
                    "The version's metadata: a JSON object, or a text used as its message");
    cmd->add_option("-m,--message", ex.push.message, "The version's message");
    cmd->add_flag("--partial", ex.push.partial, "Export a partial version (only the resource sets of this model)");
    cmd->add_flag("--allow-handler-code-update", ex.push.allowHandlerCodeUpdate,
                  "With --partial: allow the handler code to change");
    cmd->add_option("--delete-resource-set", ex.push.removedSets,
                    "With --partial: remove this resource set (repeatable; also INMANTA_REMOVED_RESOURCE_SET_ID)");
    cmd->add_flag("--soft-delete", ex.push.softDelete,
                  "With --partial: do not remove resource sets whose resources are all gone");
    cmd->add_option("--export-plugin", ex.exportPlugin,
                    "Run only this export plugin (a module's @export hook), not those config.export lists");
    // -v and -X are also taken after `export`, into the global flags
    addLogFlags(*cmd, globals);
    format_.add(cmd, false);  // -j,--json names the resource file
    return cmd;
  }

  int run(const GlobalOptions& globals) override {
    BuiltinModules modules;
    prepareExportCompile(options_, modules, globals);
    server_.applyTo(options_.settings, globals.configFile, globals.configDir);
    // with --format json, stdout carries the document alone: std::print output goes to stderr
    if (format_.json()) options_.compile.diagnosticsJson = &std::cout;
    return exporter::runExport(options_, format_.json() ? std::cerr : std::cout, std::cerr);
  }

 private:
  exporter::ExportOptions options_;
  ServerFlags server_;
  DiagnosticsFormat format_;
};

}  // namespace

std::unique_ptr<Command> makeExportCommand() { return std::make_unique<ExportCommand>(); }

}  // namespace inmanta::cli
