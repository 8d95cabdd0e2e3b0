#include "util/json_text.h"

#include <charconv>
#include <cstdint>
#include <cstring>

namespace inmanta::util {

namespace {

constexpr char kHexDigits[] = "0123456789abcdef";

// Whether any of the eight bytes of `word` needs a look: a control character, `"`, `\` or a byte
// of 0x80 and above (bit tricks over a machine word, as in strlen: a run's log lines are about a
// kilobyte of plain text each, and a byte at a time was the most of writing them out).
bool needsALook(std::uint64_t word) {
  constexpr std::uint64_t kOnes = 0x0101010101010101ULL, kHigh = 0x8080808080808080ULL;
  auto hasZero = [](std::uint64_t v) { return (v - kOnes) & ~v & kHigh; };
  return ((word | (word - kOnes * 0x20) | hasZero(word ^ (kOnes * '"')) | hasZero(word ^ (kOnes * '\\'))) & kHigh) != 0;
}

// A string of ASCII only, escaped as nlohmann escapes it (the short escapes, other control
// characters as \u00xx); false, with `out` as it was, when it holds any other byte.
bool appendAsciiString(std::string& out, const std::string& text) {
  const std::size_t before = out.size();
  out += '"';
  const char* run = text.data();
  const char* end = text.data() + text.size();
  // whole words of plain bytes first; the byte loop takes over at the first word with another
  const char* p = run;
  for (std::uint64_t word; end - p >= 8; p += 8) {
    std::memcpy(&word, p, 8);
    if (needsALook(word)) break;
  }
  for (; p != end; ++p) {
    auto c = static_cast<unsigned char>(*p);
    if (c >= 0x20 && c != '"' && c != '\\' && c < 0x80) continue;
    if (c >= 0x80) {
      out.resize(before);
      return false;
    }
    out.append(run, p);
    run = p + 1;
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        out += "\\u00";
        out += kHexDigits[c >> 4];
        out += kHexDigits[c & 0x0F];
    }
  }
  out.append(run, end);
  out += '"';
  return true;
}

template <typename Integer>
void appendInteger(std::string& out, Integer number) {
  char buffer[24];
  auto result = std::to_chars(buffer, buffer + sizeof buffer, number);
  out.append(buffer, result.ptr);
}

}  // namespace

void appendJsonString(std::string& out, const std::string& text) {
  if (!appendAsciiString(out, text)) out += nlohmann::json(text).dump();
}

void appendJsonMember(std::string& out, const char* before, const std::string& text) {
  out += before;
  appendJsonString(out, text);
}

void appendCompactJson(std::string& out, const nlohmann::json& value) {
  switch (value.type()) {
    case nlohmann::json::value_t::object: {
      out += '{';
      bool first = true;
      for (const auto& [key, item] : value.items()) {
        if (!first) out += ',';
        first = false;
        appendJsonString(out, key);
        out += ':';
        appendCompactJson(out, item);
      }
      out += '}';
      return;
    }
    case nlohmann::json::value_t::array: {
      out += '[';
      bool first = true;
      for (const auto& item : value) {
        if (!first) out += ',';
        first = false;
        appendCompactJson(out, item);
      }
      out += ']';
      return;
    }
    case nlohmann::json::value_t::string: appendJsonString(out, value.get_ref<const std::string&>()); return;
    case nlohmann::json::value_t::boolean: out += value.get<bool>() ? "true" : "false"; return;
    case nlohmann::json::value_t::null: out += "null"; return;
    case nlohmann::json::value_t::number_integer: appendInteger(out, value.get<std::int64_t>()); return;
    case nlohmann::json::value_t::number_unsigned: appendInteger(out, value.get<std::uint64_t>()); return;
    case nlohmann::json::value_t::number_float:
    case nlohmann::json::value_t::binary:
    case nlohmann::json::value_t::discarded: out += value.dump(); return;
  }
}

std::string compactJson(const nlohmann::json& value) {
  std::string out;
  appendCompactJson(out, value);
  return out;
}

}  // namespace inmanta::util
