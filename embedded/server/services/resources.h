// Resources and their logs (spec §4.8): the resources of the active version plus the orphans,
// each with the status of §6.1; one resource with the states of what it requires; its log lines;
// the resource actions. The list of each environment is kept in memory (ResourceSnapshot), sorted
// for every column, so that a list request costs a filter pass over it (spec: p50 ≤ 2 ms for
// 10,000 resources).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "embedded/server/services/resources_paging.h"
#include "embedded/store/store.h"

namespace inmanta::server {

using store::displayedStatus;

// Every state except `dry`, the keys of deploy_summary.by_state and the values filter.status takes.
const std::vector<std::string>& resourceStates();

struct ResourceRow {
  std::shared_ptr<const store::Resource> resource;
  std::int64_t version = 0;  // the active one, or the last one an orphan was in
  std::string status;
};

struct ResourceFilter {
  std::vector<std::string> agent, resource_type, resource_id_value;  // substring matches, OR
  std::vector<std::string> status, notStatus;                        // exact, OR / excluded
};

struct ResourceDetail {
  ResourceRow row;
  std::optional<store::ResourceState> state;
  std::map<std::string, std::string> requires_status;
};

// One resource of one version with its resource actions (GET /api/v1/resource/<rvid>).
struct VersionedResource {
  store::Resource resource;
  std::vector<store::ResourceAction> actions;  // newest first
};

// One entry of a resource's history: a run of released versions with the same attribute hash.
struct HistoryEntry {
  std::string attribute_hash;
  store::Timestamp date{};    // of the run's first version
  nlohmann::json attributes;  // as in the run's first version
};

// GET /api/v2/resource_actions: the reference's filters and its paging by (started, action_id).
struct ActionFilter {
  std::optional<std::string> resource_type, agent;  // exact
  // the attribute `attribute` of a resource the action touches (in the action's version) starts
  // with `attribute_value`
  std::optional<std::string> attribute, attribute_value;
  std::optional<std::string> log_severity;   // a message of this level (any case)
  std::vector<std::string> exclude_changes;  // the action's change is none of these
  std::int64_t limit = 1000;                 // ≤ 0: no limit
  // first_timestamp: the page newer than it, last_timestamp: older; action_id breaks ties
  std::optional<store::Timestamp> first_timestamp, last_timestamp;
  std::optional<std::string> action_id;
};

// The sort columns of the resource list.
enum class ResourceColumn { resource_type, agent, resource_id_value, status };

// The resource list of one environment at one moment: its rows, and their order for each sort
// column (ascending by (column, resource id)), built once and shared by the requests that read it.
struct ResourceSnapshot {
  std::optional<std::int64_t> active;
  std::vector<ResourceRow> rows;
  std::map<std::string, size_t> byId;                   // resource id → row
  std::map<ResourceColumn, std::vector<size_t>> order;  // column → rows in ascending order
  nlohmann::json deploySummary;                         // {"total", "by_state"} over the non-orphans

  static const std::string& columnValue(const ResourceRow& row, ResourceColumn column);

  // The list item of `row` (one of `rows`) as JSON text: made by `serialise` the first time a
  // request needs it, then kept with the snapshot, so that a page of 1,000 items costs copies of
  // text rather than 1,000 JSON trees built and dumped (spec: p50 ≤ 2 ms for 10,000 resources).
  // Safe from concurrent requests.
  const std::string& serialisedItem(const ResourceRow& row,
                                    const std::function<std::string(const ResourceRow&)>& serialise) const;

 private:
  friend class ResourceService;
  // one entry per row, sized by ResourceService::build
  std::unique_ptr<std::once_flag[]> itemOnce_;
  std::unique_ptr<std::string[]> itemText_;
};

class ResourceService {
 public:
  explicit ResourceService(store::Store& store) : store_(store) {}

  // The environment's current list. Kept in memory until invalidate(env) or until another version
  // becomes the active one, so that a list request does not read every state row: whatever writes
  // the versions or the resource states of an environment through the services calls invalidate.
  std::shared_ptr<const ResourceSnapshot> snapshot(const std::string& env);
  void invalidate(const std::string& env);

  // The rows of `snapshot` passing `filter`, in the order of `column` (ascending or not).
  static std::vector<const ResourceRow*> select(const ResourceSnapshot& snapshot, const ResourceFilter& filter,
                                                ResourceColumn column, bool ascending);
  // {"total", "by_state"} over the non-orphaned resources, ignoring filters.
  nlohmann::json deploySummary(const std::string& env);
  // 404 "The resource with the given id does not exist, or was not released yet in the given
  // environment."
  ResourceDetail get(const std::string& env, const std::string& resource_id);
  // The resource's desired states over the released versions, oldest first (empty, as the
  // reference answers, for a resource no released version holds).
  std::vector<HistoryEntry> history(const std::string& env, const std::string& resource_id);
  // The actions matching `filter`, newest first. 400 with the reference's messages for attribute
  // without attribute_value (or the reverse), both timestamps, action_id without a timestamp and
  // a limit above 1000.
  std::vector<store::ResourceAction> queryActions(const std::string& env, const ActionFilter& filter);
  // The actions touching the resource, newest first (its log lines come from them).
  std::vector<store::ResourceAction> actions(const std::string& env, const std::string& resource_id);
  // The resource of the resource version id `rvid`, released or not (the reference's
  // get_resource); with `withActions`, the actions on it in that version, newest first: only
  // `action` ones when given, at most `limit` (≤ 0: all). Bare 400 "<rvid> is not a valid
  // resource version id" and 404 "The resource with the given id does not exist in the given
  // environment", as the reference answers.
  VersionedResource versionedResource(const std::string& env, const std::string& rvid, bool withActions,
                                      const std::optional<std::string>& action, std::int64_t limit);

 private:
  std::shared_ptr<const ResourceSnapshot> build(const std::string& env, std::optional<std::int64_t> active);

  store::Store& store_;
  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<const ResourceSnapshot>> cache_;  // environment → its list
  // environment → how many times it was invalidated: a list built while a write invalidated it is
  // answered but not cached (it may miss that write)
  std::map<std::string, std::uint64_t> generation_;
};

}  // namespace inmanta::server
