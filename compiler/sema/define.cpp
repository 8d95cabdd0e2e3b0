#include "compiler/sema/define.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <set>
#include <utility>

namespace inmanta::compiler::sema {

using namespace model;  // (this pass makes the model: its types are its words)

namespace {

[[noreturn]] void fail(ErrorKind kind, std::string message, SourceLocation loc, bool column = true) {
  throw CompileError(Diagnostic(kind, std::move(message), loc, column));
}

const Type* primitiveByName(const Model& model, std::string_view name) {
  if (name == "string") return model.primitive(Primitive::String);
  if (name == "int") return model.primitive(Primitive::Int);
  if (name == "float") return model.primitive(Primitive::Float);
  if (name == "number") return model.primitive(Primitive::Number);
  if (name == "bool") return model.primitive(Primitive::Bool);
  if (name == "list") return model.primitive(Primitive::List);
  if (name == "dict") return model.primitive(Primitive::Dict);
  return nullptr;
}

class Definer {
 public:
  Definer(Model& model, const std::vector<LoadedFile>& files, const PluginRegistry& plugins,
          const SourceManager& sources, const WarningSink& warn)
      : model_(model), files_(files), plugins_(plugins), sources_(sources), warn_(warn) {}

  void run() {
    createNamespaces();
    registerDefinitions();
    processImports();
    defineTypedefs();
    defineEntities();
    defineRelations();
    computeAttributes();
    defineImplementations();
    defineIndexes();
    defineImplements();
    checkRelationClashes();
    checkPluginTypes();
  }

 private:
  // ---------------------------------------------------------------- namespaces and names

  void createNamespaces() {
    for (const LoadedFile& f : files_) {
      Namespace* ns = model_.addNamespace(f.ns);
      ns->file = f.tree;
      ns->fileId = f.file;
      if (f.file < sources_.size()) ns->displayPath = sources_.file(f.file).display;
    }
    for (const auto& ns : model_.namespaces()) {
      size_t sep = ns->name.rfind("::");
      if (sep != std::string::npos) ns->parent = model_.findNamespace(ns->name.substr(0, sep));
    }
  }

  std::string fullName(const Namespace* ns, std::string_view name) { return ns->name + "::" + std::string(name); }

  // `what` names the new definition's kind as the reference's message does (`for` adds an
  // implementation's type as written).
  void define(Namespace* ns, std::string_view name, Definition def, const char* what, std::string_view forType = {}) {
    auto [it, inserted] = ns->definitions.emplace(std::string(name), def);
    if (inserted) return;
    const Definition& original = it->second;
    if (original.kind == Definition::Kind::Plugin && original.location.valid())
      // a Python plugin of the same name, as the reference reports it (its plugin location has
      // no column)
      fail(ErrorKind::DuplicateException,
           "Type " + fullName(ns, name) + " is already defined (original at (" +
               sources_.format(original.location, false) + ")) (duplicate at (" + sources_.format(def.location, true) +
               "))",
           def.location, false);
    std::string message = std::string(what) + " " + fullName(ns, name);
    if (!forType.empty()) message += " for type " + std::string(forType);
    message += " is already defined";
    if (original.location.valid())
      // as the reference renders it: "original" is the definition being made, "duplicate" the one
      // that was there
      message += " (original at (" + sources_.format(def.location, true) + ")) (duplicate at (" +
                 sources_.format(original.location, true) + "))";
    fail(ErrorKind::DuplicateException, message, def.location, false);
  }

  // An attribute or relation end named as one the entity has already: reported at the earlier
  // one, as the reference (its "original" is the earlier declaration here).
  [[noreturn]] void attributeClash(const Entity* e, const Attribute* existing, const ast::Name& name) {
    fail(ErrorKind::DuplicateException,
         "attribute '" + std::string(name.text()) + "' already exists on entity '" + e->shortName + "' (original at (" +
             sources_.format(existing->location, true) + ")) (duplicate at (" + sources_.format(name.loc, true) + "))",
         existing->location, false);
  }

