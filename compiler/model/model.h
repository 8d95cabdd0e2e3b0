// The model: what the definitions of all loaded files mean once resolved (spec 3). Namespaces,
// types (primitives, lists, nullables, typedefs, entities), attributes and relations,
// implementations, implement rules and indexes. Built by the definition phase (define.cpp) and
// read by the runtime. Everything is owned by the Model and lives as long as the compile.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "compiler/ast/ast.h"
#include "compiler/plugin.h"
#include "compiler/source/source.h"

namespace inmanta::compiler::model {

class Namespace;
class Entity;
class Attribute;

// ------------------------------------------------------------------ types (3.5)

class Type {
 public:
  enum class Kind { Primitive, List, Nullable, Typedef, Entity };
  explicit Type(Kind kind) : kind_(kind) {}
  virtual ~Type() = default;
  Kind kind() const { return kind_; }
  // How messages name the type: `string`, `int[]`, `string?`, `std::port`, `__config__::A`.
  virtual std::string name() const = 0;

 private:
  Kind kind_;
};

enum class Primitive { String, Int, Float, Number, Bool, List, Dict, Any };

class PrimitiveType : public Type {
 public:
  explicit PrimitiveType(Primitive p) : Type(Kind::Primitive), primitive(p) {}
  std::string name() const override;
  const Primitive primitive;
};

// `T[]`
class ListType : public Type {
 public:
  explicit ListType(const Type* e) : Type(Kind::List), element(e) {}
  std::string name() const override { return element->name() + "[]"; }
  const Type* const element;
};

// `T?`
class NullableType : public Type {
 public:
  explicit NullableType(const Type* e) : Type(Kind::Nullable), element(e) {}
  std::string name() const override { return element->name() + "?"; }
  const Type* const element;
};

// `typedef name as base matching constraint`
class Typedef : public Type {
 public:
  Typedef() : Type(Kind::Typedef) {}
  std::string name() const override { return fullName; }
  std::string fullName;
  Namespace* ns = nullptr;
  const ast::Typedef* definition = nullptr;
  const Type* base = nullptr;  // resolved in the definition phase
  SourceLocation location;
};

// ------------------------------------------------------------------ entities (3.7-3.10)

struct Multiplicity {
  int64_t low = 0;
  std::optional<int64_t> high;
};

// An attribute or a relation end of an entity.
class Attribute {
 public:
  std::string name;
  Entity* entity = nullptr;    // the declaring entity
  const Type* type = nullptr;  // the declared type (for relations: the target entity)
  SourceLocation location;
  // plain attributes
  bool isList = false;  // T[] or list: still a plain slot (spec 4.3)
  bool isNullable = false;
  // relations
  bool isRelation = false;
  Multiplicity multiplicity;
  Attribute* inverse = nullptr;
  const ast::Relation* relation = nullptr;
  Namespace* relationNs = nullptr;  // where the relation is written (annotations evaluate there)

  // Entity::positionOf's memory of the last entity asked about (instances of one entity are
  // usually handled together).
  mutable const Entity* cachedEntity = nullptr;
  mutable size_t cachedPosition = 0;

  Entity* target() const;
  // slot kinds of spec 4.3
  bool isSingle() const { return isRelation && multiplicity.low == 1 && multiplicity.high && *multiplicity.high == 1; }
  bool isOptional() const {
    return isRelation && multiplicity.low == 0 && multiplicity.high && *multiplicity.high == 1;
  }
  bool isMulti() const { return isRelation && !isSingle() && !isOptional(); }
};

class Implementation;

struct ImplementRule {
  std::vector<Implementation*> implementations;
  bool inheritParents = false;
  const ast::Expr* when = nullptr;  // null: always
  Namespace* ns = nullptr;          // where the implement statement is written
  SourceLocation location;
};

struct DefaultValue {
  const ast::Expr* expr = nullptr;
  Namespace* ns = nullptr;
  SourceLocation location;  // of the attribute declaration
};

class Entity : public Type {
 public:
  Entity() : Type(Kind::Entity) {}
  std::string name() const override { return fullName; }

  std::string fullName;  // `__config__::A`
  std::string shortName;
  Namespace* ns = nullptr;
  const ast::Entity* definition = nullptr;  // null for std::Entity
  SourceLocation location;
  std::vector<Entity*> parents;   // direct, in declaration order
  std::vector<Entity*> children;  // direct subtypes
  std::vector<Attribute*> own;    // declared here (attributes and relation ends)
  // every attribute, inherited ones included, by name; `order` lists them in slot order
  std::map<std::string, Attribute*, std::less<>> attributes;
  std::vector<Attribute*> order;
  // position in `order` by attribute name (names owned by the attributes); set with `order`
  NameMap<size_t> positions;
  std::map<std::string, DefaultValue, std::less<>> defaults;  // after inheritance (3.7)
  // the names of `defaults` in the reference's order: the parents' (right-most first), then own
  // declarations; constructors assign them in this order
  std::vector<std::string> defaultOrder;
  std::vector<ImplementRule> rules;               // own rules only (3.9)
  std::vector<std::vector<std::string>> indexes;  // own and inherited, attribute names sorted
  bool defined = false;                           // parents and attributes resolved

