#include "compiler/parse/tokens.h"

#include <charconv>
#include <cstdint>

#include "compiler/parse/pyregex.h"
#include "compiler/parse/strings.h"

namespace inmanta::compiler::tok {

TokenCheck checkToken(size_t kind, std::string_view text) {
  TokenCheck result;
  switch (kind) {
    case STRING:
    case FSTRING:
    case MLS: {
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
    default: break;
  }
  return result;
}

}  // namespace inmanta::compiler::tok
