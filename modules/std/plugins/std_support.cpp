#include "modules/std/plugins/std_support.h"

#include "compiler/source/source.h"

#include <unicode/ucasemap.h>
#include <unicode/uchar.h>
#include <unistd.h>

#include <cmath>
#include <limits>
#include <memory>

namespace inmanta::stdmodule {

// ------------------------------------------------------------------ plugin specs

PluginParam param(std::string name, std::string type) {
  PluginParam p;
  p.name = std::move(name);
  p.type = std::move(type);
  return p;
}

PluginParam param(std::string name, std::string type, Value defaultValue) {
  PluginParam p = param(std::move(name), std::move(type));
  p.defaultValue = std::move(defaultValue);
  return p;
}

PluginParam paramNone(std::string name, std::string type) {
  PluginParam p = param(std::move(name), std::move(type));
  p.defaultIsNone = true;
  return p;
}

void addPlugin(PluginRegistry& registry, std::string name, std::vector<PluginParam> params, std::string returnType,
               RunFn run, PluginFlags flags) {
  PluginSpec spec;
  spec.ns = "std";
  spec.name = std::move(name);
  spec.params = std::move(params);
  spec.varKeywords = flags.varKeywords;
  spec.returnType = std::move(returnType);
  spec.acceptsUnknown = flags.acceptsUnknown;
  spec.contextAware = flags.contextAware;
  spec.deprecated = flags.deprecated;
  spec.replacedBy = flags.replacedBy;
  spec.run = std::move(run);
  registry.add(std::move(spec));
}

// ------------------------------------------------------------------ UTF-8

namespace {
// Decodes the code point at s[i] and advances i; malformed bytes decode as themselves (the
// compiler only hands out valid UTF-8, this only keeps the loop total).
char32_t nextCodePoint(std::string_view s, size_t& i) { return compiler::nextCodePoint(s, i); }
}  // namespace

std::u32string decodeUtf8(std::string_view s) {
  std::u32string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) out.push_back(nextCodePoint(s, i));
  return out;
}

void appendUtf8(std::string& out, char32_t cp) { compiler::appendUtf8(out, static_cast<uint32_t>(cp)); }

std::string encodeUtf8(std::u32string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char32_t cp : s) appendUtf8(out, cp);
  return out;
}

size_t codePointCount(std::string_view s) {
  size_t n = 0;
  for (size_t i = 0; i < s.size(); ++n) nextCodePoint(s, i);
  return n;
}

std::vector<size_t> codePointOffsets(std::string_view s) {
  std::vector<size_t> offsets;
  for (size_t i = 0; i < s.size();) {
    offsets.push_back(i);
    nextCodePoint(s, i);
  }
  offsets.push_back(s.size());
  return offsets;
}

bool pyIsSpace(char32_t cp) {
  // CPython's _PyUnicode_IsWhitespace: bidirectional class WS, B or S, or category Zs.
  switch (cp) {
    case 0x09:
    case 0x0A:
    case 0x0B:
    case 0x0C:
    case 0x0D:
    case 0x1C:
    case 0x1D:
    case 0x1E:
    case 0x1F:
    case 0x20:
    case 0x85:
    case 0xA0:
    case 0x1680:
    case 0x2028:
    case 0x2029:
    case 0x202F:
    case 0x205F:
    case 0x3000: return true;
    default: return cp >= 0x2000 && cp <= 0x200A;
  }
}

std::string_view pyStrip(std::string_view s) {
  std::vector<size_t> offsets = codePointOffsets(s);
  size_t n = offsets.size() - 1;
  size_t begin = 0;
  while (begin < n) {
    size_t i = offsets[begin];
    if (!pyIsSpace(nextCodePoint(s, i))) break;
    ++begin;
  }
  size_t end = n;
  while (end > begin) {
    size_t i = offsets[end - 1];
    if (!pyIsSpace(nextCodePoint(s, i))) break;
    --end;
  }
  return s.substr(offsets[begin], offsets[end] - offsets[begin]);
}

// Python str.upper / str.lower / str.capitalize: ICU's full case mappings in the root locale
// (ß -> SS, final sigma in context, İ -> i̇), which are the mappings CPython uses.
std::string caseMap(const std::string& s, CaseMode mode) {
  if (s.empty()) return s;
  UErrorCode err = U_ZERO_ERROR;
  // capitalize: the first code point title-cased as it is (no adjustment to the first letter),
  // the rest lower-cased, the whole string being one "word"
  uint32_t options = mode == CaseMode::Capitalize ? (U_TITLECASE_WHOLE_STRING | U_TITLECASE_NO_BREAK_ADJUSTMENT) : 0;
  std::unique_ptr<UCaseMap, decltype(&ucasemap_close)> map(ucasemap_open("", options, &err), ucasemap_close);
  if (U_FAILURE(err)) fail("SystemError", std::string("case mapping unavailable: ") + u_errorName(err));
  std::string out(s.size() * 3 + 16, '\0');
  for (int attempt = 0; attempt < 2; ++attempt) {
    err = U_ZERO_ERROR;
    int32_t n = 0;
    auto cap = static_cast<int32_t>(out.size());
    auto len = static_cast<int32_t>(s.size());
    switch (mode) {
      case CaseMode::Upper: n = ucasemap_utf8ToUpper(map.get(), out.data(), cap, s.data(), len, &err); break;
      case CaseMode::Lower: n = ucasemap_utf8ToLower(map.get(), out.data(), cap, s.data(), len, &err); break;
      case CaseMode::Capitalize: n = ucasemap_utf8ToTitle(map.get(), out.data(), cap, s.data(), len, &err); break;
    }
    if (err == U_BUFFER_OVERFLOW_ERROR) {
      out.assign(static_cast<size_t>(n) + 1, '\0');
      continue;
    }
    if (U_FAILURE(err)) fail("SystemError", std::string("case mapping failed: ") + u_errorName(err));
    out.resize(static_cast<size_t>(n));
    return out;
  }
  fail("SystemError", "case mapping failed");
}

