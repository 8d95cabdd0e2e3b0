#include "compiler/parse/strings.h"

#include <unicode/uchar.h>

#include <cctype>
#include <cstring>

namespace inmanta::compiler {

namespace {
int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::optional<uint32_t> lookupCharName(const std::string& name) {
  std::string upper;
  for (char c : name) upper += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  UErrorCode status = U_ZERO_ERROR;
  UChar32 cp = u_charFromName(U_UNICODE_CHAR_NAME, upper.c_str(), &status);
  if (U_SUCCESS(status) && cp >= 0) return static_cast<uint32_t>(cp);
  status = U_ZERO_ERROR;
  cp = u_charFromName(U_CHAR_NAME_ALIAS, upper.c_str(), &status);
  if (U_SUCCESS(status) && cp >= 0) return static_cast<uint32_t>(cp);
  return std::nullopt;
}

DecodedString decodeEscapes(std::string_view s) {
  DecodedString out;
  std::string& v = out.value;
  const size_t n = s.size();
  const char* backslash = n == 0 ? nullptr : static_cast<const char*>(std::memchr(s.data(), '\\', n));
  if (backslash == nullptr) {  // nothing to decode: most strings
    v.assign(s);
    return out;
  }
  v.reserve(n);
  size_t i = 0;
  while (i < n) {
    // the text up to the next backslash, in one piece
    const char* next = static_cast<const char*>(std::memchr(s.data() + i, '\\', n - i));
    size_t stop = next == nullptr ? n : static_cast<size_t>(next - s.data());
    v.append(s.data() + i, stop - i);
    i = stop;
    if (i >= n) break;
    if (i + 1 >= n) {
      out.error = "\\";
      return out;
    }
    char e = s[i + 1];
    size_t start = i;
    i += 2;
    switch (e) {
      case '\n': break;
      case '\\': v += '\\'; break;
      case '\'': v += '\''; break;
      case '"': v += '"'; break;
      case 'a': v += '\a'; break;
      case 'b': v += '\b'; break;
      case 'f': v += '\f'; break;
      case 'n': v += '\n'; break;
      case 'r': v += '\r'; break;
      case 't': v += '\t'; break;
      case 'v': v += '\v'; break;
      case '0':
      case '1':
      case '2':
      case '3':
      case '4':
      case '5':
      case '6':
      case '7': {
        uint32_t cp = static_cast<uint32_t>(e - '0');
        for (int k = 0; k < 2 && i < n && s[i] >= '0' && s[i] <= '7'; ++k, ++i) cp = cp * 8 + (s[i] - '0');
        appendUtf8(v, cp);
        break;
      }
      case 'x':
      case 'u':
      case 'U': {
        int digits = e == 'x' ? 2 : e == 'u' ? 4 : 8;
        uint32_t cp = 0;
        int k = 0;
        for (; k < digits && i < n && hexValue(s[i]) >= 0; ++k, ++i)
          cp = cp * 16 + static_cast<uint32_t>(hexValue(s[i]));
        if (k < digits || cp > 0x10FFFF) {
          out.error = std::string(s.substr(start, i - start));
          return out;
        }
        appendUtf8(v, cp);
        break;
      }
      case 'N': {
        size_t close = i < n && s[i] == '{' ? s.find('}', i) : std::string_view::npos;
        if (close == std::string_view::npos || close == i + 1) {
          out.error = std::string(s.substr(start, std::min(n, i + 1) - start));
          return out;
        }
        auto cp = lookupCharName(std::string(s.substr(i + 1, close - i - 1)));
        if (!cp) {
          out.error = std::string(s.substr(start, close + 1 - start));
          return out;
        }
        appendUtf8(v, *cp);
        i = close + 1;
        break;
      }
      default:
        // unknown escape: kept verbatim (Python warns)
        out.unknownEscape = true;
        v += '\\';
        i = start + 1;
        break;
    }
  }
  return out;
}

std::vector<Interpolation> findInterpolations(std::string_view t) {
  std::vector<Interpolation> result;
  auto isSpace = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; };
  auto isNameChar = [](char c) {
    return c == '.' || c == '_' || c == '-' || std::isalnum(static_cast<unsigned char>(c));
  };
  size_t pos = 0;
  while (true) {
    size_t open = t.find("{{", pos);
    if (open == std::string_view::npos) break;
    size_t i = open + 2;
    while (i < t.size() && isSpace(t[i])) ++i;
    size_t nameBegin = i;
    while (i < t.size() && isNameChar(t[i])) ++i;
    size_t nameEnd = i;
    while (i < t.size() && isSpace(t[i])) ++i;
    if (nameEnd > nameBegin && i + 1 < t.size() + 0 && t[i] == '}' && t[i + 1] == '}') {
      result.push_back({open, i + 2, nameBegin, std::string(t.substr(nameBegin, nameEnd - nameBegin))});
      pos = i + 2;
    } else {
      pos = open + 1;
    }
  }
  return result;
}

// Follows CPython's MarkupIterator / parse_field (Objects/stringlib/unicode_format.h).
std::optional<std::string> parseFormatString(std::string_view s, std::vector<FormatChunk>& chunks) {
  size_t pos = 0;
  const size_t end = s.size();
  while (pos < end) {
    size_t start = pos;
    char c = 0;
    bool markup = false;
    while (pos < end) {
      c = s[pos++];
      if (c == '{' || c == '}') {
        markup = true;
        break;
      }
    }
    bool atEnd = pos >= end;
    size_t len = pos - start;
    if (c == '}' && markup && (atEnd || s[pos] != '}')) return "Single '}' encountered in format string";
    if (atEnd && c == '{' && markup) return "Single '{' encountered in format string";
    if (!atEnd && markup) {
      if (s[pos] == c) {
        ++pos;
        markup = false;
      } else {
        --len;
      }
    }
    FormatChunk chunk;
    chunk.literal = std::string(s.substr(start, len));
    if (!markup) {
      chunks.push_back(std::move(chunk));
      continue;
    }
    chunk.hasField = true;
    // field name, up to '}', ':' or '!'
    size_t nameStart = pos;
    c = 0;
    while (pos < end) {
      c = s[pos++];
      if (c == '{') return "unexpected '{' in field name";
      if (c == '[') {
        while (pos < end && s[pos] != ']') ++pos;
        c = 0;
        continue;
      }
      if (c == '}' || c == ':' || c == '!') break;
      c = 0;
    }
    chunk.fieldOffset = nameStart;
    chunk.fieldName = std::string(s.substr(nameStart, (c != 0 ? pos - 1 : pos) - nameStart));
    if (c == '!' || c == ':') {
      bool done = false;
      if (c == '!') {
        if (pos >= end) return "end of string while looking for conversion specifier";
        chunk.conversion = nextCodePoint(s, pos);
        if (pos < end) {
          char n = s[pos++];
          if (n == '}') done = true;
          else if (n != ':') return "expected ':' after conversion specifier";
        }
      }
      if (!done) {
        size_t specStart = pos;
        int count = 1;
        bool closed = false;
        while (pos < end) {
          char x = s[pos++];
          if (x == '{') {
            ++count;
          } else if (x == '}') {
            if (--count == 0) {
              chunk.formatSpec = std::string(s.substr(specStart, pos - 1 - specStart));
              closed = true;
              break;
            }
          }
        }
        if (!closed) return "unmatched '{' in format spec";
      }
    } else if (c != '}') {
      return "expected '}' before end of string";
    }
    chunks.push_back(std::move(chunk));
  }
  return std::nullopt;
}

}  // namespace inmanta::compiler
