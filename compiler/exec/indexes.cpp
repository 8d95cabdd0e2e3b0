#include "compiler/exec/evaluator_impl.h"

#include <algorithm>

namespace inmanta::compiler::exec {

std::string Evaluator::indexKey(const std::vector<std::string>& attributes, NamedValues values, bool& complete) const {
  std::string key;
  complete = true;
  for (const std::string& a : attributes) {
    auto it = std::find_if(values.begin(), values.end(), [&](const auto& p) { return p.first == a; });
    if (it == values.end()) {
      complete = false;
      return {};
    }
    const Value& v = it->second;
    if (!key.empty()) key += ", ";
    key += a;
    key += '=';
    key += runtime::repr(v);  // (an instance as spec 9.7 renders it)
  }
  return key;
}

bool Evaluator::indexKeyBytes(const std::vector<std::string>& attributes, NamedValues values, std::pmr::string& out) {
  IndexKeyWriter key(out, indexNumber(attributes));
  for (const std::string& a : attributes) {
    auto it = std::find_if(values.begin(), values.end(), [&](const auto& p) { return p.first == a; });
    if (it == values.end()) return false;
    const Value& v = it->second;
    switch (v.type()) {
      case Value::Type::Null: key.null(); break;
      case Value::Type::Bool: key.boolean(v.asBool()); break;
      case Value::Type::Int: key.integer(v.asInt()); break;
      case Value::Type::Float: key.floating(v.asFloat()); break;
      case Value::Type::String: key.string(v.asString()); break;
      case Value::Type::Instance: key.instance(static_cast<runtime::Instance*>(v.asInstance())->ordinal); break;
      // (the reference keys an unknown by its object's repr: each unknown its own key)
      case Value::Type::Unknown: key.repr("<unknown " + std::to_string(v.unknownId()) + ">"); break;
      case Value::Type::List:
      case Value::Type::Dict:
      case Value::Type::Opaque: key.repr(runtime::repr(v)); break;
    }
  }
  return true;
}

uint32_t Evaluator::indexNumber(const std::vector<std::string>& attributes) {
  auto known = indexNumberOf_.find(&attributes);
  if (known != indexNumberOf_.end()) return known->second;
  auto [it, added] = indexNumbers_.emplace(attributes, static_cast<uint32_t>(indexNumbers_.size()));
  indexNumberOf_.emplace(&attributes, it->second);
  return it->second;
}

const std::vector<std::string>& Evaluator::indexAttributesOf(const model::Entity* entity) {
  auto [it, added] = indexAttributes_.try_emplace(entity);
  if (added) it->second = model::indexAttributeNames(entity);
  return it->second;
}

// ------------------------------------------------------------------ indexes (4.10)

bool Evaluator::IndexKeys::key(const std::vector<std::string>& index, std::string_view& key) {
  // an entity lists its ancestors' indexes too: the same index is asked for several times
  for (const Known& k : known_)
    if (k.index == &index || *k.index == index) {
      key = k.key;
      return k.complete;
    }
  Known& k = known_.emplace_back(Known{&index, std::pmr::string(&memory_), false});
  k.key.reserve(32);
  k.complete = evaluator_.indexKeyBytes(index, values_, k.key);
  key = k.key;
  return k.complete;
}

std::string Evaluator::IndexKeys::text(const std::vector<std::string>& index) const {
  bool complete = false;
  return evaluator_.indexKey(index, values_, complete);
}

void Evaluator::registerInIndexes(runtime::Instance* instance, IndexKeys& keys, const ast::Node* at) {
  // in the table of the entity and of every ancestor, under every index that applies there
  for (const model::Entity* owner : instance->entity->lineage()) {
    auto& table = indexes_[owner];
    for (const model::Entity* declaring : owner->lineage())
      for (const auto& idx : declaring->indexes) {
        std::string_view key;
        if (!keys.key(idx, key)) continue;
        if (table.insert(key, instance->ordinal, indexKeys_) != instance->ordinal)
          fail(ErrorKind::DuplicateException, "Duplicate key in index. " + keys.text(idx), at->loc());
        auto pendingHere = pending_.find(owner);
        if (pendingHere == pending_.end()) continue;
        auto waiting = pendingHere->second.find(std::string(key));
        if (waiting != pendingHere->second.end()) {
          std::vector<PendingLookup> lookups = std::move(waiting->second);
          pendingHere->second.erase(waiting);
          for (const PendingLookup& p : lookups)
            p.result->set(Value(static_cast<runtime::InstanceBase*>(instance)), at->loc());
        }
      }
  }
}

Variable* Evaluator::lookupInIndex(const model::Entity* entity, std::vector<std::pair<std::string, Variable*>> args,
                                   std::vector<Variable*> wrapped, std::vector<std::pair<std::string, Value>> fixed,
                                   const ast::Node* at) {
  std::vector<Variable*> inputs;
  for (auto& [n, v] : args) inputs.push_back(v);
  inputs.insert(inputs.end(), wrapped.begin(), wrapped.end());
  Variable* result = scheduler_.makePlain();
  scheduler_.unit(
      runtime::VarList(inputs),
      [this, entity, args, wrapped, fixed, at, result] {
        std::vector<std::pair<std::string, Value>> values = fixed;
        auto add = [&](const std::string& name, const Value& v) {
          if (std::any_of(values.begin(), values.end(), [&](const auto& p) { return p.first == name; }))
            fail(ErrorKind::RuntimeException, "Attribute " + name + " provided twice in index lookup", at->loc());
          values.emplace_back(name, v);
        };
        for (const auto& [n, v] : args) add(n, v->get());
        for (Variable* w : wrapped) {
          Value d = w->get();
          if (!d.isDict())
            fail(ErrorKind::TypingException, "The ** operator can only be applied to dictionaries", at->loc());
          for (const auto& [k, v] : d.asDict().items) add(k, v);
        }
        for (auto& [n, v] : values)
          if (v.isInt() && floatTyped(entity->attribute(n))) v = Value(static_cast<double>(v.asInt()));
        std::vector<std::string> names;
        for (const auto& [n, v] : values) names.push_back(n);
        std::sort(names.begin(), names.end());
        const std::vector<std::string>* index = nullptr;
        for (const model::Entity* e : entity->lineage())
          for (const auto& idx : e->indexes)
            if (idx == names) index = &idx;
        if (index == nullptr) {
          std::string listed;
          for (const auto& [n, v] : values)
            listed += (listed.empty() ? "" : ", ") + ("('" + n + "', " + runtime::repr(v) + ")");
          fail(ErrorKind::NotFoundException,
               "No index defined on " + entity->fullName + " for this lookup: [" + listed + "]", at->loc());
        }
        std::vector<NamedValue> named(values.begin(), values.end());
        std::pmr::string key;
        indexKeyBytes(*index, named, key);  // (complete: the index is the lookup's attributes)
        if (uint32_t number = indexes_[entity].find(key)) {
          result->set(Value(static_cast<runtime::InstanceBase*>(instanceNumbered(number))), at->loc());
          return;
        }
        bool complete = false;
        pending_[entity][std::string(key)].push_back(PendingLookup{result, at, indexKey(*index, named, complete)});
      },
      "index lookup", at->loc(), true);
  return result;
}

}  // namespace inmanta::compiler::exec
