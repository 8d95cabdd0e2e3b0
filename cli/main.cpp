// The `inmanta` command: flags into option structs, one library call per subcommand, exit codes.
#include <CLI/CLI.hpp>

#include <exception>
#include <iostream>

#include "compiler/driver.h"
#include "installer/installer.h"
#include "installer/project_tools.h"
#include "exporter/export.h"
#include "cli/huge_pages.h"
#include "modules/std/plugins/std_plugins.h"

#ifndef INMANTA_VERSION
#define INMANTA_VERSION "0.0.0"
#endif

namespace {

// The server flags of `compile` and `export` (export spec 5.2, 5.3): they win over .inmanta and
// INMANTA_* (decision X4).
const char* const kSettingsFooter =
    "Settings come from /etc/inmanta/inmanta.cfg, /etc/inmanta/inmanta.d/*.cfg, ~/.inmanta.cfg, ./.inmanta, "
    "./.inmanta.cfg and -c FILE (later wins), then INMANTA_<SECTION>_<OPTION> environment variables, then these "
    "flags. Unlike the reference, flags win over INMANTA_* variables.";

struct ServerFlags {
  std::string environment, serverAddress, token, caFile;
  int serverPort = 0;
  bool ssl = false, noSsl = false;

  void add(CLI::App* cmd) {
    cmd->add_option("-e,--environment", environment, "The environment id (default: config.environment)");
    cmd->add_option("--server_address", serverAddress,
                    "The server's host (default: compiler_rest_transport.host, localhost)");
    cmd->add_option("--server_port", serverPort, "The server's port (default: compiler_rest_transport.port, 8888)")
        ->check(CLI::Range(1, 65535));
    cmd->add_option("--token", token, "The bearer token for the server (default: compiler_rest_transport.token)");
    cmd->add_flag("--ssl", ssl, "Talk https to the server");
    cmd->add_flag("--no-ssl", noSsl, "Talk plain http to the server");
    cmd->add_option("--ssl-ca-cert", caFile, "The CA bundle to check the server's certificate with")
        ->check(CLI::ExistingFile);
  }
  void applyTo(inmanta::exporter::SettingsFlags& s, const std::string& configFile, const std::string& configDir) const {
    if (!environment.empty()) s.environment = environment;
    if (!serverAddress.empty()) s.host = serverAddress;
    if (serverPort) s.port = serverPort;
    if (!token.empty()) s.token = token;
    if (!caFile.empty()) s.caFile = caFile;
    if (ssl) s.ssl = true;
    if (noSsl) s.ssl = false;
    s.configFile = configFile;
    s.configDir = configDir;
  }
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"inmanta: compile, export and deploy Inmanta models (inmanta-cpp)", "inmanta"};
  app.require_subcommand(0, 1);
  app.set_version_flag("-V,--version",
                       std::string("inmanta-cpp ") + INMANTA_VERSION +
                           " (language of inmanta-core 19.1.0 with std 5.2.8)");
  int verbosity = 0;
  bool trace = false;
  std::string configFile;
  app.add_flag("-v,--verbose", verbosity, "More log output: -v for info, -vv for debug");
  app.add_flag("-X,--extended-errors", trace, "Show internal details of failures");
  app.add_option("-c,--config", configFile, "Also read this configuration file (after .inmanta)")->check(CLI::ExistingFile);
  std::string configDir = "/etc/inmanta/inmanta.d";
  app.add_option("--config-dir", configDir, "The folder of *.cfg configuration files (default /etc/inmanta/inmanta.d)");

  inmanta::compiler::CompileOptions compileOptions;
  CLI::App* compile = app.add_subcommand("compile", "Compile the project's model (main.cf with its modules)");
  compile->add_option("--project", compileOptions.projectDir,
                      "The project folder (default: the nearest folder upwards with a project.yml)");

  ServerFlags compileServer;
  compileServer.add(compile);
  compile->footer(kSettingsFooter);
  bool compileInstall = false;
  compile->add_flag("--install", compileInstall, "Install the project's missing modules first (as `inmanta project install`)");

  CLI::App* projectCmd = app.add_subcommand("project", "Manage the project: its modules and project.yml");
  projectCmd->require_subcommand(1);
  inmanta::installer::InstallOptions installOptions;
  CLI::App* install = projectCmd->add_subcommand(
      "install", "Install every module the project imports or requires and does not have, from its repo entries");
  CLI::App* update = projectCmd->add_subcommand(
      "update", "Install missing modules and move installed git clones to the newest version the constraints allow");
  for (CLI::App* sub : {install, update}) {
    sub->add_option("--project", installOptions.projectDir, "The project folder (default: found upwards)");
    sub->add_flag("--pre", installOptions.allowPrereleases, "Allow pre-release versions");
  }
  std::string initName, initDir = ".";
  CLI::App* init = projectCmd->add_subcommand("init", "Create a new project: project.yml, main.cf and .gitignore");
  init->add_option("NAME", initName, "The project's name (also its folder's)")->required();
  init->add_option("-o,--output-dir", initDir, "Where to create the project folder (default: here)");
  inmanta::installer::FreezeOptions freezeOptions;
  CLI::App* freeze = projectCmd->add_subcommand("freeze", "Write the installed module versions into project.yml's requires");
  freeze->add_option("--project", freezeOptions.projectDir, "The project folder (default: found upwards)");
  freeze->add_option("-o,--outfile", freezeOptions.outFile, "Write here instead of project.yml (- for standard output)");
  freeze->add_option("--operator", freezeOptions.op, "==, ~= or >= (default: project.yml's freeze_operator, else ~=)")
      ->check(CLI::IsMember({"==", "~=", ">="}));
  freeze->add_flag("--recursive,!--no-recursive", freezeOptions.recursive,
                   "Freeze every module, not only those main.cf imports (default: project.yml's freeze_recursive)");

