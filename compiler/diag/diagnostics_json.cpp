#include "compiler/diag/diagnostics_json.h"

#include <nlohmann/json.hpp>

namespace inmanta::compiler {

namespace {

using Json = nlohmann::ordered_json;

// Every member a diagnostic has, the place ones null until known.
Json skeleton(const char* severity, const std::string& kind, const std::string& message) {
  return Json{{"severity", severity},  {"kind", kind},      {"message", message}, {"file", nullptr},
              {"line", nullptr},       {"column", nullptr}, {"range", nullptr},   {"causes", Json::array()},
              {"notes", Json::array()}};
}

Json lineColumn(uint32_t line, uint32_t column) {
  return Json{{"line", line}, {"column", column == 0 ? Json(nullptr) : Json(column)}};
}

// file, line and column of `at` into `out` (left null when `at` names nothing).
void place(Json& out, const SourceLocation& at, const SourceManager& sources, bool wholeFile = false) {
  if (at.file == kNoFile || at.file >= sources.size() || (!at.valid() && !wholeFile)) return;
  out["file"] = sources.file(at.file).display;
  out["line"] = at.line;
  if (at.col != 0) out["column"] = at.col;
}

Json errorJson(const Diagnostic& d, const SourceManager& sources) {
  Json out = skeleton("error", kindName(d.kind), d.message);
  place(out, d.location, sources, d.wholeFile);
  if (!d.showColumn) out["column"] = nullptr;  // as the text: a column the reference does not print
  SourceLocation start = d.caret.valid() ? d.caret : d.location;
  if (start.valid() && start.col != 0) {
    // the range is the construct the caret points at: one column unless its end is known
    bool ends = d.end.valid() && d.end.file == start.file && d.end.col != 0;
    out["range"] = Json{{"start", lineColumn(start.line, start.col)},
                        {"end", ends ? lineColumn(d.end.line, d.end.col) : lineColumn(start.line, start.col)}};
  }
  for (const Diagnostic& cause : d.causes) out["causes"].push_back(errorJson(cause, sources));
  if (!d.nativeCause.empty()) {
    // "AssertionError: boom": the Python exception's class is its kind
    size_t colon = d.nativeCause.find(": ");
    bool named = colon != std::string::npos && d.nativeCause.find_first_of(" \n") >= colon;
    out["causes"].push_back(skeleton("error", named ? d.nativeCause.substr(0, colon) : "PythonException",
                                     named ? d.nativeCause.substr(colon + 2) : d.nativeCause));
  }
  for (const DiagnosticNote& note : d.notes) {
    Json n{{"message", note.message}, {"file", nullptr}, {"line", nullptr}, {"column", nullptr}};
    place(n, note.location, sources);
    out["notes"].push_back(std::move(n));
  }
  return out;
}

}  // namespace

void DiagnosticsDocument::addWarnings(const std::vector<WarningReport::Warning>& warnings) {
  for (const WarningReport::Warning& w : warnings)
    for (const WarningReport::Place& p : w.places) {
      Json out = skeleton("warning", w.kind, w.message);
      if (!p.position.file.empty()) {
        out["file"] = p.position.file;
        out["line"] = p.position.line;
        if (p.position.column != 0) out["column"] = p.position.column;
      }
      diagnostics_.push_back(out.dump());
    }
}

void DiagnosticsDocument::addError(const Diagnostic& error, const SourceManager& sources) {
  diagnostics_.push_back(errorJson(error, sources).dump());
}

void DiagnosticsDocument::addFailure(const std::string& kind, const std::string& message) {
  diagnostics_.push_back(skeleton("error", kind, message).dump());
}

std::string DiagnosticsDocument::dump(bool success) const {
  // the diagnostics are serialised as they come (nlohmann's compact form, as here)
  std::string out = std::string(R"({"schema":")") + kDiagnosticsSchema + R"(","success":)" +
                    (success ? "true" : "false") + R"(,"diagnostics":[)";
  for (size_t i = 0; i < diagnostics_.size(); ++i) out += (i == 0 ? "" : ",") + diagnostics_[i];
  return out + "]}\n";
}

}  // namespace inmanta::compiler
