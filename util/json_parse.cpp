#include "util/json_parse.h"

#include <exception>
#include <future>
#include <optional>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

namespace inmanta::util {

namespace {

using nlohmann::json;
using Span = std::pair<const char*, const char*>;

bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

const char* skipSpace(const char* p, const char* end) {
  while (p != end && isSpace(*p)) ++p;
  return p;
}

// The end of the string starting at `p` (a '"'), or nullptr.
const char* stringEnd(const char* p, const char* end) {
  for (++p; p != end; ++p) {
    if (*p == '\\') {
      if (++p == end) return nullptr;
    } else if (*p == '"') {
      return p + 1;
    }
  }
  return nullptr;
}

// The end of the value starting at `p`, or nullptr. Only strings and the nesting are followed:
// nlohmann checks every piece the split makes.
const char* valueEnd(const char* p, const char* end) {
  if (p == end) return nullptr;
  if (*p == '"') return stringEnd(p, end);
  if (*p == '{' || *p == '[') {
    std::size_t depth = 0;
    while (p != end) {
      char c = *p;
      if (c == '"') {
        p = stringEnd(p, end);
        if (!p) return nullptr;
        continue;
      }
      ++p;
      if (c == '{' || c == '[') {
        ++depth;
      } else if (c == '}' || c == ']') {
        if (--depth == 0) return p;
      }
    }
    return nullptr;
  }
  const char* start = p;
  while (p != end && !isSpace(*p) && *p != ',' && *p != ']' && *p != '}') ++p;
  return p == start ? nullptr : p;
}

struct Member {
  Span key;  // with its quotes
  Span value;
};

// The members of the object that is the whole text, or nothing when it is not one (as far as
// the scan can tell).
std::optional<std::vector<Member>> objectMembers(const char* p, const char* end) {
  p = skipSpace(p, end);
  if (p == end || *p != '{') return std::nullopt;
  p = skipSpace(p + 1, end);
  std::vector<Member> members;
  if (p != end && *p == '}') {
    p = skipSpace(p + 1, end);
    if (p != end) return std::nullopt;
    return members;
  }
  while (true) {
    if (p == end || *p != '"') return std::nullopt;
    Member member;
    member.key.first = p;
    member.key.second = p = stringEnd(p, end);
    if (!p) return std::nullopt;
    p = skipSpace(p, end);
    if (p == end || *p != ':') return std::nullopt;
    p = skipSpace(p + 1, end);
    member.value.first = p;
    member.value.second = p = valueEnd(p, end);
    if (!p) return std::nullopt;
    members.push_back(member);
    p = skipSpace(p, end);
    if (p != end && *p == ',') {
      p = skipSpace(p + 1, end);
      continue;
    }
    if (p == end || *p != '}') return std::nullopt;
    p = skipSpace(p + 1, end);
    if (p != end) return std::nullopt;
    return members;
  }
}

// The elements of the array `array` (from its '[' to just after its ']'), or nothing.
std::optional<std::vector<Span>> arrayElements(Span array) {
  const char* p = array.first;
  const char* end = array.second - 1;  // its ']' (the scan only counted brackets)
  if (*end != ']') return std::nullopt;
  p = skipSpace(p + 1, end);
  std::vector<Span> elements;
  if (p == end) return elements;
  while (true) {
    Span element{p, valueEnd(p, end)};
    if (!element.second) return std::nullopt;
    elements.push_back(element);
    p = skipSpace(element.second, end);
    if (p == end) return elements;
    if (*p != ',') return std::nullopt;
    p = skipSpace(p + 1, end);
  }
}

}  // namespace

std::optional<json> parseJsonSplit(std::string_view text, std::size_t minimum) {
  const char* begin = text.data();
  const char* end = begin + text.size();
  std::optional<std::vector<Member>> members = objectMembers(begin, end);
  if (!members) return std::nullopt;
  const Member* largest = nullptr;
  for (const Member& member : *members)
    if (*member.value.first == '[' &&
        (!largest || member.value.second - member.value.first > largest->value.second - largest->value.first))
      largest = &member;
  if (!largest || static_cast<std::size_t>(largest->value.second - largest->value.first) < minimum / 2)
    return std::nullopt;
  std::optional<std::vector<Span>> elements = arrayElements(largest->value);
  if (!elements || elements->size() < 2) return std::nullopt;

  try {
    // a key given twice: nlohmann keeps the last value; left to it
    std::string key = json::parse(largest->key.first, largest->key.second).get<std::string>();
    for (const Member& member : *members)
      if (&member != largest && json::parse(member.key.first, member.key.second).get_ref<const std::string&>() == key)
        return std::nullopt;

    json array(json::value_t::array);
    json::array_t& items = array.get_ref<json::array_t&>();
    items.resize(elements->size());
    auto parsePart = [&](std::size_t from, std::size_t to) -> bool {
      try {
        for (std::size_t i = from; i < to; ++i) items[i] = json::parse((*elements)[i].first, (*elements)[i].second);
        return true;
      } catch (const json::parse_error&) {
        return false;
      }
    };
    const std::size_t half = elements->size() / 2;
    std::future<bool> second;
    try {
      second = std::async(std::launch::async, parsePart, half, elements->size());
    } catch (const std::system_error&) {
      // no thread to be had: the second half here too
    }
    bool ok = parsePart(0, half);
    ok = (second.valid() ? second.get() : parsePart(half, elements->size())) && ok;
    if (!ok) return std::nullopt;

    std::string rest;
    rest.reserve(text.size() - static_cast<std::size_t>(largest->value.second - largest->value.first) + 2);
    rest.append(begin, largest->value.first);
    rest += "[]";
    rest.append(largest->value.second, end);
    json object = json::parse(rest);
    object[key] = std::move(array);
    return object;
  } catch (const json::exception&) {
    return std::nullopt;  // nlohmann says what is wrong, from the whole text
  }
}

json parseJson(std::string_view text, std::size_t minimum) {
  if (text.size() >= minimum)
    if (std::optional<json> split = parseJsonSplit(text, minimum)) return std::move(*split);
  return json::parse(text.begin(), text.end());
}

}  // namespace inmanta::util
