#include "util/resource_id.h"

#include <gtest/gtest.h>

namespace inmanta::util {
namespace {

TEST(VersionedId, AppendsTheVersion) {
  EXPECT_EQ(versionedId("std::File[h1,path=/etc/a]", 0), "std::File[h1,path=/etc/a],v=0");
  EXPECT_EQ(versionedId("std::testing::NullResource[ag,name=x]", 12345678901LL),
            "std::testing::NullResource[ag,name=x],v=12345678901");
}

TEST(ParseResourceId, SplitsTheParts) {
  auto parts = parseResourceId("std::File[localhost,path=/etc/motd]");
  ASSERT_TRUE(parts);
  EXPECT_EQ(parts->type, "std::File");
  EXPECT_EQ(parts->agent, "localhost");
  EXPECT_EQ(parts->attribute, "path");
  EXPECT_EQ(parts->value, "/etc/motd");
  EXPECT_FALSE(parts->version);
  EXPECT_EQ(parts->id(), "std::File[localhost,path=/etc/motd]");
}

TEST(ParseResourceId, ReadsTheVersion) {
  auto parts = parseResourceId("std::testing::NullResource[a-1,name=x],v=12345678901");
  ASSERT_TRUE(parts);
  EXPECT_EQ(parts->type, "std::testing::NullResource");
  EXPECT_EQ(parts->agent, "a-1");
  EXPECT_EQ(parts->value, "x");
  ASSERT_TRUE(parts->version);
  EXPECT_EQ(*parts->version, 12345678901LL);
  EXPECT_EQ(parts->id(), "std::testing::NullResource[a-1,name=x]");
  auto zero = parseResourceId("std::File[h,path=/a],v=0");
  ASSERT_TRUE(zero && zero->version);
  EXPECT_EQ(*zero->version, 0);
}

TEST(ParseResourceId, ValueMayHoldSlashesCommasAndEquals) {
  auto parts = parseResourceId("exec::Run[host,command=/bin/sh -c a=b,c/d],v=3");
  ASSERT_TRUE(parts);
  EXPECT_EQ(parts->agent, "host");
  EXPECT_EQ(parts->attribute, "command");
  EXPECT_EQ(parts->value, "/bin/sh -c a=b,c/d");
  EXPECT_EQ(*parts->version, 3);
  // the value's `,v=` is part of the value when `]` follows
  auto tricky = parseResourceId("a::B[h,k=x,v=1]");
  ASSERT_TRUE(tricky);
  EXPECT_EQ(tricky->value, "x,v=1");
  EXPECT_FALSE(tricky->version);
}

TEST(ParseResourceId, RefusesWhatIsNotAnId) {
  for (const char* bad : {"",
                          "File[h,path=/a]",
                          "std::[h,path=/a]",
                          "std::File",
                          "std::File[h,path=/a",
                          "std::File[,path=/a]",
                          "std::File[h,=/a]",
                          "std::File[h,path=]",
                          "std::File[hpath=/a]",
                          "std::File[h,path/a]",
                          "std::File[h,path=/a]x",
                          "std::File[h,path=/a],v=",
                          "std::File[h,path=/a],v=1x",
                          "std::File[h,path=/a],v=-1",
                          "std::File[h,path=/a]]",
                          "std::File[h,path=/a],v=99999999999999999999",
                          "std:File[h,path=/a]",
                          "std::Fi le[h,path=/a]",
                          "std::::File[h,path=/a]",
                          "std::File:[h,path=/a]"})
    EXPECT_FALSE(parseResourceId(bad)) << bad;
}

TEST(StripVersion, KeepsTheIdWithoutVersion) {
  EXPECT_EQ(stripVersion("std::File[h,path=/a],v=4"), "std::File[h,path=/a]");
  EXPECT_EQ(stripVersion("std::File[h,path=/a]"), "std::File[h,path=/a]");
  EXPECT_FALSE(stripVersion("nonsense"));
}

}  // namespace
}  // namespace inmanta::util