  std::string locText(const SourceLocation& loc) const { return sources_.format(loc, false); }

  void registerDefinitions() {
    // std::Entity is the compiler's own (spec 3.7)
    Namespace* stdNs = model_.findNamespace("std");
    if (stdNs != nullptr) {
      Entity* root = model_.newEntity();
      root->fullName = "std::Entity";
      root->shortName = "Entity";
      root->ns = stdNs;
      stdNs->definitions.emplace("Entity", Definition{Definition::Kind::Entity, root, {}});
      model_.setRootEntity(root);
    }
    for (const auto& nsPtr : model_.namespaces()) {
      Namespace* ns = nsPtr.get();
      // the plugins of a module (std's in C++, the Python ones of `inmanta_plugins.<ns>`) in
      // the namespace of their Python module (`inmanta_plugins.m.sub`: `m::sub`)
      for (const PluginSpec* p : plugins_.inNamespace(ns->name))
        ns->definitions.emplace(p->name, Definition{Definition::Kind::Plugin, const_cast<PluginSpec*>(p), p->location});
      for (const ast::Stmt* s : ns->file->statements) {
        switch (s->kind) {
          case ast::Kind::Entity: {
            auto* def = static_cast<const ast::Entity*>(s);
            Entity* e = model_.newEntity();
            e->fullName = fullName(ns, def->name.text());
            e->shortName = std::string(def->name.text());
            e->ns = ns;
            e->definition = def;
            e->location = def->name.loc;
            define(ns, def->name.text(), Definition{Definition::Kind::Entity, e, def->name.loc}, "Entity");
            break;
          }
          case ast::Kind::Typedef: {
            auto* def = static_cast<const ast::Typedef*>(s);
            Typedef* t = model_.newTypedef();
            t->fullName = fullName(ns, def->name.text());
            t->ns = ns;
            t->definition = def;
            t->location = def->name.loc;
            define(ns, def->name.text(), Definition{Definition::Kind::Typedef, t, def->name.loc}, "TypeConstraint");
            break;
          }
          case ast::Kind::Implementation: {
            auto* def = static_cast<const ast::Implementation*>(s);
            Implementation* impl = model_.newImplementation();
            impl->name = std::string(def->name.text());
            impl->fullName = fullName(ns, def->name.text());
            impl->ns = ns;
            impl->definition = def;
            impl->location = def->name.loc;
            define(ns, def->name.text(), Definition{Definition::Kind::Implementation, impl, def->name.loc},
                   "Implementation", def->entity.text());
            break;
          }
          case ast::Kind::ExprStmt:
          case ast::Kind::Assign:
          case ast::Kind::For:
          case ast::Kind::If:
          case ast::Kind::Import:
          case ast::Kind::Implement:
          case ast::Kind::Relation:
          case ast::Kind::Index:
          INMANTA_AST_EXPRESSION_CASES:
            break;
        }
      }
    }
  }

  void processImports() {
    Namespace* stdNs = model_.findNamespace("std");
    for (const auto& nsPtr : model_.namespaces()) {
      Namespace* ns = nsPtr.get();
      ns->visible[ns->name] = ns;
      if (stdNs != nullptr) ns->visible["std"] = stdNs;
      std::set<std::string, std::less<>> imported;
      for (const ast::Stmt* s : ns->file->statements) {
        if (s->kind != ast::Kind::Import) continue;
        auto* imp = static_cast<const ast::Import*>(s);
        std::string alias(imp->alias.text());
        if (!imported.insert(alias).second)
          fail(ErrorKind::DuplicateException, "Two import statements have the same name", imp->loc(), false);
        Namespace* target = model_.findNamespace(imp->module.text());
        if (target != nullptr) ns->visible[alias] = target;
      }
    }
  }

