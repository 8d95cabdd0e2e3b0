#include "compiler/parse/pyregex.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <vector>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "compiler/parse/strings.h"
#include "compiler/source/source.h"

namespace inmanta::compiler {

namespace {

// A Python `re` pattern (the dialect of CPython 3.13's re._parser), checked as Python checks it
// and written out as the PCRE2 pattern that means the same (spec 9.6): the escapes whose
// meaning differs (`\Z`, `\v`, `\uXXXX`, `\N{NAME}`, octal escapes, backreferences) are
// rewritten, `{,n}` gets its 0, a `[` inside a set is a plain `[` (no POSIX classes), and what
// Python refuses (escapes it does not define, PCRE-only groups, global flags after the start, a
// look-behind of varying width, ...) is an error with Python's message and position.
class Translator {
 public:
  explicit Translator(std::string_view pattern) : p_(pattern) {}

  struct Failure {
    std::string message;
    size_t at;  // byte offset
  };

  std::string run() {
    alternation(0, true);
    if (i_ < p_.size()) throw Failure{"unbalanced parenthesis", i_};  // (only a `)` stops the top level early)
    return prefix_ + out_;
  }
  bool ascii() const { return ascii_; }

 private:
  static constexpr size_t kInf = std::numeric_limits<size_t>::max();
  struct Width {
    size_t lo = 0;
    size_t hi = 0;
  };
  static size_t add(size_t a, size_t b) { return a == kInf || b == kInf || a > kInf - b ? kInf : a + b; }
  static size_t mul(size_t a, size_t b) {
    if (a == 0 || b == 0) return 0;
    return a == kInf || b == kInf || a > kInf / b ? kInf : a * b;
  }

  bool more() const { return i_ < p_.size(); }
  // The text from i_ up to `end` (i_ then past it): "missing <end>, unterminated name" when it
  // never comes, "<empty>" when the text is empty.
  std::string upTo(char end, const char* empty) {
    size_t b = i_;
    while (more() && peek() != end) ++i_;
    if (!more()) throw Failure{std::string("missing ") + end + ", unterminated name", b};
    std::string text(p_.substr(b, i_ - b));
    ++i_;
    if (text.empty()) throw Failure{empty, b};
    return text;
  }
  // the code point at i_, i_ past it
  uint32_t nextChar() { return static_cast<uint32_t>(nextCodePoint(p_, i_)); }
  char peek(size_t ahead = 0) const { return i_ + ahead < p_.size() ? p_[i_ + ahead] : '\0'; }
  static bool isDigit(char c) { return c >= '0' && c <= '9'; }
  static bool isOctal(char c) { return c >= '0' && c <= '7'; }
  static bool isHex(char c) { return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
  static bool isAsciiLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
  static std::string codePoint(uint32_t cp) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "\\x{%x}", cp);
    return buf;
  }

  void skipVerbose() {
    if (!verbose_) return;
    while (more()) {
      char c = peek();
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
        ++i_;
      } else if (c == '#') {
        while (more() && peek() != '\n') ++i_;
      } else {
        break;
      }
    }
  }

  // branches separated by `|`, up to a `)` or the end
  Width alternation(int depth, bool topLevel) {
    Width total;
    bool firstBranch = true;
    for (;;) {
      Width w = sequence(depth, topLevel && firstBranch);
      if (firstBranch) total = w;
      else total = {std::min(total.lo, w.lo), std::max(total.hi, w.hi)};
      firstBranch = false;
      if (more() && peek() == '|') {
        out_ += '|';
        ++i_;
        continue;
      }
      return total;
    }
  }

