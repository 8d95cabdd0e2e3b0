#include "compiler/runtime/value.h"

#include <unicode/uchar.h>

#include "compiler/source/source.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

namespace inmanta::compiler::runtime {

const Value* ValueDict::find(std::string_view key) const {
  for (const auto& [k, v] : items)
    if (k == key) return &v;
  return nullptr;
}

double Value::toDouble() const {
  switch (type()) {
    case Type::Bool: return asBool() ? 1.0 : 0.0;
    case Type::Int: return static_cast<double>(asInt());
    case Type::Float: return asFloat();
    case Type::Null:
    case Type::String:
    case Type::List:
    case Type::Dict:
    case Type::Opaque:
    case Type::Instance:
    case Type::Unknown: return 0.0;
  }
  __builtin_unreachable();  // (the switch above names every value)
}

int64_t Value::toInt() const {
  switch (type()) {
    case Type::Bool: return asBool() ? 1 : 0;
    case Type::Int: return asInt();
    case Type::Null:
    case Type::Float:
    case Type::String:
    case Type::List:
    case Type::Dict:
    case Type::Opaque:
    case Type::Instance:
    case Type::Unknown: return 0;
  }
  __builtin_unreachable();  // (the switch above names every value)
}

// ------------------------------------------------------------------ rendering

std::string formatFloat(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d < 0 ? "-inf" : "inf";
  if (d == 0.0) return std::signbit(d) ? "-0.0" : "0.0";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
  std::string sci(buf, res.ptr);
  // sci: [-]D[.DDD]e[+-]XX
  bool negative = sci[0] == '-';
  if (negative) sci.erase(0, 1);
  size_t e = sci.find('e');
  std::string mantissa = sci.substr(0, e);
  int exponent = std::stoi(sci.substr(e + 1));
  std::string digits;
  for (char c : mantissa)
    if (c != '.') digits += c;
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  int decpt = exponent + 1;  // position of the decimal point relative to the digits
  std::string out = negative ? "-" : "";
  if (decpt > -4 && decpt <= 16) {
    if (decpt <= 0) {
      out += "0." + std::string(static_cast<size_t>(-decpt), '0') + digits;
    } else if (static_cast<size_t>(decpt) >= digits.size()) {
      out += digits + std::string(static_cast<size_t>(decpt) - digits.size(), '0') + ".0";
    } else {
      out += digits.substr(0, static_cast<size_t>(decpt)) + "." + digits.substr(static_cast<size_t>(decpt));
    }
  } else {
    out += digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    int exp = decpt - 1;
    char ebuf[16];
    std::snprintf(ebuf, sizeof ebuf, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
    out += ebuf;
  }
  return out;
}

namespace {
// Python's str.isprintable for one code point: not in Cc, Cf, Cs, Co, Cn, Zl, Zp, Zs (but space).
bool pyPrintable(uint32_t cp) {
  if (cp == ' ') return true;
  switch (u_charType(static_cast<UChar32>(cp))) {
    case U_CONTROL_CHAR:
    case U_FORMAT_CHAR:
    case U_SURROGATE:
    case U_PRIVATE_USE_CHAR:
    case U_UNASSIGNED:
    case U_LINE_SEPARATOR:
    case U_PARAGRAPH_SEPARATOR:
    case U_SPACE_SEPARATOR: return false;
    default: return true;
  }
}
}  // namespace

std::string pyReprString(std::string_view s) {
  // the common case: printable ASCII without quotes or backslashes is quoted as it is
  bool plain = std::all_of(s.begin(), s.end(), [](char c) { return c >= 0x20 && c < 0x7f && c != '\'' && c != '\\'; });
  if (plain) {
    std::string out;
    out.reserve(s.size() + 2);
    out += '\'';
    out.append(s);
    out += '\'';
    return out;
  }
  char quote = '\'';
  if (s.find('\'') != std::string_view::npos && s.find('"') == std::string_view::npos) quote = '"';
  std::string out(1, quote);
  for (size_t i = 0; i < s.size();) {
    size_t start = i;
    uint32_t cp = nextCodePoint(s, i);
    if (cp == '\\') out += "\\\\";
    else if (cp == static_cast<uint32_t>(quote)) {
      out += '\\';
      out += quote;
    } else if (cp == '\n') out += "\\n";
    else if (cp == '\r') out += "\\r";
    else if (cp == '\t') out += "\\t";
    else if (cp < 0x80 && cp >= 0x20 && cp != 0x7f) out += static_cast<char>(cp);
    else if (cp >= 0x80 && pyPrintable(cp)) out.append(s.substr(start, i - start));
    else {
      char buf[16];
      if (cp < 0x100) std::snprintf(buf, sizeof buf, "\\x%02x", cp);
      else if (cp < 0x10000) std::snprintf(buf, sizeof buf, "\\u%04x", cp);
      else std::snprintf(buf, sizeof buf, "\\U%08x", cp);
      out += buf;
    }
  }
  out += quote;
  return out;
}

std::string repr(const Value& v) {
  switch (v.type()) {
    case Value::Type::String: return pyReprString(v.asString());
    case Value::Type::List: {
      std::string out = "[";
      bool first = true;
      for (const Value& e : v.asList()) {
        if (!first) out += ", ";
        first = false;
        out += repr(e);
      }
      return out + "]";
    }
    case Value::Type::Dict: {
      std::string out = "{";
      bool first = true;
      for (const auto& [k, e] : v.asDict().items) {
        if (!first) out += ", ";
        first = false;
        out += pyReprString(k) + ": " + repr(e);
      }
      return out + "}";
    }
    case Value::Type::Opaque: return v.asOpaque().repr();
    case Value::Type::Null:
    case Value::Type::Bool:
    case Value::Type::Int:
    case Value::Type::Float:
    case Value::Type::Instance:
    case Value::Type::Unknown: return str(v);
  }
  __builtin_unreachable();  // (the switch above names every value)
}

std::string str(const Value& v) {
  switch (v.type()) {
    case Value::Type::Null: return "null";
    case Value::Type::Bool: return v.asBool() ? "True" : "False";
    case Value::Type::Int: return std::to_string(v.asInt());
    case Value::Type::Float: return formatFloat(v.asFloat());
    case Value::Type::String: return v.asString();
    case Value::Type::List:
    case Value::Type::Dict: return repr(v);
    case Value::Type::Instance: return v.asInstance()->display();
    case Value::Type::Opaque: return v.asOpaque().str();
    case Value::Type::Unknown: return "unknown";
  }
  return {};
}

std::string printForm(const Value& v) {
  switch (v.type()) {
    case Value::Type::Null: return "None";
    case Value::Type::List:
    case Value::Type::Dict:
    case Value::Type::Opaque:  // (the reference's std::print gets a proxy of the object)
    case Value::Type::Instance: return "@" + repr(v);
    case Value::Type::Bool:
    case Value::Type::Int:
    case Value::Type::Float:
    case Value::Type::String:
    case Value::Type::Unknown: return str(v);
  }
  __builtin_unreachable();  // (the switch above names every value)
}

std::string pythonTypeName(const Value& v) {
  switch (v.type()) {
    case Value::Type::Null: return "NoneValue";
    case Value::Type::Bool: return "bool";
    case Value::Type::Int: return "int";
    case Value::Type::Float: return "float";
    case Value::Type::String: return "str";
    case Value::Type::List: return "list";
    case Value::Type::Dict: return "dict";
    case Value::Type::Instance: return "Instance";
    case Value::Type::Opaque: return v.asOpaque().typeName();
    case Value::Type::Unknown: return "Unknown";
  }
  return {};
}

// ------------------------------------------------------------------ equality

namespace {
// Exact comparison of an integer with a double, as Python does.
int compareIntDouble(int64_t i, double d) {
  long double li = static_cast<long double>(i);
  long double ld = static_cast<long double>(d);
  return li < ld ? -1 : li > ld ? 1 : 0;
}
}  // namespace

bool pyEquals(const Value& a, const Value& b) {
  // Python's == with the object's own __eq__ (against null too: the reference's NoneValue)
  if (a.isOpaque()) return a.asOpaque().equals(a, b);
  if (b.isOpaque()) return b.asOpaque().equals(a, b);
  if (a.isNumber() && b.isNumber()) {
    if (!a.isFloat() && !b.isFloat()) return a.toInt() == b.toInt();
    if (a.isFloat() && b.isFloat()) return a.asFloat() == b.asFloat();
    double d = a.isFloat() ? a.asFloat() : b.asFloat();
    int64_t i = a.isFloat() ? b.toInt() : a.toInt();
    if (std::isnan(d)) return false;
    return compareIntDouble(i, d) == 0;
  }
  if (a.type() != b.type()) return false;
  switch (a.type()) {
    case Value::Type::Null: return true;
    case Value::Type::String: return a.asString() == b.asString();
    case Value::Type::List: {
      const ValueList& x = a.asList();
      const ValueList& y = b.asList();
      if (x.size() != y.size()) return false;
      for (size_t i = 0; i < x.size(); ++i)
        if (!pyEquals(x[i], y[i])) return false;
      return true;
    }
    case Value::Type::Dict: {
      const ValueDict& x = a.asDict();
      const ValueDict& y = b.asDict();
      if (x.items.size() != y.items.size()) return false;
      for (const auto& [k, v] : x.items) {
        const Value* other = y.find(k);
        if (other == nullptr || !pyEquals(v, *other)) return false;
      }
      return true;
    }
    case Value::Type::Instance: return a.asInstance() == b.asInstance();
    case Value::Type::Unknown: return a.unknownId() == b.unknownId();  // the same one
    case Value::Type::Opaque:                                          // (above)
    case Value::Type::Bool:
    case Value::Type::Int:
    case Value::Type::Float: return false;
  }
  __builtin_unreachable();  // (the switch above names every value)
}

bool pyTruthy(const Value& v) {
  switch (v.type()) {
    case Value::Type::Null: return false;
    case Value::Type::Bool: return v.asBool();
    case Value::Type::Int: return v.asInt() != 0;
    case Value::Type::Float: return v.asFloat() != 0.0;
    case Value::Type::String: return !v.asString().empty();
    case Value::Type::List: return !v.asList().empty();
    case Value::Type::Dict: return !v.asDict().items.empty();
    case Value::Type::Instance: return true;
    case Value::Type::Opaque: return v.asOpaque().truthy();
    case Value::Type::Unknown: return false;
  }
  return false;
}

// ------------------------------------------------------------------ operators

namespace {
const char* opName(ArithOp op) {
  switch (op) {
    case ArithOp::Add: return "plus";
    case ArithOp::Sub: return "minus";
    case ArithOp::Mul: return "multiplication";
    case ArithOp::Div: return "division";
    case ArithOp::Mod: return "modulo";
    case ArithOp::Pow: return "exponentiation";
  }
  return "";
}

const char* opSymbol(ArithOp op) {
  switch (op) {
    case ArithOp::Add: return "+";
    case ArithOp::Sub: return "-";
    case ArithOp::Mul: return "*";
    case ArithOp::Div: return "/";
    case ArithOp::Mod: return "%";
    case ArithOp::Pow: return "**";
  }
  return "";
}

std::string operands(const Value& a, ArithOp op, const Value& b) {
  auto show = [](const Value& v) {
    std::string s = repr(v);
    return v.isNumber() && v.toDouble() < 0 ? "(" + s + ")" : s;
  };
  return show(a) + " " + opSymbol(op) + " " + show(b);
}

OpResult overflow(const Value& a, ArithOp op, const Value& b) {
  return OpResult::runtimeError("integer overflow: " + operands(a, op, b));
}

OpResult intPower(const Value& a, const Value& b) {
  int64_t base = a.toInt();
  int64_t exp = b.toInt();
  if (exp < 0) {
    if (base == 0) return OpResult::runtimeError("division by zero: " + operands(a, ArithOp::Pow, b));
    return OpResult::ok(std::pow(static_cast<double>(base), static_cast<double>(exp)));
  }
  int64_t result = 1;
  int64_t factor = base;
  while (exp > 0) {
    if (exp & 1) {
      if (__builtin_mul_overflow(result, factor, &result)) return overflow(a, ArithOp::Pow, b);
    }
    exp >>= 1;
    if (exp > 0 && __builtin_mul_overflow(factor, factor, &factor)) return overflow(a, ArithOp::Pow, b);
  }
  return OpResult::ok(result);
}

double pyFloatMod(double x, double y) {
  double mod = std::fmod(x, y);
  if (mod != 0.0) {
    if ((y < 0) != (mod < 0)) mod += y;
  } else {
    mod = std::copysign(0.0, y);
  }
  return mod;
}
}  // namespace

OpResult arithmetic(ArithOp op, const Value& a, const Value& b) {
  if (op == ArithOp::Add && a.isString()) {
    if (b.isString()) return OpResult::ok(a.asString() + b.asString());
    return OpResult::typingError("Can only concatenate str (not '" + pythonTypeName(b) + "' (" + repr(b) + ")) to str");
  }
  if (!a.isNumber() || !b.isNumber())
    return OpResult::typingError(std::string("Unsupported operand type(s) for ") + opName(op) + ": '" +
                                 pythonTypeName(a) + "' (" + repr(a) + ") and '" + pythonTypeName(b) + "' (" + repr(b) +
                                 ")");
  bool integers = !a.isFloat() && !b.isFloat();
  if (integers) {
    int64_t x = a.toInt();
    int64_t y = b.toInt();
    int64_t r = 0;
    switch (op) {
      case ArithOp::Add:
        if (__builtin_add_overflow(x, y, &r)) return overflow(a, op, b);
        return OpResult::ok(r);
      case ArithOp::Sub:
        if (__builtin_sub_overflow(x, y, &r)) return overflow(a, op, b);
        return OpResult::ok(r);
      case ArithOp::Mul:
        if (__builtin_mul_overflow(x, y, &r)) return overflow(a, op, b);
        return OpResult::ok(r);
      case ArithOp::Div:
        if (y == 0) return OpResult::runtimeError("division by zero: " + operands(a, op, b));
        return OpResult::ok(static_cast<double>(x) / static_cast<double>(y));
      case ArithOp::Mod: {
        if (y == 0) return OpResult::runtimeError("division by zero: " + operands(a, op, b));
        if (y == -1) return OpResult::ok(int64_t{0});
        r = x % y;
        if (r != 0 && ((r < 0) != (y < 0))) r += y;
        return OpResult::ok(r);
      }
      case ArithOp::Pow: return intPower(a, b);
    }
  }
  double x = a.toDouble();
  double y = b.toDouble();
  switch (op) {
    case ArithOp::Add: return OpResult::ok(x + y);
    case ArithOp::Sub: return OpResult::ok(x - y);
    case ArithOp::Mul: return OpResult::ok(x * y);
    case ArithOp::Div:
      if (y == 0.0) return OpResult::runtimeError("division by zero: " + operands(a, op, b));
      return OpResult::ok(x / y);
    case ArithOp::Mod:
      if (y == 0.0) return OpResult::runtimeError("division by zero: " + operands(a, op, b));
      return OpResult::ok(pyFloatMod(x, y));
    case ArithOp::Pow: {
      if (x == 0.0 && y < 0) return OpResult::runtimeError("division by zero: " + operands(a, op, b));
      if (x < 0 && std::isfinite(y) && y != std::floor(y))
        return OpResult::runtimeError("result of " + operands(a, op, b) + " is not a real number");
      double r = std::pow(x, y);
      if (std::isinf(r) && std::isfinite(x) && std::isfinite(y))
        return OpResult::runtimeError("numerical result out of range: " + operands(a, op, b));
      return OpResult::ok(r);
    }
  }
  return OpResult::ok(Value());
}

OpResult compare(CompareOp op, const Value& a, const Value& b) {
  if (!a.isNumber() || !b.isNumber()) return OpResult::typingError("Can only compare numbers.");
  int c;
  if (!a.isFloat() && !b.isFloat()) {
    c = a.toInt() < b.toInt() ? -1 : a.toInt() > b.toInt() ? 1 : 0;
  } else if (a.isFloat() && b.isFloat()) {
    double x = a.asFloat(), y = b.asFloat();
    if (std::isnan(x) || std::isnan(y)) return OpResult::ok(false);
    c = x < y ? -1 : x > y ? 1 : 0;
  } else if (a.isFloat()) {
    if (std::isnan(a.asFloat())) return OpResult::ok(false);
    c = -compareIntDouble(b.toInt(), a.asFloat());
  } else {
    if (std::isnan(b.asFloat())) return OpResult::ok(false);
    c = compareIntDouble(a.toInt(), b.asFloat());
  }
  switch (op) {
    case CompareOp::Lt: return OpResult::ok(c < 0);
    case CompareOp::Gt: return OpResult::ok(c > 0);
    case CompareOp::Le: return OpResult::ok(c <= 0);
    case CompareOp::Ge: return OpResult::ok(c >= 0);
  }
  return OpResult::ok(false);
}

OpResult contains(const Value& needle, const Value& haystack) {
  if (needle.isUnknown()) return OpResult::ok(Value::unknown());
  if (haystack.isDict()) {
    if (!needle.isString()) return OpResult::ok(false);  // decision 9.5: unhashable keys are simply absent
    return OpResult::ok(haystack.asDict().find(needle.asString()) != nullptr);
  }
  if (haystack.isList()) {
    bool sawUnknown = false;
    for (const Value& e : haystack.asList()) {
      if (e.isUnknown()) {
        sawUnknown = true;
        continue;
      }
      if (pyEquals(e, needle)) return OpResult::ok(true);
    }
    return OpResult::ok(sawUnknown ? Value::unknown() : Value(false));
  }
  if (haystack.isUnknown()) return OpResult::ok(Value::unknown());
  return OpResult::typingError("Operand two of 'in' can only be a list or dict (" + str(haystack) + ")");
}

// ------------------------------------------------------------------ casts

namespace {
// the ASCII white space int() and float() strip (C's isspace)
bool isPySpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

// As CPython before int() and float() parse a str: every Unicode decimal digit becomes its ASCII
// digit and every white space character a space; any other non-ASCII character becomes '?'
// (which no number has).
std::string asciiNumeric(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    auto cp = static_cast<UChar32>(nextCodePoint(s, i));
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (u_charType(cp) == U_DECIMAL_DIGIT_NUMBER) {
      out += static_cast<char>('0' + u_charDigitValue(cp));
    } else {
      UCharDirection d = u_charDirection(cp);
      bool space = d == U_WHITE_SPACE_NEUTRAL || d == U_BLOCK_SEPARATOR || d == U_SEGMENT_SEPARATOR ||
                   u_charType(cp) == U_SPACE_SEPARATOR;
      out += space ? ' ' : '?';
    }
  }
  return out;
}

std::string_view stripSpace(std::string_view s) {
  while (!s.empty() && isPySpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && isPySpace(s.back())) s.remove_suffix(1);
  return s;
}

// Removes single underscores between digits; false when underscores are misplaced.
bool removeUnderscores(std::string_view s, std::string& out) {
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '_') {
      bool digitBefore = i > 0 && std::isdigit(static_cast<unsigned char>(s[i - 1]));
      bool digitAfter = i + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1]));
      if (!digitBefore || !digitAfter) return false;
      continue;
    }
    out += s[i];
  }
  return true;
}
}  // namespace

