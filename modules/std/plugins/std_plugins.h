// The plugins of the bundled std module (spec Appendix A.8), implemented in C++.
#pragma once

#include "plugin.h"

namespace inmanta::stdmodule {

// Registers every std plugin in the `std` namespace.
void registerStdPlugins(compiler::PluginRegistry& registry);

}  // namespace inmanta::stdmodule
