#include "embedded/server/services/resources.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "embedded/server/errors.h"
#include "util/resource_id.h"

namespace inmanta::server {

const std::vector<std::string>& resourceStates() {
  static const std::vector<std::string> states{"unavailable", "skipped",      "deployed",
                                               "failed",      "deploying",    "available",
                                               "cancelled",   "undefined",    "skipped_for_undefined",
                                               "orphaned",    "non_compliant"};
  return states;
}

const std::string& ResourceSnapshot::columnValue(const ResourceRow& row, ResourceColumn column) {
  switch (column) {
    case ResourceColumn::agent: return row.resource->agent;
    case ResourceColumn::resource_type: return row.resource->resource_type;
    case ResourceColumn::status: return row.status;
    case ResourceColumn::resource_id_value: break;
  }
  return row.resource->resource_id_value;
}

const std::string& ResourceSnapshot::serialisedItem(
    const ResourceRow& row, const std::function<std::string(const ResourceRow&)>& serialise) const {
  auto i = static_cast<size_t>(&row - rows.data());
  std::call_once(itemOnce_[i], [&] { itemText_[i] = serialise(row); });
  return itemText_[i];
}

std::shared_ptr<const ResourceSnapshot> ResourceService::snapshot(const std::string& env) {
  // the active version is one indexed read; a release or a decommission changes it even when no
  // invalidate() came
  std::uint64_t generation = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    generation = generation_[env];
  }
  std::optional<std::int64_t> active = store_.latestReleasedVersion(env);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto cached = cache_.find(env);
    if (cached != cache_.end() && cached->second->active == active) return cached->second;
  }
  std::shared_ptr<const ResourceSnapshot> built = build(env, active);
  std::lock_guard<std::mutex> lock(mutex_);
  if (generation_[env] == generation) cache_[env] = built;
  return built;
}

void ResourceService::invalidate(const std::string& env) {
  std::lock_guard<std::mutex> lock(mutex_);
  cache_.erase(env);
  ++generation_[env];
}

std::shared_ptr<const ResourceSnapshot> ResourceService::build(const std::string& env,
                                                               std::optional<std::int64_t> active) {
  auto snapshot = std::make_shared<ResourceSnapshot>();
  snapshot->active = active;
  std::vector<ResourceRow>& rows = snapshot->rows;
  if (active) {
    std::vector<store::ResourceState> states = store_.resourceStates(env);
    std::map<std::string, const store::ResourceState*> stateOf;
    for (const store::ResourceState& state : states) stateOf[state.resource_id] = &state;
    std::set<std::string> current;
    for (store::Resource& resource : store_.versionResources(env, *active)) {
      auto state = stateOf.find(resource.resource_id);
      const store::ResourceState* row = state == stateOf.end() ? nullptr : state->second;
      // a state row still orphaned from before this version was read by the scheduler is current
      std::string status = row && row->orphaned_after ? "available" : displayedStatus(row);
      current.insert(resource.resource_id);
      rows.push_back({std::make_shared<const store::Resource>(std::move(resource)), *active, std::move(status)});
    }
    for (const store::ResourceState& state : states) {
      if (!state.orphaned_after || current.count(state.resource_id)) continue;
      std::optional<store::Resource> resource = store_.getResource(env, *state.orphaned_after, state.resource_id);
      if (resource)
        rows.push_back(
            {std::make_shared<const store::Resource>(std::move(*resource)), *state.orphaned_after, "orphaned"});
    }
  }
  snapshot->itemOnce_ = std::make_unique<std::once_flag[]>(rows.size());
  snapshot->itemText_ = std::make_unique<std::string[]>(rows.size());
  nlohmann::json byState = nlohmann::json::object();
  std::map<std::string, std::int64_t> counts;
  std::int64_t total = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    snapshot->byId[rows[i].resource->resource_id] = i;
    if (rows[i].status == "orphaned") continue;
    ++counts[rows[i].status];
    ++total;
  }
  for (const std::string& state : resourceStates())
    if (state != "orphaned") byState[state] = counts[state];
  snapshot->deploySummary = {{"total", total}, {"by_state", byState}};
  for (ResourceColumn column : {ResourceColumn::resource_type, ResourceColumn::agent, ResourceColumn::resource_id_value,
                                ResourceColumn::status}) {
    std::vector<size_t>& order = snapshot->order[column];
    order.resize(rows.size());
    for (size_t i = 0; i < rows.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      const std::string& x = ResourceSnapshot::columnValue(rows[a], column);
      const std::string& y = ResourceSnapshot::columnValue(rows[b], column);
      return x < y || (x == y && rows[a].resource->resource_id < rows[b].resource->resource_id);
    });
  }
  return snapshot;
}

