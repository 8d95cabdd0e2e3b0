// Model versions (spec §4.7): reserve, put (full and partial), release, list, get, delete, and the
// v2 desired-state views.
#include <cstdint>
#include <memory>

#include "embedded/server/errors.h"
#include "embedded/server/router.h"
#include "embedded/server/routes/resources_json.h"
#include "embedded/server/services/context.h"
#include "embedded/server/services/versions.h"
#include "util/resource_id.h"

namespace inmanta::server {

namespace {

using nlohmann::json;

// Taken out of the request rather than copied: the resources of a version are megabytes of JSON.
json arg(Request& r, const std::string& name) { return r.has(name) ? std::move(r.args[name]) : json(); }

VersionUpload uploadOf(Request& r) {
  VersionUpload upload;
  if (r.has("version")) upload.version = r.integer("version");
  upload.resources = arg(r, "resources");
  upload.resource_state = arg(r, "resource_state");
  upload.unknowns = arg(r, "unknowns");
  upload.version_info = arg(r, "version_info");
  upload.resource_sets = arg(r, "resource_sets");
  upload.removed_resource_sets = arg(r, "removed_resource_sets");
  upload.pip_config = arg(r, "pip_config");
  upload.project_constraints = arg(r, "project_constraints");
  upload.module_version_info = arg(r, "module_version_info");
  if (r.has("allow_handler_code_update")) upload.allow_handler_code_update = r.boolean("allow_handler_code_update");
  return upload;
}

// the export's type and message (export_metadata of version_info) as the desired-state label
json labelsOf(const store::ModelVersion& version) {
  json labels = json::array();
  json meta = version.version_info.value("export_metadata", json::object());
  if (meta.is_object() && meta.contains("type"))
    labels.push_back({{"name", meta["type"]}, {"message", meta.value("message", json(""))}});
  return labels;
}

std::vector<Arg> putArgs(bool partial) {
  std::vector<Arg> args{req("resources", ArgType::list),          opt("resource_state", ArgType::dict),
                        opt("unknowns", ArgType::list),           opt("version_info", ArgType::dict),
                        opt("resource_sets", ArgType::dict),      opt("pip_config", ArgType::any),
                        opt("module_version_info", ArgType::dict)};
  if (partial) {
    args.push_back(opt("removed_resource_sets", ArgType::list, nullptr, ArgType::string));
    args.push_back(opt("allow_handler_code_update", ArgType::boolean));
  } else {
    args.push_back(req("version", ArgType::integer));
    args.push_back(opt("project_constraints", ArgType::any));
    args.back().fallback = nullptr;
    args[6].required = true;  // module_version_info: required (may be {}) on the full put
  }
  return args;
}

}  // namespace

void addVersionRoutes(Router& router, Services& services) {
  auto versions = std::make_shared<VersionService>(services.store, services.deployTrigger(), services.resources);
  store::Store& store = services.store;

  router.add({.method = "POST",
              .path = "/api/v2/reserve_version",
              .scope = Scope::environment,
              .clientTypes = kCompiler,
              .handler = [versions](Request& r) { return Reply::data(versions->reserve(r.envId())); }});
  router.add({.method = "PUT",
              .path = "/api/v1/version",
              .args = putArgs(false),
              .scope = Scope::environment,
              .clientTypes = kCompiler,
              .handler = [versions](Request& r) {
                versions->put(*r.environment, uploadOf(r));
                return Reply::empty();
              }});
  for (const char* path : {"/api/v1/version/partial", "/api/v2/version/partial"})
    router.add(
        {.method = "PUT",
         .path = path,
         .args = putArgs(true),
         .scope = Scope::environment,
         .clientTypes = kCompiler,
         .acceptsExtraFields = true,
         .handler = [versions](Request& r) { return Reply::data(versions->putPartial(*r.environment, uploadOf(r))); }});
  router.add({.method = "POST",
              .path = "/api/v1/version/<id>",
              .args = {req("id", ArgType::integer), opt("push", ArgType::boolean),
                       opt("agent_trigger_method", ArgType::string)},
              .scope = Scope::environment,
              .clientTypes = kApi | kCompiler,
              .handler = [versions](Request& r) {
                return Reply::json({{"model", versionJson(versions->release(*r.environment, r.integer("id")))}});
              }});
  router.add({.method = "GET",
              .path = "/api/v1/version",
              .args = {opt("start", ArgType::integer), opt("limit", ArgType::integer)},
              .scope = Scope::environment,
              .handler = [&store](Request& r) {
                if (r.has("start") != r.has("limit"))
                  throw badRequest("Start and limit should always be set together.");
                std::int64_t start = r.has("start") ? r.integer("start") : 0;
                std::int64_t limit = r.has("limit") ? r.integer("limit") : 1000;
                if (limit > 1000)
                  throw badRequest("limit parameter can not exceed 1000, got " + std::to_string(limit) + ".");
                if (start < 0) throw badRequest("start can not be negative, got " + std::to_string(start) + ".");
                // a limit of 0 (or less) lists every version, as the reference's query does
                store::VersionPage page = store.listVersions(r.envId(), start, limit > 0 ? limit : INT64_MAX);
                json list = json::array();
                for (const store::ModelVersion& v : page.versions) list.push_back(versionJson(v));
                return Reply::json({{"versions", list}, {"start", start}, {"limit", limit}, {"count", page.count}});
              }});
  router.add({.method = "GET",
              .path = "/api/v1/version/<id>",
              .args = {req("id", ArgType::integer), opt("include_logs", ArgType::boolean, false),
                       opt("log_filter", ArgType::string), opt("limit", ArgType::integer)},
              .scope = Scope::environment,
              .handler = [versions, &store](Request& r) {
                std::int64_t number = r.integer("id");
                store::ModelVersion version = versions->get(r.envId(), number);
                // the reference leaves the order to the database; ours is desiredstate's default
                // (resource type descending, then id)
                std::vector<store::Resource> resources = store.versionResources(r.envId(), number);
                std::stable_sort(resources.begin(), resources.end(),
                                 [](const store::Resource& a, const store::Resource& b) {
                                   return a.resource_type > b.resource_type ||
                                          (a.resource_type == b.resource_type && a.resource_id < b.resource_id);
                                 });
                json rows = json::array();
                for (const store::Resource& resource : resources) {
                  json row = resourceJson(r.envId(), resource);
                  if (r.boolean("include_logs")) {
                    store::ActionQuery query;
                    query.resource_id = resource.resource_id;
                    query.version = number;
                    if (r.has("log_filter")) query.actions = {r.str("log_filter")};
                    // a limit of 0 (or less) keeps every action, as the reference's query does
                    if (r.has("limit")) query.limit = r.integer("limit") > 0 ? r.integer("limit") : INT64_MAX;
                    json actions = json::array();
                    for (const store::ResourceAction& a : store.queryResourceActions(r.envId(), query))
                      actions.push_back(actionJson(a, false));
                    row["actions"] = actions;
                  }
                  rows.push_back(std::move(row));
                }
                json unknowns = json::array();
                for (const store::UnknownParameter& u : store.versionUnknowns(r.envId(), number))
                  unknowns.push_back({{"name", u.name},
                                      {"environment", r.envId()},
                                      {"source", u.source},
                                      {"resource_id", u.resource_id},
                                      {"version", number},
                                      {"metadata", u.metadata},
                                      {"resolved", false}});
                return Reply::json({{"model", versionJson(version)}, {"resources", rows}, {"unknowns", unknowns}});
              }});
  router.add({.method = "DELETE",
              .path = "/api/v1/version/<id>",
              .args = {req("id", ArgType::integer)},
              .scope = Scope::environment,
              .handler = [versions](Request& r) {
                versions->remove(r.envId(), r.integer("id"));
                return Reply::empty();
              }});

  std::vector<Arg> listArgs = pagingArgs("version.desc");
  router.add({.method = "GET",
              .path = "/api/v2/desiredstate",
              .args = listArgs,
              .scope = Scope::environment,
              .handler = [versions](Request& r) {
                auto [column, ascending] = parseSort(r, {"version"});
                checkFilters(r, {"version", "date", "status", "released"});
                std::vector<std::string> statuses = filterValues(r, "status");
                for (const std::string& s : statuses)
                  if (s != "active" && s != "candidate" && s != "retired" && s != "skipped_candidate")
                    throw badRequest("Invalid filter: status " + s +
                                     " is not one of active, candidate, retired, skipped_candidate");
                std::vector<std::string> released = filterValues(r, "released");
                std::vector<std::string> numbers = filterValues(r, "version");
                std::vector<VersionSummary> kept;
                for (VersionSummary& s : versions->summaries(r.envId())) {
                  if (!statuses.empty() && std::find(statuses.begin(), statuses.end(), s.status) == statuses.end())
                    continue;
                  if (!released.empty() &&
                      (released.front() == "true" || released.front() == "True") != s.version.released)
                    continue;
                  bool numberOk = true;
                  for (const std::string& n : numbers) {
                    // `N` exact, or `<op>:N` with op lt/le/gt/ge
                    size_t colon = n.find(':');
                    std::string op = colon == std::string::npos ? "eq" : n.substr(0, colon);
                    std::int64_t bound = 0;
                    try {
                      bound = std::stoll(colon == std::string::npos ? n : n.substr(colon + 1));
                    } catch (const std::exception&) {
                      throw badRequest("Invalid filter: version " + n);
                    }
                    std::int64_t v = s.version.version;
                    if (op == "eq") numberOk &= v == bound;
                    else if (op == "lt") numberOk &= v < bound;
                    else if (op == "le") numberOk &= v <= bound;
                    else if (op == "gt") numberOk &= v > bound;
                    else if (op == "ge") numberOk &= v >= bound;
                    else throw badRequest("Invalid filter: version " + n);
                  }
                  if (numberOk) kept.push_back(std::move(s));
                }
                PageRequest paging = pageRequest(r, ascending, true);
                Page<VersionSummary> page = makePage(std::move(kept), paging, [](const VersionSummary& s) {
                  return PageKey{json(s.version.version), ""};
                });
                json items = json::array();
                for (const VersionSummary& s : page.items) {
                  items.push_back({{"version", s.version.version},
                                   {"date", store::formatTimestamp(s.version.date)},
                                   {"total", s.version.total},
                                   {"labels", labelsOf(s.version)},
                                   {"status", s.status},
                                   {"released", s.version.released}});
                }
                return pagedReply(r, page, items, paging);
              }});
  std::vector<Arg> versionArgs = pagingArgs("resource_type.desc");
  versionArgs.push_back(req("version", ArgType::integer));
  router.add({.method = "GET",
              .path = "/api/v2/desiredstate/<version>",
              .args = versionArgs,
              .scope = Scope::environment,
              .handler = [versions](Request& r) {
                auto [column, ascending] = parseSort(r, {"resource_type", "agent", "resource_id_value"});
                checkFilters(r, {"agent", "resource_type", "resource_id_value"});
                std::int64_t number = r.integer("version");
                std::vector<std::string> agents = filterValues(r, "agent"), types = filterValues(r, "resource_type"),
                                         values = filterValues(r, "resource_id_value");
                auto contains = [](const std::vector<std::string>& needles, const std::string& text) {
                  return needles.empty() || std::any_of(needles.begin(), needles.end(), [&](const std::string& n) {
                           return text.find(n) != std::string::npos;
                         });
                };
                std::vector<store::Resource> kept;
                for (store::Resource& resource : versions->resources(r.envId(), number))
                  if (contains(agents, resource.agent) && contains(types, resource.resource_type) &&
                      contains(values, resource.resource_id_value))
                    kept.push_back(std::move(resource));
                PageRequest paging = pageRequest(r, ascending, false);
                std::string sortColumn = column;
                Page<store::Resource> page = makePage(std::move(kept), paging, [&](const store::Resource& resource) {
                  const std::string& key = sortColumn == "agent"           ? resource.agent
                                           : sortColumn == "resource_type" ? resource.resource_type
                                                                           : resource.resource_id_value;
                  return PageKey{json(key), resource.resource_id};
                });
                json items = json::array();
                for (const store::Resource& resource : page.items)
                  items.push_back({{"resource_id", resource.resource_id},
                                   {"resource_version_id", util::versionedId(resource.resource_id, number)},
                                   {"id_details", idDetails(resource)},
                                   {"requires", requiresOf(resource)}});
                return pagedReply(r, page, items, paging);
              }});
  router.add({.method = "GET",
              .path = "/api/v2/desiredstate/<version>/resource/<rid>",
              .args = {req("version", ArgType::integer)},
              .scope = Scope::environment,
              .handler = [versions, &store](Request& r) {
                std::int64_t number = r.integer("version");
                try {
                  store.getVersion(r.envId(), number);
                } catch (const store::NotFound&) {
                  throw notFound("Version " + std::to_string(number) + " not found");
                }
                std::optional<store::Resource> resource = store.getResource(r.envId(), number, r.str("rid"));
                if (!resource)
                  throw notFound("The resource " + r.str("rid") + " does not exist in version " +
                                 std::to_string(number));
                return Reply::data({{"resource_id", resource->resource_id},
                                    {"resource_type", resource->resource_type},
                                    {"agent", resource->agent},
                                    {"id_attribute", resource->id_attribute},
                                    {"id_attribute_value", resource->resource_id_value},
                                    {"attributes", resource->attributes},
                                    {"resource_version_id", util::versionedId(resource->resource_id, number)},
                                    {"version", number}});
              }});
  router.add({.method = "POST",
              .path = "/api/v2/desiredstate/<version>/promote",
              .args = {req("version", ArgType::integer), opt("trigger_method", ArgType::string)},
              .scope = Scope::environment,
              .handler = [versions](Request& r) {
                versions->release(*r.environment, r.integer("version"));
                return Reply::empty();
              }});
  router.add({.method = "GET",
              .path = "/api/v2/desiredstate/diff/<from>/<to>",
              .args = {req("from", ArgType::integer), req("to", ArgType::integer)},
              .scope = Scope::environment,
              .handler = [versions](Request& r) {
                json items = json::array();
                for (const ResourceDiff& d : versions->diff(r.envId(), r.integer("from"), r.integer("to")))
                  items.push_back(resourceDiffJson(d));
                return Reply::data(items);
              }});
}

}  // namespace inmanta::server
