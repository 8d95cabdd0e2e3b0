#include "compiler/diag/diagnostics_json.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace inmanta::compiler {
namespace {

using Json = nlohmann::json;

class DiagnosticsJson : public ::testing::Test {
 protected:
  SourceManager sources;
  FileId main = sources.add("/p/main.cf", "./main.cf", "x = 1\nstd::File(content=1)\n");

  Json only(const DiagnosticsDocument& doc, bool success = false) {
    Json parsed = Json::parse(doc.dump(success));
    EXPECT_EQ(parsed["schema"], "inmanta-diagnostics/1");
    EXPECT_EQ(parsed["success"], success);
    EXPECT_EQ(parsed["diagnostics"].size(), 1u);
    return parsed["diagnostics"][0];
  }
};

TEST_F(DiagnosticsJson, AnErrorWithItsRangeCausesAndNotes) {
  Diagnostic error(ErrorKind::AttributeException, "Could not set attribute `content`", {main, 2, 11});
  error.end = {main, 2, 19};
  error.causes.emplace_back(ErrorKind::RuntimeException, "Invalid value '1', expected string",
                            SourceLocation{main, 2, 11});
  error.notes.push_back({"in this constructor", {main, 2, 1}});
  DiagnosticsDocument doc;
  doc.addError(error, sources);
  Json d = only(doc);
  EXPECT_EQ(d["severity"], "error");
  EXPECT_EQ(d["kind"], "AttributeException");
  EXPECT_EQ(d["file"], "./main.cf");
  EXPECT_EQ(d["line"], 2);
  EXPECT_EQ(d["column"], 11);
  EXPECT_EQ(d["range"], Json::parse(R"({"start": {"line": 2, "column": 11}, "end": {"line": 2, "column": 19}})"));
  ASSERT_EQ(d["causes"].size(), 1u);
  EXPECT_EQ(d["causes"][0]["kind"], "RuntimeException");
  EXPECT_EQ(d["causes"][0]["range"]["end"]["column"], 11);  // no end known: the caret's column
  EXPECT_EQ(d["notes"], Json::parse(R"([{"message": "in this constructor", "file": "./main.cf", "line": 2,
                                          "column": 1}])"));
}

TEST_F(DiagnosticsJson, AColumnTheTextDoesNotPrintIsNull) {
  DiagnosticsDocument doc;
  doc.addError(Diagnostic(ErrorKind::NotFoundException, "x", {main, 1, 5}, false), sources);
  Json d = only(doc);
  EXPECT_EQ(d["line"], 1);
  EXPECT_TRUE(d["column"].is_null());
  EXPECT_EQ(d["range"]["start"]["column"], 5);
}

TEST_F(DiagnosticsJson, APythonExceptionIsACauseOfItsClass) {
  Diagnostic error(ErrorKind::ExternalException, "plugin failed", {main, 1, 1});
  error.nativeCause = "AssertionError: boom";
  DiagnosticsDocument doc;
  doc.addError(error, sources);
  Json cause = only(doc)["causes"][0];
  EXPECT_EQ(cause["kind"], "AssertionError");
  EXPECT_EQ(cause["message"], "boom");
  EXPECT_TRUE(cause["file"].is_null());
}

TEST_F(DiagnosticsJson, AWarningIsOneDiagnosticPerPlace) {
  WarningReport report;
  report.add("TypeDeprecationWarning", "number", "./main.cf:1:5", false, {"./main.cf", 1, 5});
  report.add("TypeDeprecationWarning", "number", "./main.cf:2:5", false, {"./main.cf", 2, 5});
  report.add("TypeDeprecationWarning", "number", "/std/_init.cf:3:5", true, {"/std/_init.cf", 3, 5});
  DiagnosticsDocument doc;
  doc.addWarnings(report.take(false));
  Json parsed = Json::parse(doc.dump(true));
  ASSERT_EQ(parsed["diagnostics"].size(), 2u);  // the bundled std's place only with -v
  EXPECT_EQ(parsed["diagnostics"][1]["severity"], "warning");
  EXPECT_EQ(parsed["diagnostics"][1]["line"], 2);
  EXPECT_TRUE(parsed["diagnostics"][1]["range"].is_null());
}

TEST_F(DiagnosticsJson, AFailureWithoutAPlace) {
  DiagnosticsDocument doc;
  doc.addFailure("ExportFailure", "the server said no");
  Json d = only(doc);
  EXPECT_EQ(d["kind"], "ExportFailure");
  EXPECT_TRUE(d["file"].is_null() && d["line"].is_null() && d["range"].is_null());
}

TEST(DiagnosticStyle, ColourOnlyWrapsThePartsInEscapes) {
  SourceManager sources;
  FileId main = sources.add("/p/main.cf", "./main.cf", "x = y\n");
  Diagnostic error(ErrorKind::NotFoundException, "variable y not found", {main, 1, 5});
  std::string plain = renderDiagnostic(error, sources);
  EXPECT_EQ(plain, "NotFoundException: variable y not found (./main.cf:1:5)\n    x = y\n        ^\n");
  std::string coloured = renderDiagnostic(error, sources, Style(true));
  EXPECT_EQ(coloured,
            "\x1b[1;31mNotFoundException\x1b[0m: variable y not found (\x1b[1m./main.cf:1:5\x1b[0m)\n    x = y\n"
            "        \x1b[1;32m^\x1b[0m\n");
}

TEST(DiagnosticStyle, TheCaretUnderlinesAConstructWhoseEndIsKnown) {
  SourceManager sources;
  FileId main = sources.add("/p/main.cf", "./main.cf", "A(\tname=1)\n");
  Diagnostic error(ErrorKind::AttributeException, "Could not set attribute `name`", {main, 1, 4});
  error.end = {main, 1, 7};
  error.causes.emplace_back(ErrorKind::RuntimeException, "Invalid value '1', expected string",
                            SourceLocation{main, 1, 9});
  error.notes.push_back({"in this constructor call", {main, 1, 2}});
  EXPECT_EQ(renderDiagnostic(error, sources),
            "AttributeException: Could not set attribute `name` (./main.cf:1:4)\n"
            "    A(    name=1)\n"
            "          ^~~~\n"
            "caused by: RuntimeException: Invalid value '1', expected string (./main.cf:1:9)\n"
            "note: in this constructor call (./main.cf:1:2)\n");
}

}  // namespace
}  // namespace inmanta::compiler