  Width sequence(int depth, bool first) {
    Width total;
    bool haveItem = false;        // something to repeat
    bool lastRepeatable = false;  // (anchors are not)
    bool lastRepeated = false;
    Width before;  // of the items before the last one
    Width last;
    for (;;) {
      skipVerbose();
      if (!more()) break;
      char c = peek();
      if (c == '|' || c == ')') break;
      size_t start = i_;
      if (c == '*' || c == '+' || c == '?' || (c == '{' && quantifierAhead())) {
        size_t lo = 0, hi = kInf;
        std::string written;
        if (c == '{') {
          quantifier(lo, hi, written);
        } else {
          ++i_;
          lo = c == '+' ? 1 : 0;
          hi = c == '?' ? 1 : kInf;
          written = std::string(1, c);
        }
        if (!haveItem || !lastRepeatable) throw Failure{"nothing to repeat", start};
        if (lastRepeated) throw Failure{"multiple repeat", start};
        if (more() && (peek() == '?' || peek() == '+')) written += p_[i_++];
        out_ += written;
        last = {mul(last.lo, lo), mul(last.hi, hi)};
        total = add(before, last);
        lastRepeated = true;
        continue;
      }
      Width w;
      bool repeatable = true;
      bool globalFlags = false;
      switch (c) {
        case '\\': w = escape(repeatable); break;
        case '[': w = set(); break;
        case '(': w = group(depth, first && !haveItem, globalFlags); break;
        case '.':
          out_ += '.';
          ++i_;
          w = {1, 1};
          break;
        case '^':
        case '$':
          out_ += c;
          ++i_;
          repeatable = false;
          break;
        default: {
          size_t b = i_;
          nextChar();
          out_.append(p_.substr(b, i_ - b));
          w = {1, 1};
          break;
        }
      }
      if (globalFlags) continue;  // not an item
      before = total;
      total = add(total, w);
      last = w;
      haveItem = true;
      lastRepeatable = repeatable;
      lastRepeated = false;
    }
    return total;
  }
  static Width add(Width a, Width b) { return {add(a.lo, b.lo), add(a.hi, b.hi)}; }

  // `{m}`, `{m,}`, `{,n}`, `{m,n}` at i_ (else `{` is a literal)
  bool quantifierAhead() const {
    size_t k = i_ + 1;
    size_t digits = 0;
    while (k < p_.size() && isDigit(p_[k])) ++k, ++digits;
    if (k < p_.size() && p_[k] == ',') {
      ++k;
      while (k < p_.size() && isDigit(p_[k])) ++k;
      return k < p_.size() && p_[k] == '}';
    }
    return digits > 0 && k < p_.size() && p_[k] == '}';
  }
  void quantifier(size_t& lo, size_t& hi, std::string& written) {
    size_t start = i_;
    ++i_;
    auto number = [&]() -> std::optional<size_t> {
      size_t b = i_;
      while (more() && isDigit(peek())) ++i_;
      if (b == i_) return std::nullopt;
      std::string digits(p_.substr(b, i_ - b));
      if (digits.size() > 10 || std::stoull(digits) >= 4294967295ULL)
        throw Failure{"the repetition number is too large", b};
      return static_cast<size_t>(std::stoull(digits));
    };
    std::optional<size_t> min = number();
    std::optional<size_t> max = min;
    bool comma = peek() == ',';
    if (comma) {
      ++i_;
      max = number();
    }
    ++i_;  // '}'
    lo = min.value_or(0);
    hi = max.value_or(kInf);
    if (max && lo > hi) throw Failure{"min repeat greater than max repeat", start + 1};
    // PCRE2 counts to 65535: a larger count Python takes cannot be written for it
    if (lo > 65535 || (hi != kInf && hi > 65535)) throw Failure{"the repetition number is too large", start + 1};
    written = "{" + std::to_string(lo) + (comma ? "," + (max ? std::to_string(hi) : std::string()) : std::string()) +
              "}";
  }

