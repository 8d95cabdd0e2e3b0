#include "exporter/resources.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "util/unknown.h"

namespace inmanta::exporter {

using compiler::readAttribute;
using compiler::ResourceError;
using compiler::ResourceTypeSpec;
using compiler::runtime::Instance;
using compiler::runtime::InstanceBase;
using compiler::runtime::Value;
using util::hasUnknown;

namespace {

bool isA(const Instance& instance, const std::string& entity) {
  for (const auto* e : instance.entity->lineage())
    if (e->fullName == entity) return true;
  return false;
}

// Follows the agent path; nullopt when a value on the way is unknown (the resource is skipped).
std::optional<std::string> agentOf(const Instance& instance, const ResourceTypeSpec& type) {
  const Instance* at = &instance;
  for (size_t i = 0; i < type.agentPath.size(); ++i) {
    const std::string& el = type.agentPath[i];
    if (!at->slot(el)) throw ExportError(compiler::agentPathError(type, instance.display(), el));
    Value v = readAttribute(*at, el);
    if (v.isUnknown()) return std::nullopt;
    if (i + 1 == type.agentPath.size()) {
      if (!v.isString()) throw ExportError(compiler::agentNotStringError(v));
      return v.asString();
    }
    if (!v.isInstance()) throw ExportError(compiler::agentPathError(type, instance.display(), type.agentPath[i + 1]));
    at = static_cast<const Instance*>(v.asInstance());
  }
  throw ExportError("The resource type " + type.entity + " has an empty agent path");
}

Value fieldValue(const Instance& instance, const ResourceTypeSpec& type, const compiler::ResourceField& field,
                 compiler::ExportSink& sink) {
  try {
    return field.getter ? field.getter(instance, sink) : readAttribute(instance, field.name);
  } catch (const ExportError&) {
    throw;
  } catch (const std::exception& e) {
    throw ExportError("Failed to get attribute '" + field.name + "' for export on '" + type.entity + "' (" + e.what() +
                      ")");
  }
}

// The first instance in a field's value, and its path (`f`, `f[0]`, `f.k`) in `path`; null when
// there is none.
const InstanceBase* firstInstance(const Value& v, const std::string& at, std::string& path) {
  if (v.isInstance()) {
    path = at;
    return v.asInstance();
  }
  if (v.isList())
    for (size_t i = 0; i < v.asList().size(); ++i)
      if (const InstanceBase* found = firstInstance(v.asList()[i], at + "[" + std::to_string(i) + "]", path))
        return found;
  if (v.isDict())
    for (const auto& [k, e] : v.asDict().items)
      if (const InstanceBase* found = firstInstance(e, at + "." + k, path)) return found;
  return nullptr;
}

}  // namespace

ResourceSet buildResources(const std::vector<Instance*>& instances, const compiler::ResourceTypeRegistry& types) {
  ResourceSet out;
  FileSink sink(out.files);
  std::unordered_map<const InstanceBase*, std::vector<size_t>> resourcesOf;  // instance -> resources
  std::unordered_set<const InstanceBase*> notExported;                       // skipped or ignored
  std::unordered_map<std::string, size_t> byRid;
  std::vector<Resource> resources;

  for (const ResourceTypeSpec& type : types.types()) {
    out.registeredTypes.push_back(type.entity);
    const compiler::ResourceField* idField = nullptr;
    for (const auto& f : type.fields)
      if (f.name == type.idAttribute) idField = &f;
    compiler::ResourceField plainId{type.idAttribute, {}};
    for (const auto& owned : instances) {
      const Instance& instance = *owned;
      if (!isA(instance, type.entity)) continue;
      std::optional<std::string> agent = agentOf(instance, type);
      Value idValue = fieldValue(instance, type, idField ? *idField : plainId, sink);
      if (!agent || hasUnknown(idValue)) {
        notExported.insert(&instance);
        continue;
      }
      std::string value = compiler::runtime::printForm(idValue);
      if (std::string why = compiler::idPartError(*agent, value); !why.empty()) throw ExportError(why);
      if (type.ignore && type.ignore(instance)) {
        out.infos.push_back("Ignoring resource of type " + type.entity + " because it requested to ignore it.");
        notExported.insert(&instance);
        continue;
      }
      Resource r;
      r.type = type.entity;
      r.rid = compiler::resourceId(type, *agent, value);
      r.instance = &instance;
      r.agent = *agent;
      r.fields.reserve(type.fields.size());
      for (const auto& field : type.fields) {
        Value v = fieldValue(instance, type, field, sink);
        if (hasUnknown(v)) {
          v = Value(std::string(util::kUnknownMarker));
          r.undefined = true;
        } else if (std::string path; const InstanceBase* found = firstInstance(v, field.name, path)) {
          // (an instance anywhere in the value: the reference's reference collector refuses it)
          throw ExportError("Failed to get attribute '" + field.name + "' for export on '" + type.entity + "' (" +
                            found->display() + " is not JSON serializable at path " + path + ")");
        }
        r.fields.emplace_back(field.name, std::move(v));
      }
      if (!byRid.emplace(r.rid, resources.size()).second)
        throw ExportError("Resource " + r.rid + " exists more than once in the configuration model");
      resourcesOf[&instance].push_back(resources.size());
      resources.push_back(std::move(r));
    }
  }

  // resource sets (1.9)
  for (const auto& owned : instances) {
    const Instance& set = *owned;
    if (!isA(set, "std::ResourceSet")) continue;
    Value name = readAttribute(set, "name");
    std::string setName = name.isString() ? name.asString() : compiler::runtime::printForm(name);
    Value members = readAttribute(set, "resources");
    bool any = false;
    if (members.isList()) {
      for (const Value& m : members.asList()) {
        if (!m.isInstance()) continue;
        auto it = resourcesOf.find(m.asInstance());
        if (it == resourcesOf.end()) {
          out.warnings.push_back("resource " + m.asInstance()->display() + " is part of ResourceSet " + setName +
                                 " but will not be exported.");
          continue;
        }
        any = true;
        for (size_t index : it->second) {
          const std::string& rid = resources[index].rid;
          auto [at, fresh] = out.setOf.emplace(rid, setName);
          if (!fresh && at->second != setName)
            throw ExportError("resource '" + rid + "' can not be part of multiple ResourceSets: " + setName + " and " +
                              at->second);
        }
      }
    }
    if (!any) out.emptiedSets.push_back(setName);
  }

  // requires flattening (1.5): only resources survive, no transitive resolution
  std::vector<compiler::ResourceRecord> records(resources.size());
  for (size_t i = 0; i < resources.size(); ++i) {
    Resource& r = resources[i];
    compiler::ResourceRecord& rec = records[i];
    rec.type = r.type;
    rec.rid = r.rid;
    rec.instance = r.instance;
    rec.fields = &r.fields;
    Value req = readAttribute(*r.instance, "requires");
    if (!req.isList()) continue;
    std::vector<std::string> dropped;
    for (const Value& m : req.asList()) {
      if (!m.isInstance()) continue;
      auto it = resourcesOf.find(m.asInstance());
      if (it != resourcesOf.end()) {
        for (size_t index : it->second) rec.requires_.insert(resources[index].rid);
      } else if (!notExported.count(m.asInstance())) {
        dropped.push_back(m.asInstance()->display());
      }
    }
    if (rec.requires_.empty() && !dropped.empty()) {
      std::string list;
      for (const auto& d : dropped) list += (list.empty() ? "" : ", ") + d;
      out.warnings.push_back("The resource " + r.rid +
                             " had requirements before flattening, but not after flattening. Initial set was [" + list +
                             "]. Perhaps provides relation is not wired through correctly?");
    }
  }
  std::vector<compiler::ResourceRecord*> view;
  view.reserve(records.size());
  for (auto& rec : records) view.push_back(&rec);
  for (const auto& manager : types.managers()) manager(view);
  for (size_t i = 0; i < resources.size(); ++i)
    resources[i].requires_.assign(records[i].requires_.begin(), records[i].requires_.end());

  // cycle check (iterative depth-first search)
  std::vector<int> color(resources.size(), 0);  // 0 new, 1 on the stack, 2 done
  for (size_t start = 0; start < resources.size(); ++start) {
    if (color[start]) continue;
    std::vector<std::pair<size_t, size_t>> stack{{start, 0}};  // node, next edge
    color[start] = 1;
    while (!stack.empty()) {
      auto& [node, edge] = stack.back();
      if (edge == resources[node].requires_.size()) {
        color[node] = 2;
        stack.pop_back();
        continue;
      }
      size_t next = byRid.at(resources[node].requires_[edge++]);
      if (color[next] == 1) {
        std::string list;
        bool in = false;
        for (const auto& [n, e] : stack) {
          if (n == next) in = true;
          if (in) list += (list.empty() ? "" : ", ") + resources[n].rid;
        }
        throw ExportError("Cycle in dependencies: [" + list + "]");
      }
      if (color[next] == 0) {
        color[next] = 1;
        stack.emplace_back(next, 0);
      }
    }
  }

  std::sort(resources.begin(), resources.end(), [](const Resource& a, const Resource& b) { return a.rid < b.rid; });
  out.resources = std::move(resources);
  std::sort(out.emptiedSets.begin(), out.emptiedSets.end());
  return out;
}

}  // namespace inmanta::exporter
