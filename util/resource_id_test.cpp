#include "util/resource_id.h"

#include <gtest/gtest.h>

namespace inmanta::util {
namespace {

TEST(VersionedId, AppendsTheVersion) {
  EXPECT_EQ(versionedId("std::File[h1,path=/etc/a]", 0), "std::File[h1,path=/etc/a],v=0");
  EXPECT_EQ(versionedId("std::testing::NullResource[ag,name=x]", 12345678901LL),
            "std::testing::NullResource[ag,name=x],v=12345678901");
}

}  // namespace
}  // namespace inmanta::util
