// The one way the evaluator reports a model's error: a located CompileError of a kind.
#pragma once

#include <string>
#include <utility>

#include "compiler/diag/diagnostic.h"
#include "compiler/source/source.h"

namespace inmanta::compiler::exec {

// `column`: the location's column is shown (most run-time errors show their line only).
[[noreturn]] inline void fail(ErrorKind kind, std::string message, SourceLocation loc, bool column = false) {
  throw CompileError(Diagnostic(kind, std::move(message), loc, column));
}

}  // namespace inmanta::compiler::exec
