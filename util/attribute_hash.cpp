#include "util/attribute_hash.h"

#include "util/digest.h"

#include <charconv>
#include <cmath>
#include <memory>
#include <stdexcept>

namespace inmanta::util {

namespace {

constexpr char kHexDigits[] = "0123456789abcdef";

// Python's float.__repr__: the shortest digits that read back as the same double (std::to_chars
// gives exactly those), fixed notation when the decimal exponent is in [-4, 16), else scientific
// with a signed, at least two-digit exponent.
void appendPythonFloat(std::string& out, double d) {
  if (std::isnan(d)) {
    out += "NaN";
    return;
  }
  if (std::isinf(d)) {
    out += d < 0 ? "-Infinity" : "Infinity";
    return;
  }
  char buffer[64];
  auto result = std::to_chars(buffer, buffer + sizeof buffer, d, std::chars_format::scientific);
  std::string_view sci(buffer, static_cast<size_t>(result.ptr - buffer));  // `-1.2345e+15`
  bool negative = sci.front() == '-';
  if (negative) sci.remove_prefix(1);
  size_t e = sci.find('e');
  std::string digits;
  for (char c : sci.substr(0, e))
    if (c != '.') digits += c;
  int exponent = 0;
  std::string_view exponentText = sci.substr(e + 1);
  if (exponentText.front() == '+') exponentText.remove_prefix(1);
  std::from_chars(exponentText.data(), exponentText.data() + exponentText.size(), exponent);
  if (negative) out += '-';
  int count = static_cast<int>(digits.size());
  if (exponent >= -4 && exponent < 16) {
    if (exponent < 0) {
      out += "0.";
      out.append(static_cast<size_t>(-exponent - 1), '0');
      out += digits;
    } else if (exponent + 1 >= count) {
      out += digits;
      out.append(static_cast<size_t>(exponent + 1 - count), '0');
      out += ".0";
    } else {
      out += digits.substr(0, static_cast<size_t>(exponent) + 1);
      out += '.';
      out += digits.substr(static_cast<size_t>(exponent) + 1);
    }
    return;
  }
  out += digits[0];
  if (count > 1) {
    out += '.';
    out += digits.substr(1);
  }
  out += exponent < 0 ? "e-" : "e+";
  int magnitude = std::abs(exponent);
  if (magnitude < 10) out += '0';
  out += std::to_string(magnitude);
}

void appendEscape(std::string& out, unsigned code) {
  out += "\\u";
  for (int shift = 12; shift >= 0; shift -= 4) out += kHexDigits[(code >> shift) & 0x0Fu];
}

// Python's ensure_ascii string: `"` `\` and \b \f \n \r \t by short escapes, everything outside
// printable ASCII as \uXXXX. nlohmann only holds valid UTF-8, so the decoding need not check.
void appendPythonString(std::string& out, const std::string& text) {
  out += '"';
  for (size_t i = 0; i < text.size();) {
    // printable ASCII other than `"` and `\` is written as is: append such a run in one go (the
    // hash of every resource of a 10,000-resource version goes through here)
    size_t plain = i;
    while (plain < text.size() && text[plain] >= 0x20 && text[plain] < 0x7F && text[plain] != '"' &&
           text[plain] != '\\')
      ++plain;
    if (plain > i) {
      out.append(text, i, plain - i);
      i = plain;
      continue;
    }
    auto byte = static_cast<unsigned char>(text[i]);
    unsigned code = byte;
    size_t length = 1;
    if (byte >= 0xF0) {
      code = byte & 0x07u;
      length = 4;
    } else if (byte >= 0xE0) {
      code = byte & 0x0Fu;
      length = 3;
    } else if (byte >= 0xC0) {
      code = byte & 0x1Fu;
      length = 2;
    }
    for (size_t k = 1; k < length && i + k < text.size(); ++k)
      code = (code << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3Fu);
    i += length;
    switch (code) {
      case '"': out += "\\\""; continue;
      case '\\': out += "\\\\"; continue;
      case '\b': out += "\\b"; continue;
      case '\f': out += "\\f"; continue;
      case '\n': out += "\\n"; continue;
      case '\r': out += "\\r"; continue;
      case '\t': out += "\\t"; continue;
      default: break;
    }
    if (code >= 0x20 && code < 0x7F) {
      out += static_cast<char>(code);
    } else if (code > 0xFFFF) {
      code -= 0x10000;
      appendEscape(out, 0xD800 | (code >> 10));
      appendEscape(out, 0xDC00 | (code & 0x3FF));
    } else {
      appendEscape(out, code);
    }
  }
  out += '"';
}

// How json.dumps lays out containers: on one line with `", "` (indent < 0), or one element per line
// indented by `indent` spaces per level with `","` at line ends (Python's indent=N).
struct Layout {
  int indent = -1;
  int depth = 0;
  Layout inner() const { return {indent, depth + 1}; }
};

void appendPythonJson(std::string& out, const nlohmann::json& value, Layout layout);

// Before an element of a container (`first`: the first one).
void appendSeparator(std::string& out, bool first, Layout layout) {
  if (layout.indent < 0) {
    if (!first) out += ", ";
    return;
  }
  if (!first) out += ',';
  out += '\n';
  out.append(static_cast<size_t>(layout.indent) * (static_cast<size_t>(layout.depth) + 1), ' ');
}

// After the last element of a non-empty container.
void appendClosingLine(std::string& out, Layout layout) {
  if (layout.indent < 0) return;
  out += '\n';
  out.append(static_cast<size_t>(layout.indent) * static_cast<size_t>(layout.depth), ' ');
}

bool isIdentityKey(const std::string& key) {
  return key == "id" || key == "requires" || key == "provides" || key == "version";
}

// nlohmann keeps keys in a std::map: byte order of UTF-8 is code point order, as Python sorts.
// `skipIdentity` leaves out the keys the attribute hash ignores (without copying the object).
void appendPythonObject(std::string& out, const nlohmann::json& object, bool skipIdentity, Layout layout) {
  out += '{';
  bool first = true;
  for (const auto& [key, element] : object.items()) {
    if (skipIdentity && isIdentityKey(key)) continue;
    appendSeparator(out, first, layout);
    first = false;
    appendPythonString(out, key);
    out += ": ";
    appendPythonJson(out, element, layout.inner());
  }
  if (!first) appendClosingLine(out, layout);
  out += '}';
}

void appendPythonJson(std::string& out, const nlohmann::json& value, Layout layout) {
  switch (value.type()) {
    case nlohmann::json::value_t::null: out += "null"; break;
    case nlohmann::json::value_t::boolean: out += value.get<bool>() ? "true" : "false"; break;
    case nlohmann::json::value_t::number_integer: out += std::to_string(value.get<long long>()); break;
    case nlohmann::json::value_t::number_unsigned: out += std::to_string(value.get<unsigned long long>()); break;
    case nlohmann::json::value_t::number_float: appendPythonFloat(out, value.get<double>()); break;
    case nlohmann::json::value_t::string: appendPythonString(out, value.get_ref<const std::string&>()); break;
    case nlohmann::json::value_t::array: {
      out += '[';
      bool first = true;
      for (const auto& element : value) {
        appendSeparator(out, first, layout);
        first = false;
        appendPythonJson(out, element, layout.inner());
      }
      if (!first) appendClosingLine(out, layout);
      out += ']';
      break;
    }
    case nlohmann::json::value_t::object: appendPythonObject(out, value, false, layout); break;
    case nlohmann::json::value_t::binary:
    case nlohmann::json::value_t::discarded: out += "null"; break;
  }
}

}  // namespace

std::string pythonJsonDumps(const nlohmann::json& value, int indent) {
  std::string out;
  appendPythonJson(out, value, Layout{indent, 0});
  return out;
}

std::string attributeHash(std::string_view rid, const nlohmann::json& attributes) {
  if (!attributes.is_object()) throw std::invalid_argument("the attributes of a resource must be a JSON object");
  std::string text;
  text.reserve(512);
  appendPythonObject(text, attributes, true, Layout{});
  return digestHex(DigestAlgorithm::Md5, {rid, text});
}

}  // namespace inmanta::util
