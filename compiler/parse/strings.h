// String literal processing shared by the parser and the runtime: escape decoding (spec 1.7,
// 9.1, 9.3), `{{ }}` interpolation matches, and Python str.format field parsing.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/source/source.h"

namespace inmanta::compiler {

// The code point of a Unicode character name or name alias, matched without regard to case
// (Python's unicodedata.lookup as \N{...} uses it); none when unknown.
std::optional<uint32_t> lookupCharName(const std::string& name);

struct DecodedString {
  std::string value;
  bool unknownEscape = false;        // e.g. "\." kept verbatim: the reference logs a ParserWarning
  std::optional<std::string> error;  // a malformed escape, e.g. "\x4"
};

// Decodes the escapes Python's unicode_escape codec knows, producing proper UTF-8 (9.1).
DecodedString decodeEscapes(std::string_view body);

struct Interpolation {
  size_t begin;      // byte offset of `{{`
  size_t end;        // one past `}}`
  size_t nameBegin;  // byte offset of the name inside the match
  std::string name;  // `a.b.c`
};

// Every match of \{\{\s*([.A-Za-z0-9_-]+)\s*\}\} in a decoded string, left to right.
std::vector<Interpolation> findInterpolations(std::string_view text);

// One chunk of Python's string.Formatter().parse(): literal text, then optionally a field.
struct FormatChunk {
  std::string literal;
  bool hasField = false;
  std::string fieldName;
  std::string formatSpec;
  char32_t conversion = 0;  // 0: none
  size_t fieldOffset = 0;   // byte offset of the field name in the format string
};

// Parses a str.format format string; on a malformed one returns the ValueError message
// Python gives ("Single '{' encountered in format string", ...).
std::optional<std::string> parseFormatString(std::string_view format, std::vector<FormatChunk>& chunks);

}  // namespace inmanta::compiler