 public:
  // spec 3.3
  static const Definition* resolve(const Model& model, const Namespace* from, const ast::Name& name,
                                   const Type** primitive) {
    std::string_view text = name.text();
    size_t sep = text.rfind("::");
    if (sep == std::string_view::npos) {
      if (const Type* p = primitiveByName(model, text)) {
        if (primitive != nullptr) *primitive = p;
        return nullptr;
      }
      for (const Namespace* ns = from; ns != nullptr; ns = ns->parent) {
        auto it = ns->definitions.find(text);
        if (it != ns->definitions.end()) return &it->second;
      }
      fail(ErrorKind::TypeNotFoundException, "could not find type " + std::string(text) + " in namespace " + from->name,
           name.loc);
    }
    std::string_view prefix = text.substr(0, sep);
    std::string_view last = text.substr(sep + 2);
    auto vis = from->visible.find(prefix);
    if (vis == from->visible.end()) {
      // as the reference's: the hint on a line of its own, naming the file to add the import to
      std::string in = from->displayPath.empty() ? std::string() : " in " + from->displayPath;
      fail(ErrorKind::MissingImportException,
           "could not find type " + std::string(text) + " in namespace " + from->name +
               ".\nTry importing the module with `import " + std::string(prefix) + "`" + in,
           name.loc);
    }
    auto it = vis->second->definitions.find(last);
    if (it == vis->second->definitions.end())
      fail(ErrorKind::TypeNotFoundException, "could not find type " + std::string(text) + " in namespace " + from->name,
           name.loc);
    return &it->second;
  }

 private:
  // The types a Python plugin declares must exist, as the reference's Plugin.normalize resolves
  // them: `could not find type std::WrongName in namespace std` at the plugin's definition.
  void checkPluginTypes() {
    for (const auto& nsPtr : model_.namespaces()) {
      for (const PluginSpec* p : plugins_.inNamespace(nsPtr->name)) {
        if (!p->location.valid()) continue;  // std's, in C++
        std::vector<std::string> types;
        for (const PluginParam& param : p->params) types.push_back(param.type);
        types.push_back(p->varArgsType);
        types.push_back(p->varKeywordsType);
        types.push_back(p->returnType);
        for (const std::string& type : types) checkPluginType(nsPtr.get(), *p, type);
      }
    }
  }

  void checkPluginType(const Namespace* ns, const PluginSpec& plugin, std::string_view type) {
    // the names in a type string: `a::b[]?`, `dict[x]`, `(int|ns::t)[]`
    std::string name;
    auto flush = [&] {
      if (name.empty()) return;
      std::string n = std::exchange(name, {});
      static const std::set<std::string, std::less<>> kBuiltin = {"any",        "null",   "list", "dict",
                                                                  "expression", "string", "int",  "float",
                                                                  "bool",       "number", "none"};
      if (kBuiltin.count(n) != 0) return;
      const Type* primitive = nullptr;
      size_t sep = n.rfind("::");
      try {
        (void)resolve(model_, ns, ast::Name(n, plugin.location), &primitive);
        return;
      } catch (const CompileError&) {
        // (lenient: a type of a module that the plugin's module does not import is accepted when it
        // exists, rather than refused where the reference might find it)
        if (sep != std::string::npos) {
          const Namespace* other = model_.findNamespace(n.substr(0, sep));
          if (other != nullptr && other->definitions.count(n.substr(sep + 2)) != 0) return;
        }
      }
      fail(ErrorKind::TypeNotFoundException,
           "could not find type " + n + " in namespace " + (sep == std::string::npos ? ns->name : n.substr(0, sep)),
           plugin.location);
    };
    for (char c : type) {
      if (std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == ':' || c == '-') name += c;
      else flush();
    }
    flush();
  }

