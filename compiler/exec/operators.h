// The language's operators on values (spec 5.1), written once for the scheduled evaluation and
// the direct one (typedef constraints): `not`, the binary operators, the lazy `and`/`or`, the
// conditions of conditionals and the casts (the names of the casts and the splicing of lists into
// list literals are runtime/value.h's: the static checks use them too).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "compiler/ast/ast.h"
#include "compiler/runtime/value.h"
#include "compiler/runtime/var_list.h"
#include "compiler/runtime/variable.h"
#include "compiler/source/source.h"

namespace inmanta::compiler::exec {

using runtime::Value;

// `not v`: an unknown stays unknown; anything but a bool is an error at `at`.
Value applyNot(const Value& v, SourceLocation at);

// A non-lazy binary operator on two values: unknowns propagate except for `in`.
Value applyBinary(ast::BinaryOp op, const Value& l, const Value& r, SourceLocation at);

// The condition of a conditional expression (or a list comprehension's guard) once known and not
// unknown: a bool, else an error at `at`.
bool conditionHolds(const Value& v, SourceLocation at);

// What the left operand of `and` / `or` (op) decides: nothing (it is unknown: so is the result),
// the result (false for `and`, true for `or`: the left value itself), or that the right operand
// gives the result. Anything but a bool is an error at `at`.
enum class LazyOutcome : uint8_t { Unknown, Left, Right };
LazyOutcome lazyLeft(ast::BinaryOp op, const Value& left, SourceLocation at);
// The right operand's value as the result: a bool or an unknown, else an error at `at`, worded as
// the reference's scheduled operator words it or, `direct`, as its direct execution does.
Value lazyRight(ast::BinaryOp op, const Value& right, SourceLocation at, bool direct);

// A cast of one value; a value the cast refuses is an error at `at` (column shown).
Value applyCast(runtime::CastType to, const Value& v, SourceLocation at);

// An operator computed directly from its operands' values: a binary operator other than `and`
// and `or` (which wait for their left operand first), or `not`.
bool isOperator(const ast::Expr* e);

// The value of the operators of `e` over the values of its operands that are not such operators
// (`in`, from `next` on, in the order written): each operator takes its left operand's value first,
// as the reference's Operator does, so the left one's error is the one reported.
Value applyOperators(const ast::Expr* e, const runtime::VarList& in, size_t& next);

}  // namespace inmanta::compiler::exec
