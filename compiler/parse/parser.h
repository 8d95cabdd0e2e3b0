// Parsing one `.cf` file into its syntax tree (spec 1 and 2).
#pragma once

#include <string_view>

#include "ast/ast.h"
#include "diag/diagnostic.h"
#include "source/source.h"

namespace inmanta::compiler {

// Parses a file of `sources` into a tree allocated in `ctx`. Syntax errors and the parse-time
// checks of spec 2.3/6.2 throw CompileError (ParserException, HyphenException, ...); warnings
// (ParserWarning for unknown escapes, built-in type overrides) go to `warn`.
// The environment variable INMANTA_PARSE_LL_ONLY disables the SLL fast path (for tests that
// check both paths build the same tree).
ast::File* parseFile(ast::Context& ctx, const SourceManager& sources, FileId file, const WarningSink& warn);

// Variables an expression reads directly (the reference's `requires()`), used by the typedef
// check of spec 2.3.
void directRequires(const ast::Expr* expr, std::vector<std::string_view>& out);

}  // namespace inmanta::compiler
