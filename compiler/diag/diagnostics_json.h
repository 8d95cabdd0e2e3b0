// The diagnostics of a compile or an export as one JSON document, for editors and CI
// (`--json`, `--format json`). Its shape is versioned by its "schema" member and documented in
// the man pages of compile and export (cli/cli_reference.cpp):
//
//   {"schema": "inmanta-diagnostics/1", "success": true|false, "diagnostics": [DIAGNOSTIC, ...]}
//   DIAGNOSTIC: {"severity": "error"|"warning", "kind": "TypingException", "message": "...",
//                "file": "./main.cf"|null, "line": 3|null, "column": 5|null,
//                "range": {"start": {"line", "column"}, "end": {"line", "column"}}|null (the first and
//                         the last column of the construct the caret marks),
//                "causes": [DIAGNOSTIC, ...], "notes": [{"message", "file", "line", "column"}, ...]}
//
// A MultiException's errors are its causes; a plugin's Python exception is a cause whose kind is
// the exception's class; a warning found at several places is one diagnostic per place.
#pragma once

#include <string>
#include <vector>

#include "compiler/diag/diagnostic.h"
#include "compiler/diag/warning_report.h"

namespace inmanta::compiler {

inline constexpr const char* kDiagnosticsSchema = "inmanta-diagnostics/1";

class DiagnosticsDocument {
 public:
  // Each place of each warning, in order.
  void addWarnings(const std::vector<WarningReport::Warning>& warnings);
  // An error with its causes and notes, its locations resolved with `sources`.
  void addError(const Diagnostic& error, const SourceManager& sources);
  // An error that has no place in the model (an export that the server refused): `kind` names
  // what failed (ExportFailure).
  void addFailure(const std::string& kind, const std::string& message);

  // The document, on one line with its newline.
  std::string dump(bool success) const;

 private:
  std::vector<std::string> diagnostics_;  // each one serialised
};

}  // namespace inmanta::compiler
