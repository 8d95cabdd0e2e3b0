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
  TYPEDEF = 1, AS, ENTITY, EXTENDS, END, IN, IMPLEMENTATION, FOR, INDEX, IMPLEMENT, USING, WHEN,
  AND, OR, NOT, KW_TRUE, KW_FALSE, IMPORT, IS, DEFINED, DICT, KW_NULL, UNDEF, PARENTS, IF, ELSE,
  ELIF, REGEX, MATCHING, FSTRING, RSTRING, CID, ID, SEP, REL, CMP_OP, PEQ, COMMENT, MLS, FLOAT,
  INT, STRING, PLUS_OP, MINUS_OP, DIVISION_OP, DOUBLE_STAR, COLON, LBRACK, RBRACK, LPAREN, RPAREN,
  ASSIGN, COMMA, DOT, LBRACE, RBRACE, QMARK, STAR, PERCENT, WS, NEWLINE, ERRCHAR, LOOKUP_BRACK,
  NOT_IN,
};

// Retypes `[` and `not` the way the reference's LALR parser commits to them (grammar header):
// a `[` right after a variable (or after the `]` of such a lookup) is LOOKUP_BRACK, a `not`
// right after a token that ends an expression is NOT_IN. Fed every token in order.
class Retyper {
 public:
  size_t retype(size_t kind);

 private:
  size_t previous_ = 0;
  bool nameList_ = false;
  bool previousWasName_ = false;
  bool closedLookup_ = false;
  std::vector<bool> brackets_;  // per open `[`: was it a lookup
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
