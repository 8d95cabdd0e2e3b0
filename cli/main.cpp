// The `inmanta` command: flags into option structs, one library call per subcommand, exit codes.
#include <CLI/CLI.hpp>

#include <exception>
#include <iostream>

#include "driver.h"
#include "export.h"
#include "std_plugins.h"

#ifndef INMANTA_VERSION
#define INMANTA_VERSION "0.0.0"
#endif

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
  app.add_option("-c,--config", configFile, "Use this configuration file instead of .inmanta")->check(CLI::ExistingFile);

  inmanta::compiler::CompileOptions compileOptions;
  CLI::App* compile = app.add_subcommand("compile", "Compile the project's model (main.cf with its modules)");
  compile->add_option("--project", compileOptions.projectDir,
                      "The project folder (default: the nearest folder upwards with a project.yml)");

  inmanta::exporter::ExportOptions exportOptions;
  CLI::App* exportCmd = app.add_subcommand("export", "Compile the project and export its resources (to a file with -j)");
  exportCmd->add_option("--project", exportOptions.compile.projectDir,
                        "The project folder (default: the nearest folder upwards with a project.yml)");
  exportCmd->add_option("-j,--json", exportOptions.jsonFile,
                        "Write the resources to this file as JSON instead of sending them to a server (offline)");
  exportCmd->add_flag("-g,--dependency-graph", exportOptions.dependencyGraph,
                      "Also write the resources and their requires to dependencies.dot in the current folder");
  exportCmd->add_flag("-v,--verbose", verbosity, "More log output: -v for info, -vv for debug");
  exportCmd->add_flag("-X,--extended-errors", trace, "Show internal details of failures");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);  // prints the help, the version or the error
    return code == 0 ? 0 : 2;
  }

  try {
    if (compile->parsed()) {
      compileOptions.verbosity = verbosity;
      compileOptions.trace = trace;
      inmanta::compiler::PluginRegistry plugins;
      inmanta::stdmodule::registerStdPlugins(plugins);
      compileOptions.plugins = &plugins;
      compileOptions.keepMemoryAtExit = true;
      auto status = inmanta::compiler::runCompile(compileOptions, std::cout, std::cerr);
      return status == inmanta::compiler::CompileStatus::Success ? 0 : static_cast<int>(status);
    }
    if (exportCmd->parsed()) {
      exportOptions.compile.verbosity = verbosity;
      exportOptions.compile.trace = trace;
      inmanta::compiler::PluginRegistry plugins;
      inmanta::stdmodule::registerStdPlugins(plugins);
      inmanta::compiler::ResourceTypeRegistry types;
      inmanta::stdmodule::registerStdResourceTypes(types);
      exportOptions.compile.plugins = &plugins;
      exportOptions.compile.keepMemoryAtExit = true;
      exportOptions.types = &types;
      return inmanta::exporter::runExport(exportOptions, std::cout, std::cerr);
    }
    std::cout << app.help();
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "Error: InternalError: " << e.what() << "\n";
    return 1;
  }
}
