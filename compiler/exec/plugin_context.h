// The evaluator's PluginContext (compiler/plugin.h): what a plugin call sees of the compile
// (spec 4.13). Private to compiler/exec/.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/exec/evaluator_impl.h"

namespace inmanta::compiler::exec {

// The context of the plugin calls of one evaluator: the call being made is set before each.
class Evaluator::Context : public PluginContext {
 public:
  explicit Context(Evaluator& e) : e_(e) {}
  std::ostream& out() override { return *e_.options_.out; }
  void warn(const std::string& kind, const std::string& message) override {
    if (!e_.options_.warn) return;
    Diagnostic d(ErrorKind::CompilerException, message, location);
    d.warningName = kind;
    e_.options_.warn(d);
  }
  Value attribute(const Value& instance, std::string_view name) override {
    auto* i = static_cast<runtime::Instance*>(instance.asInstance());
    Variable* slot = i->slot(name);
    if (slot == nullptr)
      throw PluginFailure("AttributeError",
                          "'" + i->entity->fullName + "' object has no attribute '" + std::string(name) + "'");
    return read(slot);
  }
  Value variable(std::string_view name) override {
    Variable* slot = scope != nullptr ? scope->find(name) : nullptr;
    if (slot == nullptr)
      fail(ErrorKind::NotFoundException, "variable " + std::string(name) + " not found", location, true);
    return read(slot);
  }
  bool isInstanceOf(const Value& instance, std::string_view entityName) override {
    const model::Entity* wanted = nullptr;
    for (const auto& e : e_.model_.entities())
      if (e->fullName == entityName) wanted = e.get();
    if (wanted == nullptr) {
      // a typedef (the reference's type table has them too) never takes an instance
      size_t sep = entityName.rfind("::");
      if (sep != std::string_view::npos)
        if (const model::Namespace* ns = e_.model_.findNamespace(entityName.substr(0, sep))) {
          auto it = ns->definitions.find(std::string(entityName.substr(sep + 2)));
          if (it != ns->definitions.end() && it->second.kind == model::Definition::Kind::Typedef) return false;
        }
      throw PluginFailure("AttributeError", "no entity type named " + std::string(entityName));
    }
    if (!instance.isInstance()) return false;
    return static_cast<runtime::Instance*>(instance.asInstance())->entity->isA(wanted);
  }
  std::string entityName(const Value& instance) override {
    return static_cast<runtime::Instance*>(instance.asInstance())->entity->fullName;
  }
  size_t instanceOrdinal(const Value& instance) override {
    return static_cast<runtime::Instance*>(instance.asInstance())->ordinal;
  }
  std::string moduleDir(std::string_view module) override {
    if (module == "__config__") return {};  // main.cf's namespace is not a module
    for (const auto& ns : e_.model_.namespaces()) {
      if (ns->name != module) continue;
      std::filesystem::path file(e_.sources_.file(ns->fileId).path);
      return file.parent_path().parent_path().string();  // <module>/model/_init.cf
    }
    return {};
  }
  std::string callingModule() override { return callingNs != nullptr ? callingNs->module : "__config__"; }
  std::string callingNamespace() override { return callingNs != nullptr ? callingNs->name : "__config__"; }
  std::string projectDir() override { return e_.options_.projectDir; }
  std::optional<std::string> setting(std::string_view section, std::string_view key) override {
    if (!e_.options_.settings) return std::nullopt;
    return e_.options_.settings(section, key);
  }
  ServerConnection* server() override { return e_.options_.server; }
  void reportUnknown(UnknownParameter parameter) override { e_.unknownParameters_.push_back(std::move(parameter)); }
  void log(std::string_view level, const std::string& message) override {
    if (e_.options_.log) e_.options_.log("inmanta_plugins.std", level, message);
  }
  ResourceIdentity resourceId(const Value& value) override {
    ResourceIdentity result;
    if (!value.isInstance() || e_.options_.resourceTypes == nullptr) return result;
    auto* instance = static_cast<runtime::Instance*>(value.asInstance());
    const ResourceTypeSpec* type = nullptr;
    for (const model::Entity* e : instance->entity->lineage()) {  // the entity itself, then its parents
      for (const ResourceTypeSpec& t : e_.options_.resourceTypes->types())
        if (t.entity == e->fullName) type = &t;
      if (type != nullptr) break;
    }
    if (type == nullptr) return result;
    // the agent: follow the path (the first of a list, as the reference does)
    Value at = value;
    for (const std::string& element : type->agentPath) {
      if (at.isList() && !at.asList().empty()) at = at.asList().front();
      if (!at.isInstance() || static_cast<runtime::Instance*>(at.asInstance())->slot(element) == nullptr)
        throw PluginFailure("Exception", agentPathError(*type, instance->display(), element));
      at = attribute(at, element);
      if (at.isUnknown()) break;
    }
    Value id = at.isUnknown() ? at : attribute(value, type->idAttribute);
    if (id.isUnknown()) {
      result.state = ResourceIdentity::State::Unknown;
      return result;
    }
    if (!at.isString()) throw PluginFailure("ResourceException", agentNotStringError(at));
    std::string agent = at.asString(), idValue = runtime::printForm(id);
    // the reference's Id() refuses what would not parse back (export spec 1.4)
    if (std::string why = idPartError(agent, idValue); !why.empty()) throw PluginFailure("ValueError", why);
    result.state = ResourceIdentity::State::Known;
    result.id = compiler::resourceId(*type, agent, idValue);
    return result;
  }
  Value callPlugin(std::string_view fullName, const std::vector<Value>& args,
                   const std::vector<std::pair<std::string, Value>>& kwargs) override {
    const PluginSpec* plugin = e_.plugins_.find(fullName);
    if (plugin == nullptr) throw PluginFailure("KeyError", runtime::pyReprString(fullName));
    return e_.callPlugin(*plugin, location, args, kwargs, true);
  }
  std::vector<std::string> pluginNames() override { return e_.plugins_.names(); }
  SourceLocation callLocation() override { return location; }
  std::shared_ptr<void>& compileState(std::string_view key) override {
    auto it = state_.find(key);
    if (it == state_.end()) it = state_.emplace(std::string(key), nullptr).first;
    return it->second;
  }

  // The call being made: where it is written, its namespace and the scope its names resolve in
  // (none in a typedef constraint).
  SourceLocation location;
  const model::Namespace* callingNs = nullptr;
  const Scope* scope = nullptr;

 private:
  // A value a plugin reads: not ready yet suspends the call (spec 4.13).
  static Value read(Variable* slot) {
    try {
      return slot->get();
    } catch (const runtime::UnsetSignal& unset) {
      throw PluginSuspend(unset.variable);
    }
  }

  Evaluator& e_;
  std::map<std::string, std::shared_ptr<void>, std::less<>> state_;
};

}  // namespace inmanta::compiler::exec
