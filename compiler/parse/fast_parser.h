// The fast path of parseFile: a hand-written lexer and recursive-descent parser for the grammar
// of grammar/Inmanta.g4 that builds the AST directly, through the same AstFactory as the ANTLR
// builder. It accepts only what it can vouch for: on anything erroneous or unusual (a syntax or
// lexing error, a parse-time check that fails, deep nesting, rare token shapes) it gives up and
// parseFile runs the ANTLR-generated parser, which stays the definition of the language and
// produces every diagnostic. tests/fuzz and fast_parser_test check that both build identical
// trees, locations included.
#pragma once

#include <string_view>
#include <vector>

#include "compiler/ast/ast.h"
#include "compiler/diag/diagnostic.h"
#include "compiler/parse/ast_factory.h"

namespace inmanta::compiler {

// One token of the fast lexer: kind (tok::Kind, retyped), byte extent, line and column as the
// ANTLR path reports them (code points, with the MLS column quirk of spec 1.11).
struct FastToken {
  uint8_t kind;
  uint32_t begin;
  uint32_t end;
  uint32_t line;
  uint32_t col;
};

// Tokenizes `text`, which must end with the '\n' parseFile appends (false otherwise). False when
// the input has a token the fast path does not handle; warnings of the token checks are appended
// to `warnings`.
bool fastLex(std::string_view text, FileId file, std::vector<FastToken>& out, std::vector<Diagnostic>& warnings);

// Parses `text` into a file; null when the fast path gives up. The factory's warning sink must
// buffer: the caller forwards the warnings only when the result is kept.
ast::File* fastParse(AstFactory& factory, std::string_view text, std::vector<Diagnostic>& warnings);

}  // namespace inmanta::compiler
