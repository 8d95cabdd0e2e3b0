#include "compiler/sema/normalize.h"

#include <algorithm>
#include <set>

#include "compiler/ast/walk.h"
#include "compiler/sema/define.h"
#include "compiler/sema/typecheck.h"

namespace inmanta::compiler::sema {

using runtime::Value;
using runtime::ValueDict;
using runtime::ValueList;

namespace {
[[noreturn]] void fail(ErrorKind kind, std::string message, SourceLocation loc, bool column = false) {
  throw CompileError(Diagnostic(kind, std::move(message), loc, column));
}

// The static checks of one model (spec 3.4 step 5), in the reference's order.
class Normalizer {
 public:
  Normalizer(const model::Model& model, const ConstraintCheck& checkConstraint, const ConstructorResolved& resolved)
      : model_(model), checkConstraint_(checkConstraint), resolved_(resolved) {}
  void run();

 private:
  void normalizeBlock(const ast::Block& block, model::Namespace* ns);
  // `lhs`: the expression is (an element of) the value assigned to an attribute (`x.a = e`, a
  // constructor argument that is not an index attribute), which may give a nested constructor
  // its missing index attribute at run time, as the reference's lhs_attribute (spec 3.10).
  void normalizeExpr(const ast::Expr* e, model::Namespace* ns, const model::Entity* expected, bool lhs = false);
  const std::vector<std::string>& indexAttributesOf(const model::Entity* entity) {
    auto [it, added] = indexAttributes_.try_emplace(entity);
    if (added) it->second = model::indexAttributeNames(entity);
    return it->second;
  }

