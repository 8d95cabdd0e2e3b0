#include "parse/tokens.h"

#include <charconv>
#include <cstdint>

#include "parse/pyregex.h"
#include "parse/strings.h"

namespace inmanta::compiler::tok {

namespace {

bool endsExpression(size_t type) {
  switch (type) {
    case ID: case INT: case FLOAT: case STRING: case RSTRING: case FSTRING: case MLS: case REGEX:
    case KW_TRUE: case KW_FALSE: case KW_NULL: case RPAREN: case RBRACK: case RBRACE: case DEFINED:
      return true;
    default:
      return false;
  }
}

}  // namespace

size_t Retyper::retype(size_t kind) {
  size_t type = kind;
  // an identifier right after `import`/`using` (or `::`, `,`, `as` in such a list) names a
  // module or an implementation, not a variable
  bool variable = previous_ == ID && !previousWasName_;
  if (kind == LBRACK) {
    bool lookup = variable || (previous_ == RBRACK && closedLookup_);
    if (lookup) type = LOOKUP_BRACK;
    brackets_.push_back(lookup);
  } else if (kind == RBRACK) {
    closedLookup_ = !brackets_.empty() && brackets_.back();
    if (!brackets_.empty()) brackets_.pop_back();
  }
  if (kind == NOT && (variable || (previous_ != ID && endsExpression(previous_)))) type = NOT_IN;
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
  return type;
}

TokenCheck checkToken(size_t kind, std::string_view text) {
  TokenCheck result;
  switch (kind) {
    case STRING: case FSTRING: case MLS: {
      size_t skip = kind == MLS ? 3 : kind == FSTRING ? 2 : 1;
      std::string_view body = text.substr(skip, text.size() - skip - (skip == 3 ? 3 : 1));
      DecodedString decoded = decodeEscapes(body);
      if (decoded.error) {
        result.error = "invalid escape sequence '" + *decoded.error + "'";
      } else if (decoded.unknownEscape) {
        const char* what = kind == MLS ? "multi-line string" : kind == FSTRING ? "f-string" : "string";
        result.warning = std::string("Invalid escape sequence in ") + what + ".";
      }
      break;
    }
    case REGEX: {
      size_t slash = text.find('/');
      std::string pattern(text.substr(slash + 1, text.size() - slash - 2));
      std::string error;
      if (!PyRegex::compile(pattern, error)) {
        result.error = "Regex error in " + std::string(text.substr(slash)) + ": '" + error + "'";
        result.errorOffset = slash;
      }
      break;
    }
    case INT: {
      int64_t value;
      auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
      if (ec != std::errc() || ptr != text.data() + text.size())
        result.error = "integer literal out of range: " + std::string(text);
      break;
    }
    default:
      break;
  }
  return result;
}

}  // namespace inmanta::compiler::tok
