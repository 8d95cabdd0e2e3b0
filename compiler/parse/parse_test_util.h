// Helpers for parser tests: parse a string, get the tree rendered or the error.
#pragma once

#include <string>
#include <vector>

#include "ast/ast.h"
#include "diag/diagnostic.h"
#include "parse/parser.h"
#include "source/source.h"

namespace inmanta::compiler {

struct ParseOutcome {
  bool ok = false;
  std::vector<std::string> statements;  // ast::dump of each top-level statement
  Diagnostic error;
  std::vector<Diagnostic> warnings;
};

inline ParseOutcome parseSource(const std::string& text) {
  SourceManager sources;
  ast::Context ctx;
  FileId id = sources.add("main.cf", "./main.cf", normaliseNewlines(text));
  ParseOutcome outcome;
  try {
    ast::File* file = parseFile(ctx, sources, id, [&](const Diagnostic& d) { outcome.warnings.push_back(d); });
    for (const ast::Stmt* s : file->statements) outcome.statements.push_back(ast::dump(s));
    outcome.ok = true;
  } catch (const CompileError& e) {
    outcome.error = e.diagnostic();
  }
  return outcome;
}

// The statements of a source that must parse, joined by " ; ".
inline std::string parsed(const std::string& text) {
  ParseOutcome outcome = parseSource(text);
  if (!outcome.ok) return "ERROR " + std::string(kindName(outcome.error.kind)) + ": " + outcome.error.message;
  std::string out;
  for (const std::string& s : outcome.statements) out += (out.empty() ? "" : " ; ") + s;
  return out;
}

}  // namespace inmanta::compiler
