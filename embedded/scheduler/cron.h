// Cron expressions for the two interval settings (§5, §6.7): `autostart_agent_deploy_interval` and
// `autostart_agent_repair_interval` take a number of seconds or a cron expression, which installs
// one global deploy or repair at the times it names, in UTC.
//
// The format is the reference's (Python's crontab package): `min hour dom month dow`, with a year
// after them (6 fields) or a second before and a year after (7 fields), or one of @yearly,
// @annually, @monthly, @weekly, @daily and @hourly. A field is a comma list of `*`, `N`, `N-M`,
// `*/S`, `N-M/S` or `N/S` (from N to the end in steps of S); months and days of the week also by
// their English three-letter names, Sunday as 0 or 7. As in cron, when both the day of the month
// and the day of the week are restricted (neither starts with `*`), a day matching either fires.
#pragma once

#include <bitset>
#include <chrono>
#include <optional>
#include <string>

namespace inmanta::scheduler {

class Cron {
 public:
  using Time = std::chrono::time_point<std::chrono::system_clock, std::chrono::microseconds>;

  // Throws std::invalid_argument naming what is wrong with `text`.
  static Cron parse(const std::string& text);
  // The first whole second after `after` that the expression names; nullopt when there is none
  // (a year in the past, the 31st of February).
  std::optional<Time> next(Time after) const;

 private:
  std::bitset<60> seconds_, minutes_;
  std::bitset<24> hours_;
  std::bitset<32> daysOfMonth_;  // 1..31
  std::bitset<13> months_;       // 1..12
  std::bitset<7> daysOfWeek_;    // 0 = Sunday
  std::bitset<130> years_;       // 1970..2099
  bool dayOfMonthStar_ = true, dayOfWeekStar_ = true;

  bool dayMatches(int year, unsigned month, unsigned day, unsigned weekday) const;
};

}  // namespace inmanta::scheduler