  Entity* resolveEntity(const Namespace* from, const ast::Name& name) {
    const Type* primitive = nullptr;
    const Definition* def = resolve(model_, from, name, &primitive);
    if (def == nullptr || def->kind != Definition::Kind::Entity)
      fail(ErrorKind::TypingException, std::string(name.text()) + " is not an entity", name.loc);
    return def->entity();
  }

  // A value type: primitive or typedef, with [] and ? applied (spec 3.5).
  const Type* resolveValueType(const Namespace* from, const ast::TypeRef& ref) {
    const Type* base = nullptr;
    if (ref.isDict) {
      base = model_.primitive(Primitive::Dict);
    } else {
      const Type* primitive = nullptr;
      const Definition* def = resolve(model_, from, ref.base, &primitive);
      if (primitive != nullptr) {
        base = primitive;
        if (ref.base.text() == "number" && warn_) {
          Diagnostic d(ErrorKind::CompilerException, "Type 'number' is deprecated, use 'float' or 'int' instead",
                       ref.base.loc);
          d.warningName = "TypeDeprecationWarning";
          warn_(d);
        }
      } else if (def->kind == Definition::Kind::Typedef) {
        base = def->typedefType();
      } else {
        fail(ErrorKind::TypingException,
             std::string(ref.base.text()) + " is not a type that can be used for an attribute", ref.base.loc);
      }
    }
    if (ref.multi) base = model_.listOf(base);
    if (ref.nullable) base = model_.nullableOf(base);
    return base;
  }

  // ---------------------------------------------------------------- typedefs

  void defineTypedefs() {
    for (const auto& nsPtr : model_.namespaces())
      for (auto& [name, def] : nsPtr->definitions) {
        Typedef* t = def.typedefType();
        if (t == nullptr || t->base != nullptr) continue;
        resolveTypedef(t, 0);
      }
  }

  void resolveTypedef(Typedef* t, int depth) {
    if (depth > 64)
      fail(ErrorKind::CycleException, "typedef " + t->fullName + " is defined in terms of itself", t->location);
    const Type* primitive = nullptr;
    const Definition* def = resolve(model_, t->ns, t->definition->base, &primitive);
    if (primitive != nullptr) {
      t->base = primitive;
      return;
    }
    if (def->kind != Definition::Kind::Typedef)
      fail(ErrorKind::TypingException,
           std::string(t->definition->base.text()) + " can not be used as the base of a typedef",
           t->definition->base.loc);
    Typedef* base = def->typedefType();
    if (base->base == nullptr) resolveTypedef(base, depth + 1);
    t->base = base;
  }

  // ---------------------------------------------------------------- entities

  void defineEntities() {
    // parents first, so that inheritance cycles are found (spec 3.4 step 3)
    for (const auto& e : model_.entities()) {
      if (e->definition == nullptr) continue;
      std::vector<Entity*> parents;
      for (const ast::Name& p : e->definition->parents) {
        Entity* parent = resolveEntity(e->ns, p);
        if (std::find(parents.begin(), parents.end(), parent) != parents.end())
          fail(ErrorKind::TypingException, "same parent defined twice", p.loc);
        parents.push_back(parent);
      }
      if (parents.empty() && model_.rootEntity() != nullptr && e.get() != model_.rootEntity())
        parents.push_back(model_.rootEntity());
      e->parents = parents;
    }
    for (const auto& e : model_.entities()) checkCycle(e.get());
    for (const auto& e : model_.entities())
      for (Entity* p : e->parents) p->children.push_back(e.get());
    for (const auto& e : model_.entities()) defineAttributes(e.get());
  }

  void checkCycle(Entity* e) {
    std::vector<Entity*> path;
    std::function<void(Entity*)> visit = [&](Entity* cur) {
      auto it = std::find(path.begin(), path.end(), cur);
      if (it != path.end()) {
        std::string names;
        for (auto i = it; i != path.end(); ++i) names += (names.empty() ? "" : ",") + (*i)->fullName;
        fail(ErrorKind::CycleException, "Entity can not be its own parent " + names, cur->location);
      }
      path.push_back(cur);
      for (Entity* p : cur->parents) visit(p);
      path.pop_back();
    };
    visit(e);
  }

