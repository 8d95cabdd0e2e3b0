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
  std::int64_t limit = 1000;  // ≤ 0: no limit, the whole list (the reference's `limit=0`)
  bool ascending = true;
  std::optional<nlohmann::json> start, end;    // bounds on the sort value
  std::optional<std::string> firstId, lastId;  // tie breakers of start and end
};

// The position of an item in the sort order.
struct PageKey {
  nlohmann::json value;
  std::string id;
  bool operator<(const PageKey& other) const { return value < other.value || (value == other.value && id < other.id); }
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

// Where the page of `request` lies in `count` items already in the sort order: their positions
// (`slice`), and the counts. `keyAt(i)` gives the PageKey of item i; it is called only when the
// request has a bound, and for the page's first and last item.
struct PageSlice {
  std::vector<size_t> positions;
  std::int64_t total = 0, before = 0, after = 0;
  std::optional<PageKey> first, last;
};

template <class KeyAt>
PageSlice slicePage(size_t count, const PageRequest& request, KeyAt keyAt) {
  // inside the bounds: value/id strictly above start and strictly below end (bounds on the value
  // whatever the direction)
  auto aboveStart = [&](const PageKey& key) {
    if (!request.start) return true;
    return request.firstId ? PageKey{*request.start, *request.firstId} < key : *request.start < key.value;
  };
  auto belowEnd = [&](const PageKey& key) {
    if (!request.end) return true;
    return request.lastId ? key < PageKey{*request.end, *request.lastId} : key.value < *request.end;
  };
  std::vector<size_t> inside;
  if (!request.start && !request.end) {
    inside.resize(count);
    for (size_t i = 0; i < count; ++i) inside[i] = i;
  } else {
    for (size_t i = 0; i < count; ++i) {
      PageKey key = keyAt(i);
      if (aboveStart(key) && belowEnd(key)) inside.push_back(i);
    }
  }
  // going forward (start on ascending, end on descending, or no bound) takes the first `limit`,
  // going backward takes the last `limit`
  bool backward = request.ascending ? (request.end && !request.start) : (request.start && !request.end);
  size_t taken = request.limit > 0 ? std::min(inside.size(), static_cast<size_t>(request.limit)) : inside.size();
  size_t from = backward ? inside.size() - taken : 0;
  PageSlice slice;
  slice.total = static_cast<std::int64_t>(count);
  if (taken == 0) {
    slice.before = backward ? slice.total : (inside.empty() ? 0 : static_cast<std::int64_t>(inside.front()));
    slice.after = slice.total - slice.before;
    return slice;
  }
  size_t firstIndex = inside[from];
  size_t lastIndex = inside[from + taken - 1];
  slice.before = static_cast<std::int64_t>(firstIndex);
  slice.after = slice.total - static_cast<std::int64_t>(lastIndex) - 1;
  slice.first = keyAt(firstIndex);
  slice.last = keyAt(lastIndex);
  slice.positions.assign(inside.begin() + static_cast<std::ptrdiff_t>(from),
                         inside.begin() + static_cast<std::ptrdiff_t>(from + taken));
  return slice;
}

// `items` matching the filters, in any order; `keyOf(item)` gives its PageKey.
template <class T, class KeyOf>
Page<T> makePage(std::vector<T> items, const PageRequest& request, KeyOf keyOf) {
  std::vector<std::pair<PageKey, T>> keyed;
  keyed.reserve(items.size());
  for (T& item : items) {
    PageKey key = keyOf(item);
    keyed.emplace_back(std::move(key), std::move(item));
  }
  std::sort(keyed.begin(), keyed.end(),
            [&](const auto& a, const auto& b) { return request.ascending ? a.first < b.first : b.first < a.first; });
  PageSlice slice = slicePage(keyed.size(), request, [&](size_t i) { return keyed[i].first; });
  Page<T> page;
  page.total = slice.total;
  page.before = slice.before;
  page.after = slice.after;
  page.first = std::move(slice.first);
  page.last = std::move(slice.last);
  for (size_t i : slice.positions) page.items.push_back(std::move(keyed[i].second));
  return page;
}

}  // namespace inmanta::server
