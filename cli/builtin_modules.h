// The modules compiled into the binary (today std): their plugins and resource types, registered
// once for every command that compiles.
#pragma once

#include "compiler/plugin.h"
#include "compiler/resource_types.h"

namespace inmanta::cli {

// Registers the plugins and the resource types of the built-in modules.
void registerBuiltinModules(compiler::PluginRegistry& plugins, compiler::ResourceTypeRegistry& types);

}  // namespace inmanta::cli
