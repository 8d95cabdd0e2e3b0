#include "compiler/plugin.h"

namespace inmanta::compiler {

void PluginRegistry::add(PluginSpec spec) {
  std::string key = spec.fullName();
  plugins_[key] = std::make_unique<PluginSpec>(std::move(spec));
}

const PluginSpec* PluginRegistry::find(std::string_view fullName) const {
  auto it = plugins_.find(fullName);
  return it == plugins_.end() ? nullptr : it->second.get();
}

std::vector<std::string> PluginRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& entry : plugins_) out.push_back(entry.first);
  return out;
}

std::vector<const PluginSpec*> PluginRegistry::inNamespace(std::string_view ns) const {
  std::vector<const PluginSpec*> out;
  for (const auto& [name, spec] : plugins_)
    if (spec->ns == ns) out.push_back(spec.get());
  return out;
}

}  // namespace inmanta::compiler
