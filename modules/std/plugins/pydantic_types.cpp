#include "modules/std/plugins/pydantic_types.h"

#include <unicode/uchar.h>
#include <unicode/uidna.h>
#include <unicode/unorm2.h>
#include <unicode/ustring.h>

#include <cmath>
#include <limits>
#include <memory>
#include <vector>

#include "modules/std/plugins/ip_address.h"

namespace inmanta::stdmodule::pydantic {

namespace {

bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isAsciiAlpha(char32_t c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool isHex(char32_t c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

// ------------------------------------------------------------------ speedate (dates and times)

struct Date {
  int year = 0, month = 0, day = 0;
};

// 2e10: above this a unix timestamp is in milliseconds
constexpr int64_t kMsWatershed = 20'000'000'000;
constexpr int64_t kUnix0000 = -62'167'219'200;  // 0000-01-01T00:00:00
constexpr int64_t kUnix9999 = 253'402'300'799;  // 9999-12-31T23:59:59

bool isLeap(int y) { return y % 100 == 0 ? y % 400 == 0 : y % 4 == 0; }

// Date::parse_bytes_partial: YYYY-MM-DD at the start of the input.
std::optional<Date> parseDatePartial(std::string_view b) {
  if (b.size() < 10) return std::nullopt;
  for (size_t i : {0, 1, 2, 3, 5, 6, 8, 9})
    if (!isDigit(b[i])) return std::nullopt;
  if (b[4] != '-' || b[7] != '-') return std::nullopt;
  Date d;
  d.year = (b[0] - '0') * 1000 + (b[1] - '0') * 100 + (b[2] - '0') * 10 + (b[3] - '0');
  d.month = (b[5] - '0') * 10 + (b[6] - '0');
  d.day = (b[8] - '0') * 10 + (b[9] - '0');
  static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (d.month < 1 || d.month > 12) return std::nullopt;
  int max = d.month == 2 && isLeap(d.year) ? 29 : days[d.month - 1];
  if (d.day < 1 || d.day > max) return std::nullopt;
  return d;
}

// speedate's int_parse_bytes: an optional sign and ASCII digits, within i64. `stop` receives the
// first offending byte (float parsing continues only when it is a '.').
std::optional<int64_t> speedInt(std::string_view b, char* stop = nullptr) {
  if (stop) *stop = 0;
  if (b.empty()) return std::nullopt;
  size_t i = 0;
  bool neg = false;
  if (b.size() >= 2 && (b[0] == '-' || b[0] == '+')) {
    neg = b[0] == '-';
    i = 1;
  }
  int64_t v = 0;
  for (; i < b.size(); ++i) {
    if (!isDigit(b[i])) {
      if (stop) *stop = b[i];
      return std::nullopt;
    }
    if (v > (std::numeric_limits<int64_t>::max() - (b[i] - '0')) / 10) {
      if (stop) *stop = b[i];
      return std::nullopt;
    }
    v = v * 10 + (b[i] - '0');
  }
  return neg ? -v : v;
}

// lexical's STANDARD float format (Rust f64 syntax without inf/nan): digits, a point, digits,
// an optional exponent; at least one mantissa digit.
std::optional<double> lexicalFloat(std::string_view b) {
  size_t i = 0;
  if (i < b.size() && (b[i] == '+' || b[i] == '-')) ++i;
  size_t digits = 0;
  while (i < b.size() && isDigit(b[i])) ++i, ++digits;
  if (i < b.size() && b[i] == '.') {
    ++i;
    while (i < b.size() && isDigit(b[i])) ++i, ++digits;
  }
  if (digits == 0) return std::nullopt;
  if (i < b.size() && (b[i] == 'e' || b[i] == 'E')) {
    ++i;
    if (i < b.size() && (b[i] == '+' || b[i] == '-')) ++i;
    size_t exp = 0;
    while (i < b.size() && isDigit(b[i])) ++i, ++exp;
    if (exp == 0) return std::nullopt;
  }
  if (i != b.size()) return std::nullopt;
  return std::strtod(std::string(b).c_str(), nullptr);
}

// timestamp_watershed: seconds or milliseconds, as (seconds, microseconds).
std::optional<std::pair<int64_t, int64_t>> inferUnit(int64_t ts) {
  if (ts == std::numeric_limits<int64_t>::min()) return std::nullopt;
  if (std::llabs(ts) <= kMsWatershed) return std::make_pair(ts, int64_t{0});
  int64_t seconds = ts / 1000;
  int64_t micros = (ts % 1000) * 1000;
  if (micros < 0) {
    seconds -= 1;
    micros += 1'000'000;
  }
  return std::make_pair(seconds, micros);
}

// A speedate datetime reduced to what validation needs.
struct DateTime {
  int year = 0;
  int64_t secondOfDay = 0;
  int64_t micro = 0;
};

// DateTime::from_timestamp_with_config (Infer unit); the year is 0..9999.
std::optional<DateTime> fromTimestamp(int64_t ts, int64_t micro) {
  auto unit = inferUnit(ts);
  if (!unit) return std::nullopt;
  int64_t second = unit->first;
  int64_t total = micro + unit->second;
  second += total / 1'000'000;
  total %= 1'000'000;
  if (second < kUnix0000 || second > kUnix9999) return std::nullopt;
  // civil year of the day (days from civil, Howard Hinnant)
  int64_t days = (second >= 0 ? second : second - 86399) / 86400;
  int64_t secondOfDay = second - days * 86400;
  int64_t z = days + 719468;
  int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  int64_t doe = z - era * 146097;
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t y = yoe + era * 400;
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  int64_t mp = (5 * doy + 2) / 153;
  int64_t m = mp + (mp < 10 ? 3 : -9);
  if (m <= 2) ++y;
  return DateTime{static_cast<int>(y), secondOfDay, total};
}

std::optional<DateTime> fromFloatTimestamp(double ts) {
  if (std::isnan(ts)) return std::nullopt;
  double fract = std::fabs(ts - std::trunc(ts));
  double micro = std::fabs(ts) <= static_cast<double>(kMsWatershed) ? fract * 1'000'000.0 : fract * 1'000.0;
  double fl = std::floor(ts);
  // Rust `as i64` saturates
  int64_t seconds = fl >= 9.2233720368547758e18    ? std::numeric_limits<int64_t>::max()
                    : fl <= -9.2233720368547758e18 ? std::numeric_limits<int64_t>::min()
                                                   : static_cast<int64_t>(fl);
  return fromTimestamp(seconds, static_cast<int64_t>(std::round(micro)));
}

// Time::parse_bytes_offset: HH:MM[:SS[.ffffff…]] then an optional Z / ±HH[:]MM; nothing after.
bool parseTime(std::string_view b, size_t offset, int64_t* secondOfDay = nullptr, int64_t* micro = nullptr) {
  if (b.size() < offset + 5) return false;
  std::string_view t = b.substr(offset);
  auto digit = [&](size_t i) { return i < t.size() && isDigit(t[i]); };
  auto value = [&](size_t i) { return t[i] - '0'; };
  if (!digit(0) || !digit(1) || t[2] != ':' || !digit(3) || !digit(4)) return false;
  int hour = value(0) * 10 + value(1);
  int minute = value(3) * 10 + value(4);
  if (hour > 23 || minute > 59) return false;
  size_t pos = 5;
  int second = 0;
  int64_t us = 0;
  if (pos < t.size() && t[pos] == ':') {
    if (!digit(pos + 1) || !digit(pos + 2)) return false;
    second = value(pos + 1) * 10 + value(pos + 2);
    if (second > 59) return false;
    pos += 3;
    if (pos < t.size() && (t[pos] == '.' || t[pos] == ',')) {
      ++pos;
      size_t n = 0;
      while (digit(pos + n)) {
        if (n < 6) us = us * 10 + value(pos + n);  // extra precision is truncated
        ++n;
      }
      if (n == 0) return false;
      for (size_t k = n; k < 6; ++k) us *= 10;
      pos += n;
    }
  }
  if (pos < t.size()) {
    char c = t[pos++];
    if (c != 'Z' && c != 'z') {
      if (c == '+' || c == '-') {
        // the sign
      } else if (static_cast<unsigned char>(c) == 0xE2 && pos + 1 < t.size() &&
                 static_cast<unsigned char>(t[pos]) == 0x88 && static_cast<unsigned char>(t[pos + 1]) == 0x92) {
        pos += 2;  // U+2212 MINUS SIGN
      } else {
        return false;
      }
      if (!digit(pos) || !digit(pos + 1)) return false;
      int h = value(pos) * 10 + value(pos + 1);
      int m1 = 0;
      if (pos + 2 < t.size() && t[pos + 2] == ':') {
        pos += 3;
        if (!digit(pos)) return false;
        m1 = value(pos);
      } else if (digit(pos + 2)) {
        pos += 2;
        m1 = value(pos);
      } else {
        return false;
      }
      if (!digit(pos + 1)) return false;
      int minuteSeconds = m1 * 600 + value(pos + 1) * 60;
      if (minuteSeconds >= 3600) return false;
      if (h * 3600 + minuteSeconds >= 24 * 3600) return false;
      pos += 2;
    }
  }
  if (pos != t.size()) return false;
  if (secondOfDay) *secondOfDay = hour * 3600 + minute * 60 + second;
  if (micro) *micro = us;
  return true;
}

// Date::parse_bytes: YYYY-MM-DD exactly, else an integer unix timestamp at midnight.
std::optional<Date> speedDate(std::string_view b) {
  if (auto d = parseDatePartial(b); d && b.size() == 10) return d;
  if (auto ts = speedInt(b)) {
    auto dt = fromTimestamp(*ts, 0);
    if (!dt || dt->secondOfDay != 0 || dt->micro != 0) return std::nullopt;
    return Date{dt->year, 1, 1};
  }
  return std::nullopt;
}

// DateTime::parse_bytes_with_config: RFC 3339 (separator T, t, space or _), else a unix
// timestamp (int or float).
std::optional<DateTime> speedDateTime(std::string_view b) {
  if (auto d = parseDatePartial(b)) {
    if (b.size() > 10 && (b[10] == 'T' || b[10] == 't' || b[10] == ' ' || b[10] == '_')) {
      int64_t second = 0, micro = 0;
      if (parseTime(b, 11, &second, &micro)) return DateTime{d->year, second, micro};
    }
  }
  char stop = 0;
  if (auto i = speedInt(b, &stop)) return fromTimestamp(*i, 0);
  if (stop != '.') return std::nullopt;
  std::optional<double> f = lexicalFloat(b);
  if (!f) return std::nullopt;
  double normalized = std::fabs(*f) > static_cast<double>(kMsWatershed) ? *f / 1000.0 : *f;
  double seconds = std::floor(normalized);
  if (!std::isfinite(seconds) || seconds > 9.2e18 || seconds < -9.2e18) return std::nullopt;
  return fromTimestamp(static_cast<int64_t>(seconds),
                       static_cast<int64_t>(std::round((normalized - seconds) * 1'000'000.0)));
}

// pydantic-core's validate_datetime in lax mode (no date fallback).
std::optional<DateTime> laxDateTime(const Value& v) {
  switch (v.type()) {
    case Value::Type::String: return speedDateTime(v.asString());
    case Value::Type::Int: return fromTimestamp(v.asInt(), 0);
    case Value::Type::Float: return fromFloatTimestamp(v.asFloat());
    default: return std::nullopt;
  }
}

// ------------------------------------------------------------------ text helpers

std::u16string toUtf16(std::u32string_view s) {
  std::u16string out;
  for (char32_t c : s) {
    if (c < 0x10000) {
      out.push_back(static_cast<char16_t>(c));
    } else {
      char32_t v = c - 0x10000;
      out.push_back(static_cast<char16_t>(0xD800 + (v >> 10)));
      out.push_back(static_cast<char16_t>(0xDC00 + (v & 0x3FF)));
    }
  }
  return out;
}

std::u32string fromUtf16(std::u16string_view s) {
  std::u32string out;
  for (size_t i = 0; i < s.size(); ++i) {
    char32_t c = s[i];
    if (c >= 0xD800 && c < 0xDC00 && i + 1 < s.size() && s[i + 1] >= 0xDC00 && s[i + 1] < 0xE000) {
      c = 0x10000 + ((c - 0xD800) << 10) + (s[i + 1] - 0xDC00);
      ++i;
    }
    out.push_back(c);
  }
  return out;
}

std::u32string nfc(std::u32string_view s) {
  UErrorCode err = U_ZERO_ERROR;
  const UNormalizer2* n = unorm2_getNFCInstance(&err);
  if (U_FAILURE(err)) return std::u32string(s);
  std::u16string in = toUtf16(s);
  std::u16string out(in.size() * 3 + 4, u'\0');
  int32_t len = unorm2_normalize(n, reinterpret_cast<const UChar*>(in.data()), static_cast<int32_t>(in.size()),
                                 reinterpret_cast<UChar*>(out.data()), static_cast<int32_t>(out.size()), &err);
  if (U_FAILURE(err)) return std::u32string(s);
  out.resize(static_cast<size_t>(len));
  return fromUtf16(out);
}

// The major class of Python's unicodedata.category: L, M, N, P, S, Z or C.
char majorCategory(char32_t c) {
  switch (u_charType(static_cast<UChar32>(c))) {
    case U_UPPERCASE_LETTER:
    case U_LOWERCASE_LETTER:
    case U_TITLECASE_LETTER:
    case U_MODIFIER_LETTER:
    case U_OTHER_LETTER: return 'L';
    case U_NON_SPACING_MARK:
    case U_ENCLOSING_MARK:
    case U_COMBINING_SPACING_MARK: return 'M';
    case U_DECIMAL_DIGIT_NUMBER:
    case U_LETTER_NUMBER:
    case U_OTHER_NUMBER: return 'N';
    case U_DASH_PUNCTUATION:
    case U_START_PUNCTUATION:
    case U_END_PUNCTUATION:
    case U_CONNECTOR_PUNCTUATION:
    case U_OTHER_PUNCTUATION:
    case U_INITIAL_PUNCTUATION:
    case U_FINAL_PUNCTUATION: return 'P';
    case U_MATH_SYMBOL:
    case U_CURRENCY_SYMBOL:
    case U_MODIFIER_SYMBOL:
    case U_OTHER_SYMBOL: return 'S';
    case U_SPACE_SEPARATOR:
    case U_LINE_SEPARATOR:
    case U_PARAGRAPH_SEPARATOR: return 'Z';
    default: return 'C';
  }
}

// ------------------------------------------------------------------ IDNA (UTS 46 via ICU)

enum class IdnaDirection { ToAscii, ToUnicode };

// UTS 46 processing, non-transitional, with Bidi and ContextJ checks; hyphen placement and DNS
// lengths are not checked (CheckHyphens=false, VerifyDnsLength=false), as the url crate and
// the idna package (for the mapping) apply them.
std::optional<std::string> idna(const std::string& domain, IdnaDirection direction, bool checkHyphens = false) {
  UErrorCode err = U_ZERO_ERROR;
  std::unique_ptr<UIDNA, decltype(&uidna_close)> idna(uidna_openUTS46(UIDNA_CHECK_BIDI | UIDNA_CHECK_CONTEXTJ |
                                                                          UIDNA_NONTRANSITIONAL_TO_ASCII |
                                                                          UIDNA_NONTRANSITIONAL_TO_UNICODE,
                                                                      &err),
                                                      uidna_close);
  if (U_FAILURE(err)) return std::nullopt;
  std::string out(domain.size() * 4 + 64, '\0');
  UIDNAInfo info = UIDNA_INFO_INITIALIZER;
  int32_t len = 0;
  for (int attempt = 0; attempt < 2; ++attempt) {
    err = U_ZERO_ERROR;
    info = UIDNA_INFO_INITIALIZER;
    if (direction == IdnaDirection::ToAscii)
      len = uidna_nameToASCII_UTF8(idna.get(), domain.data(), static_cast<int32_t>(domain.size()), out.data(),
                                   static_cast<int32_t>(out.size()), &info, &err);
    else
      len = uidna_nameToUnicodeUTF8(idna.get(), domain.data(), static_cast<int32_t>(domain.size()), out.data(),
                                    static_cast<int32_t>(out.size()), &info, &err);
    if (err == U_BUFFER_OVERFLOW_ERROR) {
      out.assign(static_cast<size_t>(len) + 1, '\0');
      continue;
    }
    break;
  }
  if (U_FAILURE(err)) return std::nullopt;
  uint32_t ignored = UIDNA_ERROR_EMPTY_LABEL | UIDNA_ERROR_LABEL_TOO_LONG | UIDNA_ERROR_DOMAIN_NAME_TOO_LONG;
  if (!checkHyphens) ignored |= UIDNA_ERROR_LEADING_HYPHEN | UIDNA_ERROR_TRAILING_HYPHEN | UIDNA_ERROR_HYPHEN_3_4;
  if ((info.errors & ~ignored) != 0) return std::nullopt;
  out.resize(static_cast<size_t>(len));
  return out;
}

// ------------------------------------------------------------------ WHATWG URL parsing

bool isSpecialScheme(const std::string& s) {
  return s == "http" || s == "https" || s == "ws" || s == "wss" || s == "ftp" || s == "file";
}

bool isForbiddenHostCodePoint(char32_t c) {
  switch (c) {
    case 0x00:
    case 0x09:
    case 0x0A:
    case 0x0D:
    case ' ':
    case '#':
    case '/':
    case ':':
    case '<':
    case '>':
    case '?':
    case '@':
    case '[':
    case '\\':
    case ']':
    case '^':
    case '|': return true;
    default: return false;
  }
}

bool isForbiddenDomainCodePoint(char32_t c) {
  return isForbiddenHostCodePoint(c) || c <= 0x1F || c == '%' || c == 0x7F;
}

// The IPv4 number parser: decimal, 0x hex or 0-prefixed octal; nullopt on failure; values
// saturate at 2**40 (any of them is out of range then).
std::optional<uint64_t> ipv4Number(std::string_view s) {
  if (s.empty()) return std::nullopt;
  int radix = 10;
  if (s.size() >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    s.remove_prefix(2);
    radix = 16;
  } else if (s.size() >= 2 && s[0] == '0') {
    s.remove_prefix(1);
    radix = 8;
  }
  uint64_t v = 0;
  for (char c : s) {
    int d = isDigit(c) ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : (c >= 'A' && c <= 'F') ? c - 'A' + 10 : 99;
    if (d >= radix) return std::nullopt;
    v = std::min<uint64_t>(v * static_cast<uint64_t>(radix) + static_cast<uint64_t>(d), uint64_t{1} << 40);
  }
  return v;
}

std::vector<std::string_view> splitDots(std::string_view s) {
  std::vector<std::string_view> parts;
  size_t pos = 0;
  while (true) {
    size_t dot = s.find('.', pos);
    if (dot == std::string_view::npos) break;
    parts.push_back(s.substr(pos, dot - pos));
    pos = dot + 1;
  }
  parts.push_back(s.substr(pos));
  return parts;
}

bool endsInNumber(std::string_view host) {
  std::vector<std::string_view> parts = splitDots(host);
  if (parts.back().empty()) {
    if (parts.size() == 1) return false;
    parts.pop_back();
  }
  std::string_view last = parts.back();
  if (!last.empty() && std::all_of(last.begin(), last.end(), isDigit)) return true;
  return ipv4Number(last).has_value();
}

bool parseUrlIpv4(std::string_view host) {
  std::vector<std::string_view> parts = splitDots(host);
  if (parts.back().empty() && parts.size() > 1) parts.pop_back();
  if (parts.size() > 4) return false;
  std::vector<uint64_t> numbers;
  for (std::string_view p : parts) {
    auto n = ipv4Number(p);
    if (!n) return false;
    numbers.push_back(*n);
  }
  for (size_t i = 0; i + 1 < numbers.size(); ++i)
    if (numbers[i] > 255) return false;
  return numbers.back() < (uint64_t{1} << (8 * (5 - numbers.size())));
}

// The WHATWG IPv6 parser (inside the brackets).
bool parseUrlIpv6(std::string_view s) {
  size_t p = 0;
  int piece = 0;
  bool compress = false;
  auto at = [&](size_t i) -> char { return i < s.size() ? s[i] : '\0'; };
  if (at(p) == ':') {
    if (at(p + 1) != ':') return false;
    p += 2;
    ++piece;
    compress = true;
  }
  while (p < s.size()) {
    if (piece == 8) return false;
    if (at(p) == ':') {
      if (compress) return false;
      ++p;
      ++piece;
      compress = true;
      continue;
    }
    int length = 0;
    while (length < 4 && p < s.size() && isHex(static_cast<unsigned char>(s[p]))) ++p, ++length;
    if (at(p) == '.') {
      if (length == 0) return false;
      p -= static_cast<size_t>(length);
      if (piece > 6) return false;
      int seen = 0;
      while (p < s.size()) {
        int value = -1;
        if (seen > 0) {
          if (at(p) == '.' && seen < 4) ++p;
          else return false;
        }
        if (!isDigit(at(p))) return false;
        while (isDigit(at(p))) {
          int n = at(p) - '0';
          if (value == -1) value = n;
          else if (value == 0) return false;
          else value = value * 10 + n;
          if (value > 255) return false;
          ++p;
        }
        ++seen;
        if (seen == 2 || seen == 4) ++piece;
      }
      if (seen != 4) return false;
      break;
    }
    if (at(p) == ':') {
      ++p;
      if (p >= s.size()) return false;
    } else if (p < s.size()) {
      return false;
    }
    ++piece;
  }
  return compress || piece == 8;
}

std::string percentDecode(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && isHex(static_cast<unsigned char>(s[i + 1])) &&
        isHex(static_cast<unsigned char>(s[i + 2]))) {
      out += static_cast<char>(std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

bool validUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    auto c = static_cast<unsigned char>(s[i]);
    size_t len = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
    if (len == 0 || i + len > s.size()) return false;
    if (len == 2 && c < 0xC2) return false;
    for (size_t k = 1; k < len; ++k)
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    i += len;
  }
  return true;
}

// The host parser: bracketed IPv6, opaque hosts for non-special schemes, domains (UTS 46) and
// IPv4 (possibly in hex or octal) for special ones.
bool parseHost(std::string_view input, bool special) {
  if (!input.empty() && input[0] == '[') {
    if (input.size() < 2 || input.back() != ']') return false;
    return parseUrlIpv6(input.substr(1, input.size() - 2));
  }
  if (!special) {
    for (char32_t c : decodeUtf8(input))
      if (isForbiddenHostCodePoint(c)) return false;
    return true;
  }
  std::string domain = percentDecode(input);
  if (!validUtf8(domain)) return false;  // decodes to U+FFFD, which UTS 46 rejects
  std::string ascii;
  bool plainAscii =
      std::all_of(domain.begin(), domain.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
  if (plainAscii) {
    for (char c : domain) ascii += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    bool punycode = false;
    for (std::string_view label : splitDots(ascii))
      if (label.substr(0, 4) == "xn--") punycode = true;
    if (punycode) {
      auto mapped = idna(domain, IdnaDirection::ToAscii);
      if (!mapped) return false;
      ascii = *mapped;
    }
  } else {
    auto mapped = idna(domain, IdnaDirection::ToAscii);
    if (!mapped) return false;
    ascii = *mapped;
  }
  if (ascii.empty()) return false;
  for (char c : ascii)
    if (isForbiddenDomainCodePoint(static_cast<unsigned char>(c))) return false;
  if (endsInNumber(ascii)) return parseUrlIpv4(ascii);
  return true;
}

bool validPort(std::string_view port) {
  uint64_t v = 0;
  for (char c : port) {
    if (!isDigit(c)) return false;
    v = std::min<uint64_t>(v * 10 + static_cast<uint64_t>(c - '0'), 1'000'000);
  }
  return v <= 65535;
}

// The authority (after `//`): credentials, host and port.
bool parseAuthority(std::string_view rest, bool special) {
  size_t end = 0;
  while (end < rest.size()) {
    char c = rest[end];
    if (c == '/' || c == '?' || c == '#' || (special && c == '\\')) break;
    ++end;
  }
  std::string_view authority = rest.substr(0, end);
  size_t at = authority.rfind('@');
  std::string_view hostPort = at == std::string_view::npos ? authority : authority.substr(at + 1);
  if (at != std::string_view::npos && hostPort.empty()) return false;
  bool inBrackets = false;
  size_t colon = std::string_view::npos;
  for (size_t i = 0; i < hostPort.size(); ++i) {
    if (hostPort[i] == '[') inBrackets = true;
    else if (hostPort[i] == ']') inBrackets = false;
    else if (hostPort[i] == ':' && !inBrackets) {
      colon = i;
      break;
    }
  }
  std::string_view host = hostPort.substr(0, colon);
  if (colon != std::string_view::npos && host.empty()) return false;
  if (host.empty()) return !special;
  if (!parseHost(host, special)) return false;
  if (colon != std::string_view::npos && !validPort(hostPort.substr(colon + 1))) return false;
  return true;
}

// ------------------------------------------------------------------ email-validator

bool isAtext(char32_t c) {
  if (c < 0x80) {
    auto a = static_cast<char>(c);
    return isAsciiAlpha(c) || isDigit(a) || std::string_view("_!#$%&'*+-/=?^`{|}~").find(a) != std::string_view::npos;
  }
  return false;
}

// DOT_ATOM_TEXT (or DOT_ATOM_TEXT_INTL): atoms separated by single dots.
bool isDotAtom(std::u32string_view s, bool intl) {
  if (s.empty() || s.front() == '.' || s.back() == '.') return false;
  char32_t prev = 0;
  for (char32_t c : s) {
    if (c == '.') {
      if (prev == '.') return false;
    } else if (!(isAtext(c) || (intl && c >= 0x80 && c <= 0x10FFFF))) {
      return false;
    }
    prev = c;
  }
  return true;
}

bool safeChars(std::u32string_view s, bool allowSpace) {
  for (size_t i = 0; i < s.size(); ++i) {
    char cat = majorCategory(s[i]);
    if (cat == 'L' || cat == 'N' || cat == 'P' || cat == 'S') continue;
    if (cat == 'M' && i != 0) continue;
    if (cat == 'Z' && allowSpace && u_charType(static_cast<UChar32>(s[i])) == U_SPACE_SEPARATOR) continue;
    return false;
  }
  return true;
}

bool localPartValid(std::u32string_view local) {
  if (local.empty()) return false;
  if (isDotAtom(local, false)) return true;
  if (!isDotAtom(local, true)) return false;
  return safeChars(local, false);
}

bool hostnameChar(char32_t c) {
  return isAsciiAlpha(c) || (c >= '0' && c <= '9') || c == '-' || c == '.' || (c >= 0x80 && c <= 0x10FFFF);
}

// email-validator's uts46_valid_char.
bool uts46ValidChar(char32_t c) {
  if (c >= 0x80 && c <= 0x9F) return false;
  if ((c >= 0x2010 && c <= 0x2060 && !(c >= 0x2024 && c <= 0x2026) && !(c >= 0x2028 && c <= 0x202E)) || c == 0xAD ||
      c == 0x2064 || c == 0xFF0E || (c >= 0x200B && c <= 0x200D) || (c >= 0x1BCA0 && c <= 0x1BCA3))
    return true;
  switch (u_charType(static_cast<UChar32>(c))) {
    case U_FORMAT_CHAR:
    case U_UNASSIGNED:
    case U_PRIVATE_USE_CHAR:
    case U_SURROGATE:
    case U_SPACE_SEPARATOR:
    case U_LINE_SEPARATOR:
    case U_PARAGRAPH_SEPARATOR: return false;
    default: break;
  }
  // characters that decompose into a sequence with a dot
  UErrorCode err = U_ZERO_ERROR;
  const UNormalizer2* nfkd = unorm2_getNFKDInstance(&err);
  if (U_SUCCESS(err)) {
    UChar buf[32];
    int32_t n = unorm2_getRawDecomposition(nfkd, static_cast<UChar32>(c), buf, 32, &err);
    if (U_SUCCESS(err) && n > 0)
      for (int32_t i = 0; i < n; ++i)
        if (buf[i] == '.') return false;
  }
  return true;
}

bool hostnameLabelsValid(std::string_view domain) {
  // DOT_ATOM_TEXT_HOSTNAME: labels of letters, digits and inner hyphens
  for (std::string_view label : splitDots(domain)) {
    if (label.empty() || label.front() == '-' || label.back() == '-') return false;
    for (char c : label)
      if (!(isAsciiAlpha(static_cast<unsigned char>(c)) || isDigit(c) || c == '-')) return false;
  }
  return true;
}

// IDNA 2008 (RFC 5892) code point validity, which the idna package applies on top of the UTS 46
// mapping: letters, digits and combining marks that are stable under case folding; symbols,
// punctuation and spaces are disallowed (UTS 46 alone allows `☃`).
bool idna2008Valid(char32_t c) {
  if (c < 0x80) return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
  switch (c) {
    // exceptions (RFC 5892 2.6): PVALID, and CONTEXTO rules accepted in context
    case 0x00DF:
    case 0x03C2:
    case 0x06FD:
    case 0x06FE:
    case 0x0F0B:
    case 0x3007:
    case 0x00B7:
    case 0x0375:
    case 0x05F3:
    case 0x05F4:
    case 0x30FB:
    case 0x200C:
    case 0x200D:  // CONTEXTJ, checked by ICU
      return true;
    case 0x0640:
    case 0x07FA:
    case 0x302E:
    case 0x302F:
    case 0x3031:
    case 0x3032:
    case 0x3033:
    case 0x3034:
    case 0x3035:
    case 0x303B: return false;
    default: break;
  }
  auto u = static_cast<UChar32>(c);
  if (u_hasBinaryProperty(u, UCHAR_DEFAULT_IGNORABLE_CODE_POINT) || u_hasBinaryProperty(u, UCHAR_WHITE_SPACE) ||
      u_hasBinaryProperty(u, UCHAR_NONCHARACTER_CODE_POINT))
    return false;
  if ((c >= 0x20D0 && c <= 0x20FF) || (c >= 0x1D100 && c <= 0x1D24F)) return false;  // ignorable blocks
  int32_t hangul = u_getIntPropertyValue(u, UCHAR_HANGUL_SYLLABLE_TYPE);
  if (hangul == U_HST_LEADING_JAMO || hangul == U_HST_VOWEL_JAMO || hangul == U_HST_TRAILING_JAMO) return false;
  switch (u_charType(u)) {
    case U_LOWERCASE_LETTER:
    case U_OTHER_LETTER:
    case U_DECIMAL_DIGIT_NUMBER:
    case U_MODIFIER_LETTER:
    case U_NON_SPACING_MARK:
    case U_COMBINING_SPACING_MARK: return true;
    default: return false;
  }
}

bool domainValid(const std::u32string& domain32, std::string& asciiOut, std::string& unicodeOut) {
  for (char32_t c : domain32)
    if (!hostnameChar(c)) return false;
  if (!safeChars(domain32, false)) return false;
  for (char32_t c : domain32)
    if (!uts46ValidChar(c)) return false;
  std::string domain = encodeUtf8(domain32);
  // uts46_remap: case folding and mapping (ASCII: lower case)
  std::string mapped;
  bool ascii = std::all_of(domain32.begin(), domain32.end(), [](char32_t c) { return c < 0x80; });
  if (ascii) {
    for (char c : domain) mapped += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  } else {
    auto m = idna(domain, IdnaDirection::ToUnicode);
    if (!m) return false;
    mapped = *m;
  }
  std::u32string mapped32 = decodeUtf8(mapped);
  for (char32_t c : mapped32)
    if (!hostnameChar(c)) return false;
  // check_dot_atom with the hostname rules
  if (mapped.empty() || mapped.front() == '.' || mapped.back() == '.' || mapped.find("..") != std::string::npos)
    return false;
  if (mapped.front() == '-' || mapped.back() == '-' || mapped.find(".-") != std::string::npos ||
      mapped.find("-.") != std::string::npos)
    return false;
  // RFC 5890 R-LDH labels: two characters then `--`, except Punycode
  for (std::string_view label : splitDots(mapped)) {
    if (label.size() >= 4 && label.substr(2, 2) == "--") {
      bool xn = (label[0] == 'x' || label[0] == 'X') && (label[1] == 'n' || label[1] == 'N');
      if (!xn) return false;
    }
  }
  std::string asciiDomain;
  if (hostnameLabelsValid(mapped)) {
    asciiDomain = mapped;
  } else {
    auto a = idna(mapped, IdnaDirection::ToAscii, true);
    if (!a) return false;
    asciiDomain = *a;
    if (!hostnameLabelsValid(asciiDomain)) return false;
  }
  if (asciiDomain.size() > 253) return false;
  for (std::string_view label : splitDots(asciiDomain))
    if (label.size() > 63) return false;
  if (asciiDomain.find('.') == std::string::npos) return false;
  if (!isAsciiAlpha(static_cast<unsigned char>(asciiDomain.back()))) return false;  // TLDs end with a letter
  for (std::string_view special : {"arpa", "invalid", "local", "localhost", "onion", "test"}) {
    if (asciiDomain == special) return false;
    if (asciiDomain.size() > special.size() && asciiDomain.compare(asciiDomain.size() - special.size() - 1,
                                                                   std::string::npos, "." + std::string(special)) == 0)
      return false;
  }
  auto decoded = idna(asciiDomain, IdnaDirection::ToUnicode, true);
  if (!decoded) return false;
  std::u32string decoded32 = decodeUtf8(*decoded);
  for (char32_t c : decoded32)
    if (!hostnameChar(c) || (c != '.' && !idna2008Valid(c))) return false;
  if (!safeChars(decoded32, false)) return false;
  asciiOut = asciiDomain;
  unicodeOut = *decoded;
  return true;
}

bool isWordChar(char32_t c) {
  if (c == '_') return true;
  auto u = static_cast<UChar32>(c);
  return u_isalpha(u) || u_getIntPropertyValue(u, UCHAR_NUMERIC_TYPE) != U_NT_NONE;
}

bool isNameChar(char32_t c) {
  return isWordChar(c) ||
         (c < 0x80 && std::u32string_view(U"!#$%&'*+-/=?^_`{|}~").find(c) != std::u32string_view::npos);
}

// pydantic's pretty_email_regex.fullmatch: the address inside `<…>` after an optional
// (quoted) name, or nullopt when the text does not have that form.
std::optional<std::u32string> prettyEmail(const std::u32string& s) {
  size_t n = s.size();
  size_t q = n;
  while (q > 0 && pyIsSpace(s[q - 1])) --q;
  if (q == 0 || s[q - 1] != '>') return std::nullopt;
  --q;  // s[q] is the closing '>'
  auto group = [&](size_t p) -> std::optional<std::u32string> {
    if (p >= q || s[p] != '<') return std::nullopt;
    if (p + 1 == q) return std::nullopt;  // `.+` needs a character
    for (size_t i = p + 1; i < q; ++i)
      if (s[i] == '\n') return std::nullopt;
    return s.substr(p + 1, q - p - 1);
  };
  auto skipSpace = [&](size_t i) {
    while (i < n && pyIsSpace(s[i])) ++i;
    return i;
  };
  size_t start = skipSpace(0);
  // an unquoted name: words of name characters separated by whitespace
  if (start < n && isNameChar(s[start])) {
    size_t i = start;
    while (i < n && isNameChar(s[i])) {
      while (i < n && isNameChar(s[i])) ++i;
      size_t j = skipSpace(i);
      if (j < n && isNameChar(s[j]) && j > i) i = j;
      else {
        i = j;
        break;
      }
    }
    if (auto g = group(i)) return g;
  }
  // a quoted name: the longest one that lets the rest match
  if (start < n && s[start] == '"') {
    for (size_t c = n; c-- > start + 1;) {
      if (s[c] != '"' || c < start + 2) continue;
      if (auto g = group(skipSpace(c + 1))) return g;
    }
  }
  return group(start);
}

}  // namespace

// ------------------------------------------------------------------ public validators

bool validDate(const Value& v) {
  if (v.isString()) {
    if (auto d = speedDate(v.asString())) return d->year >= 1;
  }
  // date_from_datetime: a datetime at exactly midnight (any zone)
  if (v.isBool()) return false;
  std::optional<DateTime> dt = laxDateTime(v);
  return dt && dt->year >= 1 && dt->secondOfDay == 0 && dt->micro == 0;
}

bool validTime(const Value& v) {
  switch (v.type()) {
    case Value::Type::String: return parseTime(v.asString(), 0);
    case Value::Type::Int: return v.asInt() >= 0 && v.asInt() < 86400;
    case Value::Type::Float: {
      double t = v.asFloat();
      if (std::isnan(t)) return false;
      double micro = std::round(std::fabs(t - std::trunc(t)) * 1'000'000.0);
      double seconds = std::floor(t);
      if (seconds < 0) return false;
      return seconds + std::floor(micro / 1'000'000.0) < 86400;
    }
    default: return false;
  }
}

bool validDateTime(const Value& v) {
  if (v.isBool()) return false;
  if (std::optional<DateTime> dt = laxDateTime(v)) return dt->year >= 1;
  // datetime_from_date: a date alone is midnight
  if (v.isString()) {
    if (auto d = speedDate(v.asString())) return d->year >= 1;
  }
  return false;
}

bool validUuid(const Value& v, int version) {
  if (!v.isString()) return false;
  std::string_view s = v.asString();
  if (s.size() == 45 && s.substr(0, 9) == "urn:uuid:") s.remove_prefix(9);
  std::string hex;
  if (s.size() == 32) {
    hex = std::string(s);
  } else if (s.size() == 36) {
    for (size_t i = 0; i < 36; ++i) {
      bool dash = i == 8 || i == 13 || i == 18 || i == 23;
      if (dash != (s[i] == '-')) return false;
      if (!dash) hex += s[i];
    }
  } else {
    return false;
  }
  for (char c : hex)
    if (!isHex(static_cast<unsigned char>(c))) return false;
  if (version > 0) {
    char c = hex[12];
    int digit = isDigit(c) ? c - '0' : (c | 0x20) - 'a' + 10;
    if (digit != version) return false;
    // and the RFC 4122 variant (10xx in the high bits of byte 8)
    char variant = static_cast<char>(hex[16] | 0x20);
    if (!(variant == '8' || variant == '9' || variant == 'a' || variant == 'b')) return false;
  }
  return true;
}

bool parseUrl(std::string_view text, std::string& scheme) {
  // strip leading and trailing C0 controls and spaces, remove tabs and newlines
  size_t b = 0, e = text.size();
  while (b < e && static_cast<unsigned char>(text[b]) <= 0x20) ++b;
  while (e > b && static_cast<unsigned char>(text[e - 1]) <= 0x20) --e;
  std::string input;
  for (size_t i = b; i < e; ++i)
    if (text[i] != '\t' && text[i] != '\n' && text[i] != '\r') input += text[i];
  // scheme
  if (input.empty() || !isAsciiAlpha(static_cast<unsigned char>(input[0]))) return false;
  size_t i = 1;
  while (i < input.size()) {
    char c = input[i];
    if (isAsciiAlpha(static_cast<unsigned char>(c)) || isDigit(c) || c == '+' || c == '-' || c == '.') ++i;
    else break;
  }
  if (i >= input.size() || input[i] != ':') return false;  // relative URL without a base
  scheme.clear();
  for (size_t k = 0; k < i; ++k)
    scheme += static_cast<char>(input[k] >= 'A' && input[k] <= 'Z' ? input[k] - 'A' + 'a' : input[k]);
  std::string_view rest = std::string_view(input).substr(i + 1);
  bool special = isSpecialScheme(scheme);
  if (scheme == "file") {
    auto slash = [](char c) { return c == '/' || c == '\\'; };
    if (rest.size() >= 2 && slash(rest[0]) && slash(rest[1])) {
      rest.remove_prefix(2);
      size_t end = 0;
      while (end < rest.size() && !slash(rest[end]) && rest[end] != '?' && rest[end] != '#') ++end;
      std::string_view host = rest.substr(0, end);
      bool driveLetter = host.size() == 2 && isAsciiAlpha(static_cast<unsigned char>(host[0])) &&
                         (host[1] == ':' || host[1] == '|');
      if (!host.empty() && !driveLetter) return parseHost(host, true);
    }
    return true;
  }
  if (special) {
    // special authority (ignore) slashes: any number of / and \ before the authority
    size_t k = 0;
    while (k < rest.size() && (rest[k] == '/' || rest[k] == '\\')) ++k;
    return parseAuthority(rest.substr(k), true);
  }
  if (rest.size() >= 2 && rest[0] == '/' && rest[1] == '/') return parseAuthority(rest.substr(2), false);
  return true;  // a path, or an opaque path (`mailto:a@b`)
}

bool validEmail(const std::string& text) {
  std::u32string value = decodeUtf8(text);
  if (value.size() > 2048) return false;
  if (auto inner = prettyEmail(value)) value = *inner;
  std::u32string email = decodeUtf8(pyStrip(encodeUtf8(value)));
  // split_email: the first unquoted @ or <
  bool inQuote = false, escaped = false;
  size_t split = std::u32string::npos;
  for (size_t i = 0; i < email.size(); ++i) {
    char32_t c = email[i];
    if (c == '<' && i + 1 < email.size() && email[i + 1] == 0x0338) continue;  // composes into U+226E
    if (inQuote) {
      if (c == '\\' && !escaped) escaped = true;
      else if (c == '"' && !escaped) inQuote = false, escaped = false;
      else escaped = false;
    } else if (c == '"') {
      inQuote = true;
    } else if (c == '@' || c == '<') {
      split = i;
      break;
    }
  }
  if (split == std::u32string::npos) return false;  // no @-sign
  if (email[split] == '<') return false;            // a display name is not permitted
  std::u32string local = email.substr(0, split);
  std::u32string domain = email.substr(split + 1);
  if (!local.empty() && local[0] == '"') return false;  // quoted local parts are not allowed
  if (!localPartValid(local)) return false;
  std::u32string normalizedLocal = nfc(local);
  if (normalizedLocal != local && !localPartValid(normalizedLocal)) return false;
  if (domain.empty()) return false;
  if (domain.front() == '[' && domain.back() == ']') return false;  // domain literals are not allowed
  std::string asciiDomain, unicodeDomain;
  if (!domainValid(domain, asciiDomain, unicodeDomain)) return false;
  // lengths in UTF-8 octets: the original, the normalized and the ASCII forms
  std::string localText = encodeUtf8(local);
  std::string normalized = encodeUtf8(normalizedLocal);
  if (localText.size() + 1 + encodeUtf8(domain).size() > 254) return false;
  if (normalized.size() + 1 + unicodeDomain.size() > 254) return false;
  if (normalized.size() + 1 + asciiDomain.size() > 254) return false;
  return true;
}

// ------------------------------------------------------------------ numbers

namespace {

// Rust's char::is_whitespace (str::trim).
bool rustSpace(char32_t c) { return pyIsSpace(c) && !(c >= 0x1C && c <= 0x1F); }

std::string rustTrim(const std::string& s) {
  std::u32string u = decodeUtf8(s);
  size_t b = 0, e = u.size();
  while (b < e && rustSpace(u[b])) ++b;
  while (e > b && rustSpace(u[e - 1])) --e;
  return encodeUtf8(u.substr(b, e - b));
}

// jiter's NumberInt::try_from: a JSON integer (`-?(0|[1-9][0-9]*)`).
std::optional<LaxInt> jsonInt(std::string_view s) {
  size_t i = 0;
  if (i < s.size() && s[i] == '-') ++i;
  if (i >= s.size()) return std::nullopt;
  if (s[i] == '0' && i + 1 != s.size()) return std::nullopt;
  for (size_t k = i; k < s.size(); ++k)
    if (!isDigit(s[k])) return std::nullopt;
  LaxInt r;
  r.ok = true;
  int64_t out = 0;
  if (pyParseInt(s, out) == IntParse::Ok) {
    r.value = out;
    r.approx = static_cast<long double>(out);
  } else {
    r.big = true;
    r.approx = std::strtold(std::string(s).c_str(), nullptr);
  }
  return r;
}

std::optional<std::string> stripUnderscores(const std::string& s) {
  if (s.empty() || s.front() == '_' || s.back() == '_' || s.find('_') == std::string::npos ||
      s.find("__") != std::string::npos)
    return std::nullopt;
  std::string out;
  for (char c : s)
    if (c != '_') out += c;
  return out;
}

// pydantic-core's clean_int_str.
std::optional<std::string> cleanIntStr(const std::string& original) {
  std::string s = rustTrim(original);
  if (!s.empty() && s[0] == '+') {
    if (s.size() > 1 && s[1] == '-') return std::nullopt;
    s.erase(0, 1);
  }
  bool negative = false;
  if (!s.empty() && s[0] == '-') {
    if (s.size() > 1 && (s[1] == '-' || s[1] == '+')) return std::nullopt;
    negative = true;
    s.erase(0, 1);
  }
  // strip_leading_zeros
  if (s.empty()) return std::nullopt;
  if (s[0] == '0') {
    size_t i = 1;
    bool done = false;
    for (; i < s.size(); ++i) {
      char c = s[i];
      if (c == '0' || c == '_') continue;
      if ((c >= '1' && c <= '9') || c == '-') {
        s = s.substr(i);
        done = true;
        break;
      }
      if (c == '.') {
        s = s.substr(i - 1);
        done = true;
        break;
      }
      return std::nullopt;
    }
    if (!done) s = s.substr(s.size() - 1);
  } else if (!((s[0] >= '1' && s[0] <= '9') || s[0] == '-')) {
    return std::nullopt;
  }
  size_t dot = s.find('.');
  if (dot != std::string::npos) {
    std::string decimals = s.substr(dot + 1);
    if (!decimals.empty() && decimals.find_first_not_of('0') == std::string::npos) s = s.substr(0, dot);
  }
  if (auto stripped = stripUnderscores(s)) return negative ? "-" + *stripped : *stripped;
  if (original.size() == s.size()) return std::nullopt;
  return negative ? "-" + s : s;
}

// Rust's f64::from_str: decimal with optional exponent, or inf / infinity / nan in any case.
std::optional<double> rustFloat(const std::string& s) {
  std::string lower;
  for (char c : s) lower += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  std::string_view body = lower;
  bool neg = false;
  if (!body.empty() && (body[0] == '+' || body[0] == '-')) {
    neg = body[0] == '-';
    body.remove_prefix(1);
  }
  if (body == "inf" || body == "infinity") return neg ? -INFINITY : INFINITY;
  if (body == "nan") return NAN;
  return lexicalFloat(s);
}

}  // namespace

LaxInt laxInt(const Value& v, bool strict) {
  LaxInt r;
  switch (v.type()) {
    case Value::Type::Int:
      r.ok = true;
      r.value = v.asInt();
      r.approx = static_cast<long double>(r.value);
      return r;
    case Value::Type::Bool:
      if (strict) return r;
      r.ok = true;
      r.value = v.toInt();
      r.approx = static_cast<long double>(r.value);
      return r;
    case Value::Type::Float: {
      if (strict) return r;
      double d = v.asFloat();
      if (!std::isfinite(d) || std::fmod(d, 1.0) != 0.0) return r;
      if (!(-9223372036854775808.0 < d && d < 9223372036854775807.0)) return r;
      r.ok = true;
      r.value = static_cast<int64_t>(d);
      r.approx = static_cast<long double>(r.value);
      return r;
    }
    case Value::Type::String: {
      if (strict) return r;
      const std::string& s = v.asString();
      if (auto j = jsonInt(s)) return *j;
      if (auto cleaned = cleanIntStr(s))
        if (auto j = jsonInt(*cleaned)) return *j;
      return r;
    }
    default: return r;
  }
}

LaxFloat laxFloat(const Value& v, bool strict) {
  LaxFloat r;
  switch (v.type()) {
    case Value::Type::Float:
    case Value::Type::Int:
      r.ok = true;
      r.value = v.toDouble();
      return r;
    case Value::Type::Bool:
      if (strict) return r;
      r.ok = true;
      r.value = v.toDouble();
      return r;
    case Value::Type::String: {
      if (strict) return r;
      const std::string& s = v.asString();
      if (auto f = rustFloat(rustTrim(s))) {
        r.ok = true;
        r.value = *f;
        return r;
      }
      if (auto stripped = stripUnderscores(s))
        if (auto f = rustFloat(*stripped)) {
          r.ok = true;
          r.value = *f;
        }
      return r;
    }
    default: return r;
  }
}

}  // namespace inmanta::stdmodule::pydantic
