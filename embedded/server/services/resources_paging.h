// Paging of the v2 lists (spec §3.3, §4.8): items sorted by (sort value, id), a page of `limit`
// items after `start`/`first_id` or before `end`/`last_id`, and the counts the `metadata` and the
// `next`/`prev` links need. The reference's rules: `start` and `end` are exclusive bounds on the
// sort value, the id breaks ties; for a descending sort the next page is bounded by `end`.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace inmanta::server {

struct PageRequest {
  std::int64_t limit = 1000;
  bool ascending = true;
  std::optional<nlohmann::json> start, end;  // bounds on the sort value
  std::optional<std::string> firstId, lastId;  // tie breakers of start and end
};

// The position of an item in the sort order.
struct PageKey {
  nlohmann::json value;
  std::string id;
  bool operator<(const PageKey& other) const {
    return value < other.value || (value == other.value && id < other.id);
  }
};

template <class T>
struct Page {
  std::vector<T> items;
  std::int64_t total = 0;   // items matching the filters
  std::int64_t before = 0;  // of those, before this page in the sort order
  std::int64_t after = 0;   // and after it
  // the keys of the page's first and last item (for the links), when it has any
  std::optional<PageKey> first, last;
};

// `items` matching the filters, in any order; `keyOf(item)` gives its PageKey.
template <class T, class KeyOf>
Page<T> makePage(std::vector<T> items, const PageRequest& request, KeyOf keyOf) {
  std::vector<std::pair<PageKey, T>> keyed;
  keyed.reserve(items.size());
  for (T& item : items) {
    PageKey key = keyOf(item);
    keyed.emplace_back(std::move(key), std::move(item));
  }
  std::sort(keyed.begin(), keyed.end(), [&](const auto& a, const auto& b) {
    return request.ascending ? a.first < b.first : b.first < a.first;
  });
  // inside the bounds: value/id strictly above start and strictly below end
  auto aboveStart = [&](const PageKey& key) {
    if (!request.start) return true;
    PageKey bound{*request.start, request.firstId.value_or("")};
    return request.firstId ? bound < key : *request.start < key.value;
  };
  auto belowEnd = [&](const PageKey& key) {
    if (!request.end) return true;
    PageKey bound{*request.end, request.lastId.value_or("\xff")};
    return request.lastId ? key < bound : key.value < *request.end;
  };
  std::vector<size_t> inside;
  for (size_t i = 0; i < keyed.size(); ++i)
    if (aboveStart(keyed[i].first) && belowEnd(keyed[i].first)) inside.push_back(i);
  // going forward (start on ascending, end on descending, or no bound) takes the first `limit`,
  // going backward takes the last `limit`
  bool backward = request.ascending ? (request.end && !request.start) : (request.start && !request.end);
  size_t count = std::min(inside.size(), static_cast<size_t>(std::max<std::int64_t>(request.limit, 0)));
  size_t from = backward ? inside.size() - count : 0;
  Page<T> page;
  page.total = static_cast<std::int64_t>(keyed.size());
  if (count == 0) {
    page.before = backward ? page.total : (inside.empty() ? 0 : static_cast<std::int64_t>(inside.front()));
    page.after = page.total - page.before;
    return page;
  }
  size_t firstIndex = inside[from];
  size_t lastIndex = inside[from + count - 1];
  page.before = static_cast<std::int64_t>(firstIndex);
  page.after = page.total - static_cast<std::int64_t>(lastIndex) - 1;
  page.first = keyed[firstIndex].first;
  page.last = keyed[lastIndex].first;
  for (size_t i = from; i < from + count; ++i) page.items.push_back(std::move(keyed[inside[i]].second));
  return page;
}

}  // namespace inmanta::server