namespace {

bool matchesAny(const std::vector<std::string>& needles, const std::string& text) {
  if (needles.empty()) return true;
  return std::any_of(needles.begin(), needles.end(),
                     [&](const std::string& needle) { return text.find(needle) != std::string::npos; });
}

bool keep(const ResourceFilter& filter, const ResourceRow& row) {
  const store::Resource& resource = *row.resource;
  if (!matchesAny(filter.agent, resource.agent) || !matchesAny(filter.resource_type, resource.resource_type) ||
      !matchesAny(filter.resource_id_value, resource.resource_id_value))
    return false;
  if (!filter.status.empty() &&
      std::find(filter.status.begin(), filter.status.end(), row.status) == filter.status.end())
    return false;
  return std::find(filter.notStatus.begin(), filter.notStatus.end(), row.status) == filter.notStatus.end();
}

}  // namespace

std::vector<const ResourceRow*> ResourceService::select(const ResourceSnapshot& snapshot, const ResourceFilter& filter,
                                                        ResourceColumn column, bool ascending) {
  const std::vector<size_t>& order = snapshot.order.at(column);
  std::vector<const ResourceRow*> out;
  out.reserve(order.size());
  auto add = [&](size_t i) {
    if (keep(filter, snapshot.rows[i])) out.push_back(&snapshot.rows[i]);
  };
  if (ascending)
    for (size_t i : order) add(i);
  else
    for (auto it = order.rbegin(); it != order.rend(); ++it) add(*it);
  return out;
}

nlohmann::json ResourceService::deploySummary(const std::string& env) { return snapshot(env)->deploySummary; }

ResourceDetail ResourceService::get(const std::string& env, const std::string& resource_id) {
  std::shared_ptr<const ResourceSnapshot> current = snapshot(env);
  auto found = current->byId.find(resource_id);
  if (found == current->byId.end())
    throw notFound("The resource with the given id does not exist, or was not released yet in the given environment.");
  ResourceDetail detail;
  detail.row = current->rows[found->second];
  detail.state = store_.getResourceState(env, resource_id);
  for (const nlohmann::json& required : detail.row.resource->attributes.value("requires", nlohmann::json::array())) {
    if (!required.is_string()) continue;
    std::string rid = required.get<std::string>();
    auto other = current->byId.find(rid);
    detail.requires_status[rid] = other == current->byId.end() ? "available" : current->rows[other->second].status;
  }
  return detail;
}

std::vector<HistoryEntry> ResourceService::history(const std::string& env, const std::string& resource_id) {
  std::vector<store::ModelVersion> versions = store_.listVersions(env, 0, INT64_MAX).versions;
  std::sort(versions.begin(), versions.end(),
            [](const store::ModelVersion& a, const store::ModelVersion& b) { return a.version < b.version; });
  std::vector<HistoryEntry> out;
  for (const store::ModelVersion& version : versions) {
    if (!version.released) continue;
    std::optional<store::Resource> resource = store_.getResource(env, version.version, resource_id);
    if (!resource) continue;
    // consecutive versions with the same desired state are one entry
    if (!out.empty() && out.back().attribute_hash == resource->attribute_hash) continue;
    out.push_back({resource->attribute_hash, version.date, std::move(resource->attributes)});
  }
  return out;
}