std::optional<int64_t> parsePythonInt(std::string_view text) {
  std::string ascii = asciiNumeric(text);
  std::string_view s = stripSpace(ascii);
  std::string digits;
  bool negative = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s.empty() || !removeUnderscores(s, digits) || digits.empty()) return std::nullopt;
  for (char c : digits)
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
  if (negative) digits.insert(digits.begin(), '-');
  int64_t value;
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc() || ptr != digits.data() + digits.size()) return std::nullopt;
  return value;
}

std::optional<double> parsePythonFloat(std::string_view text) {
  std::string ascii = asciiNumeric(text);
  std::string_view s = stripSpace(ascii);
  std::string body(s);
  std::string lower;
  for (char c : body) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::string_view l = lower;
  bool negative = false;
  if (!l.empty() && (l[0] == '+' || l[0] == '-')) {
    negative = l[0] == '-';
    l.remove_prefix(1);
  }
  if (l == "inf" || l == "infinity") return negative ? -INFINITY : INFINITY;
  if (l == "nan") return std::nan("");
  std::string clean;
  if (!removeUnderscores(s, clean) || clean.empty()) return std::nullopt;
  // decimal digits, at most one point, optional exponent: nothing else
  size_t i = 0;
  if (clean[i] == '+' || clean[i] == '-') ++i;
  size_t digits = 0;
  while (i < clean.size() && std::isdigit(static_cast<unsigned char>(clean[i]))) ++i, ++digits;
  if (i < clean.size() && clean[i] == '.') {
    ++i;
    while (i < clean.size() && std::isdigit(static_cast<unsigned char>(clean[i]))) ++i, ++digits;
  }
  if (digits == 0) return std::nullopt;
  if (i < clean.size() && (clean[i] == 'e' || clean[i] == 'E')) {
    ++i;
    if (i < clean.size() && (clean[i] == '+' || clean[i] == '-')) ++i;
    size_t expDigits = 0;
    while (i < clean.size() && std::isdigit(static_cast<unsigned char>(clean[i]))) ++i, ++expDigits;
    if (expDigits == 0) return std::nullopt;
  }
  if (i != clean.size()) return std::nullopt;
  return std::strtod(clean.c_str(), nullptr);
}

