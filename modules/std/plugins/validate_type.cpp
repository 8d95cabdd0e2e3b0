// std::validate_type (spec A.8) and the typedefs of A.1 built on it: the reference builds a
// pydantic 2 TypeAdapter for `module.Type` (inmanta-core's validation_type) and validates the
// value in lax mode; std returns false on a ValidationError or ValueError and lets any other
// Python error through. We implement the types std and typical models use; a name the module
// has but we do not implement is a NotImplementedError, a name it does not have an AttributeError.
#include <unicode/uchar.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "compiler/parse/pyregex.h"
#include "modules/std/plugins/ip_address.h"
#include "modules/std/plugins/pydantic_types.h"
#include "modules/std/plugins/std_plugins.h"
#include "modules/std/plugins/std_support.h"

namespace inmanta::stdmodule {

namespace {

namespace pd = pydantic;

// Validation outcome of a parametrized type, or a Python error escaping validate_type.
using Validator = std::function<bool(const Value&)>;

// The keyword arguments of a constrained-type function (constr, conint, ...), in dict order.
using Params = std::vector<std::pair<std::string, Value>>;

[[noreturn]] void schemaError(const std::string& type, const std::string& message) {
  fail("SchemaError", "Error building \"" + type + "\" validator:\n  " + message);
}

const Value* findParam(const Params& params, std::string_view name) {
  for (const auto& [k, v] : params)
    if (k == name) return v.isNull() ? nullptr : &v;
  return nullptr;
}

void checkKeywords(const std::string& function, const Params& params, std::initializer_list<std::string_view> allowed) {
  for (const auto& [k, v] : params) {
    bool ok = false;
    for (std::string_view a : allowed) ok = ok || a == k;
    if (!ok) fail("TypeError", function + "() got an unexpected keyword argument '" + k + "'");
  }
}

bool flagParam(const Params& params, std::string_view name, bool dflt = false) {
  const Value* v = findParam(params, name);
  return v == nullptr ? dflt : runtime::pyTruthy(*v);
}

std::optional<int64_t> intParam(const std::string& type, const Params& params, std::string_view name) {
  const Value* v = findParam(params, name);
  if (v == nullptr) return std::nullopt;
  pd::LaxInt i = pd::laxInt(*v, false);
  if (!i.ok || i.big) schemaError(type, "ValueError: '" + std::string(name) + "' must be coercible to an integer");
  return i.value;
}

std::optional<double> floatParam(const std::string& type, const Params& params, std::string_view name) {
  const Value* v = findParam(params, name);
  if (v == nullptr) return std::nullopt;
  if (!v->isNumber()) schemaError(type, "TypeError: '" + std::string(name) + "' must be a number");
  return v->toDouble();
}

// ------------------------------------------------------------------ Python Decimal

struct Decimal {
  bool negative = false;
  bool nan = false;
  bool infinite = false;
  std::string digits = "0";  // no leading zeros
  int64_t exponent = 0;      // value = digits * 10**exponent

