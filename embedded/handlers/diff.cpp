#include "embedded/handlers/diff.h"

#include <dtl/dtl.hpp>

#include <string_view>
#include <vector>

namespace inmanta::handlers {

namespace {

// The lines of a text with their newlines, so that a last line without one differs from the same
// line with one (as for diff).
std::vector<std::string> linesOf(std::string_view text) {
  std::vector<std::string> lines;
  while (!text.empty()) {
    auto end = text.find('\n');
    std::size_t length = end == std::string_view::npos ? text.size() : end + 1;
    lines.emplace_back(text.substr(0, length));
    text.remove_prefix(length);
  }
  return lines;
}

void appendLine(std::string& out, char mark, const std::string& line) {
  out += mark;
  out += line;
  if (line.empty() || line.back() != '\n') out += "\n\\ No newline at end of file\n";
}

}  // namespace

std::string unifiedDiff(const std::string& before, const std::string& after, const std::string& fromName,
                        const std::string& toName) {
  if (before == after) return {};
  using Diff = dtl::Diff<std::string, std::vector<std::string>>;
  Diff diff(linesOf(before), linesOf(after));
  diff.onHuge();  // bounded memory on big files, at the price of a less minimal diff
  diff.compose();
  diff.composeUnifiedHunks();
  std::string out = "--- " + fromName + "\n+++ " + toName + "\n";
  for (const auto& hunk : diff.getUniHunks()) {
    out += "@@ -" + std::to_string(hunk.a) + "," + std::to_string(hunk.b) + " +" + std::to_string(hunk.c) + "," +
           std::to_string(hunk.d) + " @@\n";
    for (const auto& [line, info] : hunk.common[0]) appendLine(out, ' ', line);
    for (const auto& [line, info] : hunk.change)
      appendLine(out, info.type == dtl::SES_ADD ? '+' : info.type == dtl::SES_DELETE ? '-' : ' ', line);
    for (const auto& [line, info] : hunk.common[1]) appendLine(out, ' ', line);
  }
  return out;
}

}  // namespace inmanta::handlers
