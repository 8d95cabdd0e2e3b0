#include "cli/builtin_modules.h"

#include "modules/std/plugins/std_plugins.h"

namespace inmanta::cli {

void registerBuiltinModules(compiler::PluginRegistry& plugins, compiler::ResourceTypeRegistry& types) {
  stdmodule::registerStdPlugins(plugins);
  stdmodule::registerStdResourceTypes(types);
}

}  // namespace inmanta::cli