  // the code point of `\x..`, `\u....`, `\U........`, `\N{...}`, or none for other escapes
  std::optional<uint32_t> characterEscape(char e, size_t start) {
    auto hex = [&](size_t digits) -> uint32_t {
      size_t b = i_;
      while (i_ < p_.size() && i_ - b < digits && isHex(peek())) ++i_;
      if (i_ - b < digits)
        throw Failure{"incomplete escape \\" + std::string(p_.substr(start + 1, i_ - start - 1)), start};
      return static_cast<uint32_t>(std::stoul(std::string(p_.substr(b, digits)), nullptr, 16));
    };
    switch (e) {
      case 'x': return hex(2);
      case 'u': return hex(4);
      case 'U': {
        uint32_t cp = hex(8);
        if (cp > 0x10FFFF) throw Failure{"bad escape \\" + std::string(p_.substr(start + 1, i_ - start - 1)), start};
        return cp;
      }
      case 'N': {
        if (peek() != '{') throw Failure{"missing {", i_};
        ++i_;
        std::string name = upTo('}', "missing character name");
        std::optional<uint32_t> cp = lookupCharName(name);
        if (!cp) throw Failure{"undefined character name '" + name + "'", start};
        return *cp;
      }
      case 'a': return 0x07;
      case 'f': return 0x0C;
      case 'n': return 0x0A;
      case 'r': return 0x0D;
      case 't': return 0x09;
      case 'v': return 0x0B;
      default: return std::nullopt;
    }
  }

  // an escape outside a set
  Width escape(bool& repeatable) {
    size_t start = i_;
    ++i_;
    if (!more()) throw Failure{"bad escape (end of pattern)", start};
    char e = p_[i_++];
    switch (e) {
      case 'A':
      case 'b':
      case 'B':
        out_ += '\\';
        out_ += e;
        repeatable = false;
        return {0, 0};
      case 'Z':
        out_ += "\\z";
        repeatable = false;
        return {0, 0};
      case 's':
      case 'S':
        // Python's \s is str.isspace(), which also takes \x1c-\x1f (PCRE2's Unicode \s does not)
        if (!ascii_) {
          out_ += e == 's' ? "[\\s\\x{1c}-\\x{1f}]" : "[^\\s\\x{1c}-\\x{1f}]";
          return {1, 1};
        }
        [[fallthrough]];
      case 'd':
      case 'D':
      case 'w':
      case 'W':
        out_ += '\\';
        out_ += e;
        return {1, 1};
      default: break;
    }
    if (auto cp = characterEscape(e, start)) {
      out_ += codePoint(*cp);
      return {1, 1};
    }
    if (e == '0') {  // up to two more octal digits
      uint32_t v = 0;
      for (int k = 0; k < 2 && isOctal(peek()); ++k) v = v * 8 + static_cast<uint32_t>(p_[i_++] - '0');
      out_ += codePoint(v);
      return {1, 1};
    }
    if (isDigit(e)) {
      // three octal digits are an octal escape; else one or two digits name a group
      if (isDigit(peek())) {
        if (isOctal(e) && isOctal(peek()) && isOctal(peek(1))) {
          uint32_t v = static_cast<uint32_t>((e - '0') * 64 + (peek() - '0') * 8 + (peek(1) - '0'));
          i_ += 2;
          if (v > 0377)
            throw Failure{"octal escape value \\" + std::string(p_.substr(start + 1, 3)) + " outside of range 0-0o377",
                          start};
          out_ += codePoint(v);
          return {1, 1};
        }
        ++i_;
      }
      int number = std::stoi(std::string(p_.substr(start + 1, i_ - start - 1)));
      return groupReference(number, start);
    }
    if (isAsciiLetter(e)) throw Failure{std::string("bad escape \\") + e, start};
    // any other character stands for itself
    --i_;
    size_t b = i_;
    nextChar();
    if (i_ - b == 1) out_ += '\\';
    out_.append(p_.substr(b, i_ - b));
    return {1, 1};
  }

  Width groupReference(int number, size_t at) {
    if (number <= 0 || static_cast<size_t>(number) > groups_.size())
      throw Failure{"invalid group reference " + std::to_string(number), at + 1};
    const GroupInfo& g = groups_[static_cast<size_t>(number) - 1];
    if (!g.closed) throw Failure{"cannot refer to an open group", at};
    out_ += "(?:\\g{" + std::to_string(number) + "})";
    return g.width;
  }

