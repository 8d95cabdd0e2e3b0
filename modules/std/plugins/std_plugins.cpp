#include "std_plugins.h"

namespace inmanta::stdmodule {

namespace runtime = compiler::runtime;
using compiler::PluginContext;
using compiler::PluginParam;
using compiler::PluginSpec;
using runtime::Value;
using Kwargs = std::vector<std::pair<std::string, Value>>;

void registerStringPlugins(compiler::PluginRegistry& registry);
void registerListPlugins(compiler::PluginRegistry& registry);
void registerNetworkPlugins(compiler::PluginRegistry& registry);
void registerSystemPlugins(compiler::PluginRegistry& registry);

namespace {
PluginParam param(std::string name, std::string type) { return PluginParam{std::move(name), std::move(type), {}, false, false}; }
PluginParam param(std::string name, std::string type, Value def) {
  return PluginParam{std::move(name), std::move(type), std::move(def), false, false};
}
}  // namespace

void registerStdPlugins(compiler::PluginRegistry& registry) {
  registry.add(PluginSpec{"std", "print", {param("message", "any")}, false, "null", false, false, false,
                          [](PluginContext& ctx, const std::vector<Value>& args, const Kwargs&) {
                            ctx.out() << runtime::printForm(args[0]) << "\n";
                            return Value();
                          }});
  registry.add(PluginSpec{"std", "assert", {param("expression", "bool"), param("message", "string", Value(""))}, false,
                          "null", false, false, false,
                          [](PluginContext&, const std::vector<Value>& args, const Kwargs&) {
                            if (!args[0].asBool())
                              throw compiler::PluginFailure("AssertionError", "Assertion error: " + args[1].asString());
                            return Value();
                          }});
  registerStringPlugins(registry);
  registerListPlugins(registry);
  registerNetworkPlugins(registry);
  registerSystemPlugins(registry);
}

}  // namespace inmanta::stdmodule
