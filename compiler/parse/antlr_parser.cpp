// libinmanta_antlr.so (antlr_parser.h): the ANTLR-generated parser run on what the fast path
// gives up on. From ANTLR's parse tree to our AST (the "builder"), plus the error reporting that
// turns ANTLR's reports into the reference's ParserException messages and positions (spec 2.1,
// 6.2).
#include "compiler/parse/antlr_parser.h"

#include <antlr4-runtime.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <unordered_map>
#include <unordered_set>

#include "InmantaLexer.h"
#include "InmantaParser.h"
#include "compiler/parse/ast_factory.h"
#include "compiler/parse/tokens.h"

namespace inmanta::compiler {

using antlr4::Token;
using gen::InmantaLexer;
using gen::InmantaParser;

namespace {

// tokens.h repeats the generated token numbers so that the fast path needs no ANTLR header.
#define INMANTA_SAME_TOKEN(name) static_assert(static_cast<size_t>(tok::name) == InmantaParser::name, #name);
INMANTA_SAME_TOKEN(TYPEDEF)
INMANTA_SAME_TOKEN(AS)
INMANTA_SAME_TOKEN(ENTITY)
INMANTA_SAME_TOKEN(EXTENDS)
INMANTA_SAME_TOKEN(END)
INMANTA_SAME_TOKEN(IN)
INMANTA_SAME_TOKEN(IMPLEMENTATION)
INMANTA_SAME_TOKEN(FOR)
INMANTA_SAME_TOKEN(INDEX)
INMANTA_SAME_TOKEN(IMPLEMENT)
INMANTA_SAME_TOKEN(USING)
INMANTA_SAME_TOKEN(WHEN)
INMANTA_SAME_TOKEN(AND)
INMANTA_SAME_TOKEN(OR)
INMANTA_SAME_TOKEN(NOT)
INMANTA_SAME_TOKEN(KW_TRUE)
INMANTA_SAME_TOKEN(KW_FALSE)
INMANTA_SAME_TOKEN(IMPORT)
INMANTA_SAME_TOKEN(IS)
INMANTA_SAME_TOKEN(DEFINED)
INMANTA_SAME_TOKEN(DICT)
INMANTA_SAME_TOKEN(KW_NULL)
INMANTA_SAME_TOKEN(UNDEF)
INMANTA_SAME_TOKEN(PARENTS)
INMANTA_SAME_TOKEN(IF)
INMANTA_SAME_TOKEN(ELSE)
INMANTA_SAME_TOKEN(ELIF)
INMANTA_SAME_TOKEN(REGEX)
INMANTA_SAME_TOKEN(MATCHING)
INMANTA_SAME_TOKEN(FSTRING)
INMANTA_SAME_TOKEN(RSTRING)
INMANTA_SAME_TOKEN(CID)
INMANTA_SAME_TOKEN(ID)
INMANTA_SAME_TOKEN(SEP)
INMANTA_SAME_TOKEN(REL)
INMANTA_SAME_TOKEN(CMP_OP)
INMANTA_SAME_TOKEN(PEQ)
INMANTA_SAME_TOKEN(COMMENT)
INMANTA_SAME_TOKEN(MLS)
INMANTA_SAME_TOKEN(FLOAT)
INMANTA_SAME_TOKEN(INT)
INMANTA_SAME_TOKEN(STRING)
INMANTA_SAME_TOKEN(PLUS_OP)
INMANTA_SAME_TOKEN(MINUS_OP)
INMANTA_SAME_TOKEN(DIVISION_OP)
INMANTA_SAME_TOKEN(DOUBLE_STAR)
INMANTA_SAME_TOKEN(COLON)
INMANTA_SAME_TOKEN(LBRACK)
INMANTA_SAME_TOKEN(RBRACK)
INMANTA_SAME_TOKEN(LPAREN)
INMANTA_SAME_TOKEN(RPAREN)
INMANTA_SAME_TOKEN(ASSIGN)
INMANTA_SAME_TOKEN(COMMA)
INMANTA_SAME_TOKEN(DOT)
INMANTA_SAME_TOKEN(LBRACE)
INMANTA_SAME_TOKEN(RBRACE)
INMANTA_SAME_TOKEN(QMARK)
INMANTA_SAME_TOKEN(STAR)
INMANTA_SAME_TOKEN(PERCENT)
INMANTA_SAME_TOKEN(WS)
INMANTA_SAME_TOKEN(NEWLINE)
INMANTA_SAME_TOKEN(ERRCHAR)
INMANTA_SAME_TOKEN(LOOKUP_BRACK)
INMANTA_SAME_TOKEN(NOT_IN)
#undef INMANTA_SAME_TOKEN

constexpr int kMaxNesting = 500;
constexpr int kMaxChain = 1000;

bool isKeyword(size_t type) {
  switch (type) {
    case InmantaLexer::TYPEDEF:
    case InmantaLexer::AS:
    case InmantaLexer::ENTITY:
    case InmantaLexer::EXTENDS:
    case InmantaLexer::END:
    case InmantaLexer::IN:
    case InmantaLexer::IMPLEMENTATION:
    case InmantaLexer::FOR:
    case InmantaLexer::MATCHING:
    case InmantaLexer::INDEX:
    case InmantaLexer::IMPLEMENT:
    case InmantaLexer::USING:
    case InmantaLexer::WHEN:
    case InmantaLexer::AND:
    case InmantaLexer::OR:
    case InmantaLexer::NOT:
    case InmantaLexer::KW_TRUE:
    case InmantaLexer::KW_FALSE:
    case InmantaLexer::IMPORT:
    case InmantaLexer::IS:
    case InmantaLexer::DEFINED:
    case InmantaLexer::DICT:
    case InmantaLexer::KW_NULL:
    case InmantaLexer::UNDEF:
    case InmantaLexer::PARENTS:
    case InmantaLexer::IF:
    case InmantaLexer::ELSE:
    case InmantaLexer::ELIF:
    case InmantaParser::NOT_IN: return true;
    default: return false;
  }
}

// Keywords that end an expression: the reference's LALR parser reduces them on almost any next
// token (their lookahead sets are merged over every context), so when it then detects an error
// they are no longer on its stack. Other keywords stay on the stack and are blamed.
bool keywordReducedAlone(size_t type) {
  switch (type) {
    case InmantaLexer::KW_TRUE:
    case InmantaLexer::KW_FALSE:
    case InmantaLexer::KW_NULL:
    case InmantaLexer::DEFINED: return true;
    default: return false;
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
    size_t kind = tok->getType();
    // As the reference's lexer, the newlines between `matching` and a regex's `/` are not
    // counted: the lines after such a regex are numbered one less per newline.
    if (regexNewlines_ != 0)
      if (auto* writable = dynamic_cast<antlr4::WritableToken*>(tok.get()))
        writable->setLine(tok->getLine() - regexNewlines_);
    if (kind == REGEX) {
      std::string text = tok->getText();
      regexNewlines_ += std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(text.find('/')), '\n');
    }
    if (size_t retyped = retyper_.retype(kind); retyped != kind) setType(*tok, retyped);
    if (kind == STRING || kind == FSTRING || kind == MLS || kind == REGEX || kind == INT) {
      std::string text = tok->getText();
      tok::TokenCheck check = tok::checkToken(kind, text);
      if (check.error) {
        reject(*tok,
               Diagnostic(ErrorKind::ParserException, "Syntax error: " + *check.error, errorLoc(*tok, text, check)));
      } else if (check.warning && warn_) {
        warn_(Diagnostic(ErrorKind::ParserException, *check.warning,
                         SourceLocation{file_, static_cast<uint32_t>(tok->getLine()), 0}, false));
      }
    }
    ++count_;  // the stream numbers tokens 0, 1, 2, ... in the order they are handed out
    return tok;
  }

