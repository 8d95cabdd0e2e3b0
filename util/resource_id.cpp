#include "util/resource_id.h"

#include <charconv>

namespace inmanta::util {

std::string versionedId(std::string_view rid, long long version) {
  std::string out(rid);
  out += ",v=";
  out += std::to_string(version);
  return out;
}

std::string ResourceIdParts::id() const { return type + "[" + agent + "," + attribute + "=" + value + "]"; }

namespace {

// Python's `[\w-]` on text: ASCII letters, digits, `_` and `-`, and (as an approximation of
// Unicode word characters) every byte of a multi-byte UTF-8 sequence.
bool isWordOrDash(char c) {
  auto u = static_cast<unsigned char>(c);
  return (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9') || u == '_' || u == '-' ||
         u >= 0x80;
}

// `segment(::segment)+`
bool isResourceType(std::string_view type) {
  size_t segments = 0;
  size_t pos = 0;
  while (true) {
    size_t end = type.find("::", pos);
    std::string_view segment = type.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos);
    if (segment.empty()) return false;
    for (char c : segment)
      if (!isWordOrDash(c)) return false;
    ++segments;
    if (end == std::string_view::npos) break;
    pos = end + 2;
  }
  return segments >= 2;
}

}  // namespace

std::optional<ResourceIdParts> parseResourceId(std::string_view text) {
  size_t open = text.find('[');
  if (open == std::string_view::npos || !isResourceType(text.substr(0, open))) return std::nullopt;
  // agent: up to the first `,`; attribute: up to the first `=`; value: up to the first `]`
  size_t comma = text.find(',', open + 1);
  if (comma == std::string_view::npos || comma == open + 1) return std::nullopt;
  size_t equals = text.find('=', comma + 1);
  if (equals == std::string_view::npos || equals == comma + 1) return std::nullopt;
  size_t close = text.find(']', equals + 1);
  if (close == std::string_view::npos || close == equals + 1) return std::nullopt;
  ResourceIdParts parts;
  parts.type = text.substr(0, open);
  parts.agent = text.substr(open + 1, comma - open - 1);
  parts.attribute = text.substr(comma + 1, equals - comma - 1);
  parts.value = text.substr(equals + 1, close - equals - 1);
  std::string_view rest = text.substr(close + 1);
  if (rest.empty()) return parts;
  if (!rest.starts_with(",v=") || rest.size() == 3) return std::nullopt;
  std::string_view digits = rest.substr(3);
  long long version = 0;
  for (char c : digits)
    if (c < '0' || c > '9') return std::nullopt;
  auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), version);
  if (error != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  parts.version = version;
  return parts;
}

std::optional<std::string> stripVersion(std::string_view text) {
  auto parts = parseResourceId(text);
  if (!parts) return std::nullopt;
  return parts->id();
}

}  // namespace inmanta::util
