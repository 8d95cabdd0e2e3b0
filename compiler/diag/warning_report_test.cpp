#include "compiler/diag/warning_report.h"

#include <gtest/gtest.h>

#include <sstream>

namespace inmanta::compiler {
namespace {

constexpr const char* kNumber = "Type 'number' is deprecated, use 'float' or 'int' instead";

std::string printed(WarningReport& report, bool verbose) {
  std::ostringstream out;
  report.print(out, verbose);
  return out.str();
}

TEST(WarningReport, BundledPlacesOnlyWhenVerbose) {
  WarningReport report;
  report.add("TypeDeprecationWarning", kNumber, "/usr/share/inmanta/modules/std/model/_init.cf:157:5", true);
  EXPECT_EQ(printed(report, false), "");
  report.add("TypeDeprecationWarning", kNumber, "/usr/share/inmanta/modules/std/model/_init.cf:157:5", true);
  EXPECT_EQ(printed(report, true), std::string("TypeDeprecationWarning: ") + kNumber +
                                       " (/usr/share/inmanta/modules/std/model/_init.cf:157:5)\n");
}

TEST(WarningReport, OneLinePerWarningWithTheCountOfItsOtherPlaces) {
  WarningReport report;
  report.add("TypeDeprecationWarning", kNumber, "std/_init.cf:1:5", true);
  report.add("TypeDeprecationWarning", kNumber, "./main.cf:3:5", false);
  report.add("VariableShadowWarning", "Variable `x` shadowed", "./main.cf:9", false);
  report.add("TypeDeprecationWarning", kNumber, "./main.cf:7:5", false);
  report.add("TypeDeprecationWarning", kNumber, "./main.cf:3:5", false);  // the same place again
  report.add("TypeDeprecationWarning", kNumber, "./main.cf:8:5", false);
  EXPECT_EQ(printed(report, false), std::string("TypeDeprecationWarning: ") + kNumber +
                                        " (./main.cf:3:5)\n"
                                        "    and 2 more places (-v lists them)\n"
                                        "VariableShadowWarning: Variable `x` shadowed (./main.cf:9)\n");
}

TEST(WarningReport, VerboseListsEveryPlace) {
  WarningReport report;
  report.add("TypeDeprecationWarning", kNumber, "std/_init.cf:1:5", true);
  report.add("TypeDeprecationWarning", kNumber, "./main.cf:3:5", false);
  report.add("PluginDeprecationWarning", "Plugin 'std::select' is deprecated.", "", false);
  EXPECT_EQ(printed(report, true), std::string("TypeDeprecationWarning: ") + kNumber +
                                       " (std/_init.cf:1:5)\n"
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
