#include "compiler/exec/evaluator_impl.h"
#include "compiler/exec/plugin_context.h"

#include "compiler/ast/walk.h"

#include <algorithm>

#include "compiler/exec/operators.h"
#include "compiler/sema/define.h"
#include "compiler/sema/typecheck.h"

namespace inmanta::compiler::exec {

// ------------------------------------------------------------------ typedef constraints (3.6)

namespace {
std::string pretty(const ast::Expr* e) {
  switch (e->kind) {
    case ast::Kind::Literal: {
      auto* lit = static_cast<const ast::Literal*>(e);
      return lit->value().isNull() ? std::string("null") : runtime::repr(lit->value());
    }
    case ast::Kind::VarRef: return std::string(static_cast<const ast::VarRef*>(e)->name().text());
    case ast::Kind::Regex: return "/" + static_cast<const ast::Regex*>(e)->pattern + "/";
    case ast::Kind::Binary: {
      auto* b = static_cast<const ast::Binary*>(e);
      return "(" + pretty(b->lhs) + " " + ast::binaryOpText(b->op) + " " + pretty(b->rhs) + ")";
    }
    case ast::Kind::Not: return "not " + pretty(static_cast<const ast::Not*>(e)->operand);
    case ast::Kind::Call: {
      auto* c = static_cast<const ast::Call*>(e);
      std::string out = std::string(c->function.text()) + "(";
      bool first = true;
      for (const ast::Expr* a : c->args) {
        if (!first) out += ",";
        first = false;
        out += pretty(a);
      }
      for (const ast::KwArg& kw : c->named.kwargs) {
        if (!first) out += ",";
        first = false;
        out += std::string(kw.name.text()) + "=" + pretty(kw.value);
      }
      return out + ")";
    }
    case ast::Kind::ListLit: {
      std::string out = "[";
      bool first = true;
      for (const ast::Expr* x : static_cast<const ast::ListLit*>(e)->elements) {
        if (!first) out += ", ";
        first = false;
        out += pretty(x);
      }
      return out + "]";
    }
    case ast::Kind::DictLit: {
      std::string out = "{";
      bool first = true;
      for (const auto& [k, v] : static_cast<const ast::DictLit*>(e)->entries) {
        if (!first) out += ", ";
        first = false;
        out += runtime::pyReprString(k) + ": " + pretty(v);
      }
      return out + "}";
    }
    case ast::Kind::Conditional: {
      auto* c = static_cast<const ast::Conditional*>(e);
      return pretty(c->condition) + " ? " + pretty(c->whenTrue) + " : " + pretty(c->whenFalse);
    }
    case ast::Kind::StringFormat:  // the reference's repr of its StringFormat node
      return "Format(" + runtime::pyReprString(static_cast<const ast::StringFormat*>(e)->text) + ")";
    case ast::Kind::FString:
    case ast::Kind::AttrRef:
    case ast::Kind::MapLookup:
    case ast::Kind::IsDefined:
    case ast::Kind::Constructor:
    case ast::Kind::IndexLookup:
    case ast::Kind::ShortIndexLookup:
    case ast::Kind::ListComp:
      break;
    INMANTA_AST_STATEMENT_CASES:
      break;  // (not expressions)
  }
  return ast::dump(e);
}
}  // namespace

namespace {
// True when `test` holds for every part of `e` that is computed with it inline: the operands of
// an operator, the elements of a list or dict literal, the parts of a conditional or a dict lookup
// (true for an expression without parts).
bool everyPart(const ast::Expr* e, bool (*test)(const ast::Expr*)) {
  switch (e->kind) {
    case ast::Kind::Binary:
    case ast::Kind::Not:
    case ast::Kind::Conditional:
    case ast::Kind::ListLit:
    case ast::Kind::DictLit:
    case ast::Kind::MapLookup: break;
    case ast::Kind::Literal:
    case ast::Kind::StringFormat:
    case ast::Kind::FString:
    case ast::Kind::Regex:
    case ast::Kind::VarRef:
    case ast::Kind::AttrRef:
    case ast::Kind::IsDefined:
    case ast::Kind::Call:
    case ast::Kind::Constructor:
    case ast::Kind::IndexLookup:
    case ast::Kind::ShortIndexLookup:
    case ast::Kind::ListComp:
    INMANTA_AST_STATEMENT_CASES:
      return true;  // (its parts, if any, are computed by units of their own)
  }
  bool all = true;
  ast::forEachChild(e, [&](const ast::Expr* part) { all = all && test(part); });
  return all;
}

// True when evaluating `e` directly can only compute (no plugin call that might print or ask a
// server): its result then depends on `self` alone.
bool computesOnly(const ast::Expr* e) {
  switch (e->kind) {
    case ast::Kind::Literal:
    case ast::Kind::VarRef:
    case ast::Kind::Regex: return true;
    case ast::Kind::Binary:
    case ast::Kind::Not:
    case ast::Kind::Conditional:
    case ast::Kind::ListLit:
    case ast::Kind::DictLit: return everyPart(e, computesOnly);
    case ast::Kind::StringFormat:
    case ast::Kind::FString:
    case ast::Kind::AttrRef:
    case ast::Kind::MapLookup:
    case ast::Kind::IsDefined:
    case ast::Kind::Call:
    case ast::Kind::Constructor:
    case ast::Kind::IndexLookup:
    case ast::Kind::ShortIndexLookup:
    case ast::Kind::ListComp:
    INMANTA_AST_STATEMENT_CASES:
      break;
  }
  return false;
}
}  // namespace

bool computedPurely(const ast::Expr* e) {
  switch (e->kind) {
    case ast::Kind::Literal:
    case ast::Kind::VarRef:
    case ast::Kind::Regex:
    case ast::Kind::AttrRef:
    case ast::Kind::StringFormat:
    case ast::Kind::FString:
    case ast::Kind::Conditional:
    case ast::Kind::IsDefined:
    case ast::Kind::ListComp:
    case ast::Kind::IndexLookup:
    case ast::Kind::ShortIndexLookup: return true;
    case ast::Kind::Binary: {
      auto* b = static_cast<const ast::Binary*>(e);
      return b->op == ast::BinaryOp::And || b->op == ast::BinaryOp::Or || everyPart(e, computedPurely);
    }
    case ast::Kind::Not:
    case ast::Kind::ListLit:
    case ast::Kind::DictLit:
    case ast::Kind::MapLookup: return everyPart(e, computedPurely);
    case ast::Kind::Call:
    case ast::Kind::Constructor:  // plugin calls and casts, constructors
    INMANTA_AST_STATEMENT_CASES:
      break;
  }
  return false;
}

std::optional<Diagnostic> Evaluator::checkConstraint(const model::Typedef& t, const Value& v) {
  // a constraint without plugin calls accepts the same string or integer every time: the
  // accepted ones are remembered (a bounded number per typedef; rejections are evaluated again
  // for their message)
  auto [memo, added] = constraintMemos_.try_emplace(&t);
  if (added) memo->second.pure = computesOnly(t.definition->constraint);
  ConstraintMemo& m = memo->second;
  if (m.pure) {
    if (v.isString() && m.strings.count(v.asString())) return std::nullopt;
    if (v.isInt() && m.ints.count(v.asInt())) return std::nullopt;
  }
  std::optional<Diagnostic> verdict = evaluateConstraint(t, v);
  if (!verdict && m.pure && m.strings.size() + m.ints.size() < ConstraintMemo::kLimit) {
    if (v.isString()) m.strings.insert(v.asString());
    else if (v.isInt()) m.ints.insert(v.asInt());
  }
  return verdict;
}

std::optional<Diagnostic> Evaluator::evaluateConstraint(const model::Typedef& t, const Value& v) {
  Value result;
  try {
    result = evalDirect(t.definition->constraint, v, t);
  } catch (const CompileError& e) {
    return e.diagnostic();
  }
  if (result.isUnknown() || runtime::pyTruthy(result)) return std::nullopt;
  return Diagnostic(ErrorKind::RuntimeException,
                    "Invalid value " + runtime::repr(v) + ", does not match constraint `" +
                        pretty(t.definition->constraint) + "`",
                    t.location, false);
}

Value Evaluator::evalDirect(const ast::Expr* e, const Value& self, const model::Typedef& t, const DirectLocal* locals) {
  auto bad = [&](const ast::Expr* x) -> Value {
    fail(ErrorKind::DirectExecuteException, "The statement " + pretty(x) + " can not be executed in this context",
         x->loc());
  };
  switch (e->kind) {
    case ast::Kind::Literal: {
      return static_cast<const ast::Literal*>(e)->value();
    }
    case ast::Kind::VarRef: {
      std::string_view n = static_cast<const ast::VarRef*>(e)->name().text();
      for (const DirectLocal* l = locals; l != nullptr; l = l->outer)
        if (l->name == n) return l->value;
      if (n == "self") return self;  // (not the typedef's own name: only `self` is bound, spec 3.6)
      fail(ErrorKind::NotFoundException,
           "Unable to resolve `" + std::string(n) + "`: a type constraint can not reference variables.", e->loc(),
           true);
    }
    case ast::Kind::Regex: {
      auto* r = static_cast<const ast::Regex*>(e);
      if (!self.isString())
        fail(ErrorKind::TypingException,
             "Regex can only be match with strings. " + runtime::str(self) + " is of type <class '" +
                 runtime::pythonTypeName(self) + "'>",
             r->loc(), true);
      auto it = regexes_.find(r->pattern);
      if (it == regexes_.end()) {
        std::string error;
        it = regexes_.emplace(r->pattern, PyRegex::compile(r->pattern, error)).first;
      }
      return Value(it->second && it->second->matchPrefix(self.asString()));
    }
    case ast::Kind::Binary: {
      auto* b = static_cast<const ast::Binary*>(e);
      Value l = evalDirect(b->lhs, self, t, locals);
      if (b->op == ast::BinaryOp::And || b->op == ast::BinaryOp::Or) {
        switch (lazyLeft(b->op, l, b->loc())) {
          case LazyOutcome::Unknown:
          case LazyOutcome::Left: return l;
          case LazyOutcome::Right: break;
        }
        return lazyRight(b->op, evalDirect(b->rhs, self, t, locals), b->loc(), true);
      }
      return applyBinary(b->op, l, evalDirect(b->rhs, self, t, locals), b->loc());
    }
    case ast::Kind::Not: {
      return applyNot(evalDirect(static_cast<const ast::Not*>(e)->operand, self, t, locals), e->loc());
    }
    case ast::Kind::Conditional: {
      auto* c = static_cast<const ast::Conditional*>(e);
      Value cond = evalDirect(c->condition, self, t, locals);
      if (cond.isUnknown()) return cond;
      return evalDirect(conditionHolds(cond, c->loc()) ? c->whenTrue : c->whenFalse, self, t, locals);
    }
    case ast::Kind::ListLit: {
      ValueList out;
      for (const ast::Expr* x : static_cast<const ast::ListLit*>(e)->elements) {
        runtime::appendSpliced(out, evalDirect(x, self, t, locals));
      }
      return Value(std::move(out));
    }
    case ast::Kind::ListComp: {
      // as the reference's ListComprehension.execute_direct: the results in order, those the guard
      // filters out and null results left out, nested lists kept
      auto* c = static_cast<const ast::ListComp*>(e);
      Value iterable = evalDirect(c->iterable, self, t, locals);
      if (iterable.isUnknown()) return iterable;
      if (!iterable.isList())
        fail(ErrorKind::TypingException,
             "A list comprehension in a direct execute context can only be applied to lists, got " +
                 runtime::pythonTypeName(iterable),
             c->loc());
      ValueList out;
      for (const Value& element : iterable.asList()) {
        DirectLocal local{c->variable.text(), element, locals};
        if (c->guard != nullptr) {
          Value guard = evalDirect(c->guard, self, t, &local);
          if (!guard.isBool())
            fail(ErrorKind::TypingException,
                 "Invalid value `" + runtime::str(guard) +
                     "`: the guard condition for a list comprehension must be a boolean expression",
                 c->loc());
          if (!guard.asBool()) continue;
        }
        Value v = evalDirect(c->value, self, t, &local);
        if (!v.isNull()) out.push_back(std::move(v));
      }
      return Value(std::move(out));
    }
    case ast::Kind::DictLit: {
      ValueDict out;
      for (const auto& [k, x] : static_cast<const ast::DictLit*>(e)->entries)
        out.items.emplace_back(k, evalDirect(x, self, t, locals));
      return Value(std::move(out));
    }
    case ast::Kind::Call: {
      auto* call = static_cast<const ast::Call*>(e);
      std::string_view name = call->function.text();
      std::vector<Value> args;
      for (const ast::Expr* a : call->args) args.push_back(evalDirect(a, self, t, locals));
      std::optional<runtime::CastType> cast = runtime::castTypeNamed(name);
      if (cast && args.size() == 1 && call->named.kwargs.empty()) return applyCast(*cast, args[0], call->loc());
      const model::Type* primitive = nullptr;
      const model::Definition* def = sema::resolveName(model_, t.ns, call->function, &primitive);
      if (def == nullptr || def->kind != model::Definition::Kind::Plugin)
        fail(ErrorKind::RuntimeException,
             "Can not call '" + std::string(name) + "', can only call plugin or primitive type cast", call->loc(),
             true);
      std::vector<std::pair<std::string, Value>> kwargs;
      for (const ast::KwArg& kw : call->named.kwargs)
        kwargs.emplace_back(std::string(kw.name.text()), evalDirect(kw.value, self, t, locals));
      // as the reference's direct calls: an unknown argument is an error, not an unknown result
      bool unknownArgument =
          std::any_of(args.begin(), args.end(), [](const Value& a) { return a.isUnknown(); }) ||
          std::any_of(kwargs.begin(), kwargs.end(), [](const auto& k) { return k.second.isUnknown(); });
      if (unknownArgument && !def->plugin()->acceptsUnknown)
        fail(ErrorKind::RuntimeException, "Received unknown value during direct execution", call->loc(), true);
      if (def->plugin()->contextAware)
        fail(ErrorKind::RuntimeException, "Context Aware functions are not allowed in direct execution", call->loc(),
             true);
      context_->callingNs = t.ns;
      context_->location = call->loc();
      context_->scope = nullptr;
      return callPlugin(*def->plugin(), call->loc(), args, kwargs, false, call);
    }
    case ast::Kind::StringFormat:
    case ast::Kind::FString:
    case ast::Kind::AttrRef:
    case ast::Kind::MapLookup:
    case ast::Kind::IsDefined:
    case ast::Kind::Constructor:
    case ast::Kind::IndexLookup:
    case ast::Kind::ShortIndexLookup:
    INMANTA_AST_STATEMENT_CASES:
      break;
  }
  return bad(e);
}

}  // namespace inmanta::compiler::exec