IntParse pyParseInt(std::string_view text, int64_t& out) {
  std::u32string s = decodeUtf8(pyStrip(text));
  size_t i = 0;
  bool negative = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
  if (i == s.size()) return IntParse::Invalid;
  // accumulate as a negative number so that INT64_MIN fits
  int64_t value = 0;
  bool overflow = false;
  bool lastWasDigit = false;
  for (; i < s.size(); ++i) {
    char32_t c = s[i];
    if (c == '_') {
      if (!lastWasDigit) return IntParse::Invalid;
      lastWasDigit = false;
      continue;
    }
    int digit =
        u_charType(static_cast<UChar32>(c)) == U_DECIMAL_DIGIT_NUMBER ? u_charDigitValue(static_cast<UChar32>(c)) : -1;
    if (digit < 0 || digit > 9) return IntParse::Invalid;
    lastWasDigit = true;
    if (overflow) continue;
    if (value < (std::numeric_limits<int64_t>::min() + digit) / 10) {
      overflow = true;
      continue;
    }
    value = value * 10 - digit;
  }
  if (!lastWasDigit) return IntParse::Invalid;
  if (overflow) return IntParse::Overflow;
  if (!negative) {
    if (value == std::numeric_limits<int64_t>::min()) return IntParse::Overflow;
    value = -value;
  }
  out = value;
  return IntParse::Ok;
}

int64_t pyIntOf(const Value& v) {
  switch (v.type()) {
    case Value::Type::Bool:
    case Value::Type::Int: return v.toInt();
    case Value::Type::Float: {
      double d = v.asFloat();
      if (std::isnan(d)) fail("ValueError", "cannot convert float NaN to integer");
      if (std::isinf(d)) fail("OverflowError", "cannot convert float infinity to integer");
      double t = std::trunc(d);
      if (t < -9223372036854775808.0 || t >= 9223372036854775808.0)
        fail("OverflowError", "int too large for a 64-bit integer: " + runtime::formatFloat(d));
      return static_cast<int64_t>(t);
    }
    case Value::Type::String: {
      int64_t out = 0;
      switch (pyParseInt(v.asString(), out)) {
        case IntParse::Ok: return out;
        case IntParse::Overflow:
          fail("OverflowError", "int too large for a 64-bit integer: " + runtime::pyReprString(v.asString()));
        case IntParse::Invalid:
          fail("ValueError", "invalid literal for int() with base 10: " + runtime::pyReprString(v.asString()));
      }
      break;
    }
    default: break;
  }
  fail("TypeError",
       "int() argument must be a string, a bytes-like object or a real number, not '" + proxyTypeName(v) + "'");
}

// ------------------------------------------------------------------ Python view of values

std::string proxyTypeName(const Value& v) {
  switch (v.type()) {
    case Value::Type::Null: return "NoneType";
    case Value::Type::Bool: return "bool";
    case Value::Type::Int: return "int";
    case Value::Type::Float: return "float";
    case Value::Type::String: return "str";
    case Value::Type::List: return "SequenceProxy";
    case Value::Type::Dict: return "DictProxy";
    case Value::Type::Instance: return "DynamicProxy";
    // (the reference proxies an object with a length as a sequence)
    case Value::Type::Opaque: return v.asOpaque().sized() ? "SequenceProxy" : "DynamicProxy";
    case Value::Type::Unknown: return "Unknown";
  }
  return "object";
}

std::string proxyStr(const Value& v) { return runtime::printForm(v); }

void fail(std::string pythonType, std::string message) {
  throw PluginFailure(std::move(pythonType), std::move(message));
}

// ------------------------------------------------------------------ files

std::string pathJoin(const std::string& a, const std::string& b) {
  if (!b.empty() && b[0] == '/') return b;
  if (a.empty() || a.back() == '/') return a + b;
  return a + "/" + b;
}

std::string normPath(const std::string& path) {
  if (path.empty()) return ".";
  // POSIX keeps exactly two leading slashes, collapses three or more into one
  size_t leading = 0;
  while (leading < path.size() && path[leading] == '/') ++leading;
  std::string prefix = leading == 0 ? "" : leading == 2 ? "//" : "/";
  std::vector<std::string> parts;
  size_t i = leading;
  while (i <= path.size()) {
    size_t j = path.find('/', i);
    if (j == std::string::npos) j = path.size();
    std::string comp = path.substr(i, j - i);
    if (comp.empty() || comp == ".") {
      // skip
    } else if (comp == "..") {
      if (!parts.empty() && parts.back() != "..") parts.pop_back();
      else if (prefix.empty()) parts.push_back(comp);
    } else {
      parts.push_back(comp);
    }
    i = j + 1;
  }
  std::string out = prefix;
  for (size_t k = 0; k < parts.size(); ++k) {
    if (k > 0) out += '/';
    out += parts[k];
  }
  return out.empty() ? "." : out;
}

std::string absPath(const std::string& path) {
  if (!path.empty() && path[0] == '/') return normPath(path);
  std::string cwd;
  std::vector<char> buf(4096);
  if (getcwd(buf.data(), buf.size()) != nullptr) cwd = buf.data();
  return normPath(pathJoin(cwd, path));
}

}  // namespace inmanta::stdmodule