  // a set: [...]
  Width set() {
    size_t start = i_;
    ++i_;
    out_ += '[';
    if (peek() == '^') {
      out_ += '^';
      ++i_;
    }
    bool firstItem = true;
    for (;;) {
      if (!more()) throw Failure{"unterminated character set", start};
      if (peek() == ']' && !firstItem) {
        ++i_;
        out_ += ']';
        return {1, 1};
      }
      firstItem = false;
      size_t itemStart = i_;
      std::optional<uint32_t> lo = setItem();
      if (peek() == '-' && i_ + 1 < p_.size() && p_[i_ + 1] != ']') {
        ++i_;
        std::optional<uint32_t> hi = setItem();
        if (!lo || !hi)
          throw Failure{"bad character range " + std::string(p_.substr(itemStart, i_ - itemStart)), itemStart};
        if (*hi < *lo)
          throw Failure{"bad character range " + std::string(p_.substr(itemStart, i_ - itemStart)), itemStart};
        out_ += codePoint(*lo) + "-" + codePoint(*hi);
      } else if (lo) {
        out_ += codePoint(*lo);
      }
    }
  }
  // one member of a set: its code point, or none for a class escape (\d ...), which it writes
  std::optional<uint32_t> setItem() {
    size_t start = i_;
    if (peek() != '\\') return nextChar();
    ++i_;
    if (!more()) throw Failure{"bad escape (end of pattern)", start};
    char e = p_[i_++];
    switch (e) {
      case 'd':
      case 'D':
      case 's':
      case 'S':
      case 'w':
      case 'W':
        out_ += '\\';
        out_ += e;
        if (e == 's' && !ascii_) out_ += "\\x{1c}-\\x{1f}";  // (as outside a set; \S in a set keeps PCRE2's)
        return std::nullopt;
      case 'b': return 0x08;
      default: break;
    }
    if (auto cp = characterEscape(e, start)) return cp;
    if (isOctal(e)) {
      uint32_t v = static_cast<uint32_t>(e - '0');
      for (int k = 0; k < 2 && isOctal(peek()); ++k) v = v * 8 + static_cast<uint32_t>(p_[i_++] - '0');
      if (v > 0377)
        throw Failure{"octal escape value \\" + std::string(p_.substr(start + 1, i_ - start - 1)) +
                          " outside of range 0-0o377",
                      start};
      return v;
    }
    if (isDigit(e) || isAsciiLetter(e)) throw Failure{std::string("bad escape \\") + e, start};
    --i_;
    return nextChar();
  }

  // the name of a group at i_, up to `end`
  // Python's rule for a group's name (an identifier), `at` its position for the error
  static void checkGroupName(const std::string& name, size_t at) {
    bool ok = !isDigit(name[0]);
    for (char c : name)
      ok = ok && (isAsciiLetter(c) || isDigit(c) || c == '_' || static_cast<unsigned char>(c) >= 0x80);
    if (!ok) throw Failure{"bad character in group name '" + name + "'", at};
  }
  // the name of a group at i_, up to `end`
  std::string groupName(char end) {
    size_t at = i_;
    std::string name = upTo(end, "missing group name");
    checkGroupName(name, at);
    return name;
  }