namespace {

std::string upper(std::string text) {
  for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

// Whether an action passes the filters the store cannot apply: its change, a message level, the
// attribute of a resource it touches. `resourceOf` finds a resource of a version.
template <class ResourceOf>
bool passes(const ActionFilter& filter, const store::ResourceAction& action, ResourceOf resourceOf) {
  if (!filter.exclude_changes.empty()) {
    // as the reference's `change NOT IN (…)`, an action without change does not pass either
    if (!action.change) return false;
    if (std::find(filter.exclude_changes.begin(), filter.exclude_changes.end(), *action.change) !=
        filter.exclude_changes.end())
      return false;
  }
  if (filter.log_severity) {
    std::string level = upper(*filter.log_severity);
    bool found = std::any_of(action.messages.begin(), action.messages.end(), [&](const nlohmann::json& line) {
      return line.is_object() && line.value("level", std::string()) == level;
    });
    if (!found) return false;
  }
  if (filter.attribute) {
    bool found = false;
    for (const std::string& rvid : action.resource_version_ids) {
      std::optional<std::string> rid = util::stripVersion(rvid);
      const store::Resource* resource = rid ? resourceOf(action.version, *rid) : nullptr;
      if (!resource) continue;
      auto value = resource->attributes.find(*filter.attribute);
      if (value == resource->attributes.end() || value->is_null()) continue;
      std::string text = value->is_string() ? value->get<std::string>() : value->dump();
      if (text.rfind(*filter.attribute_value, 0) == 0) found = true;
    }
    if (!found) return false;
  }
  return true;
}

}  // namespace

std::vector<store::ResourceAction> ResourceService::queryActions(const std::string& env, const ActionFilter& filter) {
  if (filter.attribute.has_value() != filter.attribute_value.has_value())
    throw badRequest(
        "Attribute and attribute_value should both be supplied to use them filtering. Received attribute: " +
        filter.attribute.value_or("None") + ", attribute_value: " + filter.attribute_value.value_or("None"));
  if (filter.first_timestamp && filter.last_timestamp)
    throw badRequest(
        "Only one of the parameters first_timestamp and last_timestamp should be used Received "
        "first_timestamp: " +
        store::formatTimestamp(*filter.first_timestamp) +
        ", last_timestamp: " + store::formatTimestamp(*filter.last_timestamp));
  if (filter.action_id && !filter.first_timestamp && !filter.last_timestamp)
    throw badRequest(
        "The action_id parameter should be used in combination with either the first_timestamp or the "
        "last_timestamp Received action_id: " +
        *filter.action_id +
        ", first_timestamp: None, "
        "last_timestamp: None");
  if (filter.limit > 1000)
    throw badRequest("limit parameter can not exceed 1000, got " + std::to_string(filter.limit) + ".");
  std::int64_t limit = filter.limit > 0 ? filter.limit : INT64_MAX;

  store::ActionQuery query;
  query.resource_type = filter.resource_type;
  query.agent = filter.agent;
  // the page newer than first_timestamp is read oldest first from there, then turned around
  query.oldest_first = filter.first_timestamp.has_value();
  if (filter.first_timestamp) {
    query.after = filter.first_timestamp;
    query.after_action_id = filter.action_id.value_or("");
  }
  if (filter.last_timestamp) {
    query.before = filter.last_timestamp;
    query.before_action_id = filter.action_id.value_or("");
  }
  bool postFiltered = !filter.exclude_changes.empty() || filter.log_severity || filter.attribute;
  // without filters of its own, one read of `limit`; with them, batches until the page is full
  query.limit = postFiltered ? std::max<std::int64_t>(std::min<std::int64_t>(limit, 1000), 200) : limit;

  std::map<std::pair<std::int64_t, std::string>, std::optional<store::Resource>> resources;
  auto resourceOf = [&](std::int64_t version, const std::string& rid) -> const store::Resource* {
    auto key = std::make_pair(version, rid);
    auto found = resources.find(key);
    if (found == resources.end()) found = resources.emplace(key, store_.getResource(env, version, rid)).first;
    return found->second ? &*found->second : nullptr;
  };
  std::vector<store::ResourceAction> out;
  while (static_cast<std::int64_t>(out.size()) < limit) {
    std::vector<store::ResourceAction> batch = store_.queryResourceActions(env, query);
    for (store::ResourceAction& action : batch) {
      if (static_cast<std::int64_t>(out.size()) >= limit) break;
      if (passes(filter, action, resourceOf)) out.push_back(std::move(action));
    }
    if (!postFiltered || static_cast<std::int64_t>(batch.size()) < query.limit) break;
    // the next batch continues after the last action read
    const store::ResourceAction& last = batch.back();
    if (query.oldest_first) {
      query.after = last.started;
      query.after_action_id = last.action_id;
    } else {
      query.before = last.started;
      query.before_action_id = last.action_id;
    }
  }
  if (query.oldest_first) std::reverse(out.begin(), out.end());
  return out;
}

std::vector<store::ResourceAction> ResourceService::actions(const std::string& env, const std::string& resource_id) {
  store::ActionQuery query;
  query.resource_id = resource_id;
  query.limit = INT64_MAX;
  return store_.queryResourceActions(env, query);
}

VersionedResource ResourceService::versionedResource(const std::string& env, const std::string& rvid, bool withActions,
                                                     const std::optional<std::string>& action, std::int64_t limit) {
  std::optional<util::ResourceIdParts> id = util::parseResourceId(rvid);
  if (!id || !id->version) throw bare(400, rvid + " is not a valid resource version id");
  std::optional<store::Resource> resource = store_.getResource(env, *id->version, id->id());
  if (!resource) throw bare(404, "The resource with the given id does not exist in the given environment");
  VersionedResource out{std::move(*resource), {}};
  if (withActions) {
    store::ActionQuery query;
    query.resource_id = out.resource.resource_id;
    query.version = *id->version;
    if (action) query.actions = {*action};
    query.limit = limit > 0 ? limit : INT64_MAX;
    out.actions = store_.queryResourceActions(env, query);
  }
  return out;
}

}  // namespace inmanta::server