  void defineAttributes(Entity* e) {
    if (e->definition == nullptr) return;
    for (const ast::Attribute& a : e->definition->attributes) {
      for (const Attribute* existing : e->own)
        if (existing->name == a.name.text()) attributeClash(e, existing, a.name);
      Attribute* attr = model_.newAttribute();
      attr->name = std::string(a.name.text());
      attr->entity = e;
      attr->location = a.name.loc;
      attr->type = resolveValueType(e->ns, a.type);
      attr->isNullable = a.type.nullable;
      attr->isList = a.type.multi || (!a.type.isDict && a.type.base.text() == "list");
      e->own.push_back(attr);
    }
  }

  // ---------------------------------------------------------------- relations

  static Multiplicity multiplicity(const ast::Multiplicity& m) { return Multiplicity{m.lower, m.upper}; }

  void defineRelations() {
    for (const auto& nsPtr : model_.namespaces()) {
      Namespace* ns = nsPtr.get();
      for (const ast::Stmt* s : ns->file->statements) {
        if (s->kind != ast::Kind::Relation) continue;
        auto* rel = static_cast<const ast::Relation*>(s);
        Entity* left = resolveEntity(ns, rel->left);
        Entity* right = resolveEntity(ns, rel->right);
        Attribute* leftEnd = relationEnd(left, rel->leftAttr, right, multiplicity(rel->leftMult), rel, ns);
        if (!rel->rightAttr.empty()) {
          if (left == right && rel->leftAttr.text() == rel->rightAttr.text()) {
            leftEnd->inverse = leftEnd;  // self-inverse: one attribute
          } else {
            Attribute* rightEnd = relationEnd(right, rel->rightAttr, left, multiplicity(rel->rightMult), rel, ns);
            leftEnd->inverse = rightEnd;
            rightEnd->inverse = leftEnd;
          }
        }
      }
    }
    // std::Entity.requires [0:] -- std::Entity.provides [0:] (spec 3.7)
    if (Entity* root = model_.rootEntity()) {
      Attribute* req = model_.newAttribute();
      Attribute* prov = model_.newAttribute();
      req->name = "requires";
      prov->name = "provides";
      for (Attribute* a : {req, prov}) {
        a->entity = root;
        a->type = root;
        a->isRelation = true;
        a->multiplicity = Multiplicity{0, std::nullopt};
        root->own.push_back(a);
      }
      req->inverse = prov;
      prov->inverse = req;
    }
  }

  Attribute* relationEnd(Entity* owner, const ast::Name& name, Entity* target, Multiplicity m, const ast::Relation* rel,
                         Namespace* ns) {
    for (const Attribute* existing : owner->own)
      if (existing->name == name.text()) attributeClash(owner, existing, name);
    Attribute* attr = model_.newAttribute();
    attr->name = std::string(name.text());
    attr->entity = owner;
    attr->location = name.loc;
    attr->type = target;
    attr->isRelation = true;
    attr->multiplicity = m;
    attr->relation = rel;
    attr->relationNs = ns;
    owner->own.push_back(attr);
    return attr;
  }

  // ---------------------------------------------------------------- attributes with inheritance, defaults

