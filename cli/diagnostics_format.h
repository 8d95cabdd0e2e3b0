// --format text|json (and --json on compile): the diagnostics of compile and export as text on
// standard error or as one JSON document on standard output (compiler/diag/diagnostics_json.h),
// for editors and CI. The schema is documented here, in the commands' help and man pages.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace inmanta::cli {

inline const char* const kDiagnosticsJsonHelp =
    "With --format json, standard output carries the diagnostics as one JSON document and nothing else (the "
    "model's std::print output goes to standard error), whether the run succeeds or not: {\"schema\": "
    "\"inmanta-diagnostics/1\", \"success\": true or false, \"diagnostics\": [D, ...]}, each D being "
    "{\"severity\": \"error\" or \"warning\", \"kind\": the error's kind (TypingException) or the warning's "
    "(TypeDeprecationWarning), \"message\": the text (it may span lines), \"file\": the file as the text output "
    "names it, \"line\", \"column\": numbers from 1, \"range\": {\"start\": {\"line\", \"column\"}, \"end\": "
    "{\"line\", \"column\"}} (the first and the last column of the construct the caret marks), \"causes\": [D, ...], "
    "\"notes\": [{\"message\", \"file\", \"line\", \"column\"}, "
    "...]}; file, line, column and range are null when not known. The causes are the errors an error was "
    "caused by (the errors of a MultiException; a plugin's Python exception, with its class as kind); the notes "
    "name the statements that explain an error. A warning found at several places is one D per place. An export "
    "that fails after the model compiled (the server refused it) is an error of kind ExportFailure without a "
    "file. Version 1 may gain members; a change to the existing ones gets a new schema name.";

class DiagnosticsFormat {
 public:
  // --format on `cmd`, and --json as its short form when `jsonFlag` (export's --json names the
  // resource file instead); the schema goes into the command's footer.
  void add(CLI::App* cmd, bool jsonFlag) {
    cmd->add_option("--format", format_, "How to print the diagnostics: text, or json (a JSON document on stdout)")
        ->check(CLI::IsMember({"text", "json"}))
        ->default_str("text");
    if (jsonFlag) cmd->add_flag("--json", json_, "The diagnostics as JSON: --format json");
    std::string footer = cmd->get_footer();
    cmd->footer(footer.empty() ? kDiagnosticsJsonHelp : footer + "\n\n" + kDiagnosticsJsonHelp);
  }
  bool json() const { return json_ || format_ == "json"; }

 private:
  std::string format_ = "text";
  bool json_ = false;
};

}  // namespace inmanta::cli
