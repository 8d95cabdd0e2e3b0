// An entity instance at run time: one slot per attribute and relation end (spec 4.8 step 5).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "model/model.h"
#include "runtime/engine.h"

namespace inmanta::compiler::runtime {

class Instance : public InstanceBase {
 public:
  // `where` formats a location for display(); it outlives the instance (one for all instances)
  Instance(const model::Entity* type, size_t number, const std::function<std::string(const SourceLocation&)>* where)
      : entity(type), ordinal(number), where_(where) {}

  std::string display() const override {
    std::string out = entity->fullName + " (instantiated at ";
    for (size_t i = 0; i < locations.size(); ++i) out += (i ? "," : "") + (*where_)(locations[i]);
    return out + ")";
  }

  // The slot of an attribute, or null when the entity has none of that name.
  Variable* slot(std::string_view name) const {
    const size_t* at = entity->positions.find(name);
    return at == nullptr ? nullptr : slots[*at];
  }
  // The slot of an attribute of this instance's entity (declared or inherited).
  Variable* slot(const model::Attribute* attribute) const { return slots[entity->positionOf(attribute)]; }

  const model::Entity* const entity;
  const size_t ordinal;
  std::vector<Variable*> slots;  // parallel to entity->order
  Variable* self = nullptr;
  std::vector<SourceLocation> locations;
  // the implementations run for it (few: a vector searched linearly)
  std::vector<const model::Implementation*> implementations;
  SourceLocation constructedAt;
  // the evaluator's scope of this instance in the namespace it was last asked for (opaque here)
  const void* scopeNamespace = nullptr;
  void* scope = nullptr;

 private:
  const std::function<std::string(const SourceLocation&)>* where_;
};

}  // namespace inmanta::compiler::runtime