  void computeAttributes() {
    std::set<Entity*> done;
    std::function<void(Entity*)> compute = [&](Entity* e) {
      if (!done.insert(e).second) return;
      for (Entity* p : e->parents) compute(p);
      // inherited attributes (left-most parent first), then own declarations
      // two parents' plain attributes of one name must have the same type, as an own declaration
      // must have its parent's (relations come later in the reference: not compared)
      for (Entity* p : e->parents)
        for (Attribute* a : p->order) {
          auto it = e->attributes.find(a->name);
          if (it == e->attributes.end()) {
            e->attributes[a->name] = a;
            e->order.push_back(a);
          } else if (!a->isRelation && !it->second->isRelation && it->second->type != a->type) {
            fail(ErrorKind::DuplicateException, "Incompatible attributes", it->second->location);
          }
        }
      for (Attribute* a : e->own) {
        auto it = e->attributes.find(a->name);
        if (it != e->attributes.end()) {
          const Attribute* inherited = it->second;
          if (a->isRelation) continue;  // checked by checkRelationClashes
          // an own plain attribute takes the place of a parent's relation of that name (the
          // reference defines relations after entities and only checks the entity's own relations)
          if (!inherited->isRelation && inherited->type != a->type)
            fail(ErrorKind::DuplicateException, "Incompatible attributes", a->location);
          std::replace(e->order.begin(), e->order.end(), it->second, a);
          it->second = a;
        } else {
          e->attributes[a->name] = a;
          e->order.push_back(a);
        }
      }
      for (size_t i = 0; i < e->order.size(); ++i) e->positions.insert(e->order[i]->name, i);
      computeDefaults(e);
      e->defined = true;
    };
    for (const auto& e : model_.entities()) compute(e.get());
  }

  // spec 3.7: parents' default maps merged right-most to left-most, then own declarations,
  // removal markers dropped at the end.
  void computeDefaults(Entity* e) {
    std::map<std::string, std::optional<DefaultValue>, std::less<>> merged;
    for (auto it = e->parents.rbegin(); it != e->parents.rend(); ++it)
      for (const auto& [name, value] : (*it)->defaults) merged[name] = value;
    if (e->definition != nullptr)
      for (const ast::Attribute& a : e->definition->attributes) {
        if (a.defaultValue != nullptr)
          merged[std::string(a.name.text())] = DefaultValue{a.defaultValue, e->ns, a.name.loc};
        else merged[std::string(a.name.text())] = std::nullopt;
      }
    e->defaults.clear();
    for (auto& [name, value] : merged)
      if (value) e->defaults[name] = *value;
    // the reference's order of them (a dict built in that merge order): a name keeps the place of
    // its first appearance
    std::vector<std::string> order;
    auto add = [&](std::string_view name) {
      if (std::find(order.begin(), order.end(), name) == order.end()) order.emplace_back(name);
    };
    for (auto it = e->parents.rbegin(); it != e->parents.rend(); ++it)
      for (const std::string& name : (*it)->defaultOrder) add(name);
    if (e->definition != nullptr)
      for (const ast::Attribute& a : e->definition->attributes) add(a.name.text());
    e->defaultOrder.clear();
    for (std::string& name : order)
      if (e->defaults.count(name)) e->defaultOrder.push_back(std::move(name));
  }

  // ---------------------------------------------------------------- implementations, indexes, implement

  void defineImplementations() {
    for (const auto& nsPtr : model_.namespaces())
      for (auto& [name, def] : nsPtr->definitions) {
        Implementation* impl = def.implementation();
        if (impl == nullptr) continue;
        const Type* primitive = nullptr;
        const Definition* target = resolve(model_, impl->ns, impl->definition->entity, &primitive);
        if (target == nullptr || target->kind != Definition::Kind::Entity)
          fail(ErrorKind::TypingException,
               "Implementation " + impl->fullName + " is defined for " + std::string(impl->definition->entity.text()) +
                   ", which is not an entity",
               impl->definition->entity.loc);
        impl->entity = target->entity();
      }
  }

