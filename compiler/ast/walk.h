// The one generic walk over the syntax tree's children: the passes that treat most kinds alike
// (normalisation, the static analyses of the evaluator, the shadowing check) ask here for a
// node's parts instead of each spelling out every kind's fields. Every switch names every kind
// (-Wswitch-enum): a new kind of node does not compile until each walk says what its parts are.
#pragma once

#include "compiler/ast/ast.h"

namespace inmanta::compiler::ast {

// Calls `f(const Expr*)` with each direct sub-expression of `e`, in the order written: the
// operands of an operator, the object of an attribute reference, the arguments of a call, a
// constructor or an index lookup (positional, named, then `**`), the elements of a list, the
// values of a dict, the references a string interpolates, a list comprehension's value, iterable
// and guard. A missing part (an `is defined` without object, a comprehension without guard) is
// skipped.
template <class F>
void forEachChild(const Expr* e, F&& f) {
  auto named = [&f](const Arguments& a) {
    for (const KwArg& kw : a.kwargs) f(static_cast<const Expr*>(kw.value));
    for (const Expr* w : a.wrapped) f(w);
  };
  switch (e->kind) {
    case Kind::Literal:
    case Kind::Regex:
    case Kind::VarRef: return;
    case Kind::StringFormat:
      for (const auto& p : static_cast<const StringFormat*>(e)->parts) f(static_cast<const Expr*>(p.ref));
      return;
    case Kind::FString:
      for (const auto& r : static_cast<const FString*>(e)->refs) f(static_cast<const Expr*>(r.ref));
      return;
    case Kind::AttrRef: f(static_cast<const Expr*>(static_cast<const AttrRef*>(e)->object)); return;
    case Kind::MapLookup: {
      auto* m = static_cast<const MapLookup*>(e);
      f(static_cast<const Expr*>(m->map));
      f(static_cast<const Expr*>(m->key));
      return;
    }
    case Kind::IsDefined:
      if (const Expr* o = static_cast<const IsDefined*>(e)->object) f(o);
      return;
    case Kind::Binary: {
      auto* b = static_cast<const Binary*>(e);
      f(static_cast<const Expr*>(b->lhs));
      f(static_cast<const Expr*>(b->rhs));
      return;
    }
    case Kind::Not: f(static_cast<const Expr*>(static_cast<const Not*>(e)->operand)); return;
    case Kind::Conditional: {
      auto* c = static_cast<const Conditional*>(e);
      f(static_cast<const Expr*>(c->condition));
      f(static_cast<const Expr*>(c->whenTrue));
      f(static_cast<const Expr*>(c->whenFalse));
      return;
    }
    case Kind::Call: {
      auto* c = static_cast<const Call*>(e);
      for (const Expr* a : c->args) f(a);
      named(c->named);
      return;
    }
    case Kind::Constructor: named(static_cast<const Constructor*>(e)->named); return;
    case Kind::IndexLookup: named(static_cast<const IndexLookup*>(e)->named); return;
    case Kind::ShortIndexLookup: {
      auto* l = static_cast<const ShortIndexLookup*>(e);
      f(static_cast<const Expr*>(l->object));
      named(l->named);
      return;
    }
    case Kind::ListLit:
      for (const Expr* x : static_cast<const ListLit*>(e)->elements) f(x);
      return;
    case Kind::ListComp: {
      auto* c = static_cast<const ListComp*>(e);
      f(static_cast<const Expr*>(c->value));
      f(static_cast<const Expr*>(c->iterable));
      if (c->guard != nullptr) f(static_cast<const Expr*>(c->guard));
      return;
    }
    case Kind::DictLit:
      for (const auto& entry : static_cast<const DictLit*>(e)->entries) f(static_cast<const Expr*>(entry.value));
      return;
    INMANTA_AST_STATEMENT_CASES:
      return;  // (statements: forEachBlock)
  }
}

// Calls `f(const Block&, const For*)` with each block nested directly in a statement of a block
// (an `if`'s branches, then its else; a `for`'s body, with the loop; an implementation's body),
// with the `for` whose body it is (null otherwise). Definitions other than implementations and
// simple statements have none.
template <class F>
void forEachBlock(const Stmt* s, F&& f) {
  switch (s->kind) {
    case Kind::If: {
      auto* i = static_cast<const If*>(s);
      f(i->thenBlock, static_cast<const For*>(nullptr));
      f(i->elseBlock, static_cast<const For*>(nullptr));
      return;
    }
    case Kind::For: {
      auto* loop = static_cast<const For*>(s);
      f(loop->body, loop);
      return;
    }
    case Kind::Implementation: f(static_cast<const Implementation*>(s)->body, static_cast<const For*>(nullptr)); return;
    case Kind::ExprStmt:
    case Kind::Assign:
    case Kind::Import:
    case Kind::Entity:
    case Kind::Implement:
    case Kind::Relation:
    case Kind::Typedef:
    case Kind::Index:
    INMANTA_AST_EXPRESSION_CASES:
      return;
  }
}

}  // namespace inmanta::compiler::ast