  const Diagnostic* rejected(size_t tokenIndex) const {
    auto it = rejected_.find(tokenIndex);
    return it == rejected_.end() ? nullptr : &it->second;
  }

 private:
  // A regex error is located at the /.../ part, on the line where it stands, its column counted
  // (as the reference's lexer counts it) from the start of the line where `matching` stands;
  // others at the token.
  SourceLocation errorLoc(const Token& t, std::string_view text, const tok::TokenCheck& check) const {
    if (check.errorOffset == 0) return tokenLoc(file_, &t);
    if (t.getType() == REGEX) {
      auto before = static_cast<uint32_t>(
          std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(check.errorOffset), '\n'));
      return SourceLocation{file_, static_cast<uint32_t>(t.getLine()) + before,
                            static_cast<uint32_t>(t.getCharPositionInLine() + 1 +
                                                  codePointCount(text.substr(0, check.errorOffset)))};
    }
    uint32_t line = static_cast<uint32_t>(t.getLine());
    size_t lineStart = 0;
    for (size_t i = 0; i < check.errorOffset; ++i)
      if (text[i] == '\n') {
        ++line;
        lineStart = i + 1;
      }
    uint32_t col =
        line == t.getLine()
            ? static_cast<uint32_t>(t.getCharPositionInLine() + 1 + codePointCount(text.substr(0, check.errorOffset)))
            : static_cast<uint32_t>(codePointCount(text.substr(lineStart, check.errorOffset - lineStart)) + 1);
    return SourceLocation{file_, line, col};
  }

