// From ANTLR's parse tree to our AST (the "builder"), plus the error reporting that turns
// ANTLR's reports into the reference's ParserException messages and positions (spec 2.1, 6.2).
#include "parse/parser.h"

#include <antlr4-runtime.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <functional>
#include <cmath>
#include <unordered_map>
#include <unordered_set>

#include "InmantaLexer.h"
#include "InmantaParser.h"
#include "parse/pyregex.h"
#include "parse/strings.h"

namespace inmanta::compiler {

using gen::InmantaLexer;
using gen::InmantaParser;
using antlr4::Token;

namespace {

constexpr int kMaxNesting = 500;

bool isKeyword(size_t type) {
  switch (type) {
    case InmantaLexer::TYPEDEF: case InmantaLexer::AS: case InmantaLexer::ENTITY:
    case InmantaLexer::EXTENDS: case InmantaLexer::END: case InmantaLexer::IN:
    case InmantaLexer::IMPLEMENTATION: case InmantaLexer::FOR: case InmantaLexer::MATCHING:
    case InmantaLexer::INDEX: case InmantaLexer::IMPLEMENT: case InmantaLexer::USING:
    case InmantaLexer::WHEN: case InmantaLexer::AND: case InmantaLexer::OR: case InmantaLexer::NOT:
    case InmantaLexer::KW_TRUE: case InmantaLexer::KW_FALSE: case InmantaLexer::IMPORT:
    case InmantaLexer::IS: case InmantaLexer::DEFINED: case InmantaLexer::DICT:
    case InmantaLexer::KW_NULL: case InmantaLexer::UNDEF: case InmantaLexer::PARENTS:
    case InmantaLexer::IF: case InmantaLexer::ELSE: case InmantaLexer::ELIF: case InmantaParser::NOT_IN:
      return true;
    default:
      return false;
  }
}

// Keywords that end an expression: the reference's LALR parser reduces them on almost any next
// token (their lookahead sets are merged over every context), so when it then detects an error
// they are no longer on its stack. Other keywords stay on the stack and are blamed.
bool keywordReducedAlone(size_t type) {
  switch (type) {
    case InmantaLexer::KW_TRUE: case InmantaLexer::KW_FALSE: case InmantaLexer::KW_NULL:
    case InmantaLexer::DEFINED:
      return true;
    default:
      return false;
  }
}

SourceLocation tokenLoc(FileId file, const Token* t) {
  return SourceLocation{file, static_cast<uint32_t>(t->getLine()),
                        static_cast<uint32_t>(t->getCharPositionInLine() + 1)};
}

// The reference computes a column from the start of the line of the last newline its lexer
// skipped; a multi-line MLS does not move that mark (spec 1.11), so a token after one, on the
// line where it ends, gets a larger column. Columns of tokens elsewhere are the usual ones.
class ColumnMap {
 public:
  void scan(const std::vector<Token*>& tokens) {
    for (const Token* t : tokens) {
      if (t->getType() != InmantaLexer::MLS) continue;
      std::string text = t->getText();
      size_t newlines = std::count(text.begin(), text.end(), '\n');
      if (newlines == 0) continue;
      size_t lineStart = t->getStartIndex() - t->getCharPositionInLine();
      if (!marks_.empty() && marks_.back().endLine == t->getLine()) lineStart = marks_.back().lineStart;
      marks_.push_back({t->getLine() + newlines, t->getStopIndex(), lineStart});
    }
  }
  uint32_t column(const Token* t) const {
    for (auto it = marks_.rbegin(); it != marks_.rend(); ++it) {
      if (it->endLine == t->getLine() && it->stop < t->getStartIndex())
        return static_cast<uint32_t>(t->getStartIndex() - it->lineStart + 1);
      if (it->stop < t->getStartIndex() && it->endLine < t->getLine()) break;
    }
    return static_cast<uint32_t>(t->getCharPositionInLine() + 1);
  }

 private:
  struct Mark {
    size_t endLine;
    size_t stop;
    size_t lineStart;
  };
  std::vector<Mark> marks_;
};

[[noreturn]] void fail(ErrorKind kind, std::string message, SourceLocation loc, bool column = true) {
  throw CompileError(Diagnostic(kind, std::move(message), loc, column));
}

[[noreturn]] void syntaxError(std::string message, SourceLocation loc) {
  fail(ErrorKind::ParserException, "Syntax error: " + message, loc);
}

// Token-level checks the reference makes while lexing (malformed escapes, regexes that do not
// compile, integer literals out of range). A failing token is turned into ERRCHAR and its
// diagnostic kept, so it is reported when the parser reaches it, as with the reference's lazy
// lexer.
class CheckingLexer : public InmantaLexer {
 public:
  CheckingLexer(antlr4::CharStream* input, FileId file, const WarningSink& warn)
      : InmantaLexer(input), file_(file), warn_(warn) {}

  std::unique_ptr<Token> nextToken() override {
    std::unique_ptr<Token> tok = InmantaLexer::nextToken();
    retypeTokens(*tok);
    switch (tok->getType()) {
      case STRING: case FSTRING: case MLS: {
        std::string text = tok->getText();
        size_t skip = tok->getType() == MLS ? 3 : tok->getType() == FSTRING ? 2 : 1;
        std::string_view body = std::string_view(text).substr(skip, text.size() - skip - (skip == 3 ? 3 : 1));
        DecodedString decoded = decodeEscapes(body);
        if (decoded.error) {
          reject(*tok, Diagnostic(ErrorKind::ParserException,
                                    "Syntax error: invalid escape sequence '" + *decoded.error + "'",
                                    tokenLoc(file_, tok.get())));
        } else if (decoded.unknownEscape && warn_) {
          const char* what = tok->getType() == MLS ? "multi-line string" : tok->getType() == FSTRING ? "f-string" : "string";
          warn_(Diagnostic(ErrorKind::ParserException, std::string("Invalid escape sequence in ") + what + ".",
                           SourceLocation{file_, static_cast<uint32_t>(tok->getLine()), 0}, false));
        }
        break;
      }
      case REGEX: {
        std::string text = tok->getText();
        size_t slash = text.find('/');
        std::string pattern = text.substr(slash + 1, text.size() - slash - 2);
        std::string error;
        if (!PyRegex::compile(pattern, error)) {
          // located at the /.../ part, on the line where it stands
          uint32_t line = static_cast<uint32_t>(tok->getLine());
          size_t lineStart = 0;
          for (size_t i = 0; i < slash; ++i)
            if (text[i] == '\n') {
              ++line;
              lineStart = i + 1;
            }
          uint32_t col = line == tok->getLine()
                             ? static_cast<uint32_t>(tok->getCharPositionInLine() + 1 + codePointCount(std::string_view(text).substr(0, slash)))
                             : static_cast<uint32_t>(codePointCount(std::string_view(text).substr(lineStart, slash - lineStart)) + 1);
          reject(*tok, Diagnostic(ErrorKind::ParserException,
                                    "Syntax error: Regex error in " + text.substr(slash) + ": '" + error + "'",
                                    SourceLocation{file_, line, col}));
        }
        break;
      }
      case INT: {
        std::string text = tok->getText();
        int64_t value;
        auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (ec != std::errc() || ptr != text.data() + text.size())
          reject(*tok, Diagnostic(ErrorKind::ParserException,
                                    "Syntax error: integer literal out of range: " + text,
                                    tokenLoc(file_, tok.get())));
        break;
      }
      default:
        break;
    }
    ++count_;  // the stream numbers tokens 0, 1, 2, ... in the order they are handed out
    return tok;
  }

