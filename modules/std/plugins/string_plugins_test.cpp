// Unit tests of the string plugins of std (spec A.8, decision 9.1).
#include "modules/std/plugins/plugin_test_support.h"

namespace inmanta::stdmodule::testing {
namespace {

using StringPlugins = StdPluginTest;

TEST_F(StringPlugins, ReplaceReplacesEveryOccurrenceFromTheLeft) {
  EXPECT_EQ(str("replace", {"a-b-c", "-", "+"}), "a+b+c");
  EXPECT_EQ(str("replace", {"aaa", "aa", "b"}), "ba");
  EXPECT_EQ(str("replace", {"abc", "x", "y"}), "abc");
  EXPECT_EQ(str("replace", {"", "a", "b"}), "");
}

TEST_F(StringPlugins, ReplaceWithEmptyOldInsertsAroundEveryCodePoint) {
  EXPECT_EQ(str("replace", {"abc", "", "-"}), "-a-b-c-");
  EXPECT_EQ(str("replace", {"éa", "", "-"}), "-é-a-");
  EXPECT_EQ(str("replace", {"", "", "-"}), "-");
}

TEST_F(StringPlugins, UpperAndLowerUseFullUnicodeMappings) {
  EXPECT_EQ(str("upper", {"MiXed 1"}), "MIXED 1");
  EXPECT_EQ(str("lower", {"MiXed 1"}), "mixed 1");
  EXPECT_EQ(str("upper", {"abc é"}), "ABC É");
  EXPECT_EQ(str("upper", {"straße"}), "STRASSE");
  EXPECT_EQ(str("upper", {"ﬁx"}), "FIX");
  EXPECT_EQ(str("upper", {"ŉ"}), "ʼN");
  EXPECT_EQ(str("lower", {"ΟΔΟΣ"}), "οδος");  // final sigma
  EXPECT_EQ(str("lower", {"İstanbul"}), "i̇stanbul");
  EXPECT_EQ(str("lower", {"ÀÉÎ"}), "àéî");
  EXPECT_EQ(str("upper", {""}), "");
}

TEST_F(StringPlugins, CapitalizeTitleCasesTheFirstCodePointAndLowersTheRest) {
  EXPECT_EQ(str("capitalize", {"hELLO wORLD"}), "Hello world");
  EXPECT_EQ(str("capitalize", {"1abc"}), "1abc");
  EXPECT_EQ(str("capitalize", {" hello"}), " hello");
  EXPECT_EQ(str("capitalize", {"ß"}), "Ss");
  EXPECT_EQ(str("capitalize", {"ǆemal"}), "ǅemal");
  EXPECT_EQ(str("capitalize", {"ΣΑΣ"}), "Σας");
  EXPECT_EQ(str("capitalize", {"éCOLE"}), "École");
  EXPECT_EQ(str("capitalize", {""}), "");
}

TEST_F(StringPlugins, LimitIsAPythonSliceOfCodePoints) {
  EXPECT_EQ(str("limit", {"abcdef", 3}), "abc");
  EXPECT_EQ(str("limit", {"ab", 10}), "ab");
  EXPECT_EQ(str("limit", {"abcdef", -1}), "abcde");
  EXPECT_EQ(str("limit", {"abcdef", -10}), "");
  EXPECT_EQ(str("limit", {"abcdef", 0}), "");
  EXPECT_EQ(str("limit", {"éàü", 2}), "éà");
  EXPECT_EQ(str("limit", {"éàü", -1}), "éà");
  EXPECT_EQ(str("limit", {"abc", true}), "a");  // a bool is an int
}

TEST_F(StringPlugins, LengthCountsCodePoints) {
  EXPECT_EQ(call("length", {"hello"}).asInt(), 5);
  EXPECT_EQ(call("length", {""}).asInt(), 0);
  EXPECT_EQ(call("length", {"é"}).asInt(), 1);
  EXPECT_EQ(call("length", {"日本語"}).asInt(), 3);
  EXPECT_EQ(call("length", {"😀"}).asInt(), 1);
}

TEST_F(StringPlugins, SplitIsPythonStrSplit) {
  EXPECT_EQ(compiler::runtime::repr(call("split", {"a,b,,c", ","})), "['a', 'b', '', 'c']");
  EXPECT_EQ(compiler::runtime::repr(call("split", {"one", ","})), "['one']");
  EXPECT_EQ(compiler::runtime::repr(call("split", {"", ","})), "['']");
  EXPECT_EQ(compiler::runtime::repr(call("split", {"abc", "abc"})), "['', '']");
  EXPECT_EQ(compiler::runtime::repr(call("split", {"a--b--", "--"})), "['a', 'b', '']");
}

TEST_F(StringPlugins, SplitWithEmptySeparatorIsAValueError) {
  EXPECT_EQ(failure("split", {"abc", ""}), "ValueError: empty separator");
}

TEST_F(StringPlugins, HostnameIsThePartBeforeTheFirstDot) {
  EXPECT_EQ(str("hostname", {"web1.dc1.example.com"}), "web1");
  EXPECT_EQ(str("hostname", {"localhost"}), "localhost");
  EXPECT_EQ(str("hostname", {".example"}), "");
  EXPECT_EQ(str("hostname", {""}), "");
}

TEST_F(StringPlugins, UniqueFileIsPrefixMd5Suffix) {
  EXPECT_EQ(str("unique_file", {"/etc/app/", "seed", ".conf"}), "/etc/app/fe4c0f30aa359c41d9f9a5f69c8c4192.conf");
  EXPECT_EQ(str("unique_file", {"", "é", ""}), "66ddcd97cfdeabb2f6fb8a999b4bc76f");
  // `length` is accepted and ignored
  EXPECT_EQ(str("unique_file", {"p", "", "s", 3}), "pd41d8cd98f00b204e9800998ecf8427es");
}

TEST_F(StringPlugins, Base64ValidationIsStrict) {
  for (const char* ok : {"", "YQ==", "YWI=", "YWJj", "aGVsbG8=", "YWJjZA==", "++++", "////", "YW==", "YR=="})
    EXPECT_TRUE(truth("is_base64_encoded", {ok})) << ok;
  for (const char* bad : {"YQ=", "YQ", "YWJ", "aGVsbG8", "YQ===", "=YQ=", "YQ==YQ==", "Y Q==", "YQ==\n", "Zm9v\n",
                          "====", "Y===", "YQ=a", "ab=c", "é", "YQ-_", "a"})
    EXPECT_FALSE(truth("is_base64_encoded", {bad})) << bad;
}

}  // namespace
}  // namespace inmanta::stdmodule::testing
