// Python `re` patterns on PCRE2 (spec 1.8, 9.6): translation of the syntax that differs, and
// compilation with Unicode semantics as Python applies them to str patterns.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace inmanta::compiler {

class PyRegex {
 public:
  // Compiles a Python pattern; on failure returns null and sets `error` to a message.
  static std::unique_ptr<PyRegex> compile(std::string_view pattern, std::string& error);
  ~PyRegex();
  PyRegex(const PyRegex&) = delete;
  PyRegex& operator=(const PyRegex&) = delete;

  // re.match: anchored at the start, not at the end.
  bool matchPrefix(std::string_view subject) const;
  // re.search: anywhere.
  bool search(std::string_view subject) const;
  const std::string& pattern() const { return pattern_; }

 private:
  PyRegex() = default;
  bool run(std::string_view subject, bool anchored) const;
  std::string pattern_;
  void* code_ = nullptr;  // pcre2_code_8
};

}  // namespace inmanta::compiler