  const Diagnostic* rejected(size_t tokenIndex) const {
    auto it = rejected_.find(tokenIndex);
    return it == rejected_.end() ? nullptr : &it->second;
  }

 private:
  // Marks a `[` that the reference would shift as a lookup (see LOOKUP_BRACK in the grammar):
  // one right after an identifier that ends a variable reference, or right after the `]` of
  // such a lookup. Identifiers in `import`/`implement ... using` name lists are not variables.
  void retypeTokens(Token& t) {
    size_t kind = t.getType();
    // an identifier right after `import`/`using` (or `::`, `,`, `as` in such a list) names a
    // module or an implementation, not a variable
    bool variable = previous_ == ID && !previousWasName_;
    if (kind == LBRACK) {
      bool lookup = variable || (previous_ == RBRACK && closedLookup_);
      if (lookup) {
        if (auto* common = dynamic_cast<antlr4::CommonToken*>(&t)) common->setType(InmantaParser::LOOKUP_BRACK);
      }
      brackets_.push_back(lookup);
    } else if (kind == RBRACK) {
      closedLookup_ = !brackets_.empty() && brackets_.back();
      if (!brackets_.empty()) brackets_.pop_back();
    }
    if (kind == NOT && (variable || (previous_ != ID && endsExpression(previous_)))) {
      if (auto* common = dynamic_cast<antlr4::CommonToken*>(&t)) common->setType(InmantaParser::NOT_IN);
    }
    if (kind == ID) {
      previousWasName_ = nameList_ && (previous_ == IMPORT || previous_ == USING || previous_ == SEP ||
                                       previous_ == COMMA || previous_ == AS);
      nameList_ = previousWasName_;
    } else if (kind == IMPORT || kind == USING) {
      nameList_ = true;
    } else if (kind != SEP && kind != COMMA && kind != AS && kind != PARENTS) {
      nameList_ = false;
    }
    previous_ = type;
  }

  static bool endsExpression(size_t type) {
    switch (type) {
      case ID: case INT: case FLOAT: case STRING: case RSTRING: case FSTRING: case MLS: case REGEX:
      case KW_TRUE: case KW_FALSE: case KW_NULL: case RPAREN: case RBRACK: case RBRACE: case DEFINED:
        return true;
      default:
        return false;
    }
  }

  void reject(Token& rejectedToken, Diagnostic diag) {
    auto* common = dynamic_cast<antlr4::CommonToken*>(&rejectedToken);
    if (common == nullptr) throw CompileError(std::move(diag));
    rejected_.emplace(count_, std::move(diag));
    common->setType(ERRCHAR);
  }

  FileId file_;
  const WarningSink& warn_;
  size_t count_ = 0;
  std::unordered_map<size_t, Diagnostic> rejected_;
  size_t previous_ = 0;
  bool nameList_ = false;
  bool previousWasName_ = false;
  bool closedLookup_ = false;
  std::vector<bool> brackets_;  // per open `[`: was it a lookup
};

// Records how far any prediction got before every alternative failed. ANTLR may then still pick
// an alternative that completed its rule and report the error earlier, at a token the reference's
// LALR parser accepts; the furthest failure is the reference's error token.
class TrackingSimulator : public antlr4::atn::ParserATNSimulator {
 public:
  using ParserATNSimulator::ParserATNSimulator;
  antlr4::NoViableAltException noViableAlt(antlr4::TokenStream* input, antlr4::ParserRuleContext* outer,
                                           antlr4::atn::ATNConfigSet* configs, size_t startIndex, bool deleteConfigs) override {
    size_t index = input->index();
    if (!failed || index > furthest) furthest = index;
    failed = true;
    return ParserATNSimulator::noViableAlt(input, outer, configs, startIndex, deleteConfigs);
  }
  bool failed = false;
  size_t furthest = 0;
};

// Turns the first ANTLR syntax report into the reference's ParserException (spec 2.1, 6.2).
class ErrorListener : public antlr4::BaseErrorListener {
 public:
  ErrorListener(FileId file, const CheckingLexer& lexer, const TrackingSimulator& simulator, const ColumnMap& columns,
                uint32_t eofLine, std::function<void(const Token*)> beforeReport)
      : file_(file), lexer_(lexer), simulator_(simulator), columns_(columns), eofLine_(eofLine),
        beforeReport_(std::move(beforeReport)) {}

  void syntaxError(antlr4::Recognizer* recognizer, Token* token, size_t line, size_t col,
                   const std::string& antlrMessage, std::exception_ptr) override {
    if (token == nullptr) {  // a lexer report; ERRCHAR makes this unreachable in practice
      syntaxError(SourceLocation{file_, static_cast<uint32_t>(line), static_cast<uint32_t>(col + 1)},
                  "Illegal character: " + antlrMessage);
    }
    auto* parser = dynamic_cast<antlr4::Parser*>(recognizer);
    if (parser != nullptr && simulator_.failed && simulator_.furthest > token->getTokenIndex())
      token = parser->getTokenStream()->get(simulator_.furthest);
    // Checks of constructs the reference had already reduced come first.
    if (beforeReport_) beforeReport_(token);
    // The reference's lexer sits one past the end of the data when it reports the end of file.
    if (token->getType() == Token::EOF)
      syntaxError("Unexpected end of file", SourceLocation{file_, eofLine_, 2});
    if (token->getType() == InmantaLexer::ERRCHAR) {
      if (const Diagnostic* d = lexer_.rejected(token->getTokenIndex())) {
        Diagnostic located = *d;
        if (located.location.line == token->getLine() && located.location.col == token->getCharPositionInLine() + 1)
          located.location.col = columns_.column(token);
        throw CompileError(std::move(located));
      }
      std::string text = token->getText();
      syntaxError("Illegal character '" + text + "'", at(token));
    }
    if (isKeyword(token->getType()))
      syntaxError("invalid identifier, " + token->getText() + " is a reserved keyword", at(token));
    if (parser != nullptr && token->getTokenIndex() > 0) {
      Token* previous = parser->getTokenStream()->get(token->getTokenIndex() - 1);
      if (isKeyword(previous->getType()) && !keywordReducedAlone(previous->getType()))
        syntaxError("invalid identifier, " + previous->getText() + " is a reserved keyword",
                    at(previous));
    }
    // The reference reports the lexer's position, just after the offending token.
    std::string text = token->getText();
    uint32_t endLine = static_cast<uint32_t>(token->getLine());
    if (token->getType() == InmantaLexer::MLS)
      for (char c : text) endLine += c == '\n';
    auto endCol = static_cast<uint32_t>(columns_.column(token) + (token->getStopIndex() + 1 - token->getStartIndex()));
    Diagnostic diag(ErrorKind::ParserException, "Syntax error at token " + text, SourceLocation{file_, endLine, endCol});
    diag.caret = at(token);
    throw CompileError(std::move(diag));
  }

