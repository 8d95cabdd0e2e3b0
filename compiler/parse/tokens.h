// Token kinds of the `.cf` lexer (grammar/Inmanta.g4) and the token-level rules both lexers
// share: the hand-written one of the fast path (fast_parser.cpp) and the checking driver of the
// ANTLR-generated one (parser.cpp). The numbers are the generated ones; parser.cpp checks that at
// compile time, so this header does not pull in the ANTLR runtime.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace inmanta::compiler::tok {

enum Kind : uint8_t {
  kEOF = 0,  // ANTLR's EOF is -1; ours is 0 (never compared with the generated value)
  TYPEDEF = 1,
  AS,
  ENTITY,
  EXTENDS,
  END,
  IN,
  IMPLEMENTATION,
  FOR,
  INDEX,
  IMPLEMENT,
  USING,
  WHEN,
  AND,
  OR,
  NOT,
  KW_TRUE,
  KW_FALSE,
  IMPORT,
  IS,
  DEFINED,
  DICT,
  KW_NULL,
  UNDEF,
  PARENTS,
  IF,
  ELSE,
  ELIF,
  REGEX,
  MATCHING,
  FSTRING,
  RSTRING,
  CID,
  ID,
  SEP,
  REL,
  CMP_OP,
  PEQ,
  COMMENT,
  MLS,
  FLOAT,
  INT,
  STRING,
  PLUS_OP,
  MINUS_OP,
  DIVISION_OP,
  DOUBLE_STAR,
  COLON,
  LBRACK,
  RBRACK,
  LPAREN,
  RPAREN,
  ASSIGN,
  COMMA,
  DOT,
  LBRACE,
  RBRACE,
  QMARK,
  STAR,
  PERCENT,
  WS,
  NEWLINE,
  ERRCHAR,
  LOOKUP_BRACK,
  NOT_IN,
};

// Retypes `[` and `not` the way the reference's LALR parser commits to them (grammar header):
// a `[` right after a variable (or after the `]` of such a lookup) is LOOKUP_BRACK, a `not`
// right after a token that ends an expression is NOT_IN. Fed every token in order; inline, as
// the fast lexer calls it for every token.
class Retyper {
 public:
  size_t retype(size_t kind) {
    size_t type = kind;
    // an identifier right after `import`/`using` (or `::`, `,`, `as` in such a list) names a
    // module or an implementation, not a variable
    bool variable = previous_ == ID && !previousWasName_;
    switch (kind) {
      case LBRACK: {
        bool lookup = variable || (previous_ == RBRACK && closedLookup_);
        if (lookup) type = LOOKUP_BRACK;
        push(lookup);
        nameList_ = false;
        break;
      }
      case RBRACK:
        closedLookup_ = depth_ > 0 && pop();
        nameList_ = false;
        break;
      case NOT:
        if (variable || (previous_ != ID && endsExpression(previous_))) type = NOT_IN;
        nameList_ = false;
        break;
      case ID:
        previousWasName_ = nameList_ && (previous_ == IMPORT || previous_ == USING || previous_ == SEP ||
                                         previous_ == COMMA || previous_ == AS);
        nameList_ = previousWasName_;
        break;
      case IMPORT:
      case USING: nameList_ = true; break;
      case SEP:
      case COMMA:
      case AS:
      case PARENTS: break;
      default: nameList_ = false; break;
    }
    previous_ = type;
    return type;
  }

 private:
  static bool endsExpression(size_t type) {
    switch (type) {
      case ID:
      case INT:
      case FLOAT:
      case STRING:
      case RSTRING:
      case FSTRING:
      case MLS:
      case REGEX:
      case KW_TRUE:
      case KW_FALSE:
      case KW_NULL:
      case RPAREN:
      case RBRACK:
      case RBRACE:
      case DEFINED: return true;
      default: return false;
    }
  }
  // The open `[`s, innermost last: was it a lookup. The first 64 in a word, deeper ones in deep_.
  void push(bool lookup) {
    if (depth_ < 64) {
      if (lookup) bits_ |= uint64_t{1} << depth_;
      else bits_ &= ~(uint64_t{1} << depth_);
    } else {
      deep_.push_back(lookup);
    }
    ++depth_;
  }
  bool pop() {  // depth_ > 0
    --depth_;
    if (depth_ < 64) return (bits_ >> depth_) & 1;
    bool top = deep_.back();
    deep_.pop_back();
    return top;
  }

  size_t previous_ = 0;
  bool nameList_ = false;
  bool previousWasName_ = false;
  bool closedLookup_ = false;
  size_t depth_ = 0;
  uint64_t bits_ = 0;
  std::vector<bool> deep_;
};

// What the reference's lexer says of one token's text, beyond its extent: a malformed escape, a
// regex that does not compile or an integer out of range is an error (ParserException message
// without the "Syntax error: " prefix, at byte `errorOffset` of the token); an unknown escape in a
// string is a warning.
struct TokenCheck {
  std::optional<std::string> error;
  size_t errorOffset = 0;
  std::optional<std::string> warning;
};
TokenCheck checkToken(size_t kind, std::string_view text);

}  // namespace inmanta::compiler::tok
