// VariableShadowWarning (spec 3.13), as the reference reports it before it runs a file's
// statements: a variable a nested block declares (an if branch, a for body with its loop variable,
// an implementation body) that hides one of an enclosing block or of the file's top level.
#pragma once

#include <functional>
#include <string_view>

#include "compiler/ast/ast.h"
#include "compiler/diag/diagnostic.h"
#include "compiler/source/source.h"

namespace inmanta::compiler::sema {

// The warnings of one file: `topLevel` its statements, `withBlocks` those of them with blocks of
// their own (if, for, implementation) in order, `declaredAtTop` whether its top level declares a
// name (the top level hides nothing).
void warnShadowedVariables(const ast::Block& topLevel, const ast::Block& withBlocks,
                           const std::function<bool(std::string_view)>& declaredAtTop, const SourceManager& sources,
                           const WarningSink& warn);

}  // namespace inmanta::compiler::sema
