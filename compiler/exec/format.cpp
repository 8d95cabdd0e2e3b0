#include "compiler/exec/format.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "compiler/parse/strings.h"

namespace inmanta::compiler::exec {

using runtime::Value;

namespace {

// The reference interpolates a float that is a whole number as Python's int() of it, which has
// all its digits however large: the exact decimal digits of a double's magnitude.
bool integral(const Value& v) {
  return v.isFloat() && std::isfinite(v.asFloat()) && v.asFloat() == std::floor(v.asFloat());
}
bool fitsInt(double d) { return std::fabs(d) < 9.2e18; }
std::string wholeDigits(double d) {
  char buf[400];
  std::snprintf(buf, sizeof buf, "%.0f", std::fabs(d));
  return buf;
}

}  // namespace

std::string renderInterpolated(const Value& v) {
  if (integral(v)) {
    double d = v.asFloat();
    if (fitsInt(d)) return std::to_string(static_cast<int64_t>(d));
    return (d < 0 ? "-" : "") + wholeDigits(d);
  }
  return runtime::str(v);
}

namespace {

struct Spec {
  std::string fillUtf8 = " ";
  char align = 0;  // < > ^ = (the value's default when none is written)
  bool alignWritten = false;
  char sign = 0;                // + - space
  bool noNegativeZero = false;  // z
  bool alternate = false;
  int width = -1;
  char grouping = 0;         // , _
  bool groupByFour = false;  // `_` with b o x X
  int precision = -1;
  char type = 0;
};

// CPython's parse of a format specification (parse_internal_render_format_spec), with the
// value's default type and alignment ('s' and '<' for strings, 'd' and '>' for ints, none and
// '>' for floats): the same errors, in the same order.
bool parseSpec(const std::string& s, Spec& spec, std::string& error, char defaultType, char defaultAlign) {
  size_t i = 0;
  auto isAlign = [](char c) { return c == '<' || c == '>' || c == '^' || c == '='; };
  spec.align = defaultAlign;
  spec.type = defaultType;
  bool fillWritten = false;
  // fill may be any (UTF-8) character followed by an align character
  size_t firstLen = 1;
  if (!s.empty()) {
    unsigned char c = static_cast<unsigned char>(s[0]);
    firstLen = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : 4;
  }
  if (s.size() > firstLen && isAlign(s[firstLen])) {
    spec.fillUtf8 = s.substr(0, firstLen);
    spec.align = s[firstLen];
    fillWritten = spec.alignWritten = true;
    i = firstLen + 1;
  } else if (!s.empty() && isAlign(s[0])) {
    spec.align = s[0];
    spec.alignWritten = true;
    i = 1;
  }
  if (i < s.size() && (s[i] == '+' || s[i] == '-' || s[i] == ' ')) spec.sign = s[i++];
  if (i < s.size() && s[i] == 'z') {
    spec.noNegativeZero = true;
    ++i;
  }
  if (i < s.size() && s[i] == '#') {
    spec.alternate = true;
    ++i;
  }
  if (!fillWritten && i < s.size() && s[i] == '0') {
    spec.fillUtf8 = "0";
    if (!spec.alignWritten && defaultAlign == '>') spec.align = '=';
    ++i;
  }
  size_t start = i;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
  if (i > start) {
    if (i - start > 9) {
      error = "Too many decimal digits in format string";
      return false;
    }
    spec.width = std::stoi(s.substr(start, i - start));
  }
  if (i < s.size() && s[i] == ',') spec.grouping = s[i++];
  if (i < s.size() && s[i] == '_') {
    if (spec.grouping != 0) {
      error = "Cannot specify both ',' and '_'.";
      return false;
    }
    spec.grouping = s[i++];
  }
  if (i < s.size() && s[i] == ',' && spec.grouping == '_') {
    error = "Cannot specify both ',' and '_'.";
    return false;
  }
  if (i < s.size() && s[i] == '.') {
    ++i;
    start = i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
    if (i == start) {
      error = "Format specifier missing precision";
      return false;
    }
    if (i - start > 9) {
      error = "Too many decimal digits in format string";
      return false;
    }
    spec.precision = std::stoi(s.substr(start, i - start));
  }
  if (s.size() - i > 1) {
    error = "Invalid format specifier";
    return false;
  }
  if (i < s.size()) spec.type = s[i];
  if (spec.grouping != 0) {
    switch (spec.type) {
      case 'd':
      case 'e':
      case 'f':
      case 'g':
      case 'E':
      case 'G':
      case '%':
      case 'F':
      case 0: break;
      case 'b':
      case 'o':
      case 'x':
      case 'X':
        if (spec.grouping == '_') {
          spec.groupByFour = true;
          break;
        }
        [[fallthrough]];
      default: {
        unsigned char t = static_cast<unsigned char>(spec.type);
        char hex[8];
        std::snprintf(hex, sizeof hex, "\\x%x", t);
        error = std::string("Cannot specify '") + spec.grouping + "' with '" +
                (t > 32 && t < 128 ? std::string(1, spec.type) : std::string(hex)) + "'.";
        return false;
      }
    }
  }
  return true;
}

size_t displayLength(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s)
    if ((c & 0xC0) != 0x80) ++n;
  return n;
}

std::string pad(const std::string& body, const Spec& spec, const std::string& signPart = "") {
  size_t length = displayLength(body) + signPart.size();
  if (spec.width < 0 || length >= static_cast<size_t>(spec.width)) return signPart + body;
  size_t missing = static_cast<size_t>(spec.width) - length;
  auto repeat = [&](size_t n) {
    std::string out;
    for (size_t k = 0; k < n; ++k) out += spec.fillUtf8;
    return out;
  };
  switch (spec.align) {
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

// `digits` (decimal, no sign) in another base, by long division: whole numbers past 64 bits.
std::string rebase(std::string digits, int base, bool upper) {
  std::string out;
  while (!(digits.size() == 1 && digits[0] == '0')) {
    std::string quotient;
    int remainder = 0;
    for (char c : digits) {
      remainder = remainder * 10 + (c - '0');
      if (!quotient.empty() || remainder / base != 0) quotient += static_cast<char>('0' + remainder / base);
      remainder %= base;
    }
    out.insert(out.begin(), static_cast<char>(remainder < 10 ? '0' + remainder : (upper ? 'A' : 'a') + remainder - 10));
    digits = quotient.empty() ? "0" : quotient;
  }
  return out.empty() ? "0" : out;
}

// A whole number given by its sign and decimal digits (an int, or a float's whole value).
std::optional<std::string> formatInteger(bool negative, const std::string& decimal, const Spec& spec,
                                         std::string& error) {
  // CPython's format_long_internal checks
  if (spec.precision >= 0) {
    error = "Precision not allowed in integer format specifier";
    return std::nullopt;
  }
  if (spec.noNegativeZero) {
    error = "Negative zero coercion (z) not allowed in integer format specifier";
    return std::nullopt;
  }
  std::string prefix;
  char type = spec.type ? spec.type : 'd';
  if (type == 'c') {
    if (spec.sign) {
      error = "Sign not allowed with integer format specifier 'c'";
      return std::nullopt;
    }
    if (spec.alternate) {
      error = "Alternate form (#) not allowed with integer format specifier 'c'";
      return std::nullopt;
    }
    if (negative || decimal.size() > 7 || std::stol(decimal) > 0x10FFFF) {
      error = "%c arg not in range(0x110000)";
      return std::nullopt;
    }
    std::string c;
    appendUtf8(c, static_cast<uint32_t>(std::stol(decimal)));
    return pad(c, spec);
  }
  int base = type == 'x' || type == 'X' ? 16 : type == 'o' ? 8 : type == 'b' ? 2 : 10;
  std::string digits = base == 10 ? decimal : rebase(decimal, base, type == 'X');
  if (spec.alternate && base != 10) prefix = type == 'x' ? "0x" : type == 'X' ? "0X" : type == 'o' ? "0o" : "0b";
  if (spec.grouping) digits = group(digits, spec.grouping, spec.groupByFour ? 4 : 3);
  return pad(digits, spec, signOf(negative, spec.sign) + prefix);
}

std::optional<std::string> formatInteger(int64_t v, const Spec& spec, std::string& error) {
  bool negative = v < 0;
  uint64_t mag = negative ? static_cast<uint64_t>(-(v + 1)) + 1 : static_cast<uint64_t>(v);
  return formatInteger(negative, std::to_string(mag), spec, error);
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
    return pad(body, spec, signOf(negative, spec.sign));
  }
  char buf[512];
  int precision = spec.precision < 0 ? 6 : spec.precision;
  switch (type) {
    case 'f':
    case 'F':
      std::snprintf(buf, sizeof buf, spec.alternate ? "%#.*f" : "%.*f", precision, mag);
      body = buf;
      break;
    case 'e':
    case 'E':
      std::snprintf(buf, sizeof buf,
                    type == 'e' ? (spec.alternate ? "%#.*e" : "%.*e") : (spec.alternate ? "%#.*E" : "%.*E"), precision,
                    mag);
      body = buf;
      break;
    case '%':
      std::snprintf(buf, sizeof buf, spec.alternate ? "%#.*f" : "%.*f", precision, mag * 100);
      body = std::string(buf) + "%";
      break;
    case 'g':
    case 'G':
    case 'n': {
      int p = spec.precision < 0 ? 6 : (spec.precision == 0 ? 1 : spec.precision);
      std::snprintf(buf, sizeof buf,
                    spec.alternate ? (type == 'G' ? "%#.*G" : "%#.*g") : (type == 'G' ? "%.*G" : "%.*g"), p, mag);
      body = buf;
      break;
    }
    default: {  // no type: repr, or `g` that keeps a decimal digit when precision is given
      if (spec.precision < 0) {
        body = runtime::formatFloat(mag);
        break;
      }
      // as CPython's 'g' with Py_DTSF_ADD_DOT_0: the exponent form from one digit earlier
      int p = spec.precision == 0 ? 1 : spec.precision;
      std::snprintf(buf, sizeof buf, "%.*e", p - 1, mag);
      int exponent = std::atoi(std::strchr(buf, 'e') + 1);
      bool scientific = exponent < -4 || exponent >= p - 1;
      if (!scientific)
        std::snprintf(buf, sizeof buf, spec.alternate ? "%#.*f" : "%.*f", std::max(p - 1 - exponent, 0), mag);
      body = buf;
      if (!spec.alternate) {  // trailing zeros go, as with 'g'
        size_t e = body.find('e');
        std::string mantissa = body.substr(0, e);
        if (mantissa.find('.') != std::string::npos) {
          while (mantissa.back() == '0') mantissa.pop_back();
          if (mantissa.back() == '.') mantissa.pop_back();
        }
        body = mantissa + (e == std::string::npos ? "" : body.substr(e));
      }
      if (body.find_first_of(".e") == std::string::npos) body += ".0";
      break;
    }
  }
  // z: a negative number that rounds to zero loses its sign
  if (negative && spec.noNegativeZero) {
    size_t digitsEnd = body.find_first_of("eE");
    if (body.substr(0, digitsEnd).find_first_of("123456789") == std::string::npos) negative = false;
  }
  if (spec.grouping) {
    size_t end = body.find_first_of(".eE%");
    std::string intPart = body.substr(0, end);
    body = group(intPart, spec.grouping) + (end == std::string::npos ? "" : body.substr(end));
  }
  return pad(body, spec, signOf(negative, spec.sign));
}

std::string typeName(const Value& v) { return runtime::pythonTypeName(v); }

// Python's ascii(): the repr with every non-ASCII character escaped (\xhh, \uhhhh, \Uhhhhhhhh).
std::string asciiEscaped(const std::string& repr) {
  std::string out;
  for (size_t i = 0; i < repr.size();) {
    uint32_t cp = nextCodePoint(repr, i);
    if (cp < 0x80) {
      out += static_cast<char>(cp);
      continue;
    }
    char buf[16];
    std::snprintf(buf, sizeof buf, cp < 0x100 ? "\\x%02x" : cp < 0x10000 ? "\\u%04x" : "\\U%08x", cp);
    out += buf;
  }
  return out;
}

}  // namespace

std::optional<std::string> formatValue(const Value& v, const std::string& specText, std::string& error,
                                       bool wholeNumber) {
  if (specText.empty()) return wholeNumber ? renderInterpolated(v) : runtime::str(v);
  // a Python object formats itself (its __format__), as in the reference
  if (v.isOpaque()) return v.asOpaque().format(specText, error);
  // lists, dicts, instances and null (the reference's NoneValue) have object.__format__, which
  // refuses any spec (for null the reference crashes; spec 9.5: a located error instead)
  if (!v.isString() && !v.isBool() && !v.isInt() && !v.isFloat()) {
    error = "unsupported format string passed to " + (v.isNull() ? std::string("NoneValue") : typeName(v)) +
            ".__format__";
    return std::nullopt;
  }
  Spec spec;
  bool text = v.isString();
  if (!parseSpec(specText, spec, error, text ? 's' : v.isFloat() && !wholeNumber ? 0 : 'd', text ? '<' : '>')) {
    // Python 3.12's wording (the reference's interpreter) names the specifier and the type
    if (error == "Invalid format specifier")
      error += " '" + specText + "' for object of type '" + (wholeNumber ? std::string("int") : typeName(v)) + "'";
    return std::nullopt;
  }
  auto unknownCode = [&](const Value& x) {
    error = std::string("Unknown format code '") + spec.type + "' for object of type '" + typeName(x) + "'";
    return std::nullopt;
  };
  if (v.isBool() || v.isInt() || wholeNumber) {
    switch (spec.type) {
      case 'd':
      case 'b':
      case 'o':
      case 'x':
      case 'X':
      case 'c':
      case 'n':
        if (wholeNumber) return formatInteger(v.asFloat() < 0, wholeDigits(v.asFloat()), spec, error);
        return formatInteger(v.toInt(), spec, error);
      case 'e':
      case 'E':
      case 'f':
      case 'F':
      case 'g':
      case 'G':
      case '%': return formatDouble(wholeNumber ? v.asFloat() : static_cast<double>(v.toInt()), spec);
      default:
        if (wholeNumber) {
          error = std::string("Unknown format code '") + spec.type + "' for object of type 'int'";
          return std::nullopt;
        }
        return unknownCode(v);
    }
  }
  if (v.isFloat()) {
    switch (spec.type) {
      case 0:
      case 'e':
      case 'E':
      case 'f':
      case 'F':
      case 'g':
      case 'G':
      case 'n':
      case '%': return formatDouble(v.asFloat(), spec);
      default: return unknownCode(v);
    }
  }
  // a string: CPython's format_string_internal checks
  if (spec.type != 's') return unknownCode(v);
  if (spec.sign) {
    error = spec.sign == ' ' ? "Space not allowed in string format specifier"
                             : "Sign not allowed in string format specifier";
    return std::nullopt;
  }
  if (spec.noNegativeZero) {
    error = "Negative zero coercion (z) not allowed in string format specifier";
    return std::nullopt;
  }
  if (spec.alternate) {
    error = "Alternate form (#) not allowed in string format specifier";
    return std::nullopt;
  }
  if (spec.align == '=') {
    error = "'=' alignment not allowed in string format specifier";
    return std::nullopt;
  }
  std::string s = v.asString();
  if (spec.precision >= 0) {
    size_t count = 0, cut = 0;
    while (cut < s.size() && count < static_cast<size_t>(spec.precision)) {
      unsigned char c = static_cast<unsigned char>(s[cut]);
      cut += c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : 4;
      ++count;
    }
    s = s.substr(0, cut);
  }
  return pad(s, spec);
}

std::optional<std::string> formatPython(const std::string& format,
                                        const std::vector<std::pair<std::string, Value>>& fields, std::string& error) {
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
    // (a float that is a whole number is formatted as an int, however large: wholeNumber)
    Value v = *value;
    bool wholeNumber = integral(v);
    if (wholeNumber && fitsInt(v.asFloat())) {
      v = Value(static_cast<int64_t>(v.asFloat()));
      wholeNumber = false;
    }
    // nested fields inside the spec are substituted first
    std::string spec = chunk.formatSpec;
    if (spec.find('{') != std::string::npos) {
      auto nested = formatPython(spec, fields, error);
      if (!nested) return std::nullopt;
      spec = *nested;
    }
    Value shown = v;
    if (chunk.conversion == U'r') {
      shown = Value(wholeNumber ? renderInterpolated(v) : runtime::repr(v));
    } else if (chunk.conversion == U'a') {
      shown = Value(asciiEscaped(wholeNumber ? renderInterpolated(v) : runtime::repr(v)));
    } else if (chunk.conversion == U's') {
      shown = Value(wholeNumber ? renderInterpolated(v) : runtime::str(v));
    } else if (chunk.conversion != 0) {
      std::string c;
      appendUtf8(c, static_cast<uint32_t>(chunk.conversion));
      error = "Invalid f-string: Unknown conversion specifier " + c;
      return std::nullopt;
    }
    if (chunk.conversion != 0) wholeNumber = false;  // (a string now)
    std::string formatError;
    auto rendered = formatValue(shown, spec, formatError, wholeNumber);
    if (!rendered) {
      error = "Invalid f-string: " + formatError;
      return std::nullopt;
    }
    out += *rendered;
  }
  return out;
}

}  // namespace inmanta::compiler::exec
