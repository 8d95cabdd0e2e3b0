// The plugins of the bundled std module (spec Appendix A.8), implemented in C++.
#pragma once

#include "plugin.h"
#include "resource_types.h"

namespace inmanta::stdmodule {

// Registers every std plugin in the `std` namespace.
void registerStdPlugins(compiler::PluginRegistry& registry);

// Registers std's resource types (export spec 1.2: Service, File, Directory, Package, Symlink,
// testing::NullResource, AgentConfig, in that order) and the directory-before-file dependency
// manager (1.6).
void registerStdResourceTypes(compiler::ResourceTypeRegistry& registry);

}  // namespace inmanta::stdmodule