  bool finite() const { return !nan && !infinite; }
  bool isZero() const { return finite() && digits == "0"; }
  long double approx() const {
    if (nan) return NAN;
    if (infinite) return negative ? -INFINITY : INFINITY;
    long double v = std::strtold((digits + "e" + std::to_string(exponent)).c_str(), nullptr);
    return negative ? -v : v;
  }
};

// Python Decimal(str): surrounding whitespace, a sign, digits with an optional point and
// exponent (underscores between digits), Infinity/Inf/NaN/sNaN in any case.
std::optional<Decimal> parseDecimal(const std::string& text) {
  std::u32string u = decodeUtf8(pyStrip(text));
  std::string s;
  for (char32_t c : u) {
    if (c < 0x80) {
      s += static_cast<char>(c);
    } else {
      int d = u_charType(static_cast<UChar32>(c)) == U_DECIMAL_DIGIT_NUMBER ? u_charDigitValue(static_cast<UChar32>(c))
                                                                            : -1;
      if (d < 0) return std::nullopt;
      s += static_cast<char>('0' + d);
    }
  }
  Decimal d;
  size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) d.negative = s[i++] == '-';
  std::string rest;
  for (size_t k = i; k < s.size(); ++k) rest += static_cast<char>(s[k] >= 'A' && s[k] <= 'Z' ? s[k] - 'A' + 'a' : s[k]);
  if (rest == "inf" || rest == "infinity") {
    d.infinite = true;
    return d;
  }
  if (rest.rfind("nan", 0) == 0 || rest.rfind("snan", 0) == 0) {
    std::string payload = rest.substr(rest[0] == 's' ? 4 : 3);
    if (!std::all_of(payload.begin(), payload.end(), [](char c) { return c >= '0' && c <= '9'; })) return std::nullopt;
    d.nan = true;
    return d;
  }
  // digits with single underscores between digits
  std::string intPart, fracPart;
  auto readDigits = [&](std::string& out) {
    bool lastDigit = false;
    while (i < s.size()) {
      if (s[i] >= '0' && s[i] <= '9') {
        out += s[i++];
        lastDigit = true;
      } else if (s[i] == '_' && lastDigit && i + 1 < s.size() && s[i + 1] >= '0' && s[i + 1] <= '9') {
        ++i;
        lastDigit = false;
      } else {
        break;
      }
    }
  };
  readDigits(intPart);
  if (i < s.size() && s[i] == '.') {
    ++i;
    readDigits(fracPart);
  }
  if (intPart.empty() && fracPart.empty()) return std::nullopt;
  int64_t exp = 0;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    bool negExp = false;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) negExp = s[i++] == '-';
    std::string expDigits;
    readDigits(expDigits);
    if (expDigits.empty() || expDigits.size() > 15) return std::nullopt;
    exp = std::stoll(expDigits);
    if (negExp) exp = -exp;
  }
  if (i != s.size()) return std::nullopt;
  std::string all = intPart + fracPart;
  size_t nz = all.find_first_not_of('0');
  d.digits = nz == std::string::npos ? "0" : all.substr(nz);
  d.exponent = exp - static_cast<int64_t>(fracPart.size());
  return d;
}

// Decimal(x) as pydantic-core's lax decimal validation makes it: str parsed, int exact, float
// through its repr; bools are rejected.
std::optional<Decimal> laxDecimal(const Value& v) {
  switch (v.type()) {
    case Value::Type::String: return parseDecimal(v.asString());
    case Value::Type::Int: return parseDecimal(std::to_string(v.asInt()));
    case Value::Type::Float: return parseDecimal(runtime::formatFloat(v.asFloat()));
    default: return std::nullopt;
  }
}

// Exact comparison of two finite decimals: -1, 0, 1.
int compareDecimal(const Decimal& a, const Decimal& b) {
  if (a.isZero() && b.isZero()) return 0;
  int signA = a.isZero() ? 0 : a.negative ? -1 : 1;
  int signB = b.isZero() ? 0 : b.negative ? -1 : 1;
  if (signA != signB) return signA < signB ? -1 : 1;
  // same sign, both non-zero: compare magnitudes
  int64_t adjA = a.exponent + static_cast<int64_t>(a.digits.size());
  int64_t adjB = b.exponent + static_cast<int64_t>(b.digits.size());
  int mag = 0;
  if (adjA != adjB) {
    mag = adjA < adjB ? -1 : 1;
  } else {
    size_t n = std::max(a.digits.size(), b.digits.size());
    std::string x = a.digits + std::string(n - a.digits.size(), '0');
    std::string y = b.digits + std::string(n - b.digits.size(), '0');
    mag = x < y ? -1 : x > y ? 1 : 0;
  }
  return signA > 0 ? mag : -mag;
}

// (decimals, digits) as pydantic-core computes them from Decimal.as_tuple().
std::pair<int64_t, int64_t> digitInfo(const Decimal& d, bool normalize) {
  std::string digits = d.digits;
  int64_t exponent = d.exponent;
  if (normalize) {
    if (digits == "0") {
      exponent = 0;
    } else {
      while (digits.size() > 1 && digits.back() == '0') {
        digits.pop_back();
        ++exponent;
      }
    }
  }
  auto count = static_cast<int64_t>(digits.size());
  if (exponent >= 0) return {0, count + exponent};
  return {-exponent, std::max(count, -exponent)};
}

// ------------------------------------------------------------------ the types

