#include "util/iso_time.h"

#include <gtest/gtest.h>

namespace inmanta::util {
namespace {

using namespace std::chrono;

TEST(IsoTimestamp, UtcWithMicroseconds) {
  EXPECT_EQ(isoTimestamp(sys_time<microseconds>(microseconds(1700000000123456))), "2023-11-14T22:13:20.123456+00:00");
  EXPECT_EQ(isoTimestamp(sys_time<microseconds>(microseconds(0))), "1970-01-01T00:00:00.000000+00:00");
  EXPECT_EQ(isoTimestamp(sys_days(year(2026) / 2 / 28) + hours(23) + minutes(59) + seconds(59) + microseconds(999999)),
            "2026-02-28T23:59:59.999999+00:00");
  EXPECT_EQ(isoTimestamp(sys_days(year(9) / 1 / 2) + microseconds(7)), "0009-01-02T00:00:00.000007+00:00");
}

TEST(IsoTimestamp, YearsOfMoreThanFourDigits) {
  EXPECT_EQ(isoTimestamp(sys_days(year(12345) / 6 / 7) + seconds(1)), "12345-06-07T00:00:01.000000+00:00");
}

}  // namespace
}  // namespace inmanta::util
