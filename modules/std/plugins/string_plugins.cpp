// std plugins: string (spec Appendix A.8).
#include "std_plugins.h"

namespace inmanta::stdmodule {

void registerStringPlugins(compiler::PluginRegistry& registry) { (void)registry; }

}  // namespace inmanta::stdmodule