bool ipType(const Value& v, int version, char kind) {
  // the ipaddress constructors take ints (bools too) as addresses and parse str(x) otherwise
  if (v.isInt() || v.isBool()) {
    int64_t n = v.toInt();
    return n >= 0 && (version == 6 || n <= 0xFFFFFFFFLL);
  }
  if (!v.isString()) return false;
  const std::string& s = v.asString();
  switch (kind) {
    case 'a': return (version == 4 ? ip::parseV4(s) : ip::parseV6(s)).has_value();
    case 'i': return ip::parseInterface(version, s).has_value();
    default: return ip::parseNetwork(version, s).has_value();
  }
}

bool urlType(const Value& v, std::initializer_list<std::string_view> schemes, size_t maxLength) {
  if (!v.isString()) return false;
  const std::string& s = v.asString();
  if (s.empty() || (maxLength > 0 && s.size() > maxLength)) return false;
  std::string scheme;
  if (!pd::parseUrl(s, scheme)) return false;
  if (schemes.size() == 0) return true;
  for (std::string_view allowed : schemes)
    if (scheme == allowed) return true;
  return false;
}

enum class Cmp { Gt, Ge, Lt, Le };

bool intBound(const pd::LaxInt& i, Cmp cmp, int64_t bound) {
  if (i.big) {
    long double b = static_cast<long double>(bound);
    switch (cmp) {
      case Cmp::Gt: return i.approx > b;
      case Cmp::Ge: return i.approx >= b;
      case Cmp::Lt: return i.approx < b;
      case Cmp::Le: return i.approx <= b;
    }
  }
  switch (cmp) {
    case Cmp::Gt: return i.value > bound;
    case Cmp::Ge: return i.value >= bound;
    case Cmp::Lt: return i.value < bound;
    case Cmp::Le: return i.value <= bound;
  }
  return false;
}

bool floatBound(double v, Cmp cmp, double bound) {
  switch (cmp) {
    case Cmp::Gt: return v > bound;
    case Cmp::Ge: return v >= bound;
    case Cmp::Lt: return v < bound;
    case Cmp::Le: return v <= bound;
  }
  return false;
}

const std::pair<const char*, Cmp> kBounds[] = {{"gt", Cmp::Gt}, {"ge", Cmp::Ge}, {"lt", Cmp::Lt}, {"le", Cmp::Le}};

Validator conint(const Params& params) {
  checkKeywords("conint", params, {"strict", "gt", "ge", "lt", "le", "multiple_of"});
  bool strict = flagParam(params, "strict");
  std::vector<std::pair<Cmp, int64_t>> bounds;
  for (const auto& [name, cmp] : kBounds)
    if (auto b = intParam("int", params, name)) bounds.emplace_back(cmp, *b);
  std::optional<int64_t> multipleOf = intParam("int", params, "multiple_of");
  return [=](const Value& v) {
    pd::LaxInt i = pd::laxInt(v, strict);
    if (!i.ok) return false;
    if (multipleOf) {
      if (*multipleOf == 0 || i.big) return false;
      if (i.value % *multipleOf != 0) return false;
    }
    for (const auto& [cmp, b] : bounds)
      if (!intBound(i, cmp, b)) return false;
    return true;
  };
}

Validator confloat(const Params& params, bool defaultAllowInfNan = true) {
  checkKeywords("confloat", params, {"strict", "gt", "ge", "lt", "le", "multiple_of", "allow_inf_nan"});
  bool strict = flagParam(params, "strict");
  bool allowInfNan = flagParam(params, "allow_inf_nan", defaultAllowInfNan);
  std::vector<std::pair<Cmp, double>> bounds;
  for (const auto& [name, cmp] : kBounds)
    if (auto b = floatParam("float", params, name)) bounds.emplace_back(cmp, *b);
  std::optional<double> multipleOf = floatParam("float", params, "multiple_of");
  return [=](const Value& v) {
    pd::LaxFloat f = pd::laxFloat(v, strict);
    if (!f.ok) return false;
    if (!allowInfNan && !std::isfinite(f.value)) return false;
    if (multipleOf) {
      double rem = std::fmod(f.value, *multipleOf);
      double threshold = std::fabs(f.value) / 1e9;
      if (std::fabs(rem) > threshold && std::fabs(rem - *multipleOf) > threshold) return false;
    }
    for (const auto& [cmp, b] : bounds)
      if (!floatBound(f.value, cmp, b)) return false;
    return true;
  };
}