  static void setType(Token& t, size_t type) {
    if (auto* common = dynamic_cast<antlr4::CommonToken*>(&t)) common->setType(type);
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
  size_t regexNewlines_ = 0;  // (nextToken)
  tok::Retyper retyper_;
};

// Records how far any prediction got before every alternative failed. ANTLR may then still pick
// an alternative that completed its rule and report the error earlier, at a token the reference's
// LALR parser accepts; the furthest failure is the reference's error token.
class TrackingSimulator : public antlr4::atn::ParserATNSimulator {
 public:
  using ParserATNSimulator::ParserATNSimulator;
  antlr4::NoViableAltException noViableAlt(antlr4::TokenStream* input, antlr4::ParserRuleContext* outer,
                                           antlr4::atn::ATNConfigSet* configs, size_t startIndex,
                                           bool deleteConfigs) override {
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
      : file_(file),
        lexer_(lexer),
        simulator_(simulator),
        columns_(columns),
        eofLine_(eofLine),
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
    if (token->getType() == Token::EOF) syntaxError("Unexpected end of file", SourceLocation{file_, eofLine_, 2});
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
        syntaxError("invalid identifier, " + previous->getText() + " is a reserved keyword", at(previous));
    }
    // The reference reports the lexer's position, just after the offending token.
    std::string text = token->getText();
    uint32_t endLine = static_cast<uint32_t>(token->getLine());
    if (token->getType() == InmantaLexer::MLS)
      for (char c : text) endLine += c == '\n';
    auto endCol = static_cast<uint32_t>(columns_.column(token) + (token->getStopIndex() + 1 - token->getStartIndex()));
    Diagnostic diag(ErrorKind::ParserException, "Syntax error at token " + text,
                    SourceLocation{file_, endLine, endCol});
    diag.caret = at(token);
    throw CompileError(std::move(diag));
  }

 private:
  SourceLocation at(const Token* t) const {
    return SourceLocation{file_, static_cast<uint32_t>(t->getLine()), columns_.column(t)};
  }
  [[noreturn]] void syntaxError(SourceLocation loc, std::string message) {
    compiler::syntaxError(std::move(message), loc);
  }
  [[noreturn]] void syntaxError(std::string message, SourceLocation loc) {
    compiler::syntaxError(std::move(message), loc);
  }
  FileId file_;
  const CheckingLexer& lexer_;
  const TrackingSimulator& simulator_;
  const ColumnMap& columns_;
  uint32_t eofLine_;
  std::function<void(const Token*)> beforeReport_;
};

// Deep nesting would exhaust the stack of the recursive-descent parser: refuse it up front.
// So would a long chain (operators in one expression, `elif`s of one `if`, attributes of one
// `a.b.c`): its tree is as deep as it is long (the parse tree of a left-recursive rule, then the
// syntax tree the compile walks). A chain's links are counted per bracket level, from the last
// token that starts another expression or statement part.
void checkNesting(antlr4::CommonTokenStream& tokens, FileId file) {
  int brackets = 0;
  int blocks = 0;
  int nots = 0;
  std::vector<int> links{0};  // per open bracket level
  std::vector<int> elifs;     // per open `if`/`for` block
  int elifsOpen = 0;          // their sum
  for (Token* t : tokens.getTokens()) {
    switch (t->getType()) {
      case InmantaLexer::LPAREN:
      case InmantaLexer::LBRACK:
      case InmantaParser::LOOKUP_BRACK:
      case InmantaLexer::LBRACE:
        ++brackets;
        links.push_back(0);
        break;
      case InmantaLexer::RPAREN:
      case InmantaLexer::RBRACK:
      case InmantaLexer::RBRACE:
        --brackets;
        if (links.size() > 1) links.pop_back();
        break;
      case InmantaLexer::IF:
      case InmantaLexer::FOR:
        links.back() = 0;
        if (brackets <= 0) {
          ++blocks;
          elifs.push_back(0);
        }
        break;
      case InmantaLexer::END:
        --blocks;
        links.back() = 0;
        if (!elifs.empty()) {
          elifsOpen -= elifs.back();
          elifs.pop_back();
        }
        break;
      case InmantaLexer::ELIF:
        links.back() = 0;
        if (!elifs.empty()) {
          ++elifs.back();
          ++elifsOpen;
        }
        break;
      case InmantaLexer::ASSIGN:
      case InmantaLexer::PEQ:
      case InmantaLexer::COMMA:
      case InmantaLexer::ELSE:
      case InmantaLexer::WHEN:
      case InmantaLexer::MATCHING:
      case InmantaLexer::REL:
      case InmantaLexer::ENTITY:
      case InmantaLexer::IMPLEMENTATION:
      case InmantaLexer::IMPLEMENT:
      case InmantaLexer::TYPEDEF:
      case InmantaLexer::INDEX:
      case InmantaLexer::IMPORT: links.back() = 0; break;
      case InmantaLexer::PLUS_OP:
      case InmantaLexer::MINUS_OP:
      case InmantaLexer::STAR:
      case InmantaLexer::DIVISION_OP:
      case InmantaLexer::PERCENT:
      case InmantaLexer::DOUBLE_STAR:
      case InmantaLexer::CMP_OP:
      case InmantaLexer::AND:
      case InmantaLexer::OR:
      case InmantaLexer::IN:
      case InmantaLexer::QMARK:
      case InmantaLexer::DOT: ++links.back(); break;
      default: break;
    }
    nots = t->getType() == InmantaLexer::NOT || t->getType() == InmantaLexer::QMARK ? nots + 1 : 0;
    if (brackets > kMaxNesting || blocks > kMaxNesting || nots > kMaxNesting)
      syntaxError("nesting too deep (more than " + std::to_string(kMaxNesting) + " levels)", tokenLoc(file, t));
    if (links.back() > kMaxChain || blocks + elifsOpen > kMaxChain)
      syntaxError("expression or `elif` chain too long (more than " + std::to_string(kMaxChain) + " links)",
                  tokenLoc(file, t));
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
    case Token::EOF:
    case InmantaLexer::ID:
    case InmantaLexer::CID:
    case InmantaLexer::INT:
    case InmantaLexer::FLOAT:
    case InmantaLexer::STRING:
    case InmantaLexer::RSTRING:
    case InmantaLexer::FSTRING:
    case InmantaLexer::MLS:
    case InmantaLexer::REGEX:
    case InmantaLexer::KW_TRUE:
    case InmantaLexer::KW_FALSE:
    case InmantaLexer::KW_NULL:
    case InmantaLexer::NOT:
    case InmantaLexer::IF:
    case InmantaLexer::FOR:
    case InmantaLexer::ENTITY:
    case InmantaLexer::IMPLEMENT:
    case InmantaLexer::IMPLEMENTATION:
    case InmantaLexer::TYPEDEF:
    case InmantaLexer::INDEX:
    case InmantaLexer::IMPORT:
    case InmantaLexer::LPAREN:
    case InmantaLexer::LBRACK:
    case InmantaLexer::LBRACE:
    case InmantaLexer::END:
    case InmantaLexer::DICT:
    case InmantaLexer::ELSE:
    case InmantaLexer::ELIF: return true;
    default: return false;
  }
}

