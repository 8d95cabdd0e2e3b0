#include "compiler/exec/operators.h"

#include "compiler/exec/fail.h"
#include "compiler/runtime/slots.h"

namespace inmanta::compiler::exec {

Value applyNot(const Value& v, SourceLocation at) {
  if (v.isUnknown()) return v;
  if (!v.isBool())
    fail(ErrorKind::RuntimeException, "Invalid value `" + runtime::str(v) + "`: `not` expects a boolean", at);
  return Value(!v.asBool());
}

bool conditionHolds(const Value& v, SourceLocation at) {
  if (!v.isBool())
    fail(ErrorKind::RuntimeException,
         "Invalid value `" + runtime::str(v) +
             "`: the condition for a conditional expression must be a boolean expression",
         at);
  return v.asBool();
}

Value applyBinary(ast::BinaryOp op, const Value& l, const Value& r, SourceLocation at) {
  runtime::OpResult res;
  switch (op) {
    case ast::BinaryOp::In: res = runtime::contains(l, r); break;
    case ast::BinaryOp::Eq:
    case ast::BinaryOp::Ne:
      if (l.isUnknown() || r.isUnknown()) return Value::unknown();
      return Value(runtime::pyEquals(l, r) == (op == ast::BinaryOp::Eq));
    case ast::BinaryOp::And:
    case ast::BinaryOp::Or:  // lazy: lazyLeft and lazyRight
      throw std::logic_error("and/or are not computed from two values");
    case ast::BinaryOp::Add:
    case ast::BinaryOp::Sub:
    case ast::BinaryOp::Mul:
    case ast::BinaryOp::Div:
    case ast::BinaryOp::Mod:
    case ast::BinaryOp::Pow:
    case ast::BinaryOp::Lt:
    case ast::BinaryOp::Gt:
    case ast::BinaryOp::Le:
    case ast::BinaryOp::Ge:
      if (l.isUnknown() || r.isUnknown()) return Value::unknown();
      switch (op) {
        case ast::BinaryOp::Add: res = arithmetic(runtime::ArithOp::Add, l, r); break;
        case ast::BinaryOp::Sub: res = arithmetic(runtime::ArithOp::Sub, l, r); break;
        case ast::BinaryOp::Mul: res = arithmetic(runtime::ArithOp::Mul, l, r); break;
        case ast::BinaryOp::Div: res = arithmetic(runtime::ArithOp::Div, l, r); break;
        case ast::BinaryOp::Mod: res = arithmetic(runtime::ArithOp::Mod, l, r); break;
        case ast::BinaryOp::Pow: res = arithmetic(runtime::ArithOp::Pow, l, r); break;
        case ast::BinaryOp::Lt: res = compare(runtime::CompareOp::Lt, l, r); break;
        case ast::BinaryOp::Gt: res = compare(runtime::CompareOp::Gt, l, r); break;
        case ast::BinaryOp::Le: res = compare(runtime::CompareOp::Le, l, r); break;
        case ast::BinaryOp::Ge: res = compare(runtime::CompareOp::Ge, l, r); break;
        case ast::BinaryOp::Eq:
        case ast::BinaryOp::Ne:
        case ast::BinaryOp::And:
        case ast::BinaryOp::Or:
        case ast::BinaryOp::In: break;  // (handled above)
      }
  }
  if (res.error)
    fail(res.error->typing ? ErrorKind::TypingException : ErrorKind::RuntimeException, res.error->message, at);
  return res.value;
}

namespace {
const char* lazyName(ast::BinaryOp op) { return op == ast::BinaryOp::And ? "and" : "or"; }
}  // namespace

LazyOutcome lazyLeft(ast::BinaryOp op, const Value& left, SourceLocation at) {
  if (left.isUnknown()) return LazyOutcome::Unknown;
  if (!left.isBool())
    fail(ErrorKind::RuntimeException,
         "Invalid left hand value `" + runtime::str(left) + "`: `" + lazyName(op) + "` expects a boolean", at);
  return left.asBool() != (op == ast::BinaryOp::And) ? LazyOutcome::Left : LazyOutcome::Right;
}

Value lazyRight(ast::BinaryOp op, const Value& right, SourceLocation at, bool direct) {
  if (right.isUnknown() || right.isBool()) return right;
  if (direct)
    fail(ErrorKind::RuntimeException,
         "Invalid right hand value `" + runtime::str(right) + "`: `" + lazyName(op) + "` expects a boolean", at);
  fail(ErrorKind::RuntimeException, "Invalid value '" + runtime::str(right) + "', expected bool", at);
}

Value applyCast(runtime::CastType to, const Value& v, SourceLocation at) {
  runtime::OpResult r = runtime::cast(to, v);
  if (r.error) fail(ErrorKind::RuntimeException, r.error->message, at, true);
  return r.value;
}

bool isOperator(const ast::Expr* e) {
  if (e->kind == ast::Kind::Not) return true;
  if (e->kind != ast::Kind::Binary) return false;
  ast::BinaryOp op = static_cast<const ast::Binary*>(e)->op;
  return op != ast::BinaryOp::And && op != ast::BinaryOp::Or;
}

namespace {

// Moves the error `d` of an operator at `at` to `operand`, the one operand it is about, with the
// operation as a note (issue 32: the smallest construct that is wrong first).
void pointAtOperand(Diagnostic& d, SourceLocation at, const ast::Expr* operand) {
  SourceLocation l = d.location;
  if (operand == nullptr || l.file != at.file || l.line != at.line || l.col != at.col || !d.notes.empty()) return;
  d.location = operand->loc();
  d.showColumn = true;
  d.notes.push_back({"in this operation", at});
}

// The operand whose value a binary operator refused: the right one of `in` (a list or a dict is
// wanted), the first one of a comparison that is not a number; none when the error is about the
// pair (`1 + "a"`: neither type is wrong alone).
const ast::Expr* refusedOperand(const ast::Binary* b, const Value& left) {
  using Op = ast::BinaryOp;
  if (b->op == Op::In) return b->rhs;
  bool comparison = b->op == Op::Lt || b->op == Op::Gt || b->op == Op::Le || b->op == Op::Ge;
  if (!comparison) return nullptr;
  return left.isNumber() ? b->rhs : b->lhs;
}

}  // namespace

Value applyOperators(const ast::Expr* e, const runtime::VarList& in, size_t& next) {
  if (!isOperator(e)) return in[next++]->get();
  if (e->kind == ast::Kind::Not) {
    auto* n = static_cast<const ast::Not*>(e);
    Value operand = applyOperators(n->operand, in, next);
    try {
      return applyNot(operand, n->loc());
    } catch (CompileError& error) {
      pointAtOperand(error.diagnostic(), n->loc(), n->operand);
      throw;
    }
  }
  auto* b = static_cast<const ast::Binary*>(e);
  Value left = applyOperators(b->lhs, in, next);
  Value right = applyOperators(b->rhs, in, next);
  try {
    return applyBinary(b->op, left, right, b->loc());
  } catch (CompileError& error) {
    pointAtOperand(error.diagnostic(), b->loc(), refusedOperand(b, left));
    throw;
  }
}

}  // namespace inmanta::compiler::exec
