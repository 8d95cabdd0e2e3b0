// The registration interface for resource types (export spec 1.1-1.3): which entities become
// resources, how their agent, id and fields are computed, which are ignored, and dependency
// managers that add edges after requires flattening. Modules (std) fill a ResourceTypeRegistry;
// the exporter (inmanta_exporter) reads it. Data and small inline helpers only.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "compiler/runtime/instance.h"
#include "compiler/runtime/value.h"

namespace inmanta::compiler {

// A failure while computing an exported field or reading the model for export: becomes the
// export failure `Failed to get attribute 'F' for export on 'T'` (or its own message).
struct ResourceError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// What a field getter may do besides returning the value: queue file bytes for upload.
class ExportSink {
 public:
  virtual ~ExportSink() = default;
  // `hash` is the SHA-1 (lowercase hex) of `bytes`
  virtual void addFile(const std::string& hash, std::string bytes) = 0;
};

// The value of a model attribute after the compile: relations with several values are lists
// of instances, an empty optional relation is null. Throws ResourceError when the entity has no
// such attribute.
inline runtime::Value readAttribute(const runtime::Instance& instance, std::string_view name) {
  runtime::Variable* slot = instance.slot(name);
  if (!slot) throw ResourceError("'" + std::string(name) + "' does not exist on " + instance.entity->fullName);
  if (!slot->isReady()) return slot->current();
  try {
    return slot->get();
  } catch (...) {
    return runtime::Value();  // an optional relation without value
  }
}

// One exported field. Without getter the value is the model attribute of the same name.
struct ResourceField {
  std::string name;
  std::function<runtime::Value(const runtime::Instance&, ExportSink&)> getter;
};

struct ResourceTypeSpec {
  std::string entity;                  // `std::File`; instances of subtypes count too
  std::vector<std::string> agentPath;  // `host`, `name`
  std::string idAttribute;             // `path`
  std::vector<ResourceField> fields;   // in export order, base fields first
  // true: the instance is not exported (`managed = false`, AgentConfig without autostart)
  std::function<bool(const runtime::Instance&)> ignore;
};

// Resource ids (export spec 1.4), for the exporter and for ids computed during a compile
// (std::getfact): the reference's messages, and its Id() checks.
inline std::string agentPathError(const ResourceTypeSpec& type, const std::string& instance,
                                  const std::string& element) {
  std::string path;
  for (const std::string& p : type.agentPath) path += (path.empty() ? "" : ".") + p;
  return "Unable to get the name of agent " + instance + " belongs to. In path " + path + ", '" + element +
         "' does not exist";
}
inline std::string agentNotStringError(const runtime::Value& agent) {
  return "The agent attribute should lead to a string, got " + runtime::repr(agent) + " of type <class '" +
         runtime::pythonTypeName(agent) + "'>";
}
// Empty when the agent and the id value make an id that parses back, else why not.
inline std::string idPartError(const std::string& agent, const std::string& value) {
  if (agent.find(',') != std::string::npos) return "Invalid agent name '" + agent + "': cannot contain ','.";
  if (value.find(']') != std::string::npos) return "Invalid attribute value '" + value + "': cannot contain ']'.";
  return {};
}
// `TYPE[AGENT,ATTR=VALUE]`
inline std::string resourceId(const ResourceTypeSpec& type, const std::string& agent, const std::string& value) {
  return type.entity + "[" + agent + "," + type.idAttribute + "=" + value + "]";
}

// A resource as dependency managers see it, after requires flattening.
struct ResourceRecord {
  std::string type;  // the registered entity name
  std::string rid;   // `std::File[h1,path=/etc/a]`
  const runtime::Instance* instance = nullptr;
  std::set<std::string> requires_;  // rids
  // the exported fields, in export order
  const std::vector<std::pair<std::string, runtime::Value>>* fields = nullptr;
};

using DependencyManager = std::function<void(std::vector<ResourceRecord*>& resources)>;

class ResourceTypeRegistry {
 public:
  void add(ResourceTypeSpec spec) { types_.push_back(std::move(spec)); }
  void addDependencyManager(DependencyManager manager) { managers_.push_back(std::move(manager)); }
  const std::vector<ResourceTypeSpec>& types() const { return types_; }
  const std::vector<DependencyManager>& managers() const { return managers_; }

 private:
  std::vector<ResourceTypeSpec> types_;
  std::vector<DependencyManager> managers_;
};

// The attribute, or `fallback` when reading it fails: no such attribute, an unknown value, an
// optional relation without value (the reference's getters of send_event, receive_events and
// report_only catch every exception).
inline runtime::Value readAttributeOrFallback(const runtime::Instance& instance, std::string_view name,
                                              runtime::Value fallback) {
  runtime::Variable* slot = instance.slot(name);
  if (!slot) return fallback;
  runtime::Value v;
  if (!slot->isReady()) {
    v = slot->current();
  } else {
    try {
      v = slot->get();
    } catch (...) {
      return fallback;
    }
  }
  return v.isUnknown() ? fallback : v;
}

// The base fields every resource has (export spec 1.3): send_event, receive_events,
// references, mutators, report_only; then `managed` and the purgeable pair when asked.
inline std::vector<ResourceField> baseResourceFields(bool managed, bool purgeable) {
  using runtime::Value;
  std::vector<ResourceField> fields;
  fields.push_back({"send_event", [](const runtime::Instance& i, ExportSink&) {
                      return readAttributeOrFallback(i, "send_event", Value(false));
                    }});
  fields.push_back({"receive_events", [](const runtime::Instance& i, ExportSink&) {
                      return readAttributeOrFallback(i, "receive_events", Value(true));
                    }});
  fields.push_back({"references", [](const runtime::Instance&, ExportSink&) { return Value(runtime::ValueList{}); }});
  fields.push_back({"mutators", [](const runtime::Instance&, ExportSink&) { return Value(runtime::ValueList{}); }});
  fields.push_back({"report_only", [](const runtime::Instance& i, ExportSink&) {
                      return readAttributeOrFallback(i, "report_only", Value(false));
                    }});
  if (managed) fields.push_back({"managed", {}});
  if (purgeable) {
    fields.push_back({"purged", {}});
    fields.push_back({"purge_on_delete", {}});
  }
  return fields;
}

}  // namespace inmanta::compiler
