#include "exec/format.h"

#include <cmath>
#include <cstdio>

#include "parse/strings.h"

namespace inmanta::compiler::exec {

using runtime::Value;

std::string renderInterpolated(const Value& v) {
  if (v.isFloat() && std::isfinite(v.asFloat()) && v.asFloat() == std::floor(v.asFloat()) &&
      std::fabs(v.asFloat()) < 9.2e18)
    return std::to_string(static_cast<int64_t>(v.asFloat()));
  return runtime::str(v);
}

namespace {

struct Spec {
  char fill = ' ';
  std::string fillUtf8 = " ";
  char align = 0;  // < > ^ =
  char sign = 0;   // + - space
  bool alternate = false;
  bool zero = false;
  int width = -1;
  char grouping = 0;  // , _
  int precision = -1;
  char type = 0;
};

bool parseSpec(const std::string& s, Spec& spec, std::string& error) {
  size_t i = 0;
  auto isAlign = [](char c) { return c == '<' || c == '>' || c == '^' || c == '='; };
  // fill may be any (UTF-8) character followed by an align character
  size_t firstLen = 1;
  if (!s.empty()) {
    unsigned char c = static_cast<unsigned char>(s[0]);
    firstLen = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : 4;
  }
  if (s.size() > firstLen && isAlign(s[firstLen])) {
    spec.fillUtf8 = s.substr(0, firstLen);
    spec.align = s[firstLen];
    i = firstLen + 1;
  } else if (!s.empty() && isAlign(s[0])) {
    spec.align = s[0];
    i = 1;
  }
  if (i < s.size() && (s[i] == '+' || s[i] == '-' || s[i] == ' ')) spec.sign = s[i++];
  if (i < s.size() && s[i] == 'z') ++i;
  if (i < s.size() && s[i] == '#') {
    spec.alternate = true;
    ++i;
  }
  if (i < s.size() && s[i] == '0') {
    spec.zero = true;
    ++i;
  }
  size_t start = i;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
  if (i > start) spec.width = std::stoi(s.substr(start, i - start));
  if (i < s.size() && (s[i] == ',' || s[i] == '_')) spec.grouping = s[i++];
  if (i < s.size() && s[i] == '.') {
    ++i;
    start = i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
    if (i == start) {
      error = "Format specifier missing precision";
      return false;
    }
    spec.precision = std::stoi(s.substr(start, i - start));
  }
  if (i < s.size()) spec.type = s[i++];
  if (i != s.size()) {
    error = "Invalid format specifier";
    return false;
  }
  return true;
}

size_t displayLength(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s)
    if ((c & 0xC0) != 0x80) ++n;
  return n;
}

std::string pad(const std::string& body, const Spec& spec, char defaultAlign, const std::string& signPart = "") {
  size_t length = displayLength(body) + signPart.size();
  if (spec.width < 0 || length >= static_cast<size_t>(spec.width)) return signPart + body;
  size_t missing = static_cast<size_t>(spec.width) - length;
  char align = spec.align ? spec.align : defaultAlign;
  std::string fill = spec.fillUtf8;
  if (spec.zero && !spec.align) {
    align = '=';
    fill = "0";
  }
  auto repeat = [&](size_t n) {
    std::string out;
    for (size_t k = 0; k < n; ++k) out += fill;
    return out;
  };
  switch (align) {
    case '<': return signPart + body + repeat(missing);
    case '^': return repeat(missing / 2) + signPart + body + repeat(missing - missing / 2);
    case '=': return signPart + repeat(missing) + body;
    default: return repeat(missing) + signPart + body;
  }
}

std::string group(const std::string& digits, char sep, int every = 3) {
  std::string out;
  int count = 0;
  for (auto it = digits.rbegin(); it != digits.rend(); ++it) {
    if (count > 0 && count % every == 0) out.insert(out.begin(), sep);
    out.insert(out.begin(), *it);
    ++count;
  }
  return out;
}

std::string signOf(bool negative, char sign) {
  if (negative) return "-";
  if (sign == '+') return "+";
  if (sign == ' ') return " ";
  return "";
}

std::string formatInteger(int64_t v, const Spec& spec) {
  bool negative = v < 0;
  uint64_t mag = negative ? static_cast<uint64_t>(-(v + 1)) + 1 : static_cast<uint64_t>(v);
  std::string digits;
  std::string prefix;
  char type = spec.type ? spec.type : 'd';
  if (type == 'c') return pad(std::string(1, static_cast<char>(v)), spec, '<');
  int base = type == 'x' || type == 'X' ? 16 : type == 'o' ? 8 : type == 'b' ? 2 : 10;
  if (mag == 0) digits = "0";
  while (mag > 0) {
    int d = static_cast<int>(mag % static_cast<uint64_t>(base));
    digits.insert(digits.begin(), static_cast<char>(d < 10 ? '0' + d : (type == 'X' ? 'A' : 'a') + d - 10));
    mag /= static_cast<uint64_t>(base);
  }
  if (spec.alternate && base != 10) prefix = type == 'x' ? "0x" : type == 'X' ? "0X" : type == 'o' ? "0o" : "0b";
  if (spec.grouping) digits = group(digits, spec.grouping, base == 10 ? 3 : 4);
  return pad(digits, spec, '>', signOf(negative, spec.sign) + prefix);
}

std::string formatDouble(double d, const Spec& spec) {
  char type = spec.type;
  bool negative = std::signbit(d) && !std::isnan(d);
  double mag = std::fabs(d);
  std::string body;
  if (std::isnan(d) || std::isinf(d)) {
    body = std::isnan(d) ? "nan" : "inf";
    if (type == 'E' || type == 'F' || type == 'G') body = std::isnan(d) ? "NAN" : "INF";
    if (type == '%') body += "%";
    return pad(body, spec, '>', signOf(negative, spec.sign));
  }
  char buf[512];
  int precision = spec.precision < 0 ? 6 : spec.precision;
  switch (type) {
    case 'f': case 'F':
      std::snprintf(buf, sizeof buf, spec.alternate ? "%#.*f" : "%.*f", precision, mag);
      body = buf;
      break;
    case 'e': case 'E':
      std::snprintf(buf, sizeof buf, type == 'e' ? "%.*e" : "%.*E", precision, mag);
      body = buf;
      break;
    case '%':
      std::snprintf(buf, sizeof buf, "%.*f", precision, mag * 100);
      body = std::string(buf) + "%";
      break;
    case 'g': case 'G': case 'n': {
      int p = spec.precision < 0 ? 6 : (spec.precision == 0 ? 1 : spec.precision);
      std::snprintf(buf, sizeof buf, spec.alternate ? "%#.*g" : (type == 'G' ? "%.*G" : "%.*g"), p, mag);
      body = buf;
      break;
    }
    default: {  // no type: repr, or `g` that keeps a decimal digit when precision is given
      if (spec.precision < 0) {
        body = runtime::formatFloat(mag);
      } else {
        int p = spec.precision == 0 ? 1 : spec.precision;
        std::snprintf(buf, sizeof buf, "%.*g", p, mag);
        body = buf;
        if (body.find_first_of(".e") == std::string::npos && body != "inf") body += ".0";
      }
      break;
    }
  }
  if (spec.grouping) {
    size_t end = body.find_first_of(".eE%");
    std::string intPart = body.substr(0, end);
    body = group(intPart, spec.grouping) + (end == std::string::npos ? "" : body.substr(end));
  }
  return pad(body, spec, '>', signOf(negative, spec.sign));
}

std::string typeName(const Value& v) { return runtime::pythonTypeName(v); }

}  // namespace

