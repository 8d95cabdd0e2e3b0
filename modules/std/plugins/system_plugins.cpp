// std plugins: system (spec Appendix A.8).
#include "std_plugins.h"

namespace inmanta::stdmodule {

void registerSystemPlugins(compiler::PluginRegistry& registry) { (void)registry; }

}  // namespace inmanta::stdmodule
