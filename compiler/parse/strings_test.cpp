// Escape decoding (spec 1.7, 9.1, 9.3), interpolation matches and str.format parsing; the text
// scans of source/source.h the loader and the parser rely on.
#include "compiler/parse/strings.h"

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

TEST(DecodeEscapes, TextBetweenEscapesIsCopiedAsIs) {
  EXPECT_EQ(decodeEscapes("").value, "");
  EXPECT_EQ(decodeEscapes("plain text, no escapes at all").value, "plain text, no escapes at all");
  EXPECT_EQ(decodeEscapes("\\n").value, "\n");
  EXPECT_EQ(decodeEscapes("ab\\ncd\\tef\\\\").value, "ab\ncd\tef\\");
  DecodedString d = decodeEscapes("x\\qy\\\\z");
  EXPECT_EQ(d.value, "x\\qy\\z");
  EXPECT_TRUE(d.unknownEscape);
  EXPECT_EQ(decodeEscapes("tail\\").error.value_or(""), "\\");
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

// ------------------------------------------------------------------ source text scans

TEST(Source, InvalidUtf8IsFoundAtEveryOffset) {
  // a bad byte at each position of two 16-byte blocks, after ASCII and after valid sequences
  for (const std::string& prefix : {std::string(), std::string("\xC3\xA9\xE6\x97\xA5\xF0\x9F\x98\x80")}) {
    for (size_t at = 0; at < 40; ++at) {
      std::string text = prefix + std::string(at, 'a');
      EXPECT_EQ(findInvalidUtf8(text + "bcd"), std::string::npos);
      for (const char* bad : {"\xFF", "\x80", "\xC3", "\xC3(", "\xC0\xAF", "\xED\xA0\x80", "\xF4\x90\x80\x80"})
        EXPECT_EQ(findInvalidUtf8(text + bad + "tail"), text.size()) << at << " " << bad;
    }
  }
}

TEST(Source, CodePointsAndLineStarts) {
  std::string text;
  std::vector<uint32_t> starts{0};
  size_t codePoints = 0;
  for (int i = 0; i < 50; ++i) {
    text += i % 3 == 0 ? "\xC3\xA9" : i % 3 == 1 ? "\xF0\x9F\x98\x80x" : "ab";
    codePoints += i % 3 == 0 ? 1 : 2;
    EXPECT_EQ(codePointCount(text), codePoints);
    if (i % 4 == 0) {
      text += "\n";
      ++codePoints;
      starts.push_back(static_cast<uint32_t>(text.size()));
    }
  }
  SourceManager sources;
  FileId id = sources.add("a.cf", "./a.cf", text);
  EXPECT_EQ(sources.file(id).lineStarts, starts);
  EXPECT_EQ(sources.file(id).lineText(2), "\xF0\x9F\x98\x80xab\xC3\xA9\xF0\x9F\x98\x80x");
}

TEST(Source, NewlinesNormalisedInPlaceAsByCopy) {
  for (const char* text : {"", "a", "a\r\nb", "a\rb", "\r\r\n\n\r", "x\n\ry\r\n", "no carriage return\n"}) {
    std::string inPlace = text;
    normaliseNewlinesInPlace(inPlace);
    EXPECT_EQ(inPlace, normaliseNewlines(text)) << text;
  }
  EXPECT_EQ(normaliseNewlines("a\r\nb\rc\n"), "a\nb\nc\n");
}

}  // namespace
}  // namespace inmanta::compiler
