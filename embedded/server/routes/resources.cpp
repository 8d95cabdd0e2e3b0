// Resources and logs (spec §4.8): GET /api/v2/resource, /resource/<rid>, /resource/<rid>/logs,
// /resource/<rid>/history, /resource_actions, and GET /api/v1/resource/<rvid> (one resource of one
// version with its actions, the reference's get_resource).
#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "embedded/server/errors.h"
#include "embedded/server/router.h"
#include "embedded/server/routes/resources_json.h"
#include "embedded/server/services/context.h"
#include "embedded/server/services/resources.h"
#include "util/resource_id.h"

namespace inmanta::server {

namespace {

using nlohmann::json;

ResourceFilter filterOf(const Request& r) {
  checkFilters(r, {"agent", "resource_type", "resource_id_value", "status"});
  ResourceFilter filter;
  filter.agent = filterValues(r, "agent");
  filter.resource_type = filterValues(r, "resource_type");
  filter.resource_id_value = filterValues(r, "resource_id_value");
  const std::vector<std::string>& known = resourceStates();
  for (const std::string& value : filterValues(r, "status")) {
    bool excluded = !value.empty() && value[0] == '!';
    std::string state = excluded ? value.substr(1) : value;
    if (std::find(known.begin(), known.end(), state) == known.end())
      throw badRequest("Filter validation failed while parsing status: " + state + " is not a resource state");
    (excluded ? filter.notStatus : filter.status).push_back(state);
  }
  return filter;
}

// A resource of the list (GET /api/v2/resource) as the JSON text of its item.
std::string listItemText(const ResourceRow& row) {
  json item = {{"resource_id", row.resource->resource_id},
               {"resource_version_id", util::versionedId(row.resource->resource_id, row.version)},
               {"id_details", idDetails(*row.resource)},
               {"requires", requiresOf(*row.resource)},
               {"status", row.status}};
  return Reply::dumpText(item);
}

}  // namespace

void addResourceRoutes(Router& router, Services& services) {
  ResourceService* resources = &services.resources;
  std::vector<Arg> listArgs = pagingArgs("resource_type.desc");
  listArgs.push_back(opt("deploy_summary", ArgType::boolean, false));
  router.add(
      {.method = "GET",
       .path = "/api/v2/resource",
       .args = listArgs,
       .scope = Scope::environment,
       .handler = [resources](Request& r) {
         auto [column, ascending] = parseSort(r, {"resource_type", "agent", "resource_id_value", "status"});
         ResourceFilter filter = filterOf(r);
         PageRequest paging = pageRequest(r, ascending, false);
         ResourceColumn sortColumn = column == "agent"           ? ResourceColumn::agent
                                     : column == "resource_type" ? ResourceColumn::resource_type
                                     : column == "status"        ? ResourceColumn::status
                                                                 : ResourceColumn::resource_id_value;
         std::shared_ptr<const ResourceSnapshot> snapshot = resources->snapshot(r.envId());
         std::vector<const ResourceRow*> rows = ResourceService::select(*snapshot, filter, sortColumn, ascending);
         PageSlice page = slicePage(rows.size(), paging, [&](size_t i) {
           return PageKey{json(ResourceSnapshot::columnValue(*rows[i], sortColumn)), rows[i]->resource->resource_id};
         });
         // the items are kept as JSON text by the snapshot: the page is their concatenation
         std::string items = "[";
         for (size_t i : page.positions) {
           if (items.size() > 1) items += ',';
           items += snapshot->serialisedItem(*rows[i], listItemText);
         }
         items += ']';
         json extra = json::object();
         if (r.boolean("deploy_summary")) extra["deploy_summary"] = snapshot->deploySummary;
         PageEnvelope envelope =
             pageEnvelope(r, page.total, page.before, page.after, page.first, page.last, paging, extra);
         return Reply::serialisedData(items, envelope.metadata, envelope.links);
       }});
  router.add({.method = "GET",
              .path = "/api/v2/resource/<rid>",
              .scope = Scope::environment,
              .handler = [resources](Request& r) {
                ResourceDetail detail = resources->get(r.envId(), r.str("rid"));
                const store::Resource& res = *detail.row.resource;
                auto time = [](const std::optional<store::Timestamp>& t) {
                  return t ? json(store::formatTimestamp(*t)) : json();
                };
                return Reply::data({{"resource_id", res.resource_id},
                                    {"resource_type", res.resource_type},
                                    {"agent", res.agent},
                                    {"id_attribute", res.id_attribute},
                                    {"id_attribute_value", res.resource_id_value},
                                    {"attributes", res.attributes},
                                    {"last_deploy", detail.state ? time(detail.state->last_handler_run_at) : json()},
                                    {"first_generated_time",
                                     detail.state ? json(store::formatTimestamp(detail.state->created)) : json()},
                                    {"status", detail.row.status},
                                    {"requires_status", detail.requires_status}});
              }});
  // the reference's get_resource (v1): inmanta-cli's `action-log list` and `show-messages`
  router.add({.method = "GET",
              .path = "/api/v1/resource/<id>",
              .args = {req("id", ArgType::string), opt("logs", ArgType::boolean, false),
                       opt("log_action", ArgType::string), opt("log_limit", ArgType::integer, 0)},
              .scope = Scope::environment,
              .clientTypes = kApi | kAgent,
              .handler = [resources](Request& r) {
                std::optional<std::string> action = r.optStr("log_action");
                static const std::vector<std::string> kActions{"store",  "push",    "pull", "deploy",
                                                               "dryrun", "getfact", "other"};
                if (action && std::find(kActions.begin(), kActions.end(), *action) == kActions.end())
                  throw badRequest("log_action must be one of store, push, pull, deploy, dryrun, getfact, other, not " +
                                   *action);
                VersionedResource found = resources->versionedResource(r.envId(), r.str("id"), r.boolean("logs"),
                                                                       action, r.integer("log_limit"));
                json logs = json::array();
                for (const store::ResourceAction& a : found.actions) logs.push_back(actionJson(a, false));
                return Reply::json({{"resource", resourceJson(r.envId(), found.resource)}, {"logs", std::move(logs)}});
              }});
  std::vector<Arg> logArgs = pagingArgs("timestamp.desc");
  router.add({.method = "GET",
              .path = "/api/v2/resource/<rid>/logs",
              .args = logArgs,
              .scope = Scope::environment,
              .handler = [resources](Request& r) {
                auto [column, ascending] = parseSort(r, {"timestamp"});
                checkFilters(r, {"action", "minimal_log_level", "message", "timestamp"});
                std::vector<std::string> actions = filterValues(r, "action");
                std::vector<std::string> messages = filterValues(r, "message");
                static const std::vector<std::string> levels{"TRACE", "DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"};
                size_t minimal = 0;
                for (const std::string& level : filterValues(r, "minimal_log_level")) {
                  auto found = std::find(levels.begin(), levels.end(), level);
                  if (found == levels.end()) throw badRequest("Invalid filter: minimal_log_level " + level);
                  minimal = static_cast<size_t>(found - levels.begin());
                }
                auto lower = [](std::string text) {
                  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
                  return text;
                };
                std::vector<json> lines;
                for (const store::ResourceAction& action : resources->actions(r.envId(), r.str("rid"))) {
                  if (!actions.empty() && std::find(actions.begin(), actions.end(), action.action) == actions.end())
                    continue;
                  for (const json& line : action.messages) {
                    if (!line.is_object()) continue;
                    std::string level = line.value("level", std::string("INFO"));
                    auto rank = std::find(levels.begin(), levels.end(), level);
                    if (rank != levels.end() && static_cast<size_t>(rank - levels.begin()) < minimal) continue;
                    std::string msg = line.value("msg", std::string());
                    bool matches = std::all_of(messages.begin(), messages.end(), [&](const std::string& m) {
                      return lower(msg).find(lower(m)) != std::string::npos;
                    });
                    if (!matches) continue;
                    json entry = line;
                    entry["action_id"] = action.action_id;
                    entry["action"] = action.action;
                    lines.push_back(std::move(entry));
                  }
                }
                PageRequest paging = pageRequest(r, ascending, false);
                Page<json> page = makePage(std::move(lines), paging, [](const json& line) {
                  return PageKey{line.value("timestamp", json("")), line.value("action_id", std::string())};
                });
                return pagedReply(r, page, json(page.items), paging);
              }});
  router.add({.method = "GET",
              .path = "/api/v2/resource/<rid>/history",
              .args = pagingArgs("date.desc"),
              .scope = Scope::environment,
              .handler = [resources](Request& r) {
                auto [column, ascending] = parseSort(r, {"date"});
                checkFilters(r, {});
                PageRequest paging = pageRequest(r, ascending, false);
                Page<HistoryEntry> page =
                    makePage(resources->history(r.envId(), r.str("rid")), paging, [](const HistoryEntry& entry) {
                      return PageKey{json(store::formatTimestamp(entry.date)), entry.attribute_hash};
                    });
                json items = json::array();
                for (const HistoryEntry& entry : page.items)
                  items.push_back({{"resource_id", r.str("rid")},
                                   {"attribute_hash", entry.attribute_hash},
                                   {"attributes", entry.attributes},
                                   {"date", store::formatTimestamp(entry.date)},
                                   {"requires", entry.attributes.value("requires", json::array())}});
                return pagedReply(r, page, std::move(items), paging);
              }});
  router.add(
      {.method = "GET",
       .path = "/api/v2/resource_actions",
       .args = {opt("resource_type", ArgType::string), opt("agent", ArgType::string), opt("attribute", ArgType::string),
                opt("attribute_value", ArgType::string), opt("log_severity", ArgType::string),
                opt("limit", ArgType::integer, 1000), opt("action_id", ArgType::uuid),
                opt("first_timestamp", ArgType::string), opt("last_timestamp", ArgType::string),
                opt("exclude_changes", ArgType::list, nullptr, ArgType::string)},
       .scope = Scope::environment,
       .handler = [resources](Request& r) {
         ActionFilter filter;
         filter.resource_type = r.optStr("resource_type");
         filter.agent = r.optStr("agent");
         filter.attribute = r.optStr("attribute");
         filter.attribute_value = r.optStr("attribute_value");
         filter.log_severity = r.optStr("log_severity");
         filter.limit = r.integer("limit");
         filter.action_id = r.optStr("action_id");
         auto timestamp = [&](const std::string& name) -> std::optional<store::Timestamp> {
           if (!r.has(name)) return std::nullopt;
           std::optional<store::Timestamp> t = store::parseTimestamp(r.str(name));
           if (!t) throw badRequest(name + " is not a timestamp: " + r.str(name));
           return t;
         };
         filter.first_timestamp = timestamp("first_timestamp");
         filter.last_timestamp = timestamp("last_timestamp");
         if (r.has("exclude_changes"))
           for (const json& change : r.args["exclude_changes"])
             filter.exclude_changes.push_back(change.get<std::string>());
         std::vector<store::ResourceAction> found = resources->queryActions(r.envId(), filter);
         json items = json::array();
         for (const store::ResourceAction& action : found) items.push_back(actionJson(action, true));
         Reply reply = Reply::data(std::move(items));
         // next: older than the last item; prev: newer than the first (the reference's links)
         if (!found.empty()) {
           std::string base = "/api/v2/resource_actions?";
           for (const char* name : {"resource_type", "agent", "attribute", "attribute_value", "log_severity"})
             if (r.has(name)) base += std::string(name) + "=" + percentEncode(r.str(name)) + "&";
           base += "limit=" + std::to_string(filter.limit);
           auto link = [&](const char* bound, const store::ResourceAction& action) {
             return base + "&" + bound + "=" + percentEncode(store::formatTimestamp(action.started)) +
                    "&action_id=" + action.action_id;
           };
           (*reply.body)["links"] = {{"next", link("last_timestamp", found.back())},
                                     {"prev", link("first_timestamp", found.front())}};
         }
         return reply;
       }});
}

}  // namespace inmanta::server
