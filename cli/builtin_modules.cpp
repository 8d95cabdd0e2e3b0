#include "cli/builtin_modules.h"

#include <unistd.h>

#include "cli/huge_pages.h"
#include "modules/std/plugins/std_plugins.h"

namespace inmanta::cli {

void registerBuiltinModules(compiler::PluginRegistry& plugins, compiler::ResourceTypeRegistry& types) {
  stdmodule::registerStdPlugins(plugins);
  stdmodule::registerStdResourceTypes(types);
}

void prepareExportCompile(exporter::ExportOptions& options, BuiltinModules& modules, const GlobalOptions& globals) {
  preferHugePages();
  options.compile.verbosity = globals.verbosity;
  options.compile.trace = globals.trace;
  options.compile.color = useColor(globals.color, STDERR_FILENO);
  registerBuiltinModules(modules.plugins, modules.types);
  options.compile.plugins = &modules.plugins;
  options.compile.keepMemoryAtExit = true;
  options.types = &modules.types;
}

}  // namespace inmanta::cli