Validator condecimal(const Params& params) {
  checkKeywords("condecimal", params,
                {"strict", "gt", "ge", "lt", "le", "multiple_of", "max_digits", "decimal_places", "allow_inf_nan"});
  bool strict = flagParam(params, "strict");
  bool allowInfNan = flagParam(params, "allow_inf_nan", false);
  std::vector<std::pair<Cmp, Decimal>> bounds;
  for (const auto& [name, cmp] : kBounds) {
    if (const Value* b = findParam(params, name)) {
      std::optional<Decimal> d = laxDecimal(*b);
      if (!d || !d->finite())
        schemaError("decimal", "ValueError: '" + std::string(name) + "' must be coercible to a Decimal instance");
      bounds.emplace_back(cmp, *d);
    }
  }
  std::optional<Decimal> multipleOf;
  if (const Value* m = findParam(params, "multiple_of")) {
    multipleOf = laxDecimal(*m);
    if (!multipleOf) schemaError("decimal", "ValueError: 'multiple_of' must be coercible to a Decimal instance");
  }
  std::optional<int64_t> maxDigits = intParam("decimal", params, "max_digits");
  std::optional<int64_t> decimalPlaces = intParam("decimal", params, "decimal_places");
  return [=](const Value& v) {
    if (strict) return false;  // strict mode only takes Decimal instances
    std::optional<Decimal> d = laxDecimal(v);
    if (!d) return false;
    bool checkDigits = maxDigits || decimalPlaces;
    if (!allowInfNan || checkDigits) {
      if (!d->finite()) return false;
      if (checkDigits) {
        auto [nDecimals, nDigits] = digitInfo(*d, true);
        auto [decimals, digits] = digitInfo(*d, false);
        if (maxDigits && digits > *maxDigits && nDigits > *maxDigits) return false;
        if (decimalPlaces) {
          if (decimals > *decimalPlaces && nDecimals > *decimalPlaces) return false;
          if (maxDigits) {
            int64_t maxWhole = std::max<int64_t>(0, *maxDigits - *decimalPlaces);
            if (std::max<int64_t>(0, digits - decimals) > maxWhole &&
                std::max<int64_t>(0, nDigits - nDecimals) > maxWhole)
              return false;
          }
        }
      }
    }
    if (multipleOf) {
      long double q = d->approx() / multipleOf->approx();
      if (!std::isfinite(static_cast<double>(q)) || std::fmod(q, 1.0L) != 0.0L) return false;
    }
    for (const auto& [cmp, b] : bounds) {
      if (d->nan) return false;
      int c = d->infinite ? (d->negative ? -1 : 1) : compareDecimal(*d, b);
      bool ok = cmp == Cmp::Gt ? c > 0 : cmp == Cmp::Ge ? c >= 0 : cmp == Cmp::Lt ? c < 0 : c <= 0;
      if (!ok) return false;
    }
    return true;
  };
}

// Rust's char::is_whitespace (str::trim): Unicode White_Space, which unlike Python's
// str.isspace leaves out U+001C..U+001F.
bool rustSpace(char32_t c) { return pyIsSpace(c) && !(c >= 0x1C && c <= 0x1F); }

