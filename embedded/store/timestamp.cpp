#include "embedded/store/timestamp.h"

#include "util/iso_time.h"

namespace inmanta::store {

Timestamp now() { return std::chrono::time_point_cast<std::chrono::microseconds>(std::chrono::system_clock::now()); }

std::int64_t toMicros(Timestamp t) { return t.time_since_epoch().count(); }

Timestamp fromMicros(std::int64_t micros) { return Timestamp(std::chrono::microseconds(micros)); }

std::string formatTimestamp(Timestamp t) { return util::isoTimestamp(t); }

std::optional<Timestamp> parseTimestamp(std::string_view text) {
  using namespace std::chrono;
  std::size_t pos = 0;
  auto number = [&](std::size_t width, int& out) {
    if (pos + width > text.size()) return false;
    out = 0;
    for (std::size_t i = 0; i < width; ++i) {
      char c = text[pos + i];
      if (c < '0' || c > '9') return false;
      out = out * 10 + (c - '0');
    }
    pos += width;
    return true;
  };
  auto expect = [&](std::string_view options) {
    if (pos < text.size() && options.find(text[pos]) != std::string_view::npos) {
      ++pos;
      return true;
    }
    return false;
  };
  int y, mo, d, h, mi, s;
  if (!number(4, y) || !expect("-") || !number(2, mo) || !expect("-") || !number(2, d) || !expect("T ") ||
      !number(2, h) || !expect(":") || !number(2, mi) || !expect(":") || !number(2, s))
    return std::nullopt;
  long long micros = 0;
  if (expect(".")) {
    int digits = 0;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      if (digits < 6) micros = micros * 10 + (text[pos] - '0');
      ++digits;
      ++pos;
    }
    if (digits == 0) return std::nullopt;
    for (; digits < 6; ++digits) micros *= 10;
  }
  long long offset_minutes = 0;
  if (pos < text.size()) {
    if (expect("Z")) {
    } else {
      bool negative = text[pos] == '-';
      int oh, om;
      if (!expect("+-") || !number(2, oh) || !expect(":") || !number(2, om)) return std::nullopt;
      offset_minutes = (negative ? -1 : 1) * (oh * 60 + om);
    }
  }
  if (pos != text.size()) return std::nullopt;
  year_month_day date{year(y), month(static_cast<unsigned>(mo)), day(static_cast<unsigned>(d))};
  if (!date.ok() || h > 23 || mi > 59 || s > 59) return std::nullopt;
  Timestamp t = time_point_cast<microseconds>(sys_days(date)) + hours(h) + minutes(mi) + seconds(s) +
                microseconds(micros) - minutes(offset_minutes);
  return t;
}

}  // namespace inmanta::store
