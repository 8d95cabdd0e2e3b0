#include "compiler/diag/warning_report.h"

#include <gtest/gtest.h>

#include <sstream>

namespace inmanta::compiler {
namespace {

const std::string kNumber = "Type 'number' is deprecated, use 'float' or 'int' instead";
const std::string kNumberLine = "TypeDeprecationWarning: " + kNumber;
const std::string kStdPlace = "/usr/share/inmanta/modules/std/model/_init.cf:157:5";

std::string printed(WarningReport& report, bool verbose) {
  std::ostringstream out;
  report.print(out, verbose);
  return out.str();
}

// The deprecation of `number` at each of `places`; those starting with '/' are in the bundled std.
void warnNumber(WarningReport& report, std::initializer_list<std::string> places) {
  for (const std::string& place : places) report.add("TypeDeprecationWarning", kNumber, place, place.front() == '/');
}

TEST(WarningReport, BundledPlacesOnlyWhenVerbose) {
  WarningReport report;
  warnNumber(report, {kStdPlace});
  EXPECT_EQ(printed(report, false), "");
  warnNumber(report, {kStdPlace});
  EXPECT_EQ(printed(report, true), kNumberLine + " (" + kStdPlace + ")\n");
}

TEST(WarningReport, OneLinePerWarningWithTheCountOfItsOtherPlaces) {
  WarningReport report;
  warnNumber(report, {kStdPlace, "./main.cf:3:5"});
  report.add("VariableShadowWarning", "Variable `x` shadowed", "./main.cf:9", false);
  warnNumber(report, {"./main.cf:7:5", "./main.cf:3:5", "./main.cf:8:5"});  // 3:5 again: listed once
  EXPECT_EQ(printed(report, false), kNumberLine +
                                        " (./main.cf:3:5)\n"
                                        "    and 2 more places (-v lists them)\n"
                                        "VariableShadowWarning: Variable `x` shadowed (./main.cf:9)\n");
}

TEST(WarningReport, VerboseListsEveryPlace) {
  WarningReport report;
  warnNumber(report, {kStdPlace, "./main.cf:3:5"});
  report.add("PluginDeprecationWarning", "Plugin 'std::select' is deprecated.", "", false);
  EXPECT_EQ(printed(report, true), kNumberLine + " (" + kStdPlace +
                                       ")\n"
                                       "    also at ./main.cf:3:5\n"
                                       "PluginDeprecationWarning: Plugin 'std::select' is deprecated.\n");
}

TEST(WarningReport, PrintForgetsWhatItPrinted) {
  WarningReport report;
  report.add("CompilerRuntimeWarning", "m", "./main.cf:1", false);
  EXPECT_EQ(printed(report, false), "CompilerRuntimeWarning: m (./main.cf:1)\n");
  EXPECT_EQ(printed(report, false), "");
}

}  // namespace
}  // namespace inmanta::compiler