 private:
  SourceLocation at(const Token* t) const {
    return SourceLocation{file_, static_cast<uint32_t>(t->getLine()), columns_.column(t)};
  }
  [[noreturn]] void syntaxError(SourceLocation loc, std::string message) { compiler::syntaxError(std::move(message), loc); }
  [[noreturn]] void syntaxError(std::string message, SourceLocation loc) { compiler::syntaxError(std::move(message), loc); }
  FileId file_;
  const CheckingLexer& lexer_;
  const TrackingSimulator& simulator_;
  const ColumnMap& columns_;
  uint32_t eofLine_;
  std::function<void(const Token*)> beforeReport_;
};

// Deep nesting would exhaust the stack of the recursive-descent parser: refuse it up front.
void checkNesting(antlr4::CommonTokenStream& tokens, FileId file) {
  int brackets = 0;
  int blocks = 0;
  int nots = 0;
  for (Token* t : tokens.getTokens()) {
    switch (t->getType()) {
      case InmantaLexer::LPAREN: case InmantaLexer::LBRACK: case InmantaParser::LOOKUP_BRACK:
      case InmantaLexer::LBRACE: ++brackets; break;
      case InmantaLexer::RPAREN: case InmantaLexer::RBRACK: case InmantaLexer::RBRACE: --brackets; break;
      case InmantaLexer::IF: case InmantaLexer::FOR: if (brackets <= 0) ++blocks; break;
      case InmantaLexer::END: --blocks; break;
      default: break;
    }
    nots = t->getType() == InmantaLexer::NOT || t->getType() == InmantaLexer::QMARK ? nots + 1 : 0;
    if (brackets > kMaxNesting || blocks > kMaxNesting || nots > kMaxNesting)
      syntaxError("nesting too deep (more than " + std::to_string(kMaxNesting) + " levels)", tokenLoc(file, t));
  }
}

// Remembers the rule contexts in the order the parser completed them, so that on a syntax error
// the parse-time checks of the constructs the reference had already reduced run first.
class ExitRecorder : public antlr4::tree::ParseTreeListener {
 public:
  void visitTerminal(antlr4::tree::TerminalNode*) override {}
  void visitErrorNode(antlr4::tree::ErrorNode*) override {}
  void enterEveryRule(antlr4::ParserRuleContext*) override {}
  void exitEveryRule(antlr4::ParserRuleContext* ctx) override { exited.push_back(ctx); }
  std::vector<antlr4::ParserRuleContext*> exited;
};

// Tokens that can start a statement: after a complete definition the reference reduces it on
// these (and at the end of the file); on anything else the error comes first.
bool startsStatement(size_t type) {
  switch (type) {
    case Token::EOF: case InmantaLexer::ID: case InmantaLexer::CID: case InmantaLexer::INT:
    case InmantaLexer::FLOAT: case InmantaLexer::STRING: case InmantaLexer::RSTRING: case InmantaLexer::FSTRING:
    case InmantaLexer::MLS: case InmantaLexer::REGEX: case InmantaLexer::KW_TRUE: case InmantaLexer::KW_FALSE:
    case InmantaLexer::KW_NULL: case InmantaLexer::NOT: case InmantaLexer::IF: case InmantaLexer::FOR:
    case InmantaLexer::ENTITY: case InmantaLexer::IMPLEMENT: case InmantaLexer::IMPLEMENTATION:
    case InmantaLexer::TYPEDEF: case InmantaLexer::INDEX: case InmantaLexer::IMPORT: case InmantaLexer::LPAREN:
    case InmantaLexer::LBRACK: case InmantaLexer::LBRACE: case InmantaLexer::END: case InmantaLexer::DICT:
    case InmantaLexer::ELSE: case InmantaLexer::ELIF:
      return true;
    default:
      return false;
  }
}

// Tokens that can follow an expression somewhere in the language: the reference reduces a
// completed expression on these before it notices an error.
bool followsExpression(size_t type) {
  if (startsStatement(type)) return true;
  switch (type) {
    case InmantaLexer::RPAREN: case InmantaLexer::RBRACK: case InmantaLexer::RBRACE: case InmantaLexer::COMMA:
    case InmantaLexer::COLON: case InmantaLexer::PLUS_OP: case InmantaLexer::MINUS_OP: case InmantaLexer::STAR:
    case InmantaLexer::DIVISION_OP: case InmantaLexer::PERCENT: case InmantaLexer::DOUBLE_STAR:
    case InmantaLexer::CMP_OP: case InmantaLexer::AND: case InmantaLexer::OR: case InmantaLexer::IN:
    case InmantaParser::NOT_IN: case InmantaLexer::QMARK: case InmantaParser::LOOKUP_BRACK:
      return true;
    default:
      return false;
  }
}

// ------------------------------------------------------------------ the builder

class Builder {
 public:
  Builder(ast::Context& ctx, FileId file, const WarningSink& warn, const ColumnMap& columns)
      : ctx_(ctx), file_(file), warn_(warn), columns_(columns) {}

  ast::File* build(InmantaParser::FileContext* tree) {
    auto* result = ctx_.arena.make<ast::File>();
    result->id = file_;
    if (tree->doc) result->doc = mlsValue(tree->doc);
    for (auto* top : tree->topStatement()) result->statements.push_back(topStatement(top));
    return result;
  }

