// Dry-runs (spec §4.10): create, list and get, v1 and v2 shapes.
#include <memory>

#include "embedded/server/errors.h"
#include "embedded/server/router.h"
#include "embedded/server/routes/resources_json.h"
#include "embedded/server/services/context.h"
#include "embedded/server/services/dryruns.h"

namespace inmanta::server {

void addDryRunRoutes(Router& router, Services& services) {
  auto dryruns = std::make_shared<DryRunService>(services.store, services.deployTrigger());
  using nlohmann::json;
  // a missing version: the v1 handler's bare message, the v2 one's prefixed one
  auto create = [dryruns](Request& r, bool v1) {
    try {
      return dryruns->create(*r.environment, r.integer("id"));
    } catch (const store::NotFound&) {
      if (v1) throw bare(404, "The request version does not exist.");
      throw notFound("The requested version does not exist.");
    }
  };
  router.add({.method = "POST",
              .path = "/api/v1/dryrun/<id>",
              .args = {req("id", ArgType::integer)},
              .scope = Scope::environment,
              .handler = [create](Request& r) {
                json summary = dryRunSummary(create(r, true));
                summary["resources"] = json::object();
                return Reply::json({{"dryrun", summary}});
              }});
  router.add({.method = "POST",
              .path = "/api/v2/dryrun/<id>",
              .args = {req("id", ArgType::integer)},
              .scope = Scope::environment,
              .handler = [create](Request& r) { return Reply::data(create(r, false).id); }});
  router.add({.method = "GET",
              .path = "/api/v1/dryrun",
              .args = {opt("version", ArgType::integer)},
              .scope = Scope::environment,
              .handler = [dryruns](Request& r) {
                std::optional<std::int64_t> version;
                if (r.has("version")) version = r.integer("version");
                std::vector<store::DryRun> list = dryruns->list(r.envId(), version);
                std::sort(list.begin(), list.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
                json items = json::array();
                for (const store::DryRun& d : list)
                  items.push_back({{"id", d.id},
                                   {"version", d.version},
                                   {"date", store::formatTimestamp(d.date)},
                                   {"total", d.total},
                                   {"todo", d.todo}});
                return Reply::json({{"dryruns", items}});
              }});
  router.add({.method = "GET",
              .path = "/api/v1/dryrun/<id>",
              .args = {req("id", ArgType::uuid)},
              .scope = Scope::environment,
              .handler = [dryruns](Request& r) {
                store::DryRun d = dryruns->get(r.envId(), r.str("id"));
                json summary = dryRunSummary(d);
                summary["resources"] = d.resources;
                return Reply::json({{"dryrun", summary}});
              }});
  router.add({.method = "GET",
              .path = "/api/v2/dryrun/<version>",
              .args = {req("version", ArgType::integer)},
              .scope = Scope::environment,
              .handler = [dryruns](Request& r) {
                json items = json::array();
                for (const store::DryRun& d : dryruns->list(r.envId(), r.integer("version")))
                  items.push_back(dryRunSummary(d));
                return Reply::data(items);
              }});
  router.add({.method = "GET",
              .path = "/api/v2/dryrun/<version>/<report_id>",
              .args = {req("version", ArgType::integer), req("report_id", ArgType::uuid)},
              .scope = Scope::environment,
              .handler = [dryruns](Request& r) {
                store::DryRun d = dryruns->get(r.envId(), r.str("report_id"));
                if (d.version != r.integer("version")) throw notFound("The given dryrun does not exist!");
                json diff = json::array();
                for (const ResourceDiff& entry : DryRunService::diff(d)) diff.push_back(resourceDiffJson(entry));
                return Reply::data({{"summary", dryRunSummary(d)}, {"diff", diff}});
              }});
}

}  // namespace inmanta::server
