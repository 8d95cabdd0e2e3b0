// Escape decoding (spec 1.7, 9.1, 9.3), interpolation matches and str.format parsing.
#include "parse/strings.h"

#include <gtest/gtest.h>

namespace inmanta::compiler {
namespace {

TEST(DecodeEscapes, KnownEscapes) {
  EXPECT_EQ(decodeEscapes("a\\nb\\tc\\\\d\\'e\\\"").value, "a\nb\tc\\d'e\"");
  EXPECT_EQ(decodeEscapes("\\a\\b\\f\\v\\r").value, "\a\b\f\v\r");
  EXPECT_EQ(decodeEscapes("\\x41\\u00e9\\U0001F600").value, "A\xC3\xA9\xF0\x9F\x98\x80");
  EXPECT_EQ(decodeEscapes("\\101\\0\\7").value, std::string("A\0\a", 3));
  EXPECT_EQ(decodeEscapes("line\\\nnext").value, "linenext");
  EXPECT_EQ(decodeEscapes("\\N{LATIN SMALL LETTER E WITH ACUTE}").value, "\xC3\xA9");
}

TEST(DecodeEscapes, UnknownEscapeKeepsTheBackslash) {
  DecodedString d = decodeEscapes("\\. \\d \\{");
  EXPECT_EQ(d.value, "\\. \\d \\{");
  EXPECT_TRUE(d.unknownEscape);
  EXPECT_FALSE(d.error);
}

TEST(DecodeEscapes, MalformedEscapesAreErrors) {
  EXPECT_EQ(decodeEscapes("\\x4").error.value_or(""), "\\x4");
  EXPECT_EQ(decodeEscapes("\\u12").error.value_or(""), "\\u12");
  EXPECT_EQ(decodeEscapes("\\N{NO SUCH NAME}").error.value_or(""), "\\N{NO SUCH NAME}");
  EXPECT_TRUE(decodeEscapes("\\U00110000").error.has_value());
  EXPECT_TRUE(decodeEscapes("abc\\").error.has_value());
}

TEST(DecodeEscapes, NonAsciiTextIsUntouched) { EXPECT_EQ(decodeEscapes("\xC2\xA7\xC3\xA9").value, "\xC2\xA7\xC3\xA9"); }

TEST(Interpolations, FindsEveryMatch) {
  auto m = findInterpolations("a {{ b }} {{c.d}} {{x::y}} {{}} {{ e-f }}");
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(m[0].name, "b");
  EXPECT_EQ(m[1].name, "c.d");
  EXPECT_EQ(m[2].name, "e-f");
  EXPECT_EQ(m[0].begin, 2u);
  EXPECT_EQ(m[0].end, 9u);
}

TEST(Interpolations, NewlinesAroundTheName) {
  auto m = findInterpolations("{{\n  a\n}}");
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].name, "a");
}

TEST(FormatString, ChunksLikePython) {
  std::vector<FormatChunk> c;
  ASSERT_FALSE(parseFormatString("{{x}} {y}", c));
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0].literal, "{");
  EXPECT_FALSE(c[0].hasField);
  EXPECT_EQ(c[1].literal, "x}");
  EXPECT_EQ(c[2].literal, " ");
  EXPECT_EQ(c[2].fieldName, "y");

  c.clear();
  ASSERT_FALSE(parseFormatString("a{b!r:>3}c", c));
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].fieldName, "b");
  EXPECT_EQ(c[0].conversion, U'r');
  EXPECT_EQ(c[0].formatSpec, ">3");
  EXPECT_EQ(c[1].literal, "c");

  c.clear();
  ASSERT_FALSE(parseFormatString("{a:{w}.{p}f}", c));
  EXPECT_EQ(c[0].formatSpec, "{w}.{p}f");
}

TEST(FormatString, ErrorsLikePython) {
  std::vector<FormatChunk> c;
  EXPECT_EQ(parseFormatString("hello {", c).value_or(""), "Single '{' encountered in format string");
  EXPECT_EQ(parseFormatString("}", c).value_or(""), "Single '}' encountered in format string");
  EXPECT_EQ(parseFormatString("{a!}", c).value_or(""), "unmatched '{' in format spec");
  EXPECT_EQ(parseFormatString("{a!rr}", c).value_or(""), "expected ':' after conversion specifier");
  EXPECT_EQ(parseFormatString("{a[}", c).value_or(""), "expected '}' before end of string");
}

}  // namespace
}  // namespace inmanta::compiler