  // Runs the parse-time checks of every completed construct the reference would have reduced
  // before reaching `offending` (spec 2.1: error productions raise while reducing).
  void replay(const std::vector<antlr4::ParserRuleContext*>& exited, const Token* offending) {
    size_t limit = offending->getTokenIndex();
    // a character no token matches is reported while lexing it, before any reduction it would
    // have triggered
    bool lexError = offending->getType() == InmantaLexer::ERRCHAR;
    bool followsDefinition = !lexError && startsStatement(offending->getType());
    bool followsExpr = !lexError && followsExpression(offending->getType());
    for (antlr4::ParserRuleContext* c : exited) {
      const Token* stop = c->getStop();
      if (stop == nullptr || c->getStart() == nullptr || stop->getTokenIndex() >= limit ||
          c->getStart()->getTokenIndex() > stop->getTokenIndex())
        continue;
      bool adjacent = stop->getTokenIndex() + 1 == limit;
      if (auto* e = dynamic_cast<InmantaParser::EntityDefContext*>(c)) {
        if (!adjacent || followsDefinition) entity(e);
      } else if (auto* a = dynamic_cast<InmantaParser::AttributeDefContext*>(c)) {
        if (!adjacent || followsDefinition) attribute(a);
      } else if (auto* p = dynamic_cast<InmantaParser::ParentRefContext*>(c)) {
        if (auto* v = p->varRef())
          fail(ErrorKind::ParserException, "Syntax error: Invalid identifier: Entity names must start with a capital",
               at(v->getStart()));
      } else if (auto* r = dynamic_cast<InmantaParser::ClassRefContext*>(c)) {
        className(r);
      } else if (auto* i = dynamic_cast<InmantaParser::ImplementationDefContext*>(c)) {
        if (!adjacent || followsDefinition) implementation(i);
      } else if (auto* im = dynamic_cast<InmantaParser::ImplementDefContext*>(c)) {
        if (!adjacent || followsDefinition) implement(im);
      } else if (auto* rel = dynamic_cast<InmantaParser::RelationDefContext*>(c)) {
        if (!adjacent || followsDefinition) relation(rel);
      } else if (auto* t = dynamic_cast<InmantaParser::TypedefDefContext*>(c)) {
        if (!adjacent || followsDefinition) typedefDef(t);
      } else if (auto* imp = dynamic_cast<InmantaParser::ImportDefContext*>(c)) {
        if (!adjacent || followsDefinition) importDef(imp);
      } else if (auto* as = dynamic_cast<InmantaParser::AssignmentContext*>(c)) {
        if (!adjacent || followsExpr) assignment(as);
      } else if (auto* pr = dynamic_cast<InmantaParser::PrimaryContext*>(c)) {
        if (!adjacent || followsExpr) primary(pr);
      } else if (auto* k = dynamic_cast<InmantaParser::ConstantContext*>(c)) {
        if (!adjacent || followsExpr) constant(k);
      }
    }
  }

 private:
  SourceLocation at(const Token* t) const {
    return SourceLocation{file_, static_cast<uint32_t>(t->getLine()), columns_.column(t)};
  }

  ast::Name name(const Token* t) {
    std::string text = t->getText();
    SourceLocation loc = at(t);
    return ctx_.name(text, loc, loc.col + static_cast<uint32_t>(codePointCount(text)));
  }

  ast::Name name(InmantaParser::NsRefContext* ns) {
    std::string text = ns->getText();
    SourceLocation loc = at(ns->getStart());
    return ctx_.name(text, loc, loc.col + static_cast<uint32_t>(codePointCount(text)));
  }

  ast::Name className(InmantaParser::ClassRefContext* c) {
    if (c->varRef() != nullptr) {
      std::string text = c->varRef()->getText() + "." + c->CID()->getText();
      std::string suggestion = text;
      for (char& ch : suggestion)
        if (ch == '.') ch = ':';
      std::string fixed;
      for (char ch : text) fixed += ch == '.' ? std::string("::") : std::string(1, ch);
      fail(ErrorKind::InvalidNamespaceAccess,
           "Syntax error: invalid namespace access `" + text +
               "`. Namespaces should be accessed with '::' rather than '.'. The '.' separator is reserved for "
               "attribute and relation access. Did you mean: `" + fixed + "`",
           at(c->getStart()));
    }
    std::string text = c->getText();
    SourceLocation loc = at(c->getStart());
    return ctx_.name(text, loc, loc.col + static_cast<uint32_t>(codePointCount(text)));
  }

  void checkHyphen(const ast::Name& n) {
    if (n.text.find('-') != std::string_view::npos)
      fail(ErrorKind::HyphenException,
           "The use of '-' in identifiers is not allowed. please rename " + std::string(n.text) + ".", n.loc);
  }

  // ---------------------------------------------------------------- statements

  ast::Stmt* topStatement(InmantaParser::TopStatementContext* c) {
    if (auto* e = c->entityDef()) return entity(e);
    if (auto* i = c->implementDef()) return implement(i);
    if (auto* i = c->implementationDef()) return implementation(i);
    if (auto* r = c->relationDef()) return relation(r);
    if (auto* t = c->typedefDef()) return typedefDef(t);
    if (auto* i = c->indexDef()) return index(i);
    if (auto* i = c->importDef()) return importDef(i);
    return statement(c->statement());
  }

  ast::Stmt* statement(InmantaParser::StatementContext* c) {
    if (auto* a = c->assignment()) return assignment(a);
    if (auto* f = c->forStmt()) return forStmt(f);
    if (auto* i = c->ifStmt()) return ifStmt(i);
    return ctx_.arena.make<ast::ExprStmt>(expression(c->expression()));
  }

  void block(InmantaParser::BlockContext* c, ast::Block& out) {
    for (auto* s : c->statement()) out.push_back(statement(s));
  }

  ast::Stmt* assignment(InmantaParser::AssignmentContext* c) {
    auto* var = c->varRef();
    bool plain = var->DOT().empty();
    bool listOnly = c->op->getType() == InmantaLexer::PEQ;
    ast::Expr* target = varRef(var);
    if (plain) {
      auto* ref = static_cast<ast::VarRef*>(target);
      if (listOnly)
        fail(ErrorKind::ParserException, "Syntax error: Can not perform += on variable " + std::string(ref->name.text),
             ref->loc);
    }
    ast::Expr* value = expression(c->expression());
    if (plain) checkHyphen(static_cast<ast::VarRef*>(target)->name);
    return ctx_.arena.make<ast::Assign>(at(c->op), target, value, listOnly);
  }

  ast::Stmt* forStmt(InmantaParser::ForStmtContext* c) {
    auto* result = ctx_.arena.make<ast::For>(at(c->getStart()), name(c->var), expression(c->expression()));
    block(c->block(), result->body);
    return result;
  }

  ast::Stmt* ifStmt(InmantaParser::IfStmtContext* c) {
    auto* result = ctx_.arena.make<ast::If>(at(c->getStart()), expression(c->expression()));
    block(c->block(), result->thenBlock);
    ast::If* tail = result;
    for (auto* elif : c->elifClause()) {
      auto* nested = ctx_.arena.make<ast::If>(at(elif->getStart()), expression(elif->expression()));
      block(elif->block(), nested->thenBlock);
      tail->elseBlock.push_back(nested);
      tail = nested;
    }
    if (auto* e = c->elseClause()) block(e->block(), tail->elseBlock);
    return result;
  }

  // ---------------------------------------------------------------- definitions

  ast::Stmt* importDef(InmantaParser::ImportDefContext* c) {
    ast::Name module = name(c->nsRef());
    if (module.text.find('-') != std::string_view::npos)
      fail(ErrorKind::CompilerException,
           std::string(module.text) + " is not a valid module name: hyphens are not allowed, please use underscores instead.",
           {});
    ast::Name alias = c->alias ? name(c->alias) : module;
    checkHyphen(alias);
    return ctx_.arena.make<ast::Import>(at(c->getStart()), module, alias);
  }