// Tokens that can follow an expression somewhere in the language: the reference reduces a
// completed expression on these before it notices an error.
bool followsExpression(size_t type) {
  if (startsStatement(type)) return true;
  switch (type) {
    case InmantaLexer::RPAREN:
    case InmantaLexer::RBRACK:
    case InmantaLexer::RBRACE:
    case InmantaLexer::COMMA:
    case InmantaLexer::COLON:
    case InmantaLexer::PLUS_OP:
    case InmantaLexer::MINUS_OP:
    case InmantaLexer::STAR:
    case InmantaLexer::DIVISION_OP:
    case InmantaLexer::PERCENT:
    case InmantaLexer::DOUBLE_STAR:
    case InmantaLexer::CMP_OP:
    case InmantaLexer::AND:
    case InmantaLexer::OR:
    case InmantaLexer::IN:
    case InmantaParser::NOT_IN:
    case InmantaLexer::QMARK:
    case InmantaParser::LOOKUP_BRACK: return true;
    default: return false;
  }
}

// ------------------------------------------------------------------ the builder

class Builder {
 public:
  Builder(AstFactory& make, const ColumnMap& columns) : f_(make), columns_(columns) {}

  ast::File* build(InmantaParser::FileContext* tree) {
    auto* result = f_.make<ast::File>();
    result->id = f_.file();
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
        if (auto* v = p->varRef()) f_.entityNameNotCapital(at(v->getStart()));
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
    return SourceLocation{f_.file(), static_cast<uint32_t>(t->getLine()), columns_.column(t)};
  }

  ast::Name name(const Token* t) { return f_.name(t->getText(), at(t)); }
  ast::Name name(InmantaParser::NsRefContext* ns) { return f_.name(ns->getText(), at(ns->getStart())); }

  ast::Name className(InmantaParser::ClassRefContext* c) {
    if (c->varRef() != nullptr)
      f_.invalidNamespaceAccess(c->varRef()->getText() + "." + c->CID()->getText(), at(c->getStart()));
    return f_.name(c->getText(), at(c->getStart()));
  }

