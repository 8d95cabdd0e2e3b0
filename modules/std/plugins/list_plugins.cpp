// std plugins: list (spec Appendix A.8).
#include "std_plugins.h"

namespace inmanta::stdmodule {

void registerListPlugins(compiler::PluginRegistry& registry) { (void)registry; }

}  // namespace inmanta::stdmodule
