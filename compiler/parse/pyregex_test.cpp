// Python `re` patterns on PCRE2 (spec 9.6): what Python accepts and refuses, and what matches,
// checked against CPython 3.11's re.compile and re.match.
#include "compiler/parse/pyregex.h"

#include <gtest/gtest.h>

namespace inmanta::compiler {
namespace {

std::string refused(const char* pattern) {
  std::string error;
  return PyRegex::compile(pattern, error) ? std::string("accepted") : error;
}

bool matches(const char* pattern, const char* subject) {
  std::string error;
  auto re = PyRegex::compile(pattern, error);
  EXPECT_TRUE(re) << pattern << ": " << error;
  return re && re->matchPrefix(subject);
}

TEST(PyRegex, RefusesWhatPythonRefuses) {
  EXPECT_EQ(refused("\\p{L}"), "bad escape \\p at position 0");
  for (const char* pcreOnly : {"\\K", "\\h", "\\R", "\\X", "\\G", "\\e", "\\cA", "\\o{101}", "\\Qa\\E", "\\z"})
    EXPECT_NE(refused(pcreOnly).find("bad escape"), std::string::npos) << pcreOnly;
  EXPECT_EQ(refused("\\x4"), "incomplete escape \\x4 at position 0");
  EXPECT_EQ(refused("\\777"), "octal escape value \\777 outside of range 0-0o377 at position 0");
  EXPECT_EQ(refused("\\1(a)"), "invalid group reference 1 at position 1");
  EXPECT_EQ(refused("(a\\1)"), "cannot refer to an open group at position 2");
  EXPECT_EQ(refused("(?|a)"), "unknown extension ?| at position 1");
  EXPECT_EQ(refused("(?<n>a)"), "unknown extension ?<n at position 1");
  EXPECT_EQ(refused("(?P<a>x)(?P>a)"), "unknown extension ?P> at position 9");
  EXPECT_EQ(refused("(?<!ab|c)d"), "look-behind requires fixed-width pattern");
  EXPECT_EQ(refused("^a(?i)bc"), "global flags not at the start of the expression at position 2");
  EXPECT_EQ(refused("a|(?i)b"), "global flags not at the start of the expression at position 2");
  EXPECT_EQ(refused("a**"), "multiple repeat at position 2");
  EXPECT_EQ(refused("^*"), "nothing to repeat at position 1");
  EXPECT_EQ(refused("a{2,1}"), "min repeat greater than max repeat at position 2");
  EXPECT_EQ(refused("[z-a]"), "bad character range z-a at position 1");
  EXPECT_EQ(refused("[\\d-z]"), "bad character range \\d-z at position 1");
  EXPECT_EQ(refused("a)"), "unbalanced parenthesis at position 1");
  EXPECT_EQ(refused("(a"), "missing ), unterminated subpattern at position 0");
  EXPECT_EQ(refused("[a"), "unterminated character set at position 0");
  EXPECT_EQ(refused("\\N{NOPE}"), "undefined character name 'NOPE' at position 0");
  EXPECT_EQ(refused("(?P<a>a)(?P<a>b)"), "redefinition of group name 'a' as group 2; was group 1 at position 12");
}

TEST(PyRegex, AcceptsWhatPythonAccepts) {
  for (const char* ok :
       {"(?a)\\w", "(?u)a", "(?i)(?m)abc", "(?P<a>x)(?P=a)", "(?<=ab|cd)e", "(?>ab)c", "a*+b", "(a)(?(1)b|c)",
        "a(?#comment)b", "(?x) a b # c", "a{,}b", "a{}", "\\N{BULLET}", "\\377", "(?s:.)", "(?i-m:a)"})
    EXPECT_EQ(refused(ok), "accepted") << ok;
}

TEST(PyRegex, MatchesAsPython) {
  EXPECT_TRUE(matches("\\v", "\x0b"));
  EXPECT_FALSE(matches("\\v", "\n"));           // PCRE2's \v would take any vertical space
  EXPECT_TRUE(matches("a{,2}$", "aa"));         // PCRE2 10.42 reads {,2} as text
  EXPECT_TRUE(matches("[[:alpha:]]+$", "a]"));  // a set of [ : a l p h, then ]: no POSIX class
  EXPECT_FALSE(matches("[[:alpha:]]+$", "ab"));
  EXPECT_TRUE(matches("\\N{LATIN SMALL LETTER E WITH ACUTE}", "\xC3\xA9"));
  EXPECT_TRUE(matches("\\N{bullet}", "\xE2\x80\xA2"));  // names match without regard to case
  EXPECT_TRUE(matches("(?i)\xC3\x89", "\xC3\xA9"));
  EXPECT_TRUE(matches("\\w+$", "\xC3\xA9t\xC3\xA9"));
  EXPECT_FALSE(matches("(?a)\\w+$", "\xC3\xA9t\xC3\xA9"));
  EXPECT_TRUE(matches("(a)\\1$", "aa"));
  EXPECT_TRUE(matches("[\\b]", "\x08"));
  EXPECT_TRUE(matches("a\\Z", "a"));
  EXPECT_FALSE(matches("a\\Z", "a\n"));
  EXPECT_TRUE(matches("a$", "a\n"));
  EXPECT_TRUE(matches("^\\s$", "\x1c"));  // str.isspace() takes the separators \x1c-\x1f
  EXPECT_FALSE(matches("^\\S$", "\x1f"));
  EXPECT_TRUE(matches("^[\\s]$", "\x1d"));
  EXPECT_FALSE(matches("(?a)^\\s$", "\x1c"));
  EXPECT_TRUE(matches("b", "bc"));  // re.match: anchored at the start only
  EXPECT_FALSE(matches("c", "bc"));
}

}  // namespace
}  // namespace inmanta::compiler
