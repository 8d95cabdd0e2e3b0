#include "compiler/model/model.h"

#include <algorithm>

namespace inmanta::compiler::model {

std::string PrimitiveType::name() const {
  switch (primitive) {
    case Primitive::String: return "string";
    case Primitive::Int: return "int";
    case Primitive::Float: return "float";
    case Primitive::Number: return "number";
    case Primitive::Bool: return "bool";
    case Primitive::List: return "list";
    case Primitive::Dict: return "dict";
    case Primitive::Any: return "any";
  }
  return "?";
}

Entity* Attribute::target() const {
  return type != nullptr && type->kind() == Type::Kind::Entity ? const_cast<Entity*>(static_cast<const Entity*>(type))
                                                               : nullptr;
}

bool Entity::isA(const Entity* other) const {
  if (this == other) return true;
  for (const Entity* p : parents)
    if (p->isA(other)) return true;
  return false;
}

const std::vector<const Entity*>& Entity::lineage() const {
  if (!lineage_.empty() && defined) return lineage_;
  std::vector<const Entity*> out{this};
  for (size_t i = 0; i < out.size(); ++i)
    for (const Entity* p : out[i]->parents)
      if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
  lineage_ = std::move(out);  // recomputed until the parents are final (`defined`)
  return lineage_;
}

Model::Model() {
  for (Primitive p : {Primitive::String, Primitive::Int, Primitive::Float, Primitive::Number, Primitive::Bool,
                      Primitive::List, Primitive::Dict, Primitive::Any})
    primitives_.push_back(std::make_unique<PrimitiveType>(p));
}

Namespace* Model::addNamespace(std::string name) {
  auto ns = std::make_unique<Namespace>();
  ns->name = std::move(name);
  ns->module = ns->name.substr(0, ns->name.find("::"));
  namespaces_.push_back(std::move(ns));
  return namespaces_.back().get();
}

Namespace* Model::findNamespace(std::string_view name) const {
  for (const auto& ns : namespaces_)
    if (ns->name == name) return ns.get();
  return nullptr;
}

const Type* Model::listOf(const Type* t) {
  auto& slot = lists_[t];
  if (!slot) slot = std::make_unique<ListType>(t);
  return slot.get();
}

const Type* Model::nullableOf(const Type* t) {
  auto& slot = nullables_[t];
  if (!slot) slot = std::make_unique<NullableType>(t);
  return slot.get();
}

Entity* Model::newEntity() {
  entities_.push_back(std::make_unique<Entity>());
  return entities_.back().get();
}

Typedef* Model::newTypedef() {
  typedefs_.push_back(std::make_unique<Typedef>());
  return typedefs_.back().get();
}

Implementation* Model::newImplementation() {
  implementations_.push_back(std::make_unique<Implementation>());
  return implementations_.back().get();
}

Attribute* Model::newAttribute() {
  attributes_.push_back(std::make_unique<Attribute>());
  return attributes_.back().get();
}

std::vector<std::string> indexAttributeNames(const Entity* entity) {
  std::vector<std::string> names;
  for (const Entity* e : entity->lineage())
    for (const auto& idx : e->indexes) names.insert(names.end(), idx.begin(), idx.end());
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

}  // namespace inmanta::compiler::model
