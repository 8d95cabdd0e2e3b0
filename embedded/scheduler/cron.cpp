#include "embedded/scheduler/cron.h"

#include <algorithm>
#include <cctype>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace inmanta::scheduler {
namespace {

constexpr int kFirstYear = 1970;
constexpr int kLastYear = 2099;

struct Field {
  const char* name;
  int low, high;
  const char* const* names;  // names of low, low+1, …; nullptr when the field has none
  int nameCount;
  int end;  // where `*` and `N/S` stop: high, but Saturday for a day of the week (7 repeats Sunday)
};

const char* const kMonthNames[] = {"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"};
const char* const kDayNames[] = {"sun", "mon", "tue", "wed", "thu", "fri", "sat"};

const Field kSecond{"second", 0, 59, nullptr, 0, 59};
const Field kMinute{"minute", 0, 59, nullptr, 0, 59};
const Field kHour{"hour", 0, 23, nullptr, 0, 23};
const Field kDayOfMonth{"day of the month", 1, 31, nullptr, 0, 31};
const Field kMonth{"month", 1, 12, kMonthNames, 12, 12};
const Field kDayOfWeek{"day of the week", 0, 7, kDayNames, 7, 6};  // 7 is Sunday too
const Field kYear{"year", kFirstYear, kLastYear, nullptr, 0, kLastYear};

bool allDigits(const std::string& text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); });
}

std::invalid_argument invalid(const std::string& why) { return std::invalid_argument(why); }

int valueOf(const Field& field, const std::string& token) {
  std::string lower = token;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  for (int i = 0; i < field.nameCount; ++i)
    if (lower == field.names[i]) return field.low + i;
  if (!allDigits(token)) throw invalid("'" + token + "' is not a valid " + field.name);
  if (token.size() > 9) throw invalid(std::string("the ") + field.name + " " + token + " is out of range");
  int value = std::stoi(token);
  if (value < field.low || value > field.high)
    throw invalid(std::string("the ") + field.name + " " + token + " is not in " + std::to_string(field.low) + "-" +
                  std::to_string(field.high));
  return value;
}

// The values one field names, as a list of flags indexed from field.low.
std::vector<bool> parseField(const Field& field, const std::string& text) {
  std::vector<bool> on(static_cast<std::size_t>(field.high - field.low + 1), false);
  std::stringstream items(text);
  std::string item;
  bool any = false;
  while (std::getline(items, item, ',')) {
    if (item.empty()) throw invalid(std::string("an empty item in the ") + field.name + " field '" + text + "'");
    int step = 1;
    std::string range = item;
    if (auto slash = item.find('/'); slash != std::string::npos) {
      std::string stepText = item.substr(slash + 1);
      if (!allDigits(stepText) || stepText.size() > 9 || std::stoi(stepText) == 0)
        throw invalid("'" + stepText + "' is not a valid step in the " + field.name + " field '" + text + "'");
      step = std::stoi(stepText);
      range = item.substr(0, slash);
    }
    int first = field.low, last = field.end;  // `*`
    if (auto dash = range.find('-'); dash != std::string::npos) {
      first = valueOf(field, range.substr(0, dash));
      last = valueOf(field, range.substr(dash + 1));
      if (first > last) throw invalid("the range " + range + " of the " + field.name + " field goes backwards");
    } else if (range != "*") {
      first = valueOf(field, range);
      // `N/S` runs from N to the end; a lone N is itself
      if (item.find('/') == std::string::npos) last = first;
    }
    for (int v = first; v <= last; v += step) on[static_cast<std::size_t>(v - field.low)] = true;
    any = true;
  }
  if (!any) throw invalid(std::string("the ") + field.name + " field is empty");
  return on;
}

template <std::size_t N>
void fill(std::bitset<N>& bits, const Field& field, const std::string& text, int offset = 0) {
  std::vector<bool> on = parseField(field, text);
  for (std::size_t i = 0; i < on.size(); ++i)
    if (on[i]) bits.set(static_cast<std::size_t>(static_cast<int>(i) + field.low - offset) % N);
}