  std::string mlsValue(const Token* t) { return f_.mlsValue(t->getText()); }

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
    return f_.make<ast::ExprStmt>(expression(c->expression()));
  }

  void block(InmantaParser::BlockContext* c, ast::Block& out) {
    for (auto* s : c->statement()) out.push_back(statement(s));
  }

  ast::Stmt* assignment(InmantaParser::AssignmentContext* c) {
    auto* var = c->varRef();
    bool plain = var->DOT().empty();
    bool listOnly = c->op->getType() == InmantaLexer::PEQ;
    ast::Expr* target = varRef(var);
    if (plain && listOnly) f_.plusAssignOnVariable(static_cast<ast::VarRef*>(target)->name());
    ast::Expr* value = expression(c->expression());
    if (plain) f_.checkHyphen(static_cast<ast::VarRef*>(target)->name());
    return f_.make<ast::Assign>(at(c->op), target, value, listOnly);
  }

  ast::Stmt* forStmt(InmantaParser::ForStmtContext* c) {
    auto* result = f_.make<ast::For>(at(c->getStart()), name(c->var), expression(c->expression()));
    block(c->block(), result->body);
    return result;
  }

  ast::Stmt* ifStmt(InmantaParser::IfStmtContext* c) {
    auto* result = f_.make<ast::If>(at(c->getStart()), expression(c->expression()));
    block(c->block(), result->thenBlock);
    ast::If* tail = result;
    for (auto* elif : c->elifClause()) {
      auto* nested = f_.make<ast::If>(at(elif->getStart()), expression(elif->expression()));
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
    f_.checkModuleName(module);
    ast::Name alias = c->alias ? name(c->alias) : module;
    f_.checkHyphen(alias);
    return f_.make<ast::Import>(at(c->getStart()), module, alias);
  }

  ast::Stmt* entity(InmantaParser::EntityDefContext* c) {
    ast::Name n = name(c->name);
    std::vector<ast::Name> parents;
    for (auto* p : c->parentRef()) {
      if (auto* v = p->varRef()) f_.entityNameNotCapital(at(v->getStart()));
      parents.push_back(className(p->classRef()));
    }
    std::vector<ast::Attribute> attributes;
    for (auto* a : c->attributeDef()) attributes.push_back(attribute(a));
    if (c->name->getType() != InmantaLexer::CID) f_.entityNameNotCapital(n.loc);
    f_.checkHyphen(n);
    auto* result = f_.make<ast::Entity>(at(c->getStart()), n);
    result->parents = std::move(parents);
    result->attributes = std::move(attributes);
    if (c->doc) result->doc = mlsValue(c->doc);
    return result;
  }

  ast::Attribute attribute(InmantaParser::AttributeDefContext* c) {
    ast::Attribute result;
    if (auto* t = dynamic_cast<InmantaParser::TypedAttributeContext*>(c)) {
      result.name = name(t->name);
      if (t->name->getType() == InmantaLexer::CID) f_.attributeNameCapital(result.name.loc);
      auto* type = t->typeRef();
      result.type.base = name(type->nsRef());
      result.type.multi = type->multi != nullptr;
      result.type.nullable = type->nullable != nullptr;
      if (auto* k = t->constant()) result.defaultValue = constant(k);
      else if (auto* l = t->constantList()) result.defaultValue = constantList(l);
    } else {
      auto* d = static_cast<InmantaParser::DictAttributeContext*>(c);
      result.name = name(d->name);
      result.type.base = f_.name("dict", at(d->getStart()));
      result.type.isDict = true;
      result.type.nullable = d->nullable != nullptr;
      if (d->name->getType() == InmantaLexer::CID) f_.attributeNameCapital(result.name.loc);
      if (auto* m = d->mapLiteral()) {
        result.defaultValue = mapLiteral(m);
      } else if (auto* null = d->KW_NULL()) {
        if (!result.type.nullable) f_.dictNullNotNullable(result.name);
        result.defaultValue = f_.make<ast::Literal>(at(null->getSymbol()), runtime::Value());
      }
    }
    result.removeDefault = result.defaultValue == nullptr;
    f_.checkHyphen(result.name);
    return result;
  }

  ast::Stmt* implementation(InmantaParser::ImplementationDefContext* c) {
    ast::Name entityName = className(c->classRef());
    auto* result = f_.make<ast::Implementation>(at(c->name), name(c->name), entityName);
    block(c->block(), result->body);
    f_.checkHyphen(result->name);
    if (c->doc) result->doc = mlsValue(c->doc);
    return result;
  }

  ast::Stmt* implement(InmantaParser::ImplementDefContext* c) {
    ast::Name entityName = className(c->classRef());
    auto* result = f_.make<ast::Implement>(entityName.loc, entityName);
    for (auto* item : c->implementItem()) {
      if (item->PARENTS() != nullptr) result->inheritParents = true;
      else result->implementations.push_back(name(item->nsRef()));
    }
    if (auto* e = c->expression()) result->when = expression(e);
    f_.checkImplementCondition(result);
    if (c->doc) result->doc = mlsValue(c->doc);
    return result;
  }

  static ast::Multiplicity multiplicity(InmantaParser::MultiplicityContext* m) {
    return AstFactory::multiplicity(m->lower ? m->lower->getText() : std::string(), m->COLON() != nullptr,
                                    m->upper ? m->upper->getText() : std::string());
  }

  ast::Stmt* relation(InmantaParser::RelationDefContext* c) {
    auto* result = f_.make<ast::Relation>(at(c->DOT(0)->getSymbol()));
    result->left = className(c->left);
    result->leftAttr = name(c->leftName);
    result->leftMult = multiplicity(c->leftMult);
    for (auto* a : c->annotation) result->annotations.push_back(expression(a));
    result->right = className(c->right);
    if (c->rightName) {
      result->rightAttr = name(c->rightName);
      result->rightMult = multiplicity(c->rightMult);
      f_.checkHyphen(result->rightAttr);
    }
    f_.checkHyphen(result->leftAttr);
    if (c->doc) result->doc = mlsValue(c->doc);
    return result;
  }

  ast::Stmt* typedefDef(InmantaParser::TypedefDefContext* c) {
    if (auto* d = dynamic_cast<InmantaParser::DefaultConstructorTypedefContext*>(c)) {
      className(d->classRef());
      if (auto* k = d->kwargList()) kwargs(k);
      f_.defaultConstructorTypedef(at(d->name));
    }
    auto* t = static_cast<InmantaParser::ConstraintTypedefContext*>(c);
    ast::Name n = name(t->name);
    ast::Name base = name(t->nsRef());
    ast::Expr* constraint = t->expression() != nullptr ? expression(t->expression())
                                                       : f_.regex(t->REGEX()->getText(), at(t->REGEX()->getSymbol()));
    auto* result = static_cast<ast::Typedef*>(f_.typedefStatement(n, base, constraint));
    if (t->doc) result->doc = mlsValue(t->doc);
    return result;
  }

  ast::Stmt* index(InmantaParser::IndexDefContext* c) {
    auto* result = f_.make<ast::Index>(at(c->getStart()), className(c->classRef()));
    for (auto* id : c->ID()) result->attributes.push_back(name(id->getSymbol()));
    return result;
  }

  // ---------------------------------------------------------------- expressions

  ast::Expr* expression(InmantaParser::ExpressionContext* c) {
    if (auto* p = dynamic_cast<InmantaParser::PrimaryExprContext*>(c)) return primary(p->primary());
    if (auto* b = dynamic_cast<InmantaParser::BinaryExprContext*>(c)) {
      ast::Expr* lhs = expression(b->expression(0));
      ast::Expr* rhs = expression(b->expression(1));
      return f_.make<ast::Binary>(at(b->op), AstFactory::binaryOp(b->op->getType(), b->op->getText()), lhs, rhs);
    }
    if (auto* i = dynamic_cast<InmantaParser::InExprContext*>(c)) {
      ast::Expr* lhs = expression(i->expression(0));
      ast::Expr* rhs = expression(i->expression(1));
      if (i->NOT_IN() != nullptr) {
        SourceLocation loc = at(i->NOT_IN()->getSymbol());
        return f_.make<ast::Not>(loc, f_.make<ast::Binary>(loc, ast::BinaryOp::In, lhs, rhs));
      }
      return f_.make<ast::Binary>(at(i->IN()->getSymbol()), ast::BinaryOp::In, lhs, rhs);
    }
    if (auto* n = dynamic_cast<InmantaParser::NotExprContext*>(c))
      return f_.make<ast::Not>(at(n->getStart()), expression(n->expression()));
    auto* q = static_cast<InmantaParser::ConditionalExprContext*>(c);
    ast::Expr* cond = expression(q->expression(0));
    ast::Expr* a = expression(q->expression(1));
    ast::Expr* b = expression(q->expression(2));
    return f_.make<ast::Conditional>(cond->loc(), cond, a, b);
  }

  // A variable followed by its attribute chain: a.b.c
  ast::Expr* varRef(InmantaParser::VarRefContext* c) {
    ast::Expr* result = f_.make<ast::VarRef>(name(c->nsRef()));
    auto dots = c->DOT();
    auto ids = c->ID();
    for (size_t i = 0; i < ids.size(); ++i)
      result = f_.make<ast::AttrRef>(at(dots[i]->getSymbol()), result, name(ids[i]->getSymbol()));
    return result;
  }

  ast::Expr* primary(InmantaParser::PrimaryContext* c) {
    if (auto* k = dynamic_cast<InmantaParser::ConstantExprContext*>(c)) return constant(k->constant());
    if (auto* v = dynamic_cast<InmantaParser::VarRefExprContext*>(c)) return varRef(v->varRef());
    if (auto* p = dynamic_cast<InmantaParser::ParenExprContext*>(c)) return expression(p->expression());
    if (auto* fc = dynamic_cast<InmantaParser::CallExprContext*>(c)) {
      auto* call = f_.make<ast::Call>(at(fc->getStart()), name(fc->nsRef()));
      if (auto* args = fc->argList()) arguments(args, *call);
      return call;
    }
    if (auto* k = dynamic_cast<InmantaParser::ConstructorExprContext*>(c)) {
      ast::Name type = className(k->classRef());
      auto* ctor = f_.make<ast::Constructor>(at(k->LPAREN()->getSymbol()), type);
      if (auto* args = k->kwargList()) ctor->named = kwargs(args);
      f_.checkConstructorArguments(ctor);
      return ctor;
    }
    if (auto* l = dynamic_cast<InmantaParser::ListExprContext*>(c)) {
      auto* list = f_.make<ast::ListLit>(at(l->getStart()));
      std::vector<ast::Expr*> elements;
      for (auto* e : l->expression()) elements.push_back(expression(e));
      list->elements = f_.ctx().span(elements);
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
        result = f_.make<ast::MapLookup>(at(brackets[i]->getSymbol()), result, lastKey);
      }
      if (m->IS() == nullptr) return result;
      return f_.lookupIsDefined(result, innerMap, lastKey, at(m->IS()->getSymbol()));
    }
    if (auto* i = dynamic_cast<InmantaParser::IndexLookupExprContext*>(c)) {
      ast::Name type = className(i->classRef());
      auto* lookup = f_.make<ast::IndexLookup>(at(i->LBRACK()->getSymbol()), type);
      if (auto* args = i->kwargList()) lookup->named = kwargs(args);
      return lookup;
    }
    if (auto* s = dynamic_cast<InmantaParser::ShortIndexLookupExprContext*>(c)) {
      ast::Expr* object = varRef(s->varRef());
      auto* lookup =
          f_.make<ast::ShortIndexLookup>(at(s->LOOKUP_BRACK()->getSymbol()), object, name(s->ID()->getSymbol()));
      if (auto* args = s->kwargList()) lookup->named = kwargs(args);
      return lookup;
    }
    if (auto* d = dynamic_cast<InmantaParser::IsDefinedAttrExprContext*>(c)) {
      ast::Expr* object = varRef(d->varRef());
      return f_.make<ast::IsDefined>(at(d->DOT()->getSymbol()), object, name(d->ID()->getSymbol()));
    }
    if (auto* d = dynamic_cast<InmantaParser::IsDefinedVarExprContext*>(c))
      return f_.make<ast::IsDefined>(at(d->getStart()), nullptr, name(d->ID()->getSymbol()));
    if (auto* comp = dynamic_cast<InmantaParser::ListComprehensionExprContext*>(c)) return listComprehension(comp);
    auto* dotted = static_cast<InmantaParser::DottedCallExprContext*>(c);
    f_.invalidNamespaceAccess(dotted->varRef()->getText() + "." + dotted->ID()->getText(), at(dotted->getStart()));
  }

  ast::Expr* listComprehension(InmantaParser::ListComprehensionExprContext* c) {
    SourceLocation loc = at(c->getStart());
    ast::Expr* value = expression(c->expression());
    std::vector<AstFactory::ComprehensionLoop> loops;
    for (auto* lf : c->listFor()) loops.push_back({name(lf->ID()->getSymbol()), expression(lf->expression())});
    std::vector<AstFactory::ComprehensionGuard> guards;
    for (auto* g : c->listGuard()) guards.push_back({expression(g->expression()), at(g->getStart())});
    return f_.listComprehension(loc, value, loops, guards);
  }

  ast::Expr* mapLiteral(InmantaParser::MapLiteralContext* c) {
    auto* dict = f_.make<ast::DictLit>(at(c->getStart()));
    std::unordered_map<std::string, size_t> seen;
    AstFactory::DictEntries entries;
    for (auto* entry : c->dictEntry()) {
      std::string key = f_.dictKey(entry->key->getType(), entry->key->getText(), at(entry->key));
      f_.dictEntry(entries, std::move(key), expression(entry->expression()), seen);
    }
    f_.setEntries(*dict, entries);
    return dict;
  }

  void arguments(InmantaParser::ArgListContext* c, ast::Call& call) {
    std::vector<ast::KwArg> kwargs;
    std::vector<ast::Expr*> wrapped;
    std::vector<ast::Expr*> args;
    for (auto* a : c->arg()) {
      if (auto* kw = dynamic_cast<InmantaParser::KeywordArgContext*>(a)) {
        ast::Name n = name(kw->ID()->getSymbol());
        f_.checkKeywordArgument(call, kwargs, n);
        kwargs.push_back({n, expression(kw->expression())});
      } else if (auto* w = dynamic_cast<InmantaParser::WrappedKwargsArgContext*>(a)) {
        wrapped.push_back(expression(w->expression()));
      } else {
        args.push_back(expression(static_cast<InmantaParser::PositionalArgContext*>(a)->expression()));
      }
    }
    call.named.kwargs = f_.ctx().span(kwargs);
    call.named.wrapped = f_.ctx().span(wrapped);
    call.args = f_.ctx().span(args);
  }

  ast::Arguments kwargs(InmantaParser::KwargListContext* c) {
    std::vector<ast::KwArg> kwargs;
    std::vector<ast::Expr*> wrapped;
    for (auto* a : c->kwarg()) {
      if (auto* kw = dynamic_cast<InmantaParser::KeywordKwargContext*>(a))
        kwargs.push_back({name(kw->ID()->getSymbol()), expression(kw->expression())});
      else wrapped.push_back(expression(static_cast<InmantaParser::WrappedKwargsKwargContext*>(a)->expression()));
    }
    return ast::Arguments{f_.ctx().span(kwargs), f_.ctx().span(wrapped)};
  }

  ast::Expr* constantList(InmantaParser::ConstantListContext* c) {
    auto* list = f_.make<ast::ListLit>(at(c->getStart()));
    std::vector<ast::Expr*> elements;
    for (auto* k : c->constant()) elements.push_back(constant(k));
    list->elements = f_.ctx().span(elements);
    return list;
  }

  ast::Expr* constant(InmantaParser::ConstantContext* c) {
    const Token* t = c->getStart();
    return f_.constant(t->getType(), t->getText(), at(t));
  }

  AstFactory& f_;
  const ColumnMap& columns_;
};

