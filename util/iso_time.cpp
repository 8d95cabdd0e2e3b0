#include "util/iso_time.h"

#include <cstdio>

namespace inmanta::util {

namespace {

// `value` as `width` decimal digits, zeros in front, ending just before `end`
void digits(char* end, long long value, int width) {
  for (int i = 0; i < width; ++i) {
    *--end = static_cast<char>('0' + value % 10);
    value /= 10;
  }
}

}  // namespace

std::string isoTimestamp(std::chrono::sys_time<std::chrono::microseconds> at) {
  using namespace std::chrono;
  auto day = floor<days>(at);
  year_month_day date(day);
  hh_mm_ss<microseconds> time(at - day);
  int year = static_cast<int>(date.year());
  if (year < 0 || year > 9999) {  // more than four digits: printf's way, as rare as it is slow
    char text[64];
    std::snprintf(text, sizeof text, "%04d-%02u-%02uT%02d:%02d:%02d.%06lld+00:00", year,
                  static_cast<unsigned>(date.month()), static_cast<unsigned>(date.day()),
                  static_cast<int>(time.hours().count()), static_cast<int>(time.minutes().count()),
                  static_cast<int>(time.seconds().count()), static_cast<long long>(time.subseconds().count()));
    return text;
  }
  std::string text = "0000-00-00T00:00:00.000000+00:00";
  digits(text.data() + 4, year, 4);
  digits(text.data() + 7, static_cast<unsigned>(date.month()), 2);
  digits(text.data() + 10, static_cast<unsigned>(date.day()), 2);
  digits(text.data() + 13, time.hours().count(), 2);
  digits(text.data() + 16, time.minutes().count(), 2);
  digits(text.data() + 19, time.seconds().count(), 2);
  digits(text.data() + 26, time.subseconds().count(), 6);
  return text;
}

}  // namespace inmanta::util