  Width group(int depth, bool atStart, bool& globalFlags) {
    size_t start = i_;
    ++i_;
    std::string open = "(";
    bool capturing = false;
    bool lookbehind = false;
    std::string name;
    bool savedVerbose = verbose_;
    if (peek() == '?') {
      ++i_;
      char c = peek();
      if (!more()) throw Failure{"unexpected end of pattern", i_};
      ++i_;
      switch (c) {
        case ':': open = "(?:"; break;
        case '>': open = "(?>"; break;
        case '=': open = "(?="; break;
        case '!': open = "(?!"; break;
        case '#': {
          while (more() && peek() != ')') ++i_;
          if (!more()) throw Failure{"missing ), unterminated comment", start};
          ++i_;
          globalFlags = true;  // (nothing to write, not an item)
          return {0, 0};
        }
        case '<': {
          char d = peek();
          if (d == '=' || d == '!') {
            ++i_;
            open = std::string("(?<") + d;
            lookbehind = true;
            break;
          }
          if (!more()) throw Failure{"unexpected end of pattern", i_};
          throw Failure{std::string("unknown extension ?<") + d, start + 1};
        }
        case 'P': {
          char d = peek();
          if (d == '<') {
            ++i_;
            name = groupName('>');
            if (names_.count(name))
              throw Failure{"redefinition of group name '" + name + "' as group " + std::to_string(groups_.size() + 1) +
                                "; was group " + std::to_string(names_[name]),
                            start + 4};
            capturing = true;
            open = "(?P<" + name + ">";
            break;
          }
          if (d == '=') {
            ++i_;
            std::string ref = groupName(')');
            auto it = names_.find(ref);
            if (it == names_.end()) throw Failure{"unknown group name '" + ref + "'", start + 4};
            const GroupInfo& g = groups_[static_cast<size_t>(it->second) - 1];
            if (!g.closed) throw Failure{"cannot refer to an open group", start};
            out_ += "(?:\\g{" + std::to_string(it->second) + "})";
            return g.width;
          }
          if (!more()) throw Failure{"unexpected end of pattern", i_};
          throw Failure{std::string("unknown extension ?P") + d, start + 1};
        }
        case '(': {
          // (?(id/name)yes|no)
          size_t refStart = i_;
          std::string ref = upTo(')', "missing group name");
          int number = 0;
          if (std::all_of(ref.begin(), ref.end(), isDigit)) {
            number = ref.size() > 9 ? 0 : std::stoi(ref);
            if (number == 0 || static_cast<size_t>(number) > groups_.size())
              throw Failure{"invalid group reference " + ref, start + 3};
          } else {
            checkGroupName(ref, refStart);
            auto it = names_.find(ref);
            if (it == names_.end()) throw Failure{"unknown group name '" + ref + "'", start + 3};
            number = it->second;
          }
          out_ += "(?(" + std::to_string(number) + ")";
          Width yes = sequence(depth + 1, false);
          Width no;
          if (peek() == '|') {
            out_ += '|';
            ++i_;
            no = sequence(depth + 1, false);
            if (peek() == '|') throw Failure{"conditional backref with more than two branches", i_};
          }
          if (!more()) throw Failure{"missing ), unterminated subpattern", start};
          ++i_;
          out_ += ')';
          return {std::min(yes.lo, no.lo), std::max(yes.hi, no.hi)};
        }
        default: {
          if (std::string_view("aiLmsux-").find(c) == std::string_view::npos)
            throw Failure{std::string("unknown extension ?") + c, start + 1};
          --i_;
          std::string written;
          bool scoped = flags(written);
          if (!scoped) {
            if (!atStart || depth != 0) throw Failure{"global flags not at the start of the expression", start};
            prefix_ += written;
            globalFlags = true;
            return {0, 0};
          }
          open = written;
          break;
        }
      }
    } else {
      capturing = true;
    }
    size_t number = 0;
    if (capturing) {
      groups_.push_back(GroupInfo{});
      number = groups_.size();
      if (!name.empty()) names_[name] = static_cast<int>(number);
    }
    out_ += open;
    Width w = alternation(depth + 1, false);
    if (!more() || peek() != ')') throw Failure{"missing ), unterminated subpattern", start};
    ++i_;
    out_ += ')';
    verbose_ = savedVerbose;
    if (lookbehind) {
      if (w.lo != w.hi)
        throw Failure{"look-behind requires fixed-width pattern", std::string_view::npos};  // (no position)
      return {0, 0};
    }
    if (open == "(?=" || open == "(?!") return {0, 0};
    if (capturing) {
      groups_[number - 1].closed = true;
      groups_[number - 1].width = w;
    }
    return w;
  }

