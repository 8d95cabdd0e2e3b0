// Building AST nodes from token texts, with the parse-time checks of spec 2.3/6.2. Shared by the
// two front ends of parseFile: the builder over ANTLR's parse tree and the fast recursive-descent
// parser, so both make the very same tree. Checks throw CompileError.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "compiler/ast/ast.h"
#include "compiler/diag/diagnostic.h"
#include "compiler/parse/tokens.h"
#include "compiler/source/source.h"

namespace inmanta::compiler {

class AstFactory {
 public:
  AstFactory(ast::Context& ctx, FileId file, const WarningSink& warn) : ctx_(ctx), file_(file), warn_(warn) {}

  ast::Context& ctx() { return ctx_; }
  FileId file() const { return file_; }
  template <class T, class... Args>
  T* make(Args&&... args) {
    return ctx_.arena.make<T>(std::forward<Args>(args)...);
  }

  // A name as written (`std::print`), located at its first token.
  ast::Name name(std::string_view text, SourceLocation loc);
  // The same for a name known to be ASCII (every name the fast lexer makes): no code points to count.
  ast::Name asciiName(std::string_view text, SourceLocation loc) { return ctx_.name(text, loc); }

  // ---------------------------------------------------------------- checks
  void checkHyphen(const ast::Name& n);
  void checkModuleName(const ast::Name& module);  // `import a-b`
  [[noreturn]] void entityNameNotCapital(SourceLocation loc);
  [[noreturn]] void attributeNameCapital(SourceLocation loc);
  [[noreturn]] void plusAssignOnVariable(const ast::Name& n);
  [[noreturn]] void dictNullNotNullable(const ast::Name& attribute);
  [[noreturn]] void defaultConstructorTypedef(SourceLocation loc);
  // `a.b.C` where a class or a function is expected; `dotted` as written, without spaces.
  [[noreturn]] void invalidNamespaceAccess(const std::string& dotted, SourceLocation loc);
  void checkConstructorArguments(const ast::Constructor* ctor);
  void checkImplementCondition(const ast::Implement* implement);

  // ---------------------------------------------------------------- pieces
  // A constant token (INT, FLOAT, true, false, null, the string kinds, REGEX).
  ast::Expr* constant(size_t kind, std::string_view text, SourceLocation loc);
  ast::Expr* regex(std::string_view text, SourceLocation loc);
  std::string mlsValue(std::string_view text);
  static ast::BinaryOp binaryOp(size_t kind, std::string_view text);
  static ast::Multiplicity multiplicity(std::string_view lower, bool colon, std::string_view upper);

  // `call(name=value)` after the keyword arguments `before`: a keyword given twice is an error
  // (checked before the value is built).
  void checkKeywordArgument(const ast::Call& call, const std::vector<ast::KwArg>& before, const ast::Name& n);

  // One `"key": value` entry of a dict literal: the key (checked before the value is built), then
  // the entry, added to the literal's `entries` so far; `seen` belongs to the literal.
  using DictEntries = std::vector<std::pair<std::string, ast::Expr*>>;
  std::string dictKey(size_t keyKind, std::string_view keyText, SourceLocation keyLoc);
  void dictEntry(DictEntries& entries, std::string key, ast::Expr* value,
                 std::unordered_map<std::string, size_t>& seen);
  // The literal's entries once all are there: in the tree's arena, the keys interned.
  void setEntries(ast::DictLit& dict, const DictEntries& entries);

  // `m[k] is defined`, the last lookup `result` = innerMap[lastKey] (spec 2.3).
  ast::Expr* lookupIsDefined(ast::Expr* result, ast::Expr* innerMap, ast::Expr* lastKey, SourceLocation loc);

  struct ComprehensionLoop {
    ast::Name var;
    ast::Expr* iterable;
  };
  struct ComprehensionGuard {
    ast::Expr* condition;
    SourceLocation loc;  // of its `if`
  };
  ast::Expr* listComprehension(SourceLocation loc, ast::Expr* value, const std::vector<ComprehensionLoop>& loops,
                               const std::vector<ComprehensionGuard>& guards);

  ast::Stmt* typedefStatement(ast::Name n, ast::Name base, ast::Expr* constraint);

 private:
  ast::Expr* dottedRef(std::string_view dotted, SourceLocation loc);
  ast::Expr* interpolated(std::string value, SourceLocation loc);
  ast::Expr* fstring(std::string_view text, SourceLocation loc);

  ast::Context& ctx_;
  FileId file_;
  const WarningSink& warn_;
};

}  // namespace inmanta::compiler
