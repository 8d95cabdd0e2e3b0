#include "parse/pyregex.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

namespace inmanta::compiler {

namespace {
// Rewrites the few escapes whose meaning differs between Python and PCRE2.
std::optional<std::string> translate(std::string_view py, std::string& out) {
  out.reserve(py.size() + 8);
  for (size_t i = 0; i < py.size(); ++i) {
    char c = py[i];
    if (c != '\\') {
      out += c;
      continue;
    }
    if (i + 1 >= py.size()) return "bad escape (end of pattern)";
    char e = py[i + 1];
    if (e == 'Z') {
      out += "\\z";
      ++i;
    } else if (e == 'u' || e == 'U') {
      size_t digits = e == 'u' ? 4 : 8;
      std::string_view hex = py.substr(i + 2, digits);
      if (hex.size() < digits || hex.find_first_not_of("0123456789abcdefABCDEF") != std::string_view::npos)
        return "incomplete escape \\" + std::string(1, e) + std::string(hex);
      out += "\\x{" + std::string(hex) + "}";
      i += 1 + digits;
    } else if (e == 'z') {
      return "bad escape \\z";
    } else {
      out += c;
      out += e;
      ++i;
    }
  }
  return std::nullopt;
}
}  // namespace

std::unique_ptr<PyRegex> PyRegex::compile(std::string_view pattern, std::string& error) {
  std::string translated;
  if (auto err = translate(pattern, translated)) {
    error = *err;
    return nullptr;
  }
  int code = 0;
  PCRE2_SIZE offset = 0;
  pcre2_code* re = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(translated.data()), translated.size(),
                                 PCRE2_UTF | PCRE2_UCP, &code, &offset, nullptr);
  if (re == nullptr) {
    PCRE2_UCHAR buffer[256];
    pcre2_get_error_message(code, buffer, sizeof buffer);
    error = std::string(reinterpret_cast<char*>(buffer)) + " at position " + std::to_string(offset);
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
