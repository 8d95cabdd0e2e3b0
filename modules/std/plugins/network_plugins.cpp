// std plugins: network (spec Appendix A.8).
#include "std_plugins.h"

namespace inmanta::stdmodule {

void registerNetworkPlugins(compiler::PluginRegistry& registry) { (void)registry; }

}  // namespace inmanta::stdmodule
