// Unified diffs of file contents (a dry-run's `hash` change shows the two texts' difference),
// made with Debian's libdtl.
#pragma once

#include <string>

namespace inmanta::handlers {

// `--- fromName` / `+++ toName` and the hunks with three lines of context, as `diff -u`; empty
// when the texts are equal. A text whose last line lacks its newline is marked as diff marks it.
std::string unifiedDiff(const std::string& before, const std::string& after, const std::string& fromName,
                        const std::string& toName);

}  // namespace inmanta::handlers
