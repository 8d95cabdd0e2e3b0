// Resources and their logs (spec §4.8): the resources of the active version plus the orphans,
// each with the status of §6.1; one resource with the states of what it requires; its log lines;
// the resource actions. The active version's resources are kept in memory per (environment,
// version) — a version never changes once stored — so a list costs one read of the states.
#pragma once

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

// The status a user sees (spec §6.1) of a resource with this state row; `available` without row.
std::string displayedStatus(const store::ResourceState* state);

// Every state except `dry`, the keys of deploy_summary.by_state and the values filter.status takes.
const std::vector<std::string>& resourceStates();

struct ResourceRow {
  std::shared_ptr<const store::Resource> resource;
  std::int64_t version = 0;  // the active one, or the last one an orphan was in
  std::string status;
};

struct ResourceFilter {
  std::vector<std::string> agent, resource_type, resource_id_value;  // substring matches, OR
  std::vector<std::string> status, notStatus;                         // exact, OR / excluded
};

struct ResourceDetail {
  ResourceRow row;
  std::optional<store::ResourceState> state;
  std::map<std::string, std::string> requires_status;
};

class ResourceService {
 public:
  explicit ResourceService(store::Store& store) : store_(store) {}

  // The resources of the active version and the orphans, filtered (any order).
  std::vector<ResourceRow> list(const std::string& env, const ResourceFilter& filter);
  // {"total", "by_state"} over the non-orphaned resources, ignoring filters.
  nlohmann::json deploySummary(const std::string& env);
  // 404 "The resource with the given id does not exist, or was not released yet in the given
  // environment."
  ResourceDetail get(const std::string& env, const std::string& resource_id);
  // The actions touching the resource, newest first (its log lines come from them).
  std::vector<store::ResourceAction> actions(const std::string& env, const std::string& resource_id);

 private:
  // The resources of `version`, by id, from the cache.
  std::shared_ptr<const std::map<std::string, std::shared_ptr<const store::Resource>>> versionIndex(
      const std::string& env, std::int64_t version);

  store::Store& store_;
  std::mutex mutex_;
  // environment → (version, its resources); only the active version of each is kept
  std::map<std::string, std::pair<std::int64_t, std::shared_ptr<const std::map<std::string, std::shared_ptr<const store::Resource>>>>>
      cache_;
};

}  // namespace inmanta::server