  const model::Model& model_;
  const ConstraintCheck& checkConstraint_;
  const ConstructorResolved& resolved_;
  std::unordered_map<const model::Entity*, std::vector<std::string>> indexAttributes_;
};
}  // namespace

namespace {
bool constantValue(const ast::Expr* e, Value& out) {
  switch (e->kind) {
    case ast::Kind::Literal: out = static_cast<const ast::Literal*>(e)->value(); return true;
    case ast::Kind::ListLit: {
      ValueList items;
      for (const ast::Expr* x : static_cast<const ast::ListLit*>(e)->elements) {
        Value v;
        if (!constantValue(x, v)) return false;
        runtime::appendSpliced(items, v);
      }
      out = Value(std::move(items));
      return true;
    }
    case ast::Kind::DictLit: {
      ValueDict d;
      for (const auto& [k, x] : static_cast<const ast::DictLit*>(e)->entries) {
        Value v;
        if (!constantValue(x, v)) return false;
        d.items.emplace_back(k, v);
      }
      out = Value(std::move(d));
      return true;
    }
    case ast::Kind::StringFormat:
    case ast::Kind::FString:
    case ast::Kind::Regex:
    case ast::Kind::VarRef:
    case ast::Kind::AttrRef:
    case ast::Kind::MapLookup:
    case ast::Kind::IsDefined:
    case ast::Kind::Binary:
    case ast::Kind::Not:
    case ast::Kind::Conditional:
    case ast::Kind::Call:
    case ast::Kind::Constructor:
    case ast::Kind::IndexLookup:
    case ast::Kind::ShortIndexLookup:
    case ast::Kind::ListComp:
    INMANTA_AST_STATEMENT_CASES:
      return false;
  }
  __builtin_unreachable();  // (the switch above names every value)
}
}  // namespace

const model::Entity* constructorEntity(const model::Model& model, const ast::Constructor* ctor,
                                       const model::Namespace* ns, const model::Entity* expected) {
  const model::Type* primitive = nullptr;
  const model::Definition* def = nullptr;
  try {
    def = resolveName(model, ns, ctor->type, &primitive);
  } catch (const CompileError& e) {
    bool qualified = ctor->type.text().find("::") != std::string_view::npos;
    if (expected == nullptr || qualified || e.diagnostic().kind != ErrorKind::TypeNotFoundException) throw;
    // type inference (3.11): an entity of that name among the expected type and its subtypes
    std::vector<const model::Entity*> candidates;
    std::vector<const model::Entity*> todo{expected};
    std::set<const model::Entity*> seen;
    while (!todo.empty()) {
      const model::Entity* cur = todo.back();
      todo.pop_back();
      if (!seen.insert(cur).second) continue;
      if (cur->shortName == ctor->type.text()) candidates.push_back(cur);
      for (const model::Entity* c : cur->children) todo.push_back(c);
    }
    if (candidates.empty()) throw;
    if (candidates.size() > 1) {
      std::sort(candidates.begin(), candidates.end(),
                [](const model::Entity* a, const model::Entity* b) { return a->fullName < b->fullName; });
      std::string names;
      for (const model::Entity* c : candidates) names += (names.empty() ? "" : ", ") + c->fullName;
      fail(ErrorKind::AmbiguousTypeException,
           "Could not determine namespace for type " + std::string(ctor->type.text()) + ". " +
               std::to_string(candidates.size()) + " possible candidates exists: [" + names +
               "]. To resolve this, use the fully qualified name instead of the short name.",
           ctor->loc());
    }
    return candidates.front();
  }
  if (def == nullptr || def->kind != model::Definition::Kind::Entity)
    fail(ErrorKind::TypingException, std::string(ctor->type.text()) + " is not an entity", ctor->loc());
  const model::Entity* entity = def->entity();
  if (expected != nullptr && !entity->isA(expected))
    fail(ErrorKind::TypingException,
         "Can not assign a value of type " + entity->fullName + " to a variable of type " + expected->fullName,
         ctor->loc());
  return entity;
}

std::string missingIndexMessage(const model::Entity* entity, const std::vector<std::string_view>& missing) {
  std::string message = "Invalid Constructor call:";
  for (std::string_view a : missing) {
    // as the reference: a relation is named as one
    const model::Attribute* attribute = entity->attribute(a);
    std::string kind = attribute != nullptr && attribute->isRelation ? "relation" : "attribute";
    message += "\n\t* Missing " + kind + " '" + std::string(a) + "'. The " + kind + " " + entity->fullName + "." +
               std::string(a) + " is part of an index.";
  }
  return message;
}

void Normalizer::normalizeExpr(const ast::Expr* e, model::Namespace* ns, const model::Entity* expected, bool lhs) {
  if (e == nullptr) return;
  switch (e->kind) {
    case ast::Kind::Constructor: {
      auto* c = static_cast<const ast::Constructor*>(e);
      const model::Entity* entity = constructorEntity(model_, c, ns, expected);
      if (resolved_) resolved_(c, entity);
      // index attributes neither given nor defaulted, once per index naming them (as the
      // reference lists them); without a `**` argument, only an assigned-to attribute's inverse
      // can still give one at run time: two or more, or none to give it, fail here (spec 3.10)
      auto given = [&](std::string_view a) {
        return entity->defaults.count(a) != 0 || std::any_of(c->named.kwargs.begin(), c->named.kwargs.end(),
                                                             [&](const ast::KwArg& kw) { return kw.name.text() == a; });
      };
      std::vector<std::string_view> missing = missingIndexAttributes(entity, given);
      if (!missing.empty() && c->named.wrapped.empty() && (!lhs || missing.size() > 1))
        fail(ErrorKind::IndexAttributeMissingInConstructorException, missingIndexMessage(entity, missing), c->loc());
      const std::vector<std::string>& indexAttributes = indexAttributesOf(entity);
      for (const ast::KwArg& kw : c->named.kwargs) {
        const model::Attribute* attr = entity->attribute(kw.name.text());
        if (attr == nullptr)
          fail(ErrorKind::TypingException,
               "no attribute " + std::string(kw.name.text()) + " on type " + entity->fullName, kw.name.loc, true);
        if (!attr->isRelation && kw.value->kind == ast::Kind::Constructor)
          fail(ErrorKind::TypingException,
               "Can not assign a value of type " +
                   std::string(static_cast<const ast::Constructor*>(kw.value)->type.text()) +
                   " to a variable of type " + attr->type->name(),
               kw.value->loc());
        normalizeExpr(kw.value, ns, attr->isRelation ? attr->target() : nullptr,
                      !std::binary_search(indexAttributes.begin(), indexAttributes.end(), kw.name.text()));
      }
      for (const ast::Expr* w : c->named.wrapped) normalizeExpr(w, ns, nullptr);
      return;
    }
    case ast::Kind::IndexLookup: {
      auto* l = static_cast<const ast::IndexLookup*>(e);
      const model::Type* primitive = nullptr;
      const model::Definition* def = resolveName(model_, ns, l->type, &primitive);
      if (def == nullptr || def->kind != model::Definition::Kind::Entity)
        fail(ErrorKind::TypingException, std::string(l->type.text()) + " is not an entity", l->loc());
      break;
    }
    case ast::Kind::Call: {
      auto* c = static_cast<const ast::Call*>(e);
      if (!runtime::castTypeNamed(c->function.text())) {
        const model::Type* primitive = nullptr;
        const model::Definition* def = resolveName(model_, ns, c->function, &primitive);
        if (def == nullptr || def->kind != model::Definition::Kind::Plugin)
          fail(ErrorKind::RuntimeException,
               "Can not call '" + std::string(c->function.text()) + "', can only call plugin or primitive type cast",
               c->loc(), true);
      }
      break;
    }
    case ast::Kind::VarRef: {
      std::string_view text = static_cast<const ast::VarRef*>(e)->name().text();
      size_t sep = text.rfind("::");
      if (sep != std::string_view::npos && ns->visible.find(text.substr(0, sep)) == ns->visible.end())
        fail(ErrorKind::NotFoundException,
             "Namespace " + std::string(text.substr(0, sep)) + " not found. Try importing it with `import " +
                 std::string(text.substr(0, sep)) + "`",
             e->loc(), true);
      return;
    }
    case ast::Kind::Conditional: {
      auto* c = static_cast<const ast::Conditional*>(e);
      normalizeExpr(c->condition, ns, nullptr);
      normalizeExpr(c->whenTrue, ns, expected, lhs);
      normalizeExpr(c->whenFalse, ns, expected, lhs);
      return;
    }
    case ast::Kind::ListLit:
      for (const ast::Expr* x : static_cast<const ast::ListLit*>(e)->elements) normalizeExpr(x, ns, expected, lhs);
      return;
    case ast::Kind::ListComp: {
      auto* c = static_cast<const ast::ListComp*>(e);
      normalizeExpr(c->value, ns, expected, lhs);
      normalizeExpr(c->iterable, ns, nullptr);
      normalizeExpr(c->guard, ns, nullptr);
      return;
    }
    case ast::Kind::ShortIndexLookup:
    case ast::Kind::AttrRef:
    case ast::Kind::MapLookup:
    case ast::Kind::IsDefined:
    case ast::Kind::Binary:
    case ast::Kind::Not:
    case ast::Kind::DictLit:
    case ast::Kind::StringFormat:
    case ast::Kind::FString:
    case ast::Kind::Literal:
    case ast::Kind::Regex:
      break;
    INMANTA_AST_STATEMENT_CASES:
      return;  // (not expressions)
  }
  // its parts, none of which expects an entity
  ast::forEachChild(e, [&](const ast::Expr* part) { normalizeExpr(part, ns, nullptr); });
}

void Normalizer::normalizeBlock(const ast::Block& block, model::Namespace* ns) {
  for (const ast::Stmt* s : block) {
    switch (s->kind) {
      case ast::Kind::ExprStmt: normalizeExpr(static_cast<const ast::ExprStmt*>(s)->expr, ns, nullptr); break;
      case ast::Kind::Assign: {
        auto* a = static_cast<const ast::Assign*>(s);
        normalizeExpr(a->target, ns, nullptr);
        normalizeExpr(a->value, ns, nullptr, a->target->kind == ast::Kind::AttrRef);
        break;
      }
      case ast::Kind::For: {
        auto* f = static_cast<const ast::For*>(s);
        normalizeExpr(f->iterable, ns, nullptr);
        normalizeBlock(f->body, ns);
        break;
      }
      case ast::Kind::If: {
        auto* i = static_cast<const ast::If*>(s);
        normalizeExpr(i->condition, ns, nullptr);
        normalizeBlock(i->thenBlock, ns);
        normalizeBlock(i->elseBlock, ns);
        break;
      }
      case ast::Kind::Import:
      case ast::Kind::Entity:
      case ast::Kind::Implementation:
      case ast::Kind::Implement:
      case ast::Kind::Relation:
      case ast::Kind::Typedef:
      case ast::Kind::Index:
      INMANTA_AST_EXPRESSION_CASES:
        break;
    }
  }
}

void Normalizer::run() {
  // whether the last check failed inside a constraint's expression (a variable, a plugin, an
  // operator), rather than on the value (a base type, "does not match constraint")
  bool inExpression = false;
  auto check = [this, &inExpression](const model::Typedef& t, const Value& x) {
    std::optional<Diagnostic> verdict = checkConstraint_(t, x);
    inExpression = verdict && !(verdict->location.file == t.location.file &&
                                verdict->location.line == t.location.line && verdict->location.col == t.location.col &&
                                verdict->message.find(", does not match constraint `") != std::string::npos);
    return verdict;
  };
  // entity defaults: constants, valid for the attribute's type (3.7)
  for (const auto& entity : model_.entities()) {
    if (entity->definition == nullptr) continue;
    for (const ast::Attribute& a : entity->definition->attributes) {
      if (a.defaultValue == nullptr) continue;
      Value v;
      if (!constantValue(a.defaultValue, v))
        fail(ErrorKind::RuntimeException, ast::dump(a.defaultValue) + " is not a constant", a.name.loc, true);
      const model::Attribute* attr = entity->attribute(a.name.text());
      if (attr == nullptr || attr->isRelation) continue;
      inExpression = false;
      if (auto err = validateValue(attr->type, v, check)) {
        // an error of the constraint's expression (a variable it reads, a plugin, an operator on
        // the wrong type) is reported where it is written, as the reference: its statement raised
        // it; a value the type or constraint refuses is reported at the attribute
        if (!inExpression) err->location = a.name.loc;
        throw CompileError(std::move(*err));
      }
    }
  }
  // implementation bodies, implement conditions, then the top-level blocks (3.4 step 5)
  for (const auto& ns : model_.namespaces())
    for (const auto& [name, def] : ns->definitions)
      if (const model::Implementation* impl = def.implementation()) normalizeBlock(impl->definition->body, impl->ns);
  for (const auto& entity : model_.entities())
    for (const model::ImplementRule& rule : entity->rules) normalizeExpr(rule.when, rule.ns, nullptr);
  for (const auto& ns : model_.namespaces()) normalizeBlock(ns->file->statements, ns.get());
}

void normalize(const model::Model& model, const ConstraintCheck& checkConstraint, const ConstructorResolved& resolved) {
  Normalizer(model, checkConstraint, resolved).run();
}

}  // namespace inmanta::compiler::sema