  ast::Stmt* entity(InmantaParser::EntityDefContext* c) {
    ast::Name n = name(c->name);
    std::vector<ast::Name> parents;
    for (auto* p : c->parentRef()) {
      if (auto* v = p->varRef())
        fail(ErrorKind::ParserException, "Syntax error: Invalid identifier: Entity names must start with a capital",
             at(v->getStart()));
      parents.push_back(className(p->classRef()));
    }
    std::vector<ast::Attribute> attributes;
    for (auto* a : c->attributeDef()) attributes.push_back(attribute(a));
    if (c->name->getType() != InmantaLexer::CID)
      fail(ErrorKind::ParserException, "Syntax error: Invalid identifier: Entity names must start with a capital", n.loc);
    checkHyphen(n);
    auto* result = ctx_.arena.make<ast::Entity>(at(c->getStart()), n);
    result->parents = std::move(parents);
    result->attributes = std::move(attributes);
    if (c->doc) result->doc = mlsValue(c->doc);
    return result;
  }

  ast::Attribute attribute(InmantaParser::AttributeDefContext* c) {
    ast::Attribute result;
    if (auto* t = dynamic_cast<InmantaParser::TypedAttributeContext*>(c)) {
      result.name = name(t->name);
      if (t->name->getType() == InmantaLexer::CID)
        fail(ErrorKind::ParserException,
             "Syntax error: Invalid identifier: attribute names must start with a lower case character", result.name.loc);
      auto* type = t->typeRef();
      result.type.base = name(type->nsRef());
      result.type.multi = type->multi != nullptr;
      result.type.nullable = type->nullable != nullptr;
      if (auto* k = t->constant()) result.defaultValue = constant(k);
      else if (auto* l = t->constantList()) result.defaultValue = constantList(l);
    } else {
      auto* d = static_cast<InmantaParser::DictAttributeContext*>(c);
      result.name = name(d->name);
      result.type.base = ctx_.name("dict", at(d->getStart()), at(d->getStart()).col + 4);
      result.type.isDict = true;
      result.type.nullable = d->nullable != nullptr;
      if (d->name->getType() == InmantaLexer::CID)
        fail(ErrorKind::ParserException,
             "Syntax error: Invalid identifier: attribute names must start with a lower case character", result.name.loc);
      if (auto* m = d->mapLiteral()) {
        result.defaultValue = mapLiteral(m);
      } else if (auto* null = d->KW_NULL()) {
        if (!result.type.nullable)
          fail(ErrorKind::ParserException,
               "Syntax error: null can not be assigned to dict, did you mean \"dict? " + std::string(result.name.text) +
                   " = null\"",
               result.name.loc);
        result.defaultValue = ctx_.arena.make<ast::Literal>(at(null->getSymbol()), ast::NullValue{});
      }
    }
    result.removeDefault = result.defaultValue == nullptr;
    checkHyphen(result.name);
    return result;
  }

  ast::Stmt* implementation(InmantaParser::ImplementationDefContext* c) {
    ast::Name entityName = className(c->classRef());
    auto* result = ctx_.arena.make<ast::Implementation>(at(c->name), name(c->name), entityName);
    block(c->block(), result->body);
    checkHyphen(result->name);
    if (c->doc) result->doc = mlsValue(c->doc);
    return result;
  }

  ast::Stmt* implement(InmantaParser::ImplementDefContext* c) {
    ast::Name entityName = className(c->classRef());
    auto* result = ctx_.arena.make<ast::Implement>(entityName.loc, entityName);
    for (auto* item : c->implementItem()) {
      if (item->PARENTS() != nullptr) result->inheritParents = true;
      else result->implementations.push_back(name(item->nsRef()));
    }
    if (auto* e = c->expression()) result->when = expression(e);
    if (result->inheritParents && result->when != nullptr) {
      auto* lit = result->when->kind == ast::Kind::Literal ? static_cast<ast::Literal*>(result->when) : nullptr;
      bool isTrue = lit != nullptr && std::holds_alternative<bool>(lit->value) && std::get<bool>(lit->value);
      if (!isTrue) fail(ErrorKind::RuntimeException, "Conditional implementation with parents not allowed", entityName.loc);
    }
    if (c->doc) result->doc = mlsValue(c->doc);
    return result;
  }

  static ast::Multiplicity multiplicity(InmantaParser::MultiplicityContext* m) {
    ast::Multiplicity result;
    auto parse = [](Token* t) { return static_cast<int64_t>(std::stoll(t->getText())); };
    if (m->lower) result.lower = parse(m->lower);
    bool hasColon = m->COLON() != nullptr;
    if (m->upper) result.upper = parse(m->upper);
    else if (!hasColon) result.upper = result.lower;
    return result;
  }

  ast::Stmt* relation(InmantaParser::RelationDefContext* c) {
    auto* result = ctx_.arena.make<ast::Relation>(at(c->DOT(0)->getSymbol()));
    result->left = className(c->left);
    result->leftAttr = name(c->leftName);
    result->leftMult = multiplicity(c->leftMult);
    for (auto* a : c->annotation) result->annotations.push_back(expression(a));
    result->right = className(c->right);
    if (c->rightName) {
      result->rightAttr = name(c->rightName);
      result->rightMult = multiplicity(c->rightMult);
      checkHyphen(result->rightAttr);
    }
    checkHyphen(result->leftAttr);
    if (c->doc) result->doc = mlsValue(c->doc);
    return result;
  }

  ast::Stmt* typedefDef(InmantaParser::TypedefDefContext* c) {
    if (auto* d = dynamic_cast<InmantaParser::DefaultConstructorTypedefContext*>(c)) {
      className(d->classRef());
      if (auto* k = d->kwargList()) kwargs(k);
      fail(ErrorKind::ParserException, "Syntax error: The use of default constructors is no longer supported",
           at(d->name));
    }
    auto* t = static_cast<InmantaParser::ConstraintTypedefContext*>(c);
    ast::Name n = name(t->name);
    ast::Name base = name(t->nsRef());
    ast::Expr* constraint = t->expression() != nullptr ? expression(t->expression()) : regex(t->REGEX()->getSymbol());
    static const std::unordered_set<std::string_view> kPrimitives = {"string", "int", "float", "number", "bool", "list", "dict"};
    if (kPrimitives.count(n.text) != 0 && warn_)
      warn_(Diagnostic(ErrorKind::CompilerException, "Trying to override a built-in type: " + std::string(n.text), n.loc));
    checkHyphen(n);
    std::vector<std::string_view> reads;
    directRequires(constraint, reads);
    bool usesSelf = false;
    for (std::string_view r : reads) usesSelf |= r == "self" || r == n.text;
    if (!usesSelf) fail(ErrorKind::TypingException, "typedef expressions should reference the self variable", n.loc);
    auto* result = ctx_.arena.make<ast::Typedef>(n.loc, n, base, constraint);
    if (t->doc) result->doc = mlsValue(t->doc);
    return result;
  }

