#include "compiler/plugin.h"

#include <algorithm>

namespace inmanta::compiler {

void PluginRegistry::add(PluginSpec spec) {
  std::string key = spec.fullName();
  plugins_[key] = std::make_unique<PluginSpec>(std::move(spec));
}

const PluginSpec* PluginRegistry::find(std::string_view fullName) const {
  auto it = plugins_.find(fullName);
  if (it != plugins_.end()) return it->second.get();
  return fallback_ != nullptr ? fallback_->find(fullName) : nullptr;
}

std::vector<std::string> PluginRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& entry : plugins_) out.push_back(entry.first);
  if (fallback_ != nullptr) {
    for (std::string& n : fallback_->names())
      if (plugins_.find(n) == plugins_.end()) out.push_back(std::move(n));
    std::sort(out.begin(), out.end());
  }
  return out;
}

std::vector<const PluginSpec*> PluginRegistry::inNamespace(std::string_view ns) const {
  std::vector<const PluginSpec*> out;
  for (const auto& [name, spec] : plugins_)
    if (spec->ns == ns) out.push_back(spec.get());
  if (fallback_ != nullptr)
    for (const PluginSpec* p : fallback_->inNamespace(ns))
      if (plugins_.find(p->fullName()) == plugins_.end()) out.push_back(p);
  return out;
}

}  // namespace inmanta::compiler
