// Parsing one `.cf` file into its syntax tree (spec 1 and 2).
#pragma once

#include <string_view>
#include <vector>

#include "compiler/ast/ast.h"
#include "compiler/diag/diagnostic.h"
#include "compiler/source/source.h"

namespace inmanta::compiler {

// How parseFile gets its tree. Auto: the hand-written fast path (fast_parser.h), and the
// ANTLR-generated parser when the fast path gives up (always for errors); that one lives in
// libinmanta_antlr.so, loaded the first time it is needed (antlr_parser.h). The other modes are
// for tests that check the paths agree: Antlr (SLL prediction, then full LL on an error),
// AntlrLL (full LL only) and FastOnly (the fast path; null when it gives up).
enum class ParseMode { Auto, Antlr, AntlrLL, FastOnly };

// Parses a file of `sources` into a tree allocated in `ctx`. Syntax errors and the parse-time
// checks of spec 2.3/6.2 throw CompileError (ParserException, HyphenException, ...); warnings
// (ParserWarning for unknown escapes, built-in type overrides) go to `warn`. When the ANTLR
// parser is needed and its module cannot be loaded, a CompilerException says why.
ast::File* parseFile(ast::Context& ctx, const SourceManager& sources, FileId file, const WarningSink& warn,
                     ParseMode mode = ParseMode::Auto);

// Variables an expression reads directly (the reference's `requires()`), used by the typedef
// check of spec 2.3.
void directRequires(const ast::Expr* expr, std::vector<std::string_view>& out);

}  // namespace inmanta::compiler