  ast::Stmt* index(InmantaParser::IndexDefContext* c) {
    auto* result = ctx_.arena.make<ast::Index>(at(c->getStart()), className(c->classRef()));
    for (auto* id : c->ID()) result->attributes.push_back(name(id->getSymbol()));
    return result;
  }

  // ---------------------------------------------------------------- expressions

  ast::Expr* expression(InmantaParser::ExpressionContext* c) {
    if (auto* p = dynamic_cast<InmantaParser::PrimaryExprContext*>(c)) return primary(p->primary());
    if (auto* b = dynamic_cast<InmantaParser::BinaryExprContext*>(c)) {
      ast::Expr* lhs = expression(b->expression(0));
      ast::Expr* rhs = expression(b->expression(1));
      return ctx_.arena.make<ast::Binary>(at(b->op), binaryOp(b->op), lhs, rhs);
    }
    if (auto* i = dynamic_cast<InmantaParser::InExprContext*>(c)) {
      ast::Expr* lhs = expression(i->expression(0));
      ast::Expr* rhs = expression(i->expression(1));
      if (i->NOT_IN() != nullptr) {
        SourceLocation loc = at(i->NOT_IN()->getSymbol());
        return ctx_.arena.make<ast::Not>(loc, ctx_.arena.make<ast::Binary>(loc, ast::BinaryOp::In, lhs, rhs));
      }
      return ctx_.arena.make<ast::Binary>(at(i->IN()->getSymbol()), ast::BinaryOp::In, lhs, rhs);
    }
    if (auto* n = dynamic_cast<InmantaParser::NotExprContext*>(c))
      return ctx_.arena.make<ast::Not>(at(n->getStart()), expression(n->expression()));
    auto* q = static_cast<InmantaParser::ConditionalExprContext*>(c);
    ast::Expr* cond = expression(q->expression(0));
    ast::Expr* a = expression(q->expression(1));
    ast::Expr* b = expression(q->expression(2));
    return ctx_.arena.make<ast::Conditional>(cond->loc, cond, a, b);
  }

  static ast::BinaryOp binaryOp(const Token* op) {
    switch (op->getType()) {
      case InmantaLexer::DOUBLE_STAR: return ast::BinaryOp::Pow;
      case InmantaLexer::STAR: return ast::BinaryOp::Mul;
      case InmantaLexer::DIVISION_OP: return ast::BinaryOp::Div;
      case InmantaLexer::PERCENT: return ast::BinaryOp::Mod;
      case InmantaLexer::PLUS_OP: return ast::BinaryOp::Add;
      case InmantaLexer::MINUS_OP: return ast::BinaryOp::Sub;
      case InmantaLexer::AND: return ast::BinaryOp::And;
      case InmantaLexer::OR: return ast::BinaryOp::Or;
      default: break;
    }
    const std::string text = op->getText();
    if (text == "==") return ast::BinaryOp::Eq;
    if (text == "!=") return ast::BinaryOp::Ne;
    if (text == "<") return ast::BinaryOp::Lt;
    if (text == ">") return ast::BinaryOp::Gt;
    if (text == "<=") return ast::BinaryOp::Le;
    return ast::BinaryOp::Ge;
  }

  // A variable followed by its attribute chain: a.b.c
  ast::Expr* varRef(InmantaParser::VarRefContext* c) {
    ast::Expr* result = ctx_.arena.make<ast::VarRef>(name(c->nsRef()));
    auto dots = c->DOT();
    auto ids = c->ID();
    for (size_t i = 0; i < ids.size(); ++i)
      result = ctx_.arena.make<ast::AttrRef>(at(dots[i]->getSymbol()), result, name(ids[i]->getSymbol()));
    return result;
  }

  ast::Expr* primary(InmantaParser::PrimaryContext* c) {
    if (auto* k = dynamic_cast<InmantaParser::ConstantExprContext*>(c)) return constant(k->constant());
    if (auto* v = dynamic_cast<InmantaParser::VarRefExprContext*>(c)) return varRef(v->varRef());
    if (auto* p = dynamic_cast<InmantaParser::ParenExprContext*>(c)) return expression(p->expression());
    if (auto* f = dynamic_cast<InmantaParser::CallExprContext*>(c)) {
      auto* call = ctx_.arena.make<ast::Call>(at(f->getStart()), name(f->nsRef()));
      if (auto* args = f->argList()) arguments(args, *call);
      return call;
    }
    if (auto* k = dynamic_cast<InmantaParser::ConstructorExprContext*>(c)) {
      ast::Name type = className(k->classRef());
      auto* ctor = ctx_.arena.make<ast::Constructor>(at(k->LPAREN()->getSymbol()), type);
      if (auto* args = k->kwargList()) ctor->named = kwargs(args);
      for (size_t i = 0; i < ctor->named.kwargs.size(); ++i)
        for (size_t j = 0; j < i; ++j)
          if (ctor->named.kwargs[i].name.id == ctor->named.kwargs[j].name.id)
            fail(ErrorKind::RuntimeException,
                 "The attribute " + std::string(ctor->named.kwargs[i].name.text) + " in the constructor call of " +
                     std::string(type.text) + " is already set.",
                 ctor->loc);
      return ctor;
    }
    if (auto* l = dynamic_cast<InmantaParser::ListExprContext*>(c)) {
      auto* list = ctx_.arena.make<ast::ListLit>(at(l->getStart()));
      for (auto* e : l->expression()) list->elements.push_back(expression(e));
      return list;
    }
    if (auto* m = dynamic_cast<InmantaParser::MapExprContext*>(c)) return mapLiteral(m->mapLiteral());
    if (auto* m = dynamic_cast<InmantaParser::MapLookupExprContext*>(c)) {
      ast::Expr* result = varRef(m->varRef());
      auto keys = m->expression();
      auto brackets = m->LOOKUP_BRACK();
      ast::Expr* innerMap = result;
      ast::Expr* lastKey = nullptr;
      for (size_t i = 0; i < keys.size(); ++i) {
        innerMap = result;
        lastKey = expression(keys[i]);
        result = ctx_.arena.make<ast::MapLookup>(at(brackets[i]->getSymbol()), result, lastKey);
      }
      if (m->IS() == nullptr) return result;
      // m[k] is defined  ==>  (k in m) and (m[k] != null) and (m[k] != [])   (spec 2.3)
      SourceLocation loc = at(m->IS()->getSymbol());
      auto* inMap = ctx_.arena.make<ast::Binary>(loc, ast::BinaryOp::In, lastKey, innerMap);
      auto* notNull = ctx_.arena.make<ast::Binary>(loc, ast::BinaryOp::Ne, result,
                                                   ctx_.arena.make<ast::Literal>(loc, ast::NullValue{}));
      auto* notEmpty = ctx_.arena.make<ast::Binary>(loc, ast::BinaryOp::Ne, result, ctx_.arena.make<ast::ListLit>(loc));
      return ctx_.arena.make<ast::Binary>(loc, ast::BinaryOp::And,
                                          ctx_.arena.make<ast::Binary>(loc, ast::BinaryOp::And, inMap, notNull), notEmpty);
    }
    if (auto* i = dynamic_cast<InmantaParser::IndexLookupExprContext*>(c)) {
      ast::Name type = className(i->classRef());
      auto* lookup = ctx_.arena.make<ast::IndexLookup>(at(i->LBRACK()->getSymbol()), type);
      if (auto* args = i->kwargList()) lookup->named = kwargs(args);
      return lookup;
    }
    if (auto* s = dynamic_cast<InmantaParser::ShortIndexLookupExprContext*>(c)) {
      ast::Expr* object = varRef(s->varRef());
      auto* lookup = ctx_.arena.make<ast::ShortIndexLookup>(at(s->LOOKUP_BRACK()->getSymbol()), object, name(s->ID()->getSymbol()));
      if (auto* args = s->kwargList()) lookup->named = kwargs(args);
      return lookup;
    }
    if (auto* d = dynamic_cast<InmantaParser::IsDefinedAttrExprContext*>(c)) {
      ast::Expr* object = varRef(d->varRef());
      return ctx_.arena.make<ast::IsDefined>(at(d->DOT()->getSymbol()), object, name(d->ID()->getSymbol()));
    }
    if (auto* d = dynamic_cast<InmantaParser::IsDefinedVarExprContext*>(c))
      return ctx_.arena.make<ast::IsDefined>(at(d->getStart()), nullptr, name(d->ID()->getSymbol()));
    if (auto* comp = dynamic_cast<InmantaParser::ListComprehensionExprContext*>(c)) return listComprehension(comp);
    auto* dotted = static_cast<InmantaParser::DottedCallExprContext*>(c);
    std::string text = dotted->varRef()->getText() + "." + dotted->ID()->getText();
    std::string fixed;
    for (char ch : text) fixed += ch == '.' ? std::string("::") : std::string(1, ch);
    fail(ErrorKind::InvalidNamespaceAccess,
         "Syntax error: invalid namespace access `" + text +
             "`. Namespaces should be accessed with '::' rather than '.'. The '.' separator is reserved for attribute "
             "and relation access. Did you mean: `" + fixed + "`",
         at(dotted->getStart()));
  }

