// f-string formatting against Python's format() (values and specs checked with CPython 3.11).
#include "compiler/exec/format.h"

#include <gtest/gtest.h>

namespace inmanta::compiler::exec {
namespace {

using runtime::Value;

std::string formatted(const Value& v, const std::string& spec) {
  std::string error;
  std::optional<std::string> out = formatValue(v, spec, error);
  return out ? *out : "ERR " + error;
}

TEST(FormatValue, PaddingLikePython) {
  EXPECT_EQ(formatted(Value(std::string("ab")), "05"), "ab000");  // strings: fill only, left aligned
  EXPECT_EQ(formatted(Value(int64_t(-7)), "05"), "-0007");        // numbers: sign-aware
  EXPECT_EQ(formatted(Value(int64_t(-7)), "<05"), "-7000");       // an explicit align keeps the zero fill
  EXPECT_EQ(formatted(Value(int64_t(42)), "*^9"), "***42****");
  EXPECT_EQ(formatted(Value(int64_t(65)), "5c"), "    A");
  EXPECT_EQ(formatted(Value(int64_t(255)), "_b"), "1111_1111");
}

TEST(FormatValue, FloatsLikePython) {
  EXPECT_EQ(formatted(Value(3.14159), ".0"), "3e+00");
  EXPECT_EQ(formatted(Value(123.456), ".3"), "1.23e+02");
  EXPECT_EQ(formatted(Value(12.3456), ".3"), "12.3");
  EXPECT_EQ(formatted(Value(0.1), "#.3"), "0.100");
  EXPECT_EQ(formatted(Value(-0.04), "z.1f"), "0.0");
  EXPECT_EQ(formatted(Value(-0.04), ".1f"), "-0.0");
  EXPECT_EQ(formatted(Value(1234567.891), ",.2f"), "1,234,567.89");
}

TEST(FormatValue, ErrorsLikePython) {
  EXPECT_EQ(formatted(Value(int64_t(42)), ".2"), "ERR Precision not allowed in integer format specifier");
  EXPECT_EQ(formatted(Value(int64_t(42)), ",b"), "ERR Cannot specify ',' with 'b'.");
  EXPECT_EQ(formatted(Value(int64_t(42)), ",_"), "ERR Cannot specify both ',' and '_'.");
  EXPECT_EQ(formatted(Value(int64_t(42)), "z"),
            "ERR Negative zero coercion (z) not allowed in integer format specifier");
  EXPECT_EQ(formatted(Value(int64_t(42)), "+c"), "ERR Sign not allowed with integer format specifier 'c'");
  EXPECT_EQ(formatted(Value(std::string("ab")), "#"), "ERR Alternate form (#) not allowed in string format specifier");
  EXPECT_EQ(formatted(Value(std::string("ab")), "=5"), "ERR '=' alignment not allowed in string format specifier");
  EXPECT_EQ(formatted(Value(std::string("ab")), " "), "ERR Space not allowed in string format specifier");
  EXPECT_EQ(formatted(Value(std::string("ab")), ",s"), "ERR Cannot specify ',' with 's'.");
  EXPECT_EQ(formatted(Value(), ">5"), "ERR unsupported format string passed to NoneValue.__format__");
  EXPECT_EQ(formatted(Value(), ""), "null");
}

TEST(FormatPython, Conversions) {
  std::string error;
  std::vector<std::pair<std::string, Value>> fields{{"x", Value(std::string("\u00e9\n"))},
                                                    {"y", Value(std::string("\U0001F600\x07"))}};
  EXPECT_EQ(formatPython("{x!a} {y!a} {x!r}", fields, error).value_or("ERR " + error),
            "'\\xe9\\n' '\\U0001f600\\x07' '\u00e9\\n'");
  EXPECT_EQ(formatPython("{x!z}", fields, error).value_or("ERR " + error),
            "ERR Invalid f-string: Unknown conversion specifier z");
}

TEST(FormatValue, WholeFloatsPast64BitsAsInts) {
  // the reference turns a float that is a whole number into a Python int, digits and all
  EXPECT_EQ(renderInterpolated(Value(1e30)), "1000000000000000019884624838656");
  EXPECT_EQ(renderInterpolated(Value(-9.3e18)), "-9300000000000000000");
  std::string error;
  EXPECT_EQ(formatValue(Value(1e30), ",", error, true).value_or("ERR " + error),
            "1,000,000,000,000,000,019,884,624,838,656");
  EXPECT_EQ(formatValue(Value(1e30), "x", error, true).value_or("ERR " + error), "c9f2c9cd04675000000000000");
  EXPECT_EQ(formatValue(Value(1e30), ".2", error, true).value_or("ERR " + error),
            "ERR Precision not allowed in integer format specifier");
}

}  // namespace
}  // namespace inmanta::compiler::exec