std::optional<CastType> castTypeNamed(std::string_view name) {
  if (name == "string") return CastType::String;
  if (name == "int") return CastType::Int;
  if (name == "float") return CastType::Float;
  if (name == "bool") return CastType::Bool;
  if (name == "number") return CastType::Number;
  return std::nullopt;
}

void appendSpliced(ValueList& out, const Value& v) {
  if (v.isList()) out.insert(out.end(), v.asList().begin(), v.asList().end());
  else out.push_back(v);
}

OpResult cast(CastType to, const Value& v) {
  if (v.isUnknown()) return OpResult::ok(Value::unknown());
  const char* target = to == CastType::String  ? "string"
                       : to == CastType::Int   ? "int"
                       : to == CastType::Float ? "float"
                       : to == CastType::Bool  ? "bool"
                                               : "number";
  auto failed = [&] { return OpResult::runtimeError("Failed to cast '" + str(v) + "' to " + target); };
  switch (to) {
    case CastType::String:
      if (v.isBool()) return OpResult::ok(std::string(v.asBool() ? "true" : "false"));
      return OpResult::ok(str(v));
    case CastType::Bool: return OpResult::ok(pyTruthy(v));
    case CastType::Int:
      if (v.isInt()) return OpResult::ok(v);
      if (v.isBool()) return OpResult::ok(v.toInt());
      if (v.isFloat()) {
        double d = std::trunc(v.asFloat());
        if (!std::isfinite(d) || d < -9223372036854775808.0 || d >= 9223372036854775808.0) return failed();
        return OpResult::ok(static_cast<int64_t>(d));
      }
      if (v.isString()) {
        if (auto i = parsePythonInt(v.asString())) return OpResult::ok(*i);
      }
      return failed();
    case CastType::Float:
      if (v.isNumber()) return OpResult::ok(v.toDouble());
      if (v.isString()) {
        if (auto d = parsePythonFloat(v.asString())) return OpResult::ok(*d);
      }
      return failed();
    case CastType::Number:
      if (v.isInt() || v.isFloat()) return OpResult::ok(v);
      if (v.isBool()) return OpResult::ok(v.toInt());
      if (v.isString()) {
        if (auto d = parsePythonFloat(v.asString())) return OpResult::ok(*d);
      }
      return failed();
  }
  return failed();
}

}  // namespace inmanta::compiler::runtime
