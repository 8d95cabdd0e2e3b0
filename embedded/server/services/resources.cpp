#include "embedded/server/services/resources.h"

#include <algorithm>

#include "embedded/server/errors.h"

namespace inmanta::server {

std::string displayedStatus(const store::ResourceState* state) {
  if (!state) return "available";
  if (state->orphaned_after) return "orphaned";
  if (state->is_deploying) return "deploying";
  if (state->is_undefined) return "undefined";
  if (state->blocked == "BLOCKED") return "skipped_for_undefined";
  // a new intent not deployed yet (or never deployed) shows as available whatever the last run said
  if (!state->last_deployed_attribute_hash || *state->last_deployed_attribute_hash != state->current_intent_attribute_hash)
    return "available";
  return state->last_non_deploying_status;
}

const std::vector<std::string>& resourceStates() {
  static const std::vector<std::string> states{"unavailable", "skipped",   "deployed",  "failed",
                                               "deploying",   "available", "cancelled", "undefined",
                                               "skipped_for_undefined",    "orphaned",  "non_compliant"};
  return states;
}

std::shared_ptr<const std::map<std::string, std::shared_ptr<const store::Resource>>> ResourceService::versionIndex(
    const std::string& env, std::int64_t version) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto cached = cache_.find(env);
    if (cached != cache_.end() && cached->second.first == version) return cached->second.second;
  }
  auto index = std::make_shared<std::map<std::string, std::shared_ptr<const store::Resource>>>();
  for (store::Resource& resource : store_.versionResources(env, version)) {
    std::string id = resource.resource_id;
    (*index)[id] = std::make_shared<const store::Resource>(std::move(resource));
  }
  std::lock_guard<std::mutex> lock(mutex_);
  cache_[env] = {version, index};
  return index;
}

namespace {

bool matchesAny(const std::vector<std::string>& needles, const std::string& text) {
  if (needles.empty()) return true;
  return std::any_of(needles.begin(), needles.end(),
                     [&](const std::string& needle) { return text.find(needle) != std::string::npos; });
}

}  // namespace

std::vector<ResourceRow> ResourceService::list(const std::string& env, const ResourceFilter& filter) {
  std::vector<ResourceRow> rows;
  std::optional<std::int64_t> active = store_.latestReleasedVersion(env);
  std::vector<store::ResourceState> states = store_.resourceStates(env);
  std::map<std::string, const store::ResourceState*> stateOf;
  for (const store::ResourceState& state : states) stateOf[state.resource_id] = &state;
  auto keep = [&](const store::Resource& resource, const std::string& status) {
    if (!matchesAny(filter.agent, resource.agent) || !matchesAny(filter.resource_type, resource.resource_type) ||
        !matchesAny(filter.resource_id_value, resource.resource_id_value))
      return false;
    if (!filter.status.empty() && std::find(filter.status.begin(), filter.status.end(), status) == filter.status.end())
      return false;
    return std::find(filter.notStatus.begin(), filter.notStatus.end(), status) == filter.notStatus.end();
  };
  if (active) {
    auto index = versionIndex(env, *active);
    for (const auto& [rid, resource] : *index) {
      auto state = stateOf.find(rid);
      const store::ResourceState* row = state == stateOf.end() ? nullptr : state->second;
      // a state row still orphaned from before this version was read by the scheduler is current
      std::string status = row && row->orphaned_after ? "available" : displayedStatus(row);
      if (keep(*resource, status)) rows.push_back({resource, *active, std::move(status)});
    }
    for (const store::ResourceState& state : states) {
      if (!state.orphaned_after || index->count(state.resource_id)) continue;
      std::optional<store::Resource> resource = store_.getResource(env, *state.orphaned_after, state.resource_id);
      if (!resource || !keep(*resource, "orphaned")) continue;
      rows.push_back({std::make_shared<const store::Resource>(std::move(*resource)), *state.orphaned_after, "orphaned"});
    }
  }
  return rows;
}

nlohmann::json ResourceService::deploySummary(const std::string& env) {
  nlohmann::json byState = nlohmann::json::object();
  for (const std::string& state : resourceStates())
    if (state != "orphaned") byState[state] = 0;
  std::int64_t total = 0;
  for (const ResourceRow& row : list(env, {})) {
    if (row.status == "orphaned") continue;
    byState[row.status] = byState[row.status].get<std::int64_t>() + 1;
    ++total;
  }
  return {{"total", total}, {"by_state", byState}};
}

ResourceDetail ResourceService::get(const std::string& env, const std::string& resource_id) {
  ResourceFilter none;
  for (ResourceRow& row : list(env, none)) {
    if (row.resource->resource_id != resource_id) continue;
    ResourceDetail detail;
    detail.state = store_.getResourceState(env, resource_id);
    for (const nlohmann::json& required : row.resource->attributes.value("requires", nlohmann::json::array())) {
      if (!required.is_string()) continue;
      std::string rid = required.get<std::string>();
      std::optional<store::ResourceState> state = store_.getResourceState(env, rid);
      detail.requires_status[rid] = displayedStatus(state ? &*state : nullptr);
    }
    detail.row = std::move(row);
    return detail;
  }
  throw notFound("The resource with the given id does not exist, or was not released yet in the given environment.");
}

std::vector<store::ResourceAction> ResourceService::actions(const std::string& env, const std::string& resource_id) {
  store::ActionQuery query;
  query.resource_id = resource_id;
  query.limit = INT64_MAX;
  return store_.queryResourceActions(env, query);
}

}  // namespace inmanta::server
