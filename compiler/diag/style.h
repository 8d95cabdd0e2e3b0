// How diagnostics look on a terminal: the parts a reader looks for first (an error's kind, its
// location, the caret, the "caused by:" and "note:" labels) in colour (ANSI SGR), or plain text
// for pipes and files. The CLI decides which (--color, NO_COLOR, CLICOLOR_FORCE, TERM).
#pragma once

#include <string>
#include <string_view>

namespace inmanta::compiler {

class Style {
 public:
  explicit Style(bool color = false) : color_(color) {}
  bool color() const { return color_; }

  std::string error(std::string_view text) const { return paint("1;31", text); }    // bold red
  std::string warning(std::string_view text) const { return paint("1;33", text); }  // bold yellow
  std::string location(std::string_view text) const { return paint("1", text); }    // bold
  std::string caret(std::string_view text) const { return paint("1;32", text); }    // bold green
  std::string label(std::string_view text) const { return paint("1;36", text); }    // bold cyan
  std::string success(std::string_view text) const { return paint("1;32", text); }  // bold green

 private:
  bool color_;

  std::string paint(std::string_view sgr, std::string_view text) const {
    if (!color_ || text.empty()) return std::string(text);
    std::string out = "\x1b[";
    out.append(sgr).append("m").append(text).append("\x1b[0m");
    return out;
  }
};

}  // namespace inmanta::compiler
