// The warnings of one compile, gathered and printed together: each distinct warning (the same
// kind and message) once, and those about code the user does not own (the std module shipped
// with the binary) only when asked for (-v), since the user cannot act on them (issue 32).
#pragma once

#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "compiler/diag/style.h"

namespace inmanta::compiler {

class WarningReport {
 public:
  // Where a warning was found, for readers that take it apart (--json): the file as printed, and
  // the line and column (0: not known).
  struct Position {
    std::string file;
    uint32_t line = 0;
    uint32_t column = 0;
  };
  struct Place {
    std::string text;  // the formatted location, empty when there is none
    bool bundled = false;
    Position position;
  };
  struct Warning {
    std::string kind;
    std::string message;
    std::vector<Place> places;
  };

  // One occurrence: `kind` as printed (TypeDeprecationWarning), `place` the formatted location
  // (empty when there is none), `bundled` when it lies in the bundled std.
  // `position`: the same place taken apart (none: the JSON document says null).
  void add(const std::string& kind, const std::string& message, const std::string& place, bool bundled);
  void add(const std::string& kind, const std::string& message, const std::string& place, bool bundled,
           Position position);

  // The warnings gathered since the last take, in the order they were first found, each with the
  // places to show: without `verbose` those outside the bundled std (a warning with none is
  // left out), with it every place. Forgets them.
  std::vector<Warning> take(bool verbose);

  // Prints what take() gives: a warning at its first place, then without `verbose` the count of
  // its other places, with it each of them.
  void print(std::ostream& err, bool verbose, const Style& style = Style());

 private:
  std::vector<Warning> warnings_;
  std::map<std::pair<std::string, std::string>, size_t> index_;  // (kind, message) -> warnings_
};

}  // namespace inmanta::compiler