// constr(...) plus inmanta's `regex` (Python re.match on the validated string).
Validator constr(const Params& params, const std::optional<std::string>& regex) {
  checkKeywords("constr", params,
                {"strip_whitespace", "to_upper", "to_lower", "strict", "min_length", "max_length", "pattern"});
  bool strip = flagParam(params, "strip_whitespace");
  bool toUpper = flagParam(params, "to_upper");
  bool toLower = flagParam(params, "to_lower");
  std::optional<int64_t> minLength = intParam("str", params, "min_length");
  std::optional<int64_t> maxLength = intParam("str", params, "max_length");
  std::shared_ptr<compiler::PyRegex> pattern;
  if (const Value* p = findParam(params, "pattern")) {
    if (!p->isString()) schemaError("str", "TypeError: 'pattern' must be a string");
    std::string error;
    pattern = compiler::PyRegex::compile(p->asString(), error);
    if (!pattern) schemaError("str", "regex parse error: " + error);
  }
  std::shared_ptr<compiler::PyRegex> regexMatcher;
  if (regex) {
    std::string error;
    regexMatcher = compiler::PyRegex::compile(*regex, error);
    if (!regexMatcher) fail("PatternError", error);
  }
  return [=](const Value& v) {
    if (!v.isString()) return false;
    std::string s = v.asString();
    if (strip) {
      std::u32string u = decodeUtf8(s);
      size_t b = 0, e = u.size();
      while (b < e && rustSpace(u[b])) ++b;
      while (e > b && rustSpace(u[e - 1])) --e;
      s = encodeUtf8(u.substr(b, e - b));
    }
    auto length = static_cast<int64_t>(codePointCount(s));
    if (minLength && length < *minLength) return false;
    if (maxLength && length > *maxLength) return false;
    // pydantic-core matches `pattern` anywhere in the string (Rust regex is_match)
    if (pattern && !pattern->search(s)) return false;
    if (toLower) s = caseMap(s, CaseMode::Lower);
    else if (toUpper) s = caseMap(s, CaseMode::Upper);
    if (regexMatcher && !regexMatcher->matchPrefix(s)) return false;
    return true;
  };
}

bool numberSign(const Value& v, bool isInt, Cmp cmp) {
  if (isInt) {
    pd::LaxInt i = pd::laxInt(v, false);
    return i.ok && intBound(i, cmp, 0);
  }
  pd::LaxFloat f = pd::laxFloat(v, false);
  return f.ok && floatBound(f.value, cmp, 0.0);
}

// pydantic.ByteSize: a non-negative whole number, or a str matching
// `^\s*(\d*\.?\d+)\s*(\w+)?` that int() parses or whose unit (the \w+, `b` when absent) is
// one of pydantic's byte units.
bool byteSize(const Value& v) {
  if (v.isBool()) return true;
  if (v.isInt()) return v.asInt() >= 0;
  if (v.isFloat()) return std::isfinite(v.asFloat()) && v.asFloat() >= 0 && v.asFloat() == std::floor(v.asFloat());
  if (!v.isString()) return false;
  std::u32string s = decodeUtf8(v.asString());
  size_t i = 0;
  while (i < s.size() && pyIsSpace(s[i])) ++i;
  auto digit = [&](size_t k) { return k < s.size() && s[k] >= U'0' && s[k] <= U'9'; };
  size_t digits = i;
  while (digit(digits)) ++digits;
  size_t end = 0;  // past the scalar
  if (digits < s.size() && s[digits] == U'.' && digit(digits + 1)) {
    end = digits + 1;
    while (digit(end)) ++end;
  } else if (digits > i) {
    end = digits;
  } else {
    return false;  // no scalar: the pattern does not match
  }
  int64_t whole = 0;
  if (pyParseInt(v.asString(), whole) == IntParse::Ok) return true;
  size_t k = end;
  while (k < s.size() && pyIsSpace(s[k])) ++k;
  std::string unit;
  while (k < s.size() && (s[k] == U'_' || u_isalnum(static_cast<UChar32>(s[k])))) {
    if (s[k] > 0x7F) return false;  // (no unit has one)
    unit += static_cast<char>(std::tolower(static_cast<int>(s[k])));
    ++k;
  }
  if (unit.empty()) return true;  // bytes
  static const std::set<std::string, std::less<>> units = [] {
    std::set<std::string, std::less<>> u;
    for (const char* prefix : {"", "k", "m", "g", "t", "p", "e"}) {
      u.insert(std::string(prefix) + "b");
      u.insert(std::string(prefix) + "bit");
      if (*prefix != '\0') {
        u.insert(prefix);
        u.insert(std::string(prefix) + "ib");
        u.insert(std::string(prefix) + "ibit");
      }
    }
    return u;
  }();
  return units.count(unit) != 0;
}

