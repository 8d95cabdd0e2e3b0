#include "modules/std/plugins/std_plugins.h"

#include "modules/std/plugins/std_support.h"

namespace inmanta::stdmodule {

void registerStdPlugins(compiler::PluginRegistry& registry) {
  addPlugin(registry, "print", {param("message", "any")}, "null",
            [](PluginContext& ctx, const Args& args, const Kwargs&) {
              ctx.out() << runtime::printForm(args[0]) << "\n";
              return Value();
            });
  addPlugin(registry, "assert", {param("expression", "bool"), param("message", "string", Value(""))}, "null",
            [](PluginContext&, const Args& args, const Kwargs&) {
              if (!args[0].asBool()) fail("AssertionError", "Assertion error: " + args[1].asString());
              return Value();
            });
  registerStringPlugins(registry);
  registerListPlugins(registry);
  registerNetworkPlugins(registry);
  registerValidationPlugins(registry);
  registerSystemPlugins(registry);
}

}  // namespace inmanta::stdmodule
