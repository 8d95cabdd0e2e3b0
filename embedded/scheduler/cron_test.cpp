#include "embedded/scheduler/cron.h"

#include <gtest/gtest.h>

#include <ctime>

namespace inmanta::scheduler {
namespace {

// A UTC time from its parts, and back to text, for readable expectations.
Cron::Time at(int y, int mo, int d, int h = 0, int mi = 0, int s = 0) {
  std::tm tm{};
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = s;
  return Cron::Time(std::chrono::seconds(timegm(&tm)));
}

std::string text(std::optional<Cron::Time> t) {
  if (!t) return "never";
  std::time_t seconds = std::chrono::duration_cast<std::chrono::seconds>(t->time_since_epoch()).count();
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char out[32];
  std::strftime(out, sizeof out, "%Y-%m-%d %H:%M:%S %a", &tm);
  return out;
}

std::string next(const std::string& expression, Cron::Time after) { return text(Cron::parse(expression).next(after)); }

TEST(Cron, FiveFieldsStepsRangesListsAndNames) {
  Cron::Time t = at(2026, 11, 28, 10, 17, 42);  // a Saturday
  EXPECT_EQ(next("* * * * *", t), "2026-11-28 10:18:00 Sat");
  EXPECT_EQ(next("*/15 * * * *", t), "2026-11-28 10:30:00 Sat");
  EXPECT_EQ(next("0 3 * * *", t), "2026-11-29 03:00:00 Sun");
  EXPECT_EQ(next("5,40 9-11 * * *", t), "2026-11-28 10:40:00 Sat");
  EXPECT_EQ(next("0 0 1 jan *", t), "2027-01-01 00:00:00 Fri");
  EXPECT_EQ(next("30 8 * * MON-FRI", t), "2026-11-30 08:30:00 Mon");
  EXPECT_EQ(next("0 12 * * 7", t), "2026-11-29 12:00:00 Sun");  // 7 is Sunday as 0 is
  EXPECT_EQ(next("0 0 * * sun", t), "2026-11-29 00:00:00 Sun");
  EXPECT_EQ(next("10/20 * * * *", t), "2026-11-28 10:30:00 Sat");  // 10, 30, 50
  // strictly after: a time the expression names gives the next one
  EXPECT_EQ(next("0 3 * * *", at(2026, 11, 29, 3)), "2026-11-30 03:00:00 Mon");
}

TEST(Cron, DayOfMonthAndDayOfWeekRestrictedBothMatchEither) {
  Cron::Time t = at(2026, 11, 28, 10);
  // the 1st of the month or any Monday
  EXPECT_EQ(next("0 0 1 * mon", t), "2026-11-30 00:00:00 Mon");
  EXPECT_EQ(next("0 0 1 * mon", at(2026, 11, 30, 1)), "2026-12-01 00:00:00 Tue");
  // only one restricted: that one decides
  EXPECT_EQ(next("0 0 13 * *", t), "2026-12-13 00:00:00 Sun");
  EXPECT_EQ(next("0 0 * * fri", t), "2026-12-04 00:00:00 Fri");
}

TEST(Cron, SixAndSevenFieldsAndMacros) {
  Cron::Time t = at(2026, 11, 28, 10, 17, 42);
  EXPECT_EQ(next("0 0 1 1 * 2030", t), "2030-01-01 00:00:00 Tue");    // 6 fields: a year at the end
  EXPECT_EQ(next("*/10 * * * * * *", t), "2026-11-28 10:17:50 Sat");  // 7: seconds first
  EXPECT_EQ(next("@daily", t), "2026-11-29 00:00:00 Sun");
  EXPECT_EQ(next("@hourly", t), "2026-11-28 11:00:00 Sat");
  EXPECT_EQ(next("@weekly", t), "2026-11-29 00:00:00 Sun");
  EXPECT_EQ(next("@monthly", t), "2026-12-01 00:00:00 Tue");
  EXPECT_EQ(next("@yearly", t), "2027-01-01 00:00:00 Fri");
  EXPECT_EQ(next("0 0 29 2 *", t), "2028-02-29 00:00:00 Tue");  // the next leap day
  EXPECT_EQ(next("0 0 31 2 *", t), "never");
  EXPECT_EQ(next("0 0 1 1 * 2020", t), "never");
}

TEST(Cron, InvalidExpressionsSayWhy) {
  auto why = [](const std::string& expression) {
    try {
      Cron::parse(expression);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(why("* * *"),
            "a cron expression has 5, 6 or 7 fields ([second] minute hour day-of-month month day-of-week [year]), "
            "this one has 3");
  EXPECT_EQ(why("60 * * * *"), "the minute 60 is not in 0-59");
  EXPECT_EQ(why("* 24 * * *"), "the hour 24 is not in 0-23");
  EXPECT_EQ(why("* * 0 * *"), "the day of the month 0 is not in 1-31");
  EXPECT_EQ(why("* * * foo *"), "'foo' is not a valid month");
  EXPECT_EQ(why("*/0 * * * *"), "'0' is not a valid step in the minute field '*/0'");
  EXPECT_EQ(why("5-1 * * * *"), "the range 5-1 of the minute field goes backwards");
  EXPECT_EQ(why("1,,2 * * * *"), "an empty item in the minute field '1,,2'");
  EXPECT_EQ(why("* * * * * 1969"), "the year 1969 is not in 1970-2099");
  EXPECT_EQ(why("@often"),
            "a cron expression has 5, 6 or 7 fields ([second] minute hour day-of-month month "
            "day-of-week [year]), this one has 1");
  EXPECT_EQ(why("0 0 * * *"), "accepted");
}

}  // namespace
}  // namespace inmanta::scheduler