// Whether `text` is one JSON document, NaN and [-]Infinity outside strings taken as numbers.
bool jsonWithInfNan(const std::string& text) {
  std::string plain;
  bool inString = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (inString) {
      plain += c;
      if (c == '\\' && i + 1 < text.size()) plain += text[++i];
      else if (c == '"') inString = false;
      continue;
    }
    if (c == '"') inString = true;
    std::string_view rest = std::string_view(text).substr(i);
    if (rest.substr(0, 3) == "NaN") {
      plain += '0';
      i += 2;
    } else if (rest.substr(0, 8) == "Infinity") {
      plain += '0';
      i += 7;
    } else {
      plain += c;
    }
  }
  return nlohmann::json::accept(plain);
}

// The plain types: validator by fully qualified name.
const std::map<std::string, Validator, std::less<>>& plainTypes() {
  static const std::map<std::string, Validator, std::less<>> types = {
      {"datetime.date", pd::validDate},
      {"datetime.time", pd::validTime},
      {"datetime.datetime", pd::validDateTime},
      {"ipaddress.IPv4Address", [](const Value& v) { return ipType(v, 4, 'a'); }},
      {"ipaddress.IPv4Interface", [](const Value& v) { return ipType(v, 4, 'i'); }},
      {"ipaddress.IPv4Network", [](const Value& v) { return ipType(v, 4, 'n'); }},
      {"ipaddress.IPv6Address", [](const Value& v) { return ipType(v, 6, 'a'); }},
      {"ipaddress.IPv6Interface", [](const Value& v) { return ipType(v, 6, 'i'); }},
      {"ipaddress.IPv6Network", [](const Value& v) { return ipType(v, 6, 'n'); }},
      {"uuid.UUID", [](const Value& v) { return pd::validUuid(v); }},
      {"pydantic.UUID1", [](const Value& v) { return pd::validUuid(v, 1); }},
      {"pydantic.UUID3", [](const Value& v) { return pd::validUuid(v, 3); }},
      {"pydantic.UUID4", [](const Value& v) { return pd::validUuid(v, 4); }},
      {"pydantic.UUID5", [](const Value& v) { return pd::validUuid(v, 5); }},
      {"pydantic.IPvAnyAddress", [](const Value& v) { return ipType(v, 4, 'a') || ipType(v, 6, 'a'); }},
      {"pydantic.IPvAnyInterface", [](const Value& v) { return ipType(v, 4, 'i') || ipType(v, 6, 'i'); }},
      {"pydantic.IPvAnyNetwork", [](const Value& v) { return ipType(v, 4, 'n') || ipType(v, 6, 'n'); }},
      {"pydantic.EmailStr", [](const Value& v) { return v.isString() && pd::validEmail(v.asString()); }},
      {"pydantic.NameEmail", [](const Value& v) { return v.isString() && pd::validEmail(v.asString()); }},
      {"pydantic.AnyUrl", [](const Value& v) { return urlType(v, {}, 0); }},
      {"pydantic.AnyHttpUrl",
       [](const Value& v) {
         return urlType(v, {"http", "https"}, 0);
       }},
      {"pydantic.HttpUrl",
       [](const Value& v) {
         return urlType(v, {"http", "https"}, 2083);
       }},
      {"pydantic.FileUrl", [](const Value& v) { return urlType(v, {"file"}, 0); }},
      {"pydantic.FtpUrl", [](const Value& v) { return urlType(v, {"ftp"}, 0); }},
      {"pydantic.WebsocketUrl",
       [](const Value& v) {
         return urlType(v, {"ws", "wss"}, 2083);
       }},
      {"pydantic.AnyWebsocketUrl",
       [](const Value& v) {
         return urlType(v, {"ws", "wss"}, 0);
       }},
      {"pydantic.PositiveInt", [](const Value& v) { return numberSign(v, true, Cmp::Gt); }},
      {"pydantic.NegativeInt", [](const Value& v) { return numberSign(v, true, Cmp::Lt); }},
      {"pydantic.NonNegativeInt", [](const Value& v) { return numberSign(v, true, Cmp::Ge); }},
      {"pydantic.NonPositiveInt", [](const Value& v) { return numberSign(v, true, Cmp::Le); }},
      {"pydantic.PositiveFloat", [](const Value& v) { return numberSign(v, false, Cmp::Gt); }},
      {"pydantic.NegativeFloat", [](const Value& v) { return numberSign(v, false, Cmp::Lt); }},
      {"pydantic.NonNegativeFloat", [](const Value& v) { return numberSign(v, false, Cmp::Ge); }},
      {"pydantic.NonPositiveFloat", [](const Value& v) { return numberSign(v, false, Cmp::Le); }},
      {"pydantic.FiniteFloat",
       [](const Value& v) {
         pd::LaxFloat f = pd::laxFloat(v, false);
         return f.ok && std::isfinite(f.value);
       }},
      {"pydantic.StrictInt", [](const Value& v) { return v.isInt(); }},
      {"pydantic.StrictFloat", [](const Value& v) { return v.isInt() || v.isFloat(); }},
      {"pydantic.StrictStr", [](const Value& v) { return v.isString(); }},
      {"pydantic.StrictBool", [](const Value& v) { return v.isBool(); }},
      {"pydantic.UUID6", [](const Value& v) { return pd::validUuid(v, 6); }},
      {"pydantic.UUID7", [](const Value& v) { return pd::validUuid(v, 7); }},
      {"pydantic.UUID8", [](const Value& v) { return pd::validUuid(v, 8); }},
      {"pydantic.SecretStr", [](const Value& v) { return v.isString(); }},
      {"pydantic.ByteSize", byteSize},
      // a model value is never bytes
      {"pydantic.StrictBytes", [](const Value&) { return false; }},
      // a str holding a JSON document (pydantic's parser also takes NaN and [-]Infinity)
      {"pydantic.Json", [](const Value& v) { return v.isString() && jsonWithInfNan(v.asString()); }},
  };
  return types;
}