// `a.B` (a variable or attribute followed by `.` and a capitalised name) is the reference's
// InvalidNamespaceAccess error production, which its parser reduces as soon as it has read the
// name, whatever follows (`x = a.B`, `[a.B, 1]`, `1 + a.B`): so a syntax error at or after one
// is that error, at the start of the first such `a.B`.
void dottedClassBefore(antlr4::CommonTokenStream& tokens, const Token* offending, AstFactory& factory,
                       const ColumnMap& columns, FileId file) {
  size_t last = offending->getTokenIndex();
  for (size_t i = 2; i <= last && i < tokens.size(); ++i) {
    if (tokens.get(i)->getType() != InmantaLexer::CID || tokens.get(i - 1)->getType() != InmantaLexer::DOT ||
        tokens.get(i - 2)->getType() != InmantaLexer::ID)
      continue;
    size_t first = i - 2;
    while (first >= 2 && tokens.get(first - 2)->getType() == InmantaLexer::ID &&
           (tokens.get(first - 1)->getType() == InmantaLexer::DOT ||
            tokens.get(first - 1)->getType() == InmantaLexer::SEP))
      first -= 2;
    std::string dotted;
    for (size_t k = first; k <= i; ++k) dotted += tokens.get(k)->getText();
    const Token* start = tokens.get(first);
    factory.invalidNamespaceAccess(dotted, SourceLocation{file, static_cast<uint32_t>(start->getLine()),
                                                          columns.column(start)});
  }
}