  CLI::App* moduleCmd = app.add_subcommand("module", "Inspect the project's modules");
  moduleCmd->require_subcommand(1);
  inmanta::installer::ListOptions listOptions;
  CLI::App* list = moduleCmd->add_subcommand("list", "List the modules the project uses: version, path, constraint");
  list->add_option("--project", listOptions.projectDir, "The project folder (default: found upwards)");
  list->add_flag("--json", listOptions.json, "Print a JSON array");

  inmanta::exporter::ExportOptions exportOptions;
  CLI::App* exportCmd = app.add_subcommand("export", "Compile the project and export its resources (to a file with -j)");
  exportCmd->add_option("--project", exportOptions.compile.projectDir,
                        "The project folder (default: the nearest folder upwards with a project.yml)");
  exportCmd->add_option("-j,--json", exportOptions.jsonFile,
                        "Write the resources to this file as JSON instead of sending them to a server (offline)");
  exportCmd->add_flag("-g,--dependency-graph", exportOptions.dependencyGraph,
                      "Also write the resources and their requires to dependencies.dot in the current folder");
  auto& ex = exportOptions;
  std::string exportPlugin;
  ServerFlags exportServer;
  exportServer.add(exportCmd);
  exportCmd->add_flag("-d,--deploy", ex.push.deploy, "Release the new version for deployment");
  exportCmd->add_flag("--full", ex.push.full, "With -d: release as a full deploy (push_full_deploy)");
  exportCmd->add_option("--metadata", ex.push.metadata,
                        "The version's metadata: a JSON object, or a text used as its message");
  exportCmd->add_option("-m,--message", ex.push.message, "The version's message");
  exportCmd->add_flag("--partial", ex.push.partial, "Export a partial version (only the resource sets of this model)");
  exportCmd->add_flag("--allow-handler-code-update", ex.push.allowHandlerCodeUpdate,
                      "With --partial: allow the handler code to change");
  exportCmd->add_option("--delete-resource-set", ex.push.removedSets,
                        "With --partial: remove this resource set (repeatable; also INMANTA_REMOVED_RESOURCE_SET_ID)");
  exportCmd->add_flag("--soft-delete", ex.push.softDelete,
                      "With --partial: do not remove resource sets whose resources are all gone");
  exportCmd->add_option("--export-plugin", exportPlugin, "Run this export plugin (std defines none)");
  exportCmd->footer(kSettingsFooter);
  exportCmd->add_flag("-v,--verbose", verbosity, "More log output: -v for info, -vv for debug");
  exportCmd->add_flag("-X,--extended-errors", trace, "Show internal details of failures");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);  // prints the help, the version or the error
    return code == 0 ? 0 : 2;
  }

  try {
    if (install->parsed() || update->parsed() || (compile->parsed() && compileInstall)) {
      if (update->parsed()) installOptions.mode = inmanta::installer::ResolveMode::Update;
      if (compile->parsed()) installOptions.projectDir = compileOptions.projectDir;
      inmanta::installer::resolveProject(installOptions, std::cerr);
      if (!compile->parsed()) return 0;
    }
    if (init->parsed()) {
      std::cerr << "created " << inmanta::installer::initProject(initName, initDir) << "\n";
      return 0;
    }
    if (freeze->parsed()) {
      inmanta::installer::freezeProject(freezeOptions, std::cout, std::cerr);
      return 0;
    }
    if (list->parsed()) {
      inmanta::installer::listModules(listOptions, std::cout, std::cerr);
      return 0;
    }
    if (compile->parsed()) {
      inmanta::cli::preferHugePages();
      compileOptions.verbosity = verbosity;
      compileOptions.trace = trace;
      inmanta::compiler::PluginRegistry plugins;
      inmanta::stdmodule::registerStdPlugins(plugins);
      compileOptions.plugins = &plugins;
      inmanta::compiler::ResourceTypeRegistry types;
      inmanta::stdmodule::registerStdResourceTypes(types);
      compileOptions.resourceTypes = &types;
      compileOptions.keepMemoryAtExit = true;
      inmanta::exporter::SettingsFlags settings;
      compileServer.applyTo(settings, configFile, configDir);
      return inmanta::exporter::runCompileWithSettings(compileOptions, settings, std::cout, std::cerr);
    }
    if (exportCmd->parsed()) {
      inmanta::cli::preferHugePages();
      exportOptions.compile.verbosity = verbosity;
      exportOptions.compile.trace = trace;
      inmanta::compiler::PluginRegistry plugins;
      inmanta::stdmodule::registerStdPlugins(plugins);
      inmanta::compiler::ResourceTypeRegistry types;
      inmanta::stdmodule::registerStdResourceTypes(types);
      exportOptions.compile.plugins = &plugins;
      exportOptions.compile.keepMemoryAtExit = true;
      exportOptions.types = &types;
      exportOptions.exportPlugin = exportPlugin;
      exportServer.applyTo(ex.settings, configFile, configDir);
      return inmanta::exporter::runExport(exportOptions, std::cout, std::cerr);
    }
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
