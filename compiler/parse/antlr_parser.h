// The line between parseFile (parser.cpp, in the compiler) and the ANTLR-generated parser
// (antlr_parser.cpp with grammar/), which lives with the ANTLR runtime and its ICU in
// libinmanta_antlr.so. parseFile loads that module with dlopen() the first time the fast path
// gives up (a syntax error, a failing parse-time check, a rare construct) or a test asks for
// ANTLR, so start-up and a compile of correct files never map it (compiler/shared_module.h).
//
// Both sides include this header. The module has its own copies of the small parse helpers it
// shares with the fast path (ast_factory, tokens, strings, pyregex, source: CMake lists them) and
// reaches the caller only through what it is given: the tree it makes lives in the caller's
// ast::Context, warnings go to the caller's sink and errors are thrown as CompileError.
#pragma once

#include <cstdint>
#include <string_view>

#include "compiler/ast/ast.h"
#include "compiler/diag/diagnostic.h"
#include "compiler/source/source.h"

namespace inmanta::compiler {

// The shape of what crosses the boundary: the tree's nodes, the context they live in, the
// diagnostics. A module built against headers where any of these has another size is refused
// (bump the first number when a change keeps the sizes).
inline constexpr uint64_t kAntlrParserAbi = [] {
  uint64_t h = 1;
  for (uint64_t size : {sizeof(ast::Context),      sizeof(ast::File),
                        sizeof(ast::Name),         sizeof(ast::Literal),
                        sizeof(ast::StringFormat), sizeof(ast::FString),
                        sizeof(ast::Regex),        sizeof(ast::VarRef),
                        sizeof(ast::AttrRef),      sizeof(ast::MapLookup),
                        sizeof(ast::IsDefined),    sizeof(ast::Binary),
                        sizeof(ast::Not),          sizeof(ast::Conditional),
                        sizeof(ast::Call),         sizeof(ast::Constructor),
                        sizeof(ast::IndexLookup),  sizeof(ast::ShortIndexLookup),
                        sizeof(ast::ListLit),      sizeof(ast::ListComp),
                        sizeof(ast::DictLit),      sizeof(ast::ExprStmt),
                        sizeof(ast::Assign),       sizeof(ast::For),
                        sizeof(ast::If),           sizeof(ast::Import),
                        sizeof(ast::Entity),       sizeof(ast::Implementation),
                        sizeof(ast::Implement),    sizeof(ast::Relation),
                        sizeof(ast::Typedef),      sizeof(ast::Index),
                        sizeof(Diagnostic),        sizeof(CompileError),
                        sizeof(WarningSink)})
    h = h * 1000003 + size;
  return h;
}();
// The module's entry point (below), looked up with dlsym().
inline constexpr const char* kAntlrParserEntry = "inmanta_antlr_parser";

// The ANTLR parser, one per process, never destroyed.
class AntlrParser {
 public:
  virtual ~AntlrParser() = default;
  // Parses `data` (the text of `file` with the newline parseFile appends) into a tree allocated in
  // `ctx`, with the reference's diagnostics: syntax errors and parse-time checks throw
  // CompileError, warnings go to `warn`. SLL prediction first and full LL on an error, or full LL
  // only with `llOnly` (ParseMode::AntlrLL).
  virtual ast::File* parse(ast::Context& ctx, FileId file, std::string_view data, const WarningSink& warn,
                           bool llOnly) = 0;
};

}  // namespace inmanta::compiler

// The module's one export: its parser, or null when `abi` is not the module's kAntlrParserAbi.
extern "C" inmanta::compiler::AntlrParser* inmanta_antlr_parser(uint64_t abi);