ast::File* parseWithAntlr(ast::Context& ctx, FileId fileId, std::string_view data, const WarningSink& warn,
                          bool llOnly) {
  uint32_t eofLine = 1;
  for (char c : data) eofLine += c == '\n';

  antlr4::ANTLRInputStream input(data.data(), data.size());
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
  AstFactory factory(ctx, fileId, warn);
  Builder builder(factory, columns);

  // Two stages, the known ANTLR speed-up: SLL prediction, which caches everything, bails out on
  // the first error; only then the input is parsed again with full LL prediction and the error
  // reporting of the reference.
  InmantaParser::FileContext* tree = nullptr;
  if (!llOnly) {
    parser.setErrorHandler(std::make_shared<antlr4::BailErrorStrategy>());
    simulator->setPredictionMode(antlr4::atn::PredictionMode::SLL);
    try {
      tree = parser.file();
    } catch (const antlr4::ParseCancellationException&) {
      tree = nullptr;
    }
  }
  ExitRecorder recorder;
  ErrorListener listener(fileId, lexer, *simulator, columns, eofLine, [&](const Token* offending) {
    builder.replay(recorder.exited, offending);
    dottedClassBefore(tokens, offending, factory, columns, fileId);
  });
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

class Parser final : public AntlrParser {
 public:
  ast::File* parse(ast::Context& ctx, FileId file, std::string_view data, const WarningSink& warn,
                   bool llOnly) override {
    return parseWithAntlr(ctx, file, data, warn, llOnly);
  }
};

}  // namespace

}  // namespace inmanta::compiler

extern "C" __attribute__((visibility("default"))) inmanta::compiler::AntlrParser* inmanta_antlr_parser(uint64_t abi) {
  if (abi != inmanta::compiler::kAntlrParserAbi) return nullptr;
  static inmanta::compiler::Parser parser;
  return &parser;
}
