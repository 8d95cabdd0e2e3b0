#include "compiler/exec/evaluator_impl.h"

namespace inmanta::compiler::exec {

void Evaluator::declareVariable(Scope* scope, const ast::Name& name) {
  if (scope->own(name) == nullptr) scope->declare(name, scheduler_.makePlain());
}

void Evaluator::declare(const ast::Block& block, Scope* scope) {
  ast::forEachAssigned(block, [&](const ast::Name& n, const ast::Assign*) { declareVariable(scope, n); });
}

void Evaluator::declareTopLevel(TopLevel& top) {
  for (ast::Stmt* s : *top.block) {
    if (std::optional<ast::Name> n = ast::assignedName(s)) declareVariable(top.scope, *n);
    else if (s->kind == ast::Kind::If || s->kind == ast::Kind::For || s->kind == ast::Kind::Implementation)
      top.withBlocks.push_back(s);
  }
}

Scope* Evaluator::blockScope(const ast::Block& block, Scope* enclosing) {
  // a block that declares nothing would only pass every lookup on: it reads the enclosing scope
  Scope* scope = enclosing;
  ast::forEachAssigned(block, [&](const ast::Name& n, const ast::Assign*) {
    if (scope == enclosing) scope = &scopes_.emplace_back(enclosing, enclosing->ns);
    declareVariable(scope, n);
  });
  return scope;
}

void Evaluator::emitBlock(const ast::Block& block, Scope* scope, bool topLevel) {
  // spec 2.5: block statements are emitted in reverse, the top level in order
  if (topLevel) {
    for (const ast::Stmt* s : block) emitStatement(s, scope);
  } else {
    for (auto it = block.rbegin(); it != block.rend(); ++it) emitStatement(*it, scope);
  }
}

// ------------------------------------------------------------------ statements

void Evaluator::evaluateStatement(const ast::Expr* expr, Scope* scope) {
  Variable* v = emit(expr, scope);
  // an expression evaluated directly needs a unit of its own when nothing reads its value
  if (v->kind() == Variable::Kind::Direct)
    scheduler_.unit(
        {v}, [v] { (void)v->get(); }, ast::kindName(expr->kind), expr->loc(), true);
}

void Evaluator::emitStatement(const ast::Stmt* stmt, Scope* scope) {
  switch (stmt->kind) {
    case ast::Kind::Import:
    case ast::Kind::Entity:
    case ast::Kind::Implementation:
    case ast::Kind::Implement:
    case ast::Kind::Typedef:
    case ast::Kind::Index: return;  // definitions were handled by the definition phase
    case ast::Kind::Relation: {
      // its annotations are evaluated (each by a unit, as the reference's DefineRelation.emit) and
      // otherwise ignored; an unknown one is reported by the final checks
      auto* r = static_cast<const ast::Relation*>(stmt);
      int ends = (r->leftAttr.empty() ? 0 : 1) + (r->rightAttr.empty() ? 0 : 1);
      if (ends == 2 && r->left.text() == r->right.text() && r->leftAttr.text() == r->rightAttr.text())
        ends = 1;  // self-inverse
      for (const ast::Expr* e : r->annotations) {
        Variable* v = emit(e, scope);
        scheduler_.unit(
            {v}, [v] { (void)v->get(); }, "relation annotation", e->loc(), true);
        annotations_.push_back({v, r, ends});
      }
      return;
    }
    case ast::Kind::ExprStmt: evaluateStatement(static_cast<const ast::ExprStmt*>(stmt)->expr, scope); return;
    case ast::Kind::Assign: {
      auto* a = static_cast<const ast::Assign*>(stmt);
      if (a->target->kind != ast::Kind::VarRef) return emitAttributeAssign(a, scope);
      auto* ref = static_cast<const ast::VarRef*>(a->target);
      Variable* target = scope->find(ref->name());
      Variable* value = emit(a->value, scope);
      scheduler_.unit(
          {value}, [target, value, a] { target->set(value->get(), a->loc()); }, assignLabel(ref), a->loc(), true);
      return;
    }
    case ast::Kind::If: {
      auto* i = static_cast<const ast::If*>(stmt);
      ast::Block both = i->thenBlock;
      both.insert(both.end(), i->elseBlock.begin(), i->elseBlock.end());
      auto commit = eagerPromises(both, {}, scope);
      Variable* cond = emit(i->condition, scope);
      scheduler_.unit(
          {cond},
          [this, cond, i, scope, commit] {
            struct Committer {
              const std::function<void()>& f;  // (the unit's own: no copy per run)
              ~Committer() { f(); }
            } committer{commit};
            Value c = cond->get();
            if (c.isUnknown()) return;
            if (!c.isBool())
              fail(ErrorKind::RuntimeException,
                   "Invalid value `" + runtime::str(c) +
                       "`: the condition for an if statement can only be a boolean expression",
                   i->loc());
            const ast::Block& branch = c.asBool() ? i->thenBlock : i->elseBlock;
            emitBlock(branch, blockScope(branch, scope), false);
          },
          "if", i->loc(), false);
      return;
    }
    case ast::Kind::For:
      emitFor(static_cast<const ast::For*>(stmt), scope);
      return;
    INMANTA_AST_EXPRESSION_CASES:
      // (an expression written as a statement: a call, a constructor)
      evaluateStatement(static_cast<const ast::Expr*>(static_cast<const ast::Node*>(stmt)), scope);
      return;
  }
}

}  // namespace inmanta::compiler::exec
