// Helpers for parser tests: parse a string, get the tree rendered or the error.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "compiler/ast/ast.h"
#include "compiler/diag/diagnostic.h"
#include "compiler/parse/parser.h"
#include "compiler/source/source.h"

namespace inmanta::compiler {

struct ParseOutcome {
  bool ok = false;
  std::vector<std::string> statements;  // ast::dump of each top-level statement
  Diagnostic error;
  std::vector<Diagnostic> warnings;
};

// Parses in one mode; `detailed` gets the tree with locations (empty on an error).
inline ParseOutcome parseSourceIn(const std::string& text, ParseMode mode, std::string& detailed) {
  SourceManager sources;
  ast::Context ctx;
  FileId id = sources.add("main.cf", "./main.cf", normaliseNewlines(text));
  ParseOutcome outcome;
  try {
    ast::File* file = parseFile(
        ctx, sources, id, [&](const Diagnostic& d) { outcome.warnings.push_back(d); }, mode);
    if (file == nullptr) return outcome;  // FastOnly gave up
    for (const ast::Stmt* s : file->statements) outcome.statements.push_back(ast::dump(s));
    detailed = ast::dump(file, true);
    outcome.ok = true;
  } catch (const CompileError& e) {
    outcome.error = e.diagnostic();
  }
  return outcome;
}

inline std::string renderWarnings(const std::vector<Diagnostic>& warnings) {
  std::string out;
  for (const Diagnostic& w : warnings)
    out += std::string(kindName(w.kind)) + " " + w.message + " " + std::to_string(w.location.line) + ":" +
           std::to_string(w.location.col) + "\n";
  return out;
}

// Parses as the compiler does (ParseMode::Auto) and checks on the way that the fast path and the
// ANTLR path agree: when the fast path accepts a source, ANTLR builds the same tree (locations
// and docs included) with the same warnings; when ANTLR rejects it, the fast path gives up.
inline ParseOutcome parseSource(const std::string& text) {
  std::string autoTree, antlrTree, fastTree;
  ParseOutcome outcome = parseSourceIn(text, ParseMode::Auto, autoTree);
  ParseOutcome antlr = parseSourceIn(text, ParseMode::Antlr, antlrTree);
  ParseOutcome fast = parseSourceIn(text, ParseMode::FastOnly, fastTree);
  EXPECT_EQ(outcome.ok, antlr.ok) << text;
  EXPECT_EQ(autoTree, antlrTree) << text;
  EXPECT_EQ(renderWarnings(outcome.warnings), renderWarnings(antlr.warnings)) << text;
  if (fast.ok) {
    EXPECT_TRUE(antlr.ok) << "the fast path accepts what ANTLR rejects:\n" << text;
    EXPECT_EQ(fastTree, antlrTree) << text;
    EXPECT_EQ(renderWarnings(fast.warnings), renderWarnings(antlr.warnings)) << text;
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