std::optional<std::string> formatValue(const Value& v, const std::string& specText, std::string& error) {
  if (specText.empty()) return runtime::str(v);
  Spec spec;
  if (!parseSpec(specText, spec, error)) {
    // Python 3.12's wording (the reference's interpreter) names the specifier and the type
    if (error == "Invalid format specifier")
      error += " '" + specText + "' for object of type '" + typeName(v) + "'";
    return std::nullopt;
  }
  auto unknownCode = [&](const Value& x) {
    error = std::string("Unknown format code '") + spec.type + "' for object of type '" + typeName(x) + "'";
    return std::nullopt;
  };
  if (v.isBool() || v.isInt()) {
    int64_t i = v.toInt();
    switch (spec.type) {
      case 0: case 'd': case 'b': case 'o': case 'x': case 'X': case 'c': case 'n': return formatInteger(i, spec);
      case 'e': case 'E': case 'f': case 'F': case 'g': case 'G': case '%': return formatDouble(static_cast<double>(i), spec);
      default: return unknownCode(v);
    }
  }
  if (v.isFloat()) {
    switch (spec.type) {
      case 0: case 'e': case 'E': case 'f': case 'F': case 'g': case 'G': case 'n': case '%':
        return formatDouble(v.asFloat(), spec);
      default: return unknownCode(v);
    }
  }
  if (v.isString() || v.isNull() || v.isList() || v.isDict() || v.isInstance()) {
    // lists, dicts, instances and null format through their str()
    std::string s = runtime::str(v);
    if (!v.isString() && !v.isNull()) {
      error = "unsupported format string passed to " + typeName(v) + ".__format__";
      return std::nullopt;
    }
    if (spec.type != 0 && spec.type != 's') return unknownCode(v);
    if (spec.sign) {
      error = "Sign not allowed in string format specifier";
      return std::nullopt;
    }
    if (spec.precision >= 0) {
      size_t count = 0, cut = 0;
      while (cut < s.size() && count < static_cast<size_t>(spec.precision)) {
        unsigned char c = static_cast<unsigned char>(s[cut]);
        cut += c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : 4;
        ++count;
      }
      s = s.substr(0, cut);
    }
    return pad(s, spec, '<');
  }
  return runtime::str(v);
}