  const Attribute* attribute(std::string_view n) const {
    if (defined) {
      const size_t* at = positions.find(n);
      return at == nullptr ? nullptr : order[*at];
    }
    auto it = attributes.find(n);
    return it == attributes.end() ? nullptr : it->second;
  }
  // The position in `order` of one of its attributes (declared or inherited): the slot to use
  // in its instances, found by identity (no name hashing).
  size_t positionOf(const Attribute* attribute) const {
    if (attribute->cachedEntity == this) return attribute->cachedPosition;
    size_t at = 0;
    while (at < order.size() && order[at] != attribute) ++at;
    if (at == order.size()) at = *positions.find(attribute->name);  // an attribute of the same name
    attribute->cachedEntity = this;
    attribute->cachedPosition = at;
    return at;
  }
  // True when this entity is `other` or one of its descendants.
  bool isA(const Entity* other) const;
  // This entity and all its ancestors, nearest first, without duplicates (computed once, when
  // the parents are final).
  const std::vector<const Entity*>& lineage() const;

 private:
  mutable std::vector<const Entity*> lineage_;
};

class Implementation {
 public:
  std::string name;
  std::string fullName;
  Namespace* ns = nullptr;
  Entity* entity = nullptr;
  const ast::Implementation* definition = nullptr;
  SourceLocation location;
};

// ------------------------------------------------------------------ namespaces (3.1-3.3)

// Something a name in a namespace's single name table refers to.
struct Definition {
  enum class Kind { Entity, Typedef, Implementation, Plugin } kind;
  void* target;
  SourceLocation location;
  Entity* entity() const { return kind == Kind::Entity ? static_cast<Entity*>(target) : nullptr; }
  Typedef* typedefType() const { return kind == Kind::Typedef ? static_cast<Typedef*>(target) : nullptr; }
  Implementation* implementation() const {
    return kind == Kind::Implementation ? static_cast<Implementation*>(target) : nullptr;
  }
  const PluginSpec* plugin() const { return kind == Kind::Plugin ? static_cast<const PluginSpec*>(target) : nullptr; }
};

class Namespace {
 public:
  std::string name;             // `__config__`, `std`, `m::sub`
  Namespace* parent = nullptr;  // `m` for `m::sub`
  const ast::File* file = nullptr;
  FileId fileId = kNoFile;
  std::string displayPath;  // of its file, as messages show it (`./main.cf`)
  std::string module;       // first segment
  std::map<std::string, Definition, std::less<>> definitions;
  std::map<std::string, Namespace*, std::less<>> visible;  // import names (3.2)
};

// ------------------------------------------------------------------ the model

class Model {
 public:
  Model();
  Namespace* addNamespace(std::string name);
  Namespace* findNamespace(std::string_view name) const;
  const std::vector<std::unique_ptr<Namespace>>& namespaces() const { return namespaces_; }

  const PrimitiveType* primitive(Primitive p) const { return primitives_[static_cast<int>(p)].get(); }
  const Type* listOf(const Type* t);
  const Type* nullableOf(const Type* t);

  Entity* newEntity();
  Typedef* newTypedef();
  Implementation* newImplementation();
  Attribute* newAttribute();

  Entity* rootEntity() const { return root_; }  // std::Entity
  void setRootEntity(Entity* e) { root_ = e; }
  const std::vector<std::unique_ptr<Entity>>& entities() const { return entities_; }

 private:
  std::vector<std::unique_ptr<Namespace>> namespaces_;
  std::vector<std::unique_ptr<PrimitiveType>> primitives_;
  std::map<const Type*, std::unique_ptr<Type>> lists_;
  std::map<const Type*, std::unique_ptr<Type>> nullables_;
  std::vector<std::unique_ptr<Entity>> entities_;
  std::vector<std::unique_ptr<Typedef>> typedefs_;
  std::vector<std::unique_ptr<Implementation>> implementations_;
  std::vector<std::unique_ptr<Attribute>> attributes_;
  Entity* root_ = nullptr;
};

// The index attributes of an entity and its ancestors, sorted, each once.
std::vector<std::string> indexAttributeNames(const Entity* entity);

}  // namespace inmanta::compiler::model