// Names the modules have that validate_type does not implement (anything else is missing).
const std::set<std::string, std::less<>>& knownNames() {
  static const std::set<std::string, std::less<>> names = [] {
    std::set<std::string, std::less<>> n;
    for (const char* name : {"MAXYEAR", "MINYEAR", "UTC", "datetime_CAPI", "timedelta", "timezone", "tzinfo"})
      n.insert(std::string("datetime.") + name);
    for (const char* name : {"AddressValueError", "IPV4LENGTH", "IPV6LENGTH", "NetmaskValueError", "collapse_addresses",
                             "functools", "get_mixed_type_key", "ip_address", "ip_interface", "ip_network",
                             "summarize_address_range", "v4_int_to_packed", "v6_int_to_packed"})
      n.insert(std::string("ipaddress.") + name);
    for (const char* name : {"Enum",
                             "NAMESPACE_DNS",
                             "NAMESPACE_OID",
                             "NAMESPACE_URL",
                             "NAMESPACE_X500",
                             "RESERVED_FUTURE",
                             "RESERVED_MICROSOFT",
                             "RESERVED_NCS",
                             "RFC_4122",
                             "SafeUUID",
                             "bytes_",
                             "getnode",
                             "int_",
                             "main",
                             "os",
                             "sys",
                             "uuid1",
                             "uuid3",
                             "uuid4",
                             "uuid5"})
      n.insert(std::string("uuid.") + name);
    for (const char* name : {"AfterValidator",
                             "AliasChoices",
                             "AliasGenerator",
                             "AliasPath",
                             "AllowInfNan",
                             "AmqpDsn",
                             "AwareDatetime",
                             "Base64Bytes",
                             "Base64Encoder",
                             "Base64Str",
                             "Base64UrlBytes",
                             "Base64UrlStr",
                             "BaseConfig",
                             "BaseModel",
                             "BeforeValidator",
                             "ByteSize",
                             "ClickHouseDsn",
                             "CockroachDsn",
                             "ConfigDict",
                             "DirectoryPath",
                             "Discriminator",
                             "EncodedBytes",
                             "EncodedStr",
                             "EncoderProtocol",
                             "Extra",
                             "FailFast",
                             "Field",
                             "FieldSerializationInfo",
                             "FilePath",
                             "FutureDate",
                             "FutureDatetime",
                             "GetCoreSchemaHandler",
                             "GetJsonSchemaHandler",
                             "GetPydanticSchema",
                             "ImportString",
                             "InstanceOf",
                             "Json",
                             "JsonValue",
                             "KafkaDsn",
                             "MariaDBDsn",
                             "ModelWrapValidatorHandler",
                             "MongoDsn",
                             "MySQLDsn",
                             "NaiveDatetime",
                             "NatsDsn",
                             "NewPath",
                             "OnErrorOmit",
                             "PastDate",
                             "PastDatetime",
                             "PaymentCardNumber",
                             "PlainSerializer",
                             "PlainValidator",
                             "PostgresDsn",
                             "PrivateAttr",
                             "RedisDsn",
                             "RootModel",
                             "Secret",
                             "SecretBytes",
                             "SecretStr",
                             "SerializationInfo",
                             "SerializeAsAny",
                             "SerializerFunctionWrapHandler",
                             "SkipValidation",
                             "SnowflakeDsn",
                             "SocketPath",
                             "Strict",
                             "StrictBytes",
                             "StringConstraints",
                             "Tag",
                             "TypeAdapter",
                             "UUID6",
                             "UUID7",
                             "UUID8",
                             "UrlConstraints",
                             "VERSION",
                             "ValidateAs",
                             "ValidationError",
                             "ValidationInfo",
                             "ValidatorFunctionWrapHandler",
                             "WithJsonSchema",
                             "WrapSerializer",
                             "WrapValidator",
                             "computed_field",
                             "conbytes",
                             "condate",
                             "confrozenset",
                             "conlist",
                             "conset",
                             "create_model",
                             "dataclasses",
                             "field_serializer",
                             "field_validator",
                             "model_serializer",
                             "model_validator",
                             "parse_obj_as",
                             "root_validator",
                             "schema_json_of",
                             "schema_of",
                             "validate_call",
                             "validate_email",
                             "validator",
                             "with_config",
                             "networks",
                             "types",
                             "fields",
                             "main",
                             "config",
                             "functional_validators",
                             "functional_serializers",
                             "type_adapter",
                             "errors",
                             "json_schema",
                             "version",
                             "warnings",
                             "aliases",
                             "annotated_handlers",
                             "color",
                             "alias_generators"})
      n.insert(std::string("pydantic.") + name);
    return n;
  }();
  return names;
}

