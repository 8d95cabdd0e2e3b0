// A PluginContext for unit tests of plugins: captures output and warnings, serves attributes
// and settings from maps the test fills in.
#pragma once

#include <algorithm>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "compiler/plugin.h"

namespace inmanta::compiler::testing {

// A stand-in entity instance with a name and attributes.
class FakeInstance : public runtime::InstanceBase {
 public:
  FakeInstance(std::string entity, std::map<std::string, runtime::Value> attributes, size_t ordinal = 1)
      : entity_(std::move(entity)), attributes_(std::move(attributes)), ordinal_(ordinal) {}
  std::string display() const override { return entity_ + " (instantiated at ./main.cf:1)"; }
  const std::string& entity() const { return entity_; }
  std::map<std::string, runtime::Value>& attributes() { return attributes_; }
  // entities this one is (itself and its parents), fully qualified
  std::vector<std::string> isA;
  size_t ordinal() const { return ordinal_; }
  // attributes that exist but are not ready yet: reading them suspends
  std::vector<std::string> unready;

 private:
  std::string entity_;
  std::map<std::string, runtime::Value> attributes_;
  size_t ordinal_;
};

class FakePluginContext : public PluginContext {
 public:
  std::ostringstream output;
  // the caller's variables; reading one listed in `unreadyVariables` suspends
  std::map<std::string, runtime::Value> variables;
  std::vector<std::string> unreadyVariables;
  // where callPlugin finds plugins (none when null)
  const PluginRegistry* registry = nullptr;
  std::map<std::string, std::shared_ptr<void>, std::less<>> state;
  std::vector<std::pair<std::string, std::string>> warnings;
  std::map<std::string, std::string> moduleDirs;
  std::map<std::pair<std::string, std::string>, std::string> settings;
  std::string module = "__config__";
  std::string project = ".";

  std::ostream& out() override { return output; }
  void warn(const std::string& kind, const std::string& message) override { warnings.emplace_back(kind, message); }

  runtime::Value attribute(const runtime::Value& instance, std::string_view name) override {
    auto* fake = dynamic_cast<FakeInstance*>(instance.asInstance());
    for (const std::string& u : fake->unready)
      if (u == name) throw PluginSuspend(nullptr);
    auto it = fake->attributes().find(std::string(name));
    if (it == fake->attributes().end())
      throw PluginFailure("AttributeError",
                          "'" + fake->entity() + "' object has no attribute '" + std::string(name) + "'");
    return it->second;
  }
  bool isInstanceOf(const runtime::Value& instance, std::string_view entityName) override {
    auto* fake = dynamic_cast<FakeInstance*>(instance.asInstance());
    if (entityName.find("::") == std::string_view::npos)
      throw PluginFailure("AttributeError", "no entity named " + std::string(entityName));
    if (fake->entity() == entityName) return true;
    for (const std::string& p : fake->isA)
      if (p == entityName) return true;
    return false;
  }
  std::string entityName(const runtime::Value& instance) override {
    return dynamic_cast<FakeInstance*>(instance.asInstance())->entity();
  }
  size_t instanceOrdinal(const runtime::Value& instance) override {
    return dynamic_cast<FakeInstance*>(instance.asInstance())->ordinal();
  }
  std::string moduleDir(std::string_view m) override {
    auto it = moduleDirs.find(std::string(m));
    return it == moduleDirs.end() ? std::string() : it->second;
  }
  std::string callingModule() override { return module; }
  std::string callingNamespace() override { return module; }
  std::string projectDir() override { return project; }
  std::optional<std::string> setting(std::string_view section, std::string_view key) override {
    auto it = settings.find({std::string(section), std::string(key)});
    if (it == settings.end()) return std::nullopt;
    return it->second;
  }
  // the server plugins reach (none when null), the unknowns they report, their log lines
  ServerConnection* serverConnection = nullptr;
  std::vector<UnknownParameter> unknowns;
  std::vector<std::pair<std::string, std::string>> logs;
  // resourceId: by instance entity, `type[agent,attr=` + the id attribute's value + `]`
  std::map<std::string, std::pair<std::string, std::string>> resourcePrefixes;  // entity -> (prefix, id attribute)
  ServerConnection* server() override { return serverConnection; }
  void reportUnknown(UnknownParameter p) override { unknowns.push_back(std::move(p)); }
  void log(std::string_view level, const std::string& message) override { logs.emplace_back(level, message); }
  ResourceIdentity resourceId(const runtime::Value& instance) override {
    ResourceIdentity r;
    if (!instance.isInstance()) return r;
    auto it = resourcePrefixes.find(entityName(instance));
    if (it == resourcePrefixes.end()) return r;
    runtime::Value id = attribute(instance, it->second.second);
    if (id.isUnknown()) {
      r.state = ResourceIdentity::State::Unknown;
      return r;
    }
    r.state = ResourceIdentity::State::Known;
    r.id = it->second.first + runtime::printForm(id) + "]";
    return r;
  }
  runtime::Value variable(std::string_view name) override {
    for (const std::string& u : unreadyVariables)
      if (u == name) throw PluginSuspend(nullptr);
    auto it = variables.find(std::string(name));
    if (it == variables.end())
      throw CompileError(Diagnostic(ErrorKind::NotFoundException, "variable " + std::string(name) + " not found"));
    return it->second;
  }
  // Positional arguments, then keyword arguments by name, then defaults; no type checks.
  runtime::Value callPlugin(std::string_view fullName, const std::vector<runtime::Value>& args,
                            const std::vector<std::pair<std::string, runtime::Value>>& kwargs) override {
    const PluginSpec* spec = registry != nullptr ? registry->find(fullName) : nullptr;
    if (spec == nullptr) throw PluginFailure("KeyError", "'" + std::string(fullName) + "'");
    std::vector<runtime::Value> bound = args;
    for (size_t i = bound.size(); i < spec->params.size(); ++i) {
      const PluginParam& p = spec->params[i];
      auto kw = std::find_if(kwargs.begin(), kwargs.end(), [&](const auto& k) { return k.first == p.name; });
      if (kw != kwargs.end()) bound.push_back(kw->second);
      else if (p.hasDefault()) bound.push_back(p.defaultValue ? *p.defaultValue : runtime::Value());
      else throw PluginFailure("TypeError", spec->name + "() missing 1 required positional argument: '" + p.name + "'");
    }
    return spec->run(*this, bound, {});
  }
  std::vector<std::string> pluginNames() override {
    return registry != nullptr ? registry->names() : std::vector<std::string>{};
  }
  SourceLocation callLocation() override { return {}; }
  std::shared_ptr<void>& compileState(std::string_view key) override {
    auto it = state.find(key);
    if (it == state.end()) it = state.emplace(std::string(key), nullptr).first;
    return it->second;
  }
};

}  // namespace inmanta::compiler::testing
