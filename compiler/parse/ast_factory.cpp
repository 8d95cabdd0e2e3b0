#include "compiler/parse/ast_factory.h"

#include <charconv>
#include <cstring>
#include <unordered_set>

#include "compiler/parse/parser.h"
#include "compiler/parse/strings.h"

namespace inmanta::compiler {

namespace {

// A string body with neither escapes nor `{{ }}` to look at: most string literals.
bool plainBody(std::string_view body) {
  return body.empty() || (std::memchr(body.data(), '\\', body.size()) == nullptr &&
                          std::memchr(body.data(), '{', body.size()) == nullptr);
}

[[noreturn]] void fail(ErrorKind kind, std::string message, SourceLocation loc) {
  throw CompileError(Diagnostic(kind, std::move(message), loc, true));
}

[[noreturn]] void syntaxError(const std::string& message, SourceLocation loc) {
  fail(ErrorKind::ParserException, "Syntax error: " + message, loc);
}

}  // namespace

ast::Name AstFactory::name(std::string_view text, SourceLocation loc) { return ctx_.name(text, loc); }

// ------------------------------------------------------------------ checks

void AstFactory::checkHyphen(const ast::Name& n) {
  if (n.text().find('-') != std::string_view::npos)
    fail(ErrorKind::HyphenException,
         "The use of '-' in identifiers is not allowed. please rename " + std::string(n.text()) + ".", n.loc);
}

void AstFactory::checkModuleName(const ast::Name& module) {
  if (module.text().find('-') != std::string_view::npos)
    throw CompileError(Diagnostic(ErrorKind::CompilerException,
                                  std::string(module.text()) + " is not a valid module name: hyphens are not allowed, "
                                                               "please use underscores instead.",
                                  {}, true));
}

void AstFactory::entityNameNotCapital(SourceLocation loc) {
  syntaxError("Invalid identifier: Entity names must start with a capital", loc);
}

void AstFactory::attributeNameCapital(SourceLocation loc) {
  syntaxError("Invalid identifier: attribute names must start with a lower case character", loc);
}

void AstFactory::plusAssignOnVariable(const ast::Name& n) {
  syntaxError("Can not perform += on variable " + std::string(n.text()), n.loc);
}

void AstFactory::dictNullNotNullable(const ast::Name& attribute) {
  syntaxError("null can not be assigned to dict, did you mean \"dict? " + std::string(attribute.text()) + " = null\"",
              attribute.loc);
}

void AstFactory::defaultConstructorTypedef(SourceLocation loc) {
  syntaxError("The use of default constructors is no longer supported", loc);
}

void AstFactory::invalidNamespaceAccess(const std::string& dotted, SourceLocation loc) {
  std::string fixed;
  for (char ch : dotted) fixed += ch == '.' ? std::string("::") : std::string(1, ch);
  fail(ErrorKind::InvalidNamespaceAccess,
       "Syntax error: invalid namespace access `" + dotted +
           "`. Namespaces should be accessed with '::' rather than '.'. The '.' separator is reserved for attribute "
           "and relation access. Did you mean: `" +
           fixed + "`",
       loc);
}

void AstFactory::checkConstructorArguments(const ast::Constructor* ctor) {
  const auto& kwargs = ctor->named.kwargs;
  for (size_t i = 0; i < kwargs.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (kwargs[i].name.symbol() == kwargs[j].name.symbol())
        fail(ErrorKind::RuntimeException,
             "The attribute " + std::string(kwargs[i].name.text()) + " in the constructor call of " +
                 std::string(ctor->type.text()) + " is already set.",
             ctor->loc());
}

void AstFactory::checkImplementCondition(const ast::Implement* implement) {
  if (!implement->inheritParents || implement->when == nullptr) return;
  const ast::Expr* when = implement->when;
  auto* lit = when->kind == ast::Kind::Literal ? static_cast<const ast::Literal*>(when) : nullptr;
  bool isTrue = lit != nullptr && lit->value().isBool() && lit->value().asBool();
  if (!isTrue)
    fail(ErrorKind::RuntimeException, "Conditional implementation with parents not allowed", implement->entity.loc);
}

// ------------------------------------------------------------------ pieces

ast::BinaryOp AstFactory::binaryOp(size_t kind, std::string_view text) {
  switch (kind) {
    case tok::DOUBLE_STAR: return ast::BinaryOp::Pow;
    case tok::STAR: return ast::BinaryOp::Mul;
    case tok::DIVISION_OP: return ast::BinaryOp::Div;
    case tok::PERCENT: return ast::BinaryOp::Mod;
    case tok::PLUS_OP: return ast::BinaryOp::Add;
    case tok::MINUS_OP: return ast::BinaryOp::Sub;
    case tok::AND: return ast::BinaryOp::And;
    case tok::OR: return ast::BinaryOp::Or;
    default: break;
  }
  if (text == "==") return ast::BinaryOp::Eq;
  if (text == "!=") return ast::BinaryOp::Ne;
  if (text == "<") return ast::BinaryOp::Lt;
  if (text == ">") return ast::BinaryOp::Gt;
  if (text == "<=") return ast::BinaryOp::Le;
  return ast::BinaryOp::Ge;
}

ast::Multiplicity AstFactory::multiplicity(std::string_view lower, bool colon, std::string_view upper) {
  ast::Multiplicity result;
  auto parse = [](std::string_view t) { return static_cast<int64_t>(std::stoll(std::string(t))); };
  if (!lower.empty()) result.lower = parse(lower);
  if (!upper.empty()) result.upper = parse(upper);
  else if (!colon) result.upper = result.lower;
  return result;
}

void AstFactory::checkKeywordArgument(const ast::Call& call, const std::vector<ast::KwArg>& before,
                                      const ast::Name& n) {
  for (const ast::KwArg& existing : before)
    if (existing.name.symbol() == n.symbol())
      fail(ErrorKind::RuntimeException,
           "Keyword argument " + std::string(n.text()) + " repeated in function call " +
               std::string(call.function.text()) + "()",
           call.loc());
}

std::string AstFactory::dictKey(size_t keyKind, std::string_view keyText, SourceLocation keyLoc) {
  std::string key;
  if (keyKind == tok::RSTRING) {
    key = std::string(keyText.substr(2, keyText.size() - 3));
  } else if (std::string_view body = keyText.substr(1, keyText.size() - 2); plainBody(body)) {
    key = std::string(body);
  } else {
    key = decodeEscapes(body).value;
    if (!findInterpolations(key).empty())
      syntaxError(
          "String interpolation is not supported in dictionary keys. Use raw string to use a key containing double "
          "curly brackets",
          keyLoc);
  }
  return key;
}

void AstFactory::dictEntry(DictEntries& entries, std::string key, ast::Expr* value,
                           std::unordered_map<std::string, size_t>& seen) {
  // located at the repeated key's value, as the reference (a constant's location is its line)
  if (!seen.emplace(key, entries.size()).second) {
    bool column = value->kind == ast::Kind::VarRef || value->kind == ast::Kind::AttrRef;
    throw CompileError(Diagnostic(ErrorKind::DuplicateException, "duplicate key in dict " + key, value->loc(), column));
  }
  entries.emplace_back(std::move(key), value);
}

void AstFactory::setEntries(ast::DictLit& dict, const DictEntries& entries) {
  std::vector<ast::DictLit::Entry> interned;
  interned.reserve(entries.size());
  for (const auto& [key, value] : entries) interned.push_back({ctx_.symbols.intern(key), value});
  dict.entries = ctx_.span(interned);
}

ast::Expr* AstFactory::lookupIsDefined(ast::Expr* result, ast::Expr* innerMap, ast::Expr* lastKey, SourceLocation loc) {
  // m[k] is defined  ==>  (k in m) and (m[k] != null) and (m[k] != [])   (spec 2.3)
  auto* inMap = make<ast::Binary>(loc, ast::BinaryOp::In, lastKey, innerMap);
  auto* notNull = make<ast::Binary>(loc, ast::BinaryOp::Ne, result, make<ast::Literal>(loc, runtime::Value()));
  auto* notEmpty = make<ast::Binary>(loc, ast::BinaryOp::Ne, result, make<ast::ListLit>(loc));
  return make<ast::Binary>(loc, ast::BinaryOp::And, make<ast::Binary>(loc, ast::BinaryOp::And, inMap, notNull),
                           notEmpty);
}

ast::Expr* AstFactory::listComprehension(SourceLocation loc, ast::Expr* value,
                                         const std::vector<ComprehensionLoop>& loops,
                                         const std::vector<ComprehensionGuard>& guards) {
  // `if a if b` is `if a and b`, joined from the right
  ast::Expr* guard = nullptr;
  for (size_t i = guards.size(); i-- > 0;) {
    ast::Expr* g = guards[i].condition;
    guard = guard == nullptr ? g : make<ast::Binary>(guards[i].loc, ast::BinaryOp::And, g, guard);
  }
  // the innermost loop gets the guard; outer loops wrap it (spec 2.3)
  ast::Expr* result = value;
  for (size_t i = loops.size(); i-- > 0;)
    result = make<ast::ListComp>(loc, result, loops[i].var, loops[i].iterable, i + 1 == loops.size() ? guard : nullptr);
  return result;
}

ast::Stmt* AstFactory::typedefStatement(ast::Name n, ast::Name base, ast::Expr* constraint) {
  static const std::unordered_set<std::string_view> kPrimitives = {"string", "int",  "float", "number",
                                                                   "bool",   "list", "dict"};
  if (kPrimitives.count(n.text()) != 0 && warn_)
    warn_(Diagnostic(ErrorKind::CompilerException, "Trying to override a built-in type: " + std::string(n.text()),
                     n.loc));
  checkHyphen(n);
  std::vector<std::string_view> reads;
  directRequires(constraint, reads);
  bool usesSelf = false;
  for (std::string_view r : reads) usesSelf |= r == "self" || r == n.text();
  if (!usesSelf) fail(ErrorKind::TypingException, "typedef expressions should reference the self variable", n.loc);
  return make<ast::Typedef>(n.loc, n, base, constraint);
}

std::string AstFactory::mlsValue(std::string_view text) { return decodeEscapes(text.substr(3, text.size() - 6)).value; }

// Builds `a.b.c` (as written inside a string) into references located at the string.
ast::Expr* AstFactory::dottedRef(std::string_view dotted, SourceLocation loc) {
  auto trim = [](std::string_view s) {
    size_t b = s.find_first_not_of(" \t\n\r\f\v");
    if (b == std::string_view::npos) return std::string_view();
    size_t e = s.find_last_not_of(" \t\n\r\f\v");
    return s.substr(b, e - b + 1);
  };
  size_t dot = dotted.find('.');
  ast::Expr* result = make<ast::VarRef>(ctx_.name(trim(dotted.substr(0, dot)), loc));
  while (dot != std::string_view::npos) {
    size_t next = dotted.find('.', dot + 1);
    std::string_view part =
        dotted.substr(dot + 1, next == std::string_view::npos ? std::string_view::npos : next - dot - 1);
    result = make<ast::AttrRef>(loc, result, ctx_.name(trim(part), loc));
    dot = next;
  }
  return result;
}

ast::Expr* AstFactory::interpolated(std::string value, SourceLocation loc) {
  auto matches = findInterpolations(value);
  if (matches.empty()) return make<ast::Literal>(loc, ctx_.string(value));
  auto* fmt = make<ast::StringFormat>(loc, value);
  for (const Interpolation& m : matches)
    fmt->parts.push_back({value.substr(m.begin, m.end - m.begin), dottedRef(m.name, loc)});
  return fmt;
}

ast::Expr* AstFactory::fstring(std::string_view text, SourceLocation loc) {
  std::string value = decodeEscapes(text.substr(2, text.size() - 3)).value;
  std::vector<FormatChunk> chunks;
  if (auto err = parseFormatString(value, chunks)) syntaxError("Invalid f-string: " + *err, loc);
  auto* result = make<ast::FString>(loc, value);
  // The reference stops at the first chunk without a field (spec 1.7 quirk).
  for (const FormatChunk& chunk : chunks) {
    if (!chunk.hasField || chunk.fieldName.empty()) break;
    result->refs.push_back({chunk.fieldName, dottedRef(chunk.fieldName, loc)});
    if (!chunk.formatSpec.empty()) {
      std::vector<FormatChunk> nested;
      parseFormatString(chunk.formatSpec, nested);
      for (const FormatChunk& inner : nested) {
        if (!inner.hasField || inner.fieldName.empty()) break;
        result->refs.push_back({inner.fieldName, dottedRef(inner.fieldName, loc)});
      }
    }
  }
  return result;
}

ast::Expr* AstFactory::regex(std::string_view text, SourceLocation loc) {
  size_t slash = text.find('/');
  return make<ast::Regex>(loc, std::string(text.substr(slash + 1, text.size() - slash - 2)), loc);
}

ast::Expr* AstFactory::constant(size_t kind, std::string_view text, SourceLocation loc) {
  switch (kind) {
    case tok::INT: {
      // the lexer checked the range (checkToken); from_chars reads what stoll reads
      int64_t value = 0;
      std::from_chars(text.data(), text.data() + text.size(), value);
      return make<ast::Literal>(loc, value);
    }
    case tok::FLOAT: return make<ast::Literal>(loc, std::strtod(std::string(text).c_str(), nullptr));
    case tok::KW_TRUE: return make<ast::Literal>(loc, true);
    case tok::KW_FALSE: return make<ast::Literal>(loc, false);
    case tok::KW_NULL: return make<ast::Literal>(loc, runtime::Value());
    case tok::STRING: {
      std::string_view body = text.substr(1, text.size() - 2);
      if (plainBody(body)) return make<ast::Literal>(loc, ctx_.string(body));
      return interpolated(decodeEscapes(body).value, loc);
    }
    case tok::RSTRING: return make<ast::Literal>(loc, ctx_.string(text.substr(2, text.size() - 3)));
    case tok::MLS: return interpolated(mlsValue(text), loc);
    case tok::FSTRING: return fstring(text, loc);
    default: return regex(text, loc);
  }
}

// ------------------------------------------------------------------ directRequires

void directRequires(const ast::Expr* e, std::vector<std::string_view>& out) {
  if (e == nullptr) return;
  using ast::Kind;
  switch (e->kind) {
    case Kind::Literal: return;
    case Kind::Regex: out.push_back("self"); return;
    case Kind::VarRef: out.push_back(static_cast<const ast::VarRef*>(e)->name().text()); return;
    case Kind::AttrRef: directRequires(static_cast<const ast::AttrRef*>(e)->object, out); return;
    case Kind::StringFormat:
      for (const auto& p : static_cast<const ast::StringFormat*>(e)->parts) directRequires(p.ref, out);
      return;
    case Kind::FString:
      for (const auto& r : static_cast<const ast::FString*>(e)->refs) directRequires(r.ref, out);
      return;
    case Kind::MapLookup: {
      auto* m = static_cast<const ast::MapLookup*>(e);
      directRequires(m->map, out);
      directRequires(m->key, out);
      return;
    }
    case Kind::IsDefined: directRequires(static_cast<const ast::IsDefined*>(e)->object, out); return;
    case Kind::Binary: {
      auto* b = static_cast<const ast::Binary*>(e);
      directRequires(b->lhs, out);
      directRequires(b->rhs, out);
      return;
    }
    case Kind::Not: directRequires(static_cast<const ast::Not*>(e)->operand, out); return;
    case Kind::Conditional: {
      auto* c = static_cast<const ast::Conditional*>(e);
      directRequires(c->condition, out);
      directRequires(c->whenTrue, out);
      directRequires(c->whenFalse, out);
      return;
    }
    case Kind::Call: {
      auto* c = static_cast<const ast::Call*>(e);
      for (auto* a : c->args) directRequires(a, out);
      for (const auto& kw : c->named.kwargs) directRequires(kw.value, out);
      for (auto* w : c->named.wrapped) directRequires(w, out);
      return;
    }
    case Kind::Constructor:
    case Kind::IndexLookup: {
      const ast::Arguments& named = e->kind == Kind::Constructor ? static_cast<const ast::Constructor*>(e)->named
                                                                 : static_cast<const ast::IndexLookup*>(e)->named;
      for (const auto& kw : named.kwargs) directRequires(kw.value, out);
      for (auto* w : named.wrapped) directRequires(w, out);
      return;
    }
    case Kind::ShortIndexLookup: {
      auto* s = static_cast<const ast::ShortIndexLookup*>(e);
      directRequires(s->object, out);
      for (const auto& kw : s->named.kwargs) directRequires(kw.value, out);
      for (auto* w : s->named.wrapped) directRequires(w, out);
      return;
    }
    case Kind::ListLit:
      for (auto* x : static_cast<const ast::ListLit*>(e)->elements) directRequires(x, out);
      return;
    case Kind::ListComp: {
      auto* c = static_cast<const ast::ListComp*>(e);
      std::vector<std::string_view> inner;
      directRequires(c->value, inner);
      for (std::string_view v : inner)
        if (v != c->variable.text()) out.push_back(v);
      directRequires(c->iterable, out);
      return;
    }
    case Kind::DictLit:
      for (const auto& [k, v] : static_cast<const ast::DictLit*>(e)->entries) directRequires(v, out);
      return;
    INMANTA_AST_STATEMENT_CASES:
      return;
  }
}

}  // namespace inmanta::compiler
