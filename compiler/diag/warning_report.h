// The warnings of one compile, gathered and printed together: each distinct warning (the same
// kind and message) once, and those about code the user does not own (the std module shipped
// with the binary) only when asked for (-v), since the user cannot act on them (issue 32).
#pragma once

#include <map>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace inmanta::compiler {

class WarningReport {
 public:
  // One occurrence: `kind` as printed (TypeDeprecationWarning), `place` the formatted location
  // (empty when there is none), `bundled` when it lies in the bundled std.
  void add(const std::string& kind, const std::string& message, const std::string& place, bool bundled);

  // Prints the warnings gathered since the last print, in the order they were first found, and
  // forgets them. Without `verbose` a warning is shown at its first place outside the bundled
  // std with the count of its other places (none: not shown); with it, at every place.
  void print(std::ostream& err, bool verbose);

 private:
  struct Place {
    std::string text;
    bool bundled = false;
  };
  struct Warning {
    std::string kind;
    std::string message;
    std::vector<Place> places;
  };
  std::vector<Warning> warnings_;
  std::map<std::pair<std::string, std::string>, size_t> index_;  // (kind, message) -> warnings_
};

}  // namespace inmanta::compiler