// The civil date of a day counted from 1970-01-01 (H. Hinnant's algorithm).
void civilFromDays(long z, int& y, unsigned& m, unsigned& d) {
  z += 719468;
  const long era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  d = doy - (153 * mp + 2) / 5 + 1;
  m = mp < 10 ? mp + 3 : mp - 9;
  y = static_cast<int>(static_cast<long>(yoe) + era * 400) + (m <= 2);
}

}  // namespace

Cron Cron::parse(const std::string& text) {
  Cron cron;
  std::string expression = text;
  expression.erase(0, expression.find_first_not_of(" \t"));
  expression.erase(expression.find_last_not_of(" \t") + 1);
  static const std::pair<const char*, const char*> kMacros[] = {{"@yearly", "0 0 1 1 *"},  {"@annually", "0 0 1 1 *"},
                                                                {"@monthly", "0 0 1 * *"}, {"@weekly", "0 0 * * 0"},
                                                                {"@daily", "0 0 * * *"},   {"@hourly", "0 * * * *"}};
  for (const auto& [macro, meaning] : kMacros)
    if (expression == macro) expression = meaning;
  std::vector<std::string> fields;
  std::stringstream words(expression);
  for (std::string word; words >> word;) fields.push_back(word);
  if (fields.size() < 5 || fields.size() > 7)
    throw invalid(
        "a cron expression has 5, 6 or 7 fields ([second] minute hour day-of-month month day-of-week "
        "[year]), this one has " +
        std::to_string(fields.size()));
  std::size_t at = 0;
  if (fields.size() == 7) fill(cron.seconds_, kSecond, fields[at++]);
  else cron.seconds_.set(0);
  fill(cron.minutes_, kMinute, fields[at++]);
  fill(cron.hours_, kHour, fields[at++]);
  cron.dayOfMonthStar_ = fields[at].front() == '*';
  fill(cron.daysOfMonth_, kDayOfMonth, fields[at++]);
  fill(cron.months_, kMonth, fields[at++]);
  cron.dayOfWeekStar_ = fields[at].front() == '*';
  fill(cron.daysOfWeek_, kDayOfWeek, fields[at++]);  // 7 folds onto 0 (bitset of 7)
  if (at < fields.size()) fill(cron.years_, kYear, fields[at++], kFirstYear);
  else cron.years_.set();
  return cron;
}

bool Cron::dayMatches(int year, unsigned month, unsigned day, unsigned weekday) const {
  if (year < kFirstYear || year > kLastYear || !years_.test(static_cast<std::size_t>(year - kFirstYear))) return false;
  if (!months_.test(month)) return false;
  bool byMonthDay = daysOfMonth_.test(day), byWeekDay = daysOfWeek_.test(weekday);
  if (dayOfMonthStar_ || dayOfWeekStar_) return byMonthDay && byWeekDay;
  return byMonthDay || byWeekDay;
}

std::optional<Cron::Time> Cron::next(Time after) const {
  using namespace std::chrono;
  auto start = floor<seconds>(after) + seconds(1);
  long startSeconds = static_cast<long>(start.time_since_epoch().count());
  long day = startSeconds >= 0 ? startSeconds / 86400 : (startSeconds - 86399) / 86400;
  long secondOfDay = startSeconds - day * 86400;
  // a day that matches comes within a few years unless the years rule it out; 2099 ends the search
  for (;; ++day, secondOfDay = 0) {
    int y = 0;
    unsigned m = 0, d = 0;
    civilFromDays(day, y, m, d);
    if (y > kLastYear) return std::nullopt;
    unsigned weekday = static_cast<unsigned>(((day % 7) + 7 + 4) % 7);  // 1970-01-01 was a Thursday
    if (!dayMatches(y, m, d, weekday)) continue;
    for (long s = secondOfDay; s < 86400; ++s) {
      auto h = static_cast<std::size_t>(s / 3600), mi = static_cast<std::size_t>(s / 60 % 60),
           se = static_cast<std::size_t>(s % 60);
      if (!hours_.test(h)) {
        s = static_cast<long>(h + 1) * 3600 - 1;
        continue;
      }
      if (!minutes_.test(mi)) {
        s = (s / 60 + 1) * 60 - 1;
        continue;
      }
      if (seconds_.test(se)) return Time(duration_cast<microseconds>(seconds(day * 86400 + s)));
    }
  }
}

}  // namespace inmanta::scheduler
