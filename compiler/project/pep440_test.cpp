#include "compiler/project/pep440.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace inmanta::compiler {
namespace {

Version v(const char* text) {
  auto parsed = Version::parse(text);
  EXPECT_TRUE(parsed.has_value()) << text;
  return parsed.value_or(Version());
}

bool matches(const char* requirement, const char* version, bool pre = false) {
  return Requirement::parse(requirement).contains(v(version), pre);
}

TEST(Pep440, ParsesAndNormalises) {
  EXPECT_EQ(v("1.0").str(), "1.0");
  EXPECT_EQ(v("v1.2.3").str(), "1.2.3");
  EXPECT_EQ(v("1.0-RC1").str(), "1.0rc1");
  EXPECT_EQ(v("1.0alpha").str(), "1.0a0");
  EXPECT_EQ(v("1.0-1").str(), "1.0.post1");
  EXPECT_EQ(v("2!1.0.post2.dev3+Ubuntu-1").str(), "2!1.0.post2.dev3+ubuntu.1");
  EXPECT_FALSE(Version::parse("1.0.x"));
  EXPECT_FALSE(Version::parse(""));
  EXPECT_FALSE(Version::parse("master"));
  EXPECT_FALSE(Version::parse("99999999999999999999"));
  EXPECT_FALSE(Version::parse(std::string(100000, '1')));
}

TEST(Pep440, OrdersAsPep440) {
  const char* ordered[] = {"1.0.dev0",  "1.0a1",          "1.0a2.dev1", "1.0a2", "1.0b1", "1.0rc1", "1.0",
                           "1.0+local", "1.0.post1.dev0", "1.0.post1",  "1.1",   "1.10",  "1!0.1"};
  for (size_t i = 0; i + 1 < std::size(ordered); ++i) EXPECT_LT(v(ordered[i]), v(ordered[i + 1])) << ordered[i];
  EXPECT_EQ(v("1.0"), v("1.0.0"));
  EXPECT_TRUE(v("1.0rc1").isPrerelease());
  EXPECT_TRUE(v("1.0.dev1").isPrerelease());
  EXPECT_FALSE(v("1.0.post1").isPrerelease());
}

TEST(Pep440, Operators) {
  EXPECT_TRUE(matches("m == 1.0", "1.0.0"));
  EXPECT_TRUE(matches("m == 1.0", "1.0+local"));
  EXPECT_FALSE(matches("m == 1.0", "1.0.1"));
  EXPECT_TRUE(matches("m == 1.*", "1.9.3"));
  EXPECT_FALSE(matches("m == 1.*", "2.0"));
  EXPECT_TRUE(matches("m != 1.0.3", "1.0.4"));
  EXPECT_FALSE(matches("m != 1.0.3", "1.0.3"));
  EXPECT_TRUE(matches("m < 2.0", "1.9"));
  EXPECT_FALSE(matches("m < 2.0", "2.0rc1", true));  // < V excludes V's pre-releases
  EXPECT_TRUE(matches("m <= 2.0", "2.0"));
  EXPECT_TRUE(matches("m > 1.0", "1.1"));
  EXPECT_FALSE(matches("m > 1.0", "1.0.post1"));  // > V excludes V's post-releases
  EXPECT_TRUE(matches("m >= 1.0", "1.0"));
  EXPECT_TRUE(matches("m ~= 1.0", "1.1.0"));
  EXPECT_FALSE(matches("m ~= 1.0", "2.0.0"));
  EXPECT_FALSE(matches("m ~= 1.0", "0.9"));
  EXPECT_TRUE(matches("m ~= 1.4.5", "1.4.9"));
  EXPECT_FALSE(matches("m ~= 1.4.5", "1.5.0"));
  EXPECT_TRUE(matches("m >=1.0,<2", "1.5"));
  EXPECT_FALSE(matches("m >=1.0,<2", "2.0"));
  EXPECT_TRUE(matches("m === 1.0", "1.0"));
}

TEST(Pep440, PrereleasesOnlyWhenAsked) {
  EXPECT_FALSE(matches("m >= 1.0", "2.0rc1"));
  EXPECT_TRUE(matches("m >= 1.0", "2.0rc1", true));
  EXPECT_TRUE(matches("m >= 2.0rc1", "2.0rc2"));  // a specifier naming a pre-release asks for them
  EXPECT_FALSE(matches("m", "2.0b1"));
}

TEST(Pep440, RequirementParsing) {
  Requirement r = Requirement::parse("  my-mod ~=1.0, != 1.0.3 ");
  EXPECT_EQ(r.name, "my_mod");
  ASSERT_EQ(r.specifiers.size(), 2u);
  EXPECT_EQ(r.str(), "my_mod ~= 1.0,!= 1.0.3");
  EXPECT_EQ(Requirement::parse("std").str(), "std");
  EXPECT_THROW(Requirement::parse("m ~= 1"), std::invalid_argument);
  EXPECT_THROW(Requirement::parse("m => 1.0"), std::invalid_argument);
  EXPECT_THROW(Requirement::parse("m == abc"), std::invalid_argument);
  EXPECT_THROW(Requirement::parse("m >= 1.0,"), std::invalid_argument);
  EXPECT_THROW(Requirement::parse("== 1.0"), std::invalid_argument);
  EXPECT_THROW(Requirement::parse("m >= 1.*"), std::invalid_argument);
}

}  // namespace
}  // namespace inmanta::compiler
