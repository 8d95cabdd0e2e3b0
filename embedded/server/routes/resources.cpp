// Resources and logs (spec §4.8): GET /api/v2/resource, /resource/<rid>, /resource/<rid>/logs,
// /resource_actions.
#include <memory>

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

}  // namespace

void addResourceRoutes(Router& router, Services& services) {
  auto resources = std::make_shared<ResourceService>(services.store);
  store::Store& store = services.store;
  std::vector<Arg> listArgs = pagingArgs("resource_type.desc");
  listArgs.push_back(opt("deploy_summary", ArgType::boolean, false));
  router.add({"GET", "/api/v2/resource", listArgs, Scope::environment, kApi, true, false, [resources](Request& r) {
                auto [column, ascending] = parseSort(r, {"resource_type", "agent", "resource_id_value", "status"});
                ResourceFilter filter = filterOf(r);
                PageRequest paging = pageRequest(r, ascending, false);
                std::string sortColumn = column;
                Page<ResourceRow> page = makePage(resources->list(r.envId(), filter), paging, [&](const ResourceRow& row) {
                  const store::Resource& res = *row.resource;
                  const std::string& key = sortColumn == "agent"           ? res.agent
                                           : sortColumn == "resource_type" ? res.resource_type
                                           : sortColumn == "status"        ? row.status
                                                                           : res.resource_id_value;
                  return PageKey{json(key), res.resource_id};
                });
                json items = json::array();
                for (const ResourceRow& row : page.items)
                  items.push_back({{"resource_id", row.resource->resource_id},
                                   {"resource_version_id", util::versionedId(row.resource->resource_id, row.version)},
                                   {"id_details", idDetails(*row.resource)},
                                   {"requires", requiresOf(*row.resource, row.version)},
                                   {"status", row.status}});
                json extra = json::object();
                if (r.boolean("deploy_summary")) extra["deploy_summary"] = resources->deploySummary(r.envId());
                return pagedReply(r, page, items, paging, extra);
              }});
  router.add({"GET", "/api/v2/resource/<rid>", {}, Scope::environment, kApi, true, false, [resources](Request& r) {
                ResourceDetail detail = resources->get(r.envId(), r.str("rid"));
                const store::Resource& res = *detail.row.resource;
                auto time = [](const std::optional<store::Timestamp>& t) {
                  return t ? json(store::formatTimestamp(*t)) : json();
                };
                return Reply::data(
                    {{"resource_id", res.resource_id},
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
  std::vector<Arg> logArgs = pagingArgs("timestamp.desc");
  router.add({"GET", "/api/v2/resource/<rid>/logs", logArgs, Scope::environment, kApi, true, false, [resources](Request& r) {
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
                  if (!actions.empty() && std::find(actions.begin(), actions.end(), action.action) == actions.end()) continue;
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
  router.add({"GET", "/api/v2/resource_actions",
              {opt("resource_type", ArgType::string), opt("agent", ArgType::string), opt("attribute", ArgType::string),
               opt("attribute_value", ArgType::string), opt("log_severity", ArgType::string),
               opt("limit", ArgType::integer, 1000), opt("action_id", ArgType::uuid), opt("first_timestamp", ArgType::string),
               opt("last_timestamp", ArgType::string), opt("exclude_changes", ArgType::list, nullptr, ArgType::string)},
              Scope::environment, kApi, true, false, [&store](Request& r) {
                if (r.has("attribute") != r.has("attribute_value"))
                  throw badRequest("Attribute and attribute_value should both be supplied to use them filtering");
                std::int64_t limit = r.integer("limit");
                if (limit < 1 || limit > 1000) throw badRequest("limit must be between 1 and 1000");
                if ((r.has("first_timestamp") || r.has("last_timestamp")) && !r.has("action_id"))
                  throw badRequest("Can't retrieve the next or previous page without an action_id");
                store::ActionQuery query;
                query.resource_type = r.optStr("resource_type");
                query.agent = r.optStr("agent");
                query.resource_id_value = r.optStr("attribute_value");
                query.limit = limit;
                auto timestamp = [&](const std::string& name) {
                  std::optional<store::Timestamp> t = store::parseTimestamp(r.str(name));
                  if (!t) throw badRequest(name + " is not a timestamp: " + r.str(name));
                  return *t;
                };
                if (r.has("first_timestamp")) {
                  query.before = timestamp("first_timestamp");
                  query.before_action_id = r.str("action_id");
                }
                if (r.has("last_timestamp")) {
                  query.after = timestamp("last_timestamp");
                  query.after_action_id = r.str("action_id");
                }
                json items = json::array();
                for (const store::ResourceAction& action : store.queryResourceActions(r.envId(), query))
                  items.push_back(actionJson(action, true));
                return Reply::data(items, json::object(), {{"self", r.path}});
              }});
}

}  // namespace inmanta::server