  ast::Expr* listComprehension(InmantaParser::ListComprehensionExprContext* c) {
    SourceLocation loc = at(c->getStart());
    ast::Expr* value = expression(c->expression());
    struct Loop {
      ast::Name var;
      ast::Expr* iterable;
    };
    std::vector<Loop> loops;
    for (auto* f : c->listFor()) loops.push_back({name(f->ID()->getSymbol()), expression(f->expression())});
    ast::Expr* guard = nullptr;
    auto guards = c->listGuard();
    // `if a if b` is `if a and b`, joined from the right
    for (size_t i = guards.size(); i-- > 0;) {
      ast::Expr* g = expression(guards[i]->expression());
      guard = guard == nullptr ? g : ctx_.arena.make<ast::Binary>(at(guards[i]->getStart()), ast::BinaryOp::And, g, guard);
    }
    // the innermost loop gets the guard; outer loops wrap it (spec 2.3)
    ast::Expr* result = value;
    for (size_t i = loops.size(); i-- > 0;) {
      result = ctx_.arena.make<ast::ListComp>(loc, result, loops[i].var, loops[i].iterable,
                                              i + 1 == loops.size() ? guard : nullptr);
    }
    return result;
  }

  ast::Expr* mapLiteral(InmantaParser::MapLiteralContext* c) {
    auto* dict = ctx_.arena.make<ast::DictLit>(at(c->getStart()));
    std::unordered_map<std::string, size_t> seen;
    for (auto* entry : c->dictEntry()) {
      std::string key;
      std::string text = entry->key->getText();
      if (entry->key->getType() == InmantaLexer::RSTRING) {
        key = text.substr(2, text.size() - 3);
      } else {
        key = decodeEscapes(std::string_view(text).substr(1, text.size() - 2)).value;
        if (!findInterpolations(key).empty())
          fail(ErrorKind::ParserException,
               "Syntax error: String interpolation is not supported in dictionary keys. Use raw string to use a key "
               "containing double curly brackets",
               at(entry->key));
      }
      ast::Expr* value = expression(entry->expression());
      if (!seen.emplace(key, dict->entries.size()).second)
        fail(ErrorKind::DuplicateException, "duplicate key in dict " + key, dict->loc);
      dict->entries.emplace_back(std::move(key), value);
    }
    return dict;
  }

  template <class Target>
  void arguments(InmantaParser::ArgListContext* c, Target& call) {
    for (auto* a : c->arg()) {
      if (auto* kw = dynamic_cast<InmantaParser::KeywordArgContext*>(a)) {
        ast::Name n = name(kw->ID()->getSymbol());
        for (const ast::KwArg& existing : call.named.kwargs)
          if (existing.name.id == n.id)
            fail(ErrorKind::RuntimeException,
                 "Keyword argument " + std::string(n.text) + " repeated in function call " +
                     std::string(call.function.text) + "()",
                 call.loc);
        call.named.kwargs.push_back({n, expression(kw->expression())});
      } else if (auto* w = dynamic_cast<InmantaParser::WrappedKwargsArgContext*>(a)) {
        call.named.wrapped.push_back(expression(w->expression()));
      } else {
        call.args.push_back(expression(static_cast<InmantaParser::PositionalArgContext*>(a)->expression()));
      }
    }
  }

  ast::Arguments kwargs(InmantaParser::KwargListContext* c) {
    ast::Arguments result;
    for (auto* a : c->kwarg()) {
      if (auto* kw = dynamic_cast<InmantaParser::KeywordKwargContext*>(a))
        result.kwargs.push_back({name(kw->ID()->getSymbol()), expression(kw->expression())});
      else
        result.wrapped.push_back(expression(static_cast<InmantaParser::WrappedKwargsKwargContext*>(a)->expression()));
    }
    return result;
  }

  ast::Expr* constantList(InmantaParser::ConstantListContext* c) {
    auto* list = ctx_.arena.make<ast::ListLit>(at(c->getStart()));
    for (auto* k : c->constant()) list->elements.push_back(constant(k));
    return list;
  }

  std::string mlsValue(const Token* t) {
    std::string text = t->getText();
    return decodeEscapes(std::string_view(text).substr(3, text.size() - 6)).value;
  }

  // Builds `a.b.c` (as written inside a string) into references located at the string.
  ast::Expr* dottedRef(std::string_view dotted, SourceLocation loc) {
    auto trim = [](std::string_view s) {
      size_t b = s.find_first_not_of(" \t\n\r\f\v");
      if (b == std::string_view::npos) return std::string_view();
      size_t e = s.find_last_not_of(" \t\n\r\f\v");
      return s.substr(b, e - b + 1);
    };
    size_t dot = dotted.find('.');
    ast::Expr* result = ctx_.arena.make<ast::VarRef>(ctx_.name(trim(dotted.substr(0, dot)), loc));
    while (dot != std::string_view::npos) {
      size_t next = dotted.find('.', dot + 1);
      std::string_view part = dotted.substr(dot + 1, next == std::string_view::npos ? std::string_view::npos : next - dot - 1);
      result = ctx_.arena.make<ast::AttrRef>(loc, result, ctx_.name(trim(part), loc));
      dot = next;
    }
    return result;
  }

