// The plugins of the bundled std module (spec Appendix A.8), implemented in C++.
#pragma once

#include "compiler/plugin.h"
#include "compiler/resource_types.h"

namespace inmanta::stdmodule {

// Registers every std plugin in the `std` namespace.
void registerStdPlugins(compiler::PluginRegistry& registry);

// Registers std's resource types (export spec 1.2: Service, File, Directory, Package, Symlink,
// testing::NullResource, AgentConfig, in that order) and the directory-before-file dependency
// manager (1.6).
void registerStdResourceTypes(compiler::ResourceTypeRegistry& registry);

// The values std::file returned (kept alive, so their identities stay theirs): std's FileMarker,
// a str subclass, is only the object std::file made; a string built from it (interpolation, `+`)
// is plain text.
std::vector<compiler::runtime::Value>& fileMarkers();
bool isFileMarker(const compiler::runtime::Value& v);

}  // namespace inmanta::stdmodule