Value validateType(const Args& a) {
  const std::string& name = a[0].asString();
  const Value& value = a[1];
  bool known = false;
  for (std::string_view prefix : {"pydantic.", "datetime.", "ipaddress.", "uuid."})
    known = known || name.compare(0, prefix.size(), prefix) == 0;
  if (!known) return Value(false);  // ValueError("Unknown fq_type_name ...") is caught
  Params params;
  if (a[2].isDict()) {
    for (const auto& [k, v] : a[2].asDict().items) {
      if (v.isUnknown()) return Value::unknown();
      params.emplace_back(k, v);
    }
  }
  // inmanta's compatibility layer: `regex` becomes a Python re.match check after constr
  std::optional<std::string> regex;
  if (name == "pydantic.constr") {
    for (auto it = params.begin(); it != params.end(); ++it) {
      if (it->first == "regex") {
        if (!it->second.isNull()) regex = proxyStr(it->second);
        params.erase(it);
        break;
      }
    }
  }
  Validator validator;
  if (name == "pydantic.constr") validator = constr(params, regex);
  else if (name == "pydantic.conint") validator = conint(params);
  else if (name == "pydantic.confloat") validator = confloat(params);
  else if (name == "pydantic.condecimal") validator = condecimal(params);
  if (validator) return Value(validator(value));
  auto it = plainTypes().find(name);
  if (it != plainTypes().end()) {
    // a type that takes no parameters: non-empty parameters are a ValueError (caught)
    if (!params.empty()) return Value(false);
    return Value(it->second(value));
  }
  size_t dot = name.find('.');
  if (knownNames().count(name) != 0)
    fail("NotImplementedError", "std::validate_type does not support " + name + " in this implementation");
  fail("AttributeError", "module '" + name.substr(0, dot) + "' has no attribute '" + name.substr(dot + 1) + "'");
}

}  // namespace

void registerValidationPlugins(PluginRegistry& registry) {
  addPlugin(registry, "validate_type",
            {param("fq_type_name", "string"), param("value", "any"), paramNone("validation_parameters", "dict")},
            "bool", [](PluginContext&, const Args& a, const Kwargs&) { return validateType(a); });
}

}  // namespace inmanta::stdmodule