  // Inline flags at i_ (after `(?`): true and the PCRE2 group opening for `(?flags-flags:`, false
  // and the PCRE2 global setting for `(?flags)`.
  bool flags(std::string& written) {
    std::string on, off;
    bool ascii = false, unicode = false;
    auto add = [&](char c, std::string& to, size_t at) {
      if (c == 'L') throw Failure{"bad inline flags: cannot use 'L' flag with a str pattern", at};
      if (c == 'a') ascii = true;
      else if (c == 'u') unicode = true;
      else if (to.find(c) == std::string::npos) to += c;
      if (ascii && unicode) throw Failure{"bad inline flags: flags 'a', 'u' and 'L' are incompatible", at};
    };
    while (more() && std::string_view("aiLmsux").find(peek()) != std::string_view::npos) add(p_[i_], on, i_), ++i_;
    if (peek() == ')') {
      ++i_;
      if (on.find('x') != std::string::npos) verbose_ = true;
      if (ascii) ascii_ = true;
      written = on.empty() ? "" : "(?" + on + ")";
      return false;
    }
    if (peek() == '-') {
      ++i_;
      if (!more()) throw Failure{"missing flag", i_};
      if (std::string_view("aiLmsux").find(peek()) == std::string_view::npos) throw Failure{"unknown flag", i_};
      while (more() && std::string_view("aiLmsux").find(peek()) != std::string_view::npos) {
        char c = p_[i_];
        if (c == 'a' || c == 'L' || c == 'u')
          throw Failure{"bad inline flags: cannot turn off flags 'a', 'u' and 'L'", i_};
        if (on.find(c) != std::string::npos) throw Failure{"bad inline flags: flag turned on and off", i_};
        if (off.find(c) == std::string::npos) off += c;
        ++i_;
      }
      if (off.find('x') != std::string::npos) verbose_ = false;
    }
    if (!more()) throw Failure{"missing -, : or )", i_};
    if (peek() != ':') {
      if (isAsciiLetter(peek())) throw Failure{"unknown flag", i_};
      throw Failure{"missing -, : or )", i_};
    }
    ++i_;
    if (on.find('x') != std::string::npos) verbose_ = true;
    written = "(?" + on + (off.empty() ? "" : "-" + off) + ":";
    return true;
  }

  struct GroupInfo {
    bool closed = false;
    Width width;
  };

  std::string_view p_;
  size_t i_ = 0;
  std::string out_;
  std::string prefix_;  // global flags, written first
  std::vector<GroupInfo> groups_;
  std::map<std::string, int> names_;
  bool verbose_ = false;
  bool ascii_ = false;
};

// Python reports positions in code points
size_t codePointsBefore(std::string_view s, size_t bytes) {
  size_t n = 0;
  for (size_t k = 0; k < bytes && k < s.size(); ++k)
    if ((static_cast<unsigned char>(s[k]) & 0xC0) != 0x80) ++n;
  return n;
}

}  // namespace

std::unique_ptr<PyRegex> PyRegex::compile(std::string_view pattern, std::string& error) {
  std::string translated;
  bool ascii = false;
  try {
    Translator t(pattern);
    translated = t.run();
    ascii = t.ascii();
  } catch (const Translator::Failure& f) {
    error = f.message;
    if (f.at != std::string_view::npos) error += " at position " + std::to_string(codePointsBefore(pattern, f.at));
    return nullptr;
  }
  int code = 0;
  PCRE2_SIZE offset = 0;
  pcre2_code* re = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(translated.data()), translated.size(),
                                 PCRE2_UTF | (ascii ? 0 : PCRE2_UCP), &code, &offset, nullptr);
  if (re == nullptr) {
    PCRE2_UCHAR buffer[256];
    pcre2_get_error_message(code, buffer, sizeof buffer);
    error = std::string(reinterpret_cast<char*>(buffer));
    return nullptr;
  }
  std::unique_ptr<PyRegex> result(new PyRegex());
  result->pattern_ = std::string(pattern);
  result->code_ = re;
  return result;
}

PyRegex::~PyRegex() { pcre2_code_free(static_cast<pcre2_code*>(code_)); }

bool PyRegex::run(std::string_view subject, bool anchored) const {
  auto* re = static_cast<pcre2_code*>(code_);
  pcre2_match_data* md = pcre2_match_data_create_from_pattern(re, nullptr);
  int rc = pcre2_match(re, reinterpret_cast<PCRE2_SPTR>(subject.data()), subject.size(), 0,
                       anchored ? PCRE2_ANCHORED : 0, md, nullptr);
  pcre2_match_data_free(md);
  return rc >= 0;
}

bool PyRegex::matchPrefix(std::string_view subject) const { return run(subject, true); }
bool PyRegex::search(std::string_view subject) const { return run(subject, false); }

}  // namespace inmanta::compiler