  ast::Expr* interpolated(std::string value, SourceLocation loc) {
    auto matches = findInterpolations(value);
    if (matches.empty()) return ctx_.arena.make<ast::Literal>(loc, std::move(value));
    auto* fmt = ctx_.arena.make<ast::StringFormat>(loc, value);
    for (const Interpolation& m : matches)
      fmt->parts.push_back({value.substr(m.begin, m.end - m.begin), dottedRef(m.name, loc)});
    return fmt;
  }

  ast::Expr* fstring(const Token* t) {
    std::string text = t->getText();
    SourceLocation loc = at(t);
    std::string value = decodeEscapes(std::string_view(text).substr(2, text.size() - 3)).value;
    std::vector<FormatChunk> chunks;
    if (auto err = parseFormatString(value, chunks))
      fail(ErrorKind::ParserException, "Syntax error: Invalid f-string: " + *err, loc);
    auto* result = ctx_.arena.make<ast::FString>(loc, value);
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

  ast::Expr* regex(const Token* t) {
    std::string text = t->getText();
    size_t slash = text.find('/');
    return ctx_.arena.make<ast::Regex>(at(t), text.substr(slash + 1, text.size() - slash - 2), at(t));
  }

  ast::Expr* constant(InmantaParser::ConstantContext* c) {
    const Token* t = c->getStart();
    SourceLocation loc = at(t);
    std::string text = t->getText();
    switch (t->getType()) {
      case InmantaLexer::INT:
        return ctx_.arena.make<ast::Literal>(loc, static_cast<int64_t>(std::stoll(text)));
      case InmantaLexer::FLOAT:
        return ctx_.arena.make<ast::Literal>(loc, std::strtod(text.c_str(), nullptr));
      case InmantaLexer::KW_TRUE:
        return ctx_.arena.make<ast::Literal>(loc, true);
      case InmantaLexer::KW_FALSE:
        return ctx_.arena.make<ast::Literal>(loc, false);
      case InmantaLexer::KW_NULL:
        return ctx_.arena.make<ast::Literal>(loc, ast::NullValue{});
      case InmantaLexer::STRING:
        return interpolated(decodeEscapes(std::string_view(text).substr(1, text.size() - 2)).value, loc);
      case InmantaLexer::RSTRING:
        return ctx_.arena.make<ast::Literal>(loc, text.substr(2, text.size() - 3));
      case InmantaLexer::MLS:
        return interpolated(mlsValue(t), loc);
      case InmantaLexer::FSTRING:
        return fstring(t);
      default:
        return regex(t);
    }
  }

  ast::Context& ctx_;
  FileId file_;
  const WarningSink& warn_;
  const ColumnMap& columns_;
};

}  // namespace

void directRequires(const ast::Expr* e, std::vector<std::string_view>& out) {
  if (e == nullptr) return;
  using ast::Kind;
  switch (e->kind) {
    case Kind::Literal: return;
    case Kind::Regex: out.push_back("self"); return;
    case Kind::VarRef: out.push_back(static_cast<const ast::VarRef*>(e)->name.text); return;
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
    case Kind::Constructor: case Kind::IndexLookup: {
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
        if (v != c->variable.text) out.push_back(v);
      directRequires(c->iterable, out);
      return;
    }
    case Kind::DictLit:
      for (const auto& [k, v] : static_cast<const ast::DictLit*>(e)->entries) directRequires(v, out);
      return;
    case Kind::ExprStmt: case Kind::Assign: case Kind::For: case Kind::If: case Kind::Import:
    case Kind::Entity: case Kind::Implementation: case Kind::Implement: case Kind::Relation:
    case Kind::Typedef: case Kind::Index:
      return;
  }
}

ast::File* parseFile(ast::Context& ctx, const SourceManager& sources, FileId fileId, const WarningSink& warn) {
  const SourceFile& file = sources.file(fileId);
  if (file.text.empty()) {
    auto* empty = ctx.arena.make<ast::File>();
    empty->id = fileId;
    return empty;
  }
  // The reference appends a newline before lexing (spec 1.1).
  std::string data = file.text + "\n";
  uint32_t eofLine = 1;
  for (char c : data) eofLine += c == '\n';

  antlr4::ANTLRInputStream input(data);
  CheckingLexer lexer(&input, fileId, warn);
  lexer.removeErrorListeners();
  antlr4::CommonTokenStream tokens(&lexer);
  tokens.fill();
  checkNesting(tokens, fileId);
  ColumnMap columns;
  columns.scan(tokens.getTokens());

  InmantaParser parser(&tokens);
  // Our own simulator (with its own DFA cache, shared by every parse of this thread).
  static thread_local std::vector<antlr4::dfa::DFA> dfas = [&parser] {
    std::vector<antlr4::dfa::DFA> result;
    const antlr4::atn::ATN& atn = parser.getATN();
    for (size_t i = 0; i < atn.getNumberOfDecisions(); ++i) result.emplace_back(atn.getDecisionState(i), i);
    return result;
  }();
  static thread_local antlr4::atn::PredictionContextCache contextCache;
  auto* simulator = new TrackingSimulator(&parser, parser.getATN(), dfas, contextCache);
  parser.setInterpreter(simulator);  // deletes the generated one
  parser.removeErrorListeners();
  Builder builder(ctx, fileId, warn, columns);

  // Two stages, the known ANTLR speed-up: SLL prediction, which caches everything, bails out on
  // the first error; only then the input is parsed again with full LL prediction and the error
  // reporting of the reference.
  InmantaParser::FileContext* tree = nullptr;
  bool fastPath = std::getenv("INMANTA_PARSE_LL_ONLY") == nullptr;
  if (fastPath) {
    parser.setErrorHandler(std::make_shared<antlr4::BailErrorStrategy>());
    simulator->setPredictionMode(antlr4::atn::PredictionMode::SLL);
    try {
      tree = parser.file();
    } catch (const antlr4::ParseCancellationException&) {
      tree = nullptr;
    }
  }
  ExitRecorder recorder;
  ErrorListener listener(fileId, lexer, *simulator, columns, eofLine,
                         [&](const Token* offending) { builder.replay(recorder.exited, offending); });
  if (tree == nullptr) {
    tokens.seek(0);
    parser.reset();
    simulator->failed = false;
    parser.setErrorHandler(std::make_shared<antlr4::DefaultErrorStrategy>());
    simulator->setPredictionMode(antlr4::atn::PredictionMode::LL);
    parser.addParseListener(&recorder);
    parser.addErrorListener(&listener);
    tree = parser.file();
  }
  parser.removeParseListeners();
  return builder.build(tree);
}

}  // namespace inmanta::compiler