  void defineIndexes() {
    for (const auto& nsPtr : model_.namespaces()) {
      Namespace* ns = nsPtr.get();
      for (const ast::Stmt* s : ns->file->statements) {
        if (s->kind != ast::Kind::Index) continue;
        auto* idx = static_cast<const ast::Index*>(s);
        Entity* e = resolveEntity(ns, idx->entity);
        std::vector<std::string> names;
        for (const ast::Name& n : idx->attributes) {
          const Attribute* a = e->attribute(n.text());
          if (a == nullptr)
            fail(ErrorKind::NotFoundException,
                 "Attribute '" + std::string(n.text()) + "' referenced in index is not defined in entity " +
                     e->fullName,
                 idx->loc());
          if (a->isOptional())
            fail(ErrorKind::IndexException,
                 "Index can not contain optional relations, Attribute " + a->name + " of " + e->fullName +
                     " is optional",
                 idx->loc());
          if (a->isMulti() || (!a->isRelation && a->type->kind() == Type::Kind::List) ||
              (!a->isRelation && a->type->kind() == Type::Kind::Nullable &&
               static_cast<const NullableType*>(a->type)->element->kind() == Type::Kind::List))
            fail(ErrorKind::IndexException,
                 "Index can not contain list attributes, Attribute " + a->name + " of " + e->fullName + " is a list",
                 idx->loc());
          names.push_back(a->name);
        }
        std::sort(names.begin(), names.end());
        if (std::find(e->indexes.begin(), e->indexes.end(), names) == e->indexes.end()) e->indexes.push_back(names);
      }
    }
  }

  void defineImplements() {
    for (const auto& nsPtr : model_.namespaces()) {
      Namespace* ns = nsPtr.get();
      for (const ast::Stmt* s : ns->file->statements) {
        if (s->kind != ast::Kind::Implement) continue;
        auto* imp = static_cast<const ast::Implement*>(s);
        Entity* e = resolveEntity(ns, imp->entity);
        ImplementRule rule;
        rule.inheritParents = imp->inheritParents;
        rule.when = imp->when;
        rule.ns = ns;
        rule.location = imp->entity.loc;
        for (const ast::Name& n : imp->implementations) {
          const Type* primitive = nullptr;
          const Definition* def = resolve(model_, ns, n, &primitive);
          if (def == nullptr || def->kind != Definition::Kind::Implementation)
            fail(ErrorKind::TypingException, std::string(n.text()) + " is not an implementation", imp->entity.loc);
          Implementation* impl = def->implementation();
          if (!e->isA(impl->entity))
            fail(ErrorKind::TypingException,
                 "Type mismatch: cannot use " + impl->fullName + " as implementation for " + e->fullName +
                     " because its implementing type is " + impl->entity->fullName,
                 imp->entity.loc);
          rule.implementations.push_back(impl);
        }
        e->rules.push_back(std::move(rule));
      }
    }
  }

  // A relation end named like an attribute the entity inherits (spec 3.7).
  void checkRelationClashes() {
    for (const auto& e : model_.entities())
      for (const Attribute* a : e->own) {
        if (!a->isRelation || a->relation == nullptr) continue;
        for (const Entity* p : e->lineage()) {
          if (p == e.get()) continue;
          // any inherited attribute or relation end of that name (the reference's Entity.normalize)
          for (const Attribute* pa : p->own)
            if (pa->name == a->name)
              fail(ErrorKind::DuplicateException,
                   "Attribute name " + a->name + " is already defined in " + p->shortName +
                       ", unable to define relationship",
                   a->relation->loc());
        }
      }
  }

  Model& model_;
  const std::vector<LoadedFile>& files_;
  const PluginRegistry& plugins_;
  const SourceManager& sources_;
  const WarningSink& warn_;
};

}  // namespace

void defineModel(Model& model, const std::vector<LoadedFile>& files, const PluginRegistry& plugins,
                 const SourceManager& sources, const WarningSink& warn) {
  Definer(model, files, plugins, sources, warn).run();
}

const Definition* resolveName(const Model& model, const Namespace* from, const ast::Name& name,
                              const Type** primitive) {
  return Definer::resolve(model, from, name, primitive);
}

}  // namespace inmanta::compiler::sema