std::optional<std::string> formatPython(const std::string& format,
                                        const std::vector<std::pair<std::string, Value>>& fields,
                                        std::string& error) {
  std::vector<FormatChunk> chunks;
  if (auto err = parseFormatString(format, chunks)) {
    error = "Invalid f-string: " + *err;
    return std::nullopt;
  }
  auto lookup = [&](const std::string& name, const Value*& out) {
    for (const auto& [k, v] : fields)
      if (k == name) {
        out = &v;
        return true;
      }
    return false;
  };
  std::string out;
  for (const FormatChunk& chunk : chunks) {
    out += chunk.literal;
    if (!chunk.hasField) continue;
    if (chunk.fieldName.empty()) {
      error = "f-strings do not support positional substitutions via '{}', use variable or attribute keys instead";
      return std::nullopt;
    }
    const Value* value = nullptr;
    if (!lookup(chunk.fieldName, value)) {
      error = "Invalid key in f-string: '" + runtime::pyReprString(chunk.fieldName) + "'";
      return std::nullopt;
    }
    Value v = *value;
    if (v.isFloat() && std::isfinite(v.asFloat()) && v.asFloat() == std::floor(v.asFloat()) &&
        std::fabs(v.asFloat()) < 9.2e18)
      v = Value(static_cast<int64_t>(v.asFloat()));
    // nested fields inside the spec are substituted first
    std::string spec = chunk.formatSpec;
    if (spec.find('{') != std::string::npos) {
      auto nested = formatPython(spec, fields, error);
      if (!nested) return std::nullopt;
      spec = *nested;
    }
    Value shown = v;
    if (chunk.conversion == U'r' || chunk.conversion == U'a') shown = Value(runtime::repr(v));
    else if (chunk.conversion == U's') shown = Value(runtime::str(v));
    else if (chunk.conversion != 0) {
      std::string c;
      appendUtf8(c, static_cast<uint32_t>(chunk.conversion));
      error = "Invalid f-string: Unknown conversion specifier " + c;
      return std::nullopt;
    }
    std::string formatError;
    auto rendered = formatValue(shown, spec, formatError);
    if (!rendered) {
      error = "Invalid f-string: " + formatError;
      return std::nullopt;
    }
    out += *rendered;
  }
  return out;
}

}  // namespace inmanta::compiler::exec
