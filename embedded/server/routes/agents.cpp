// Agents (spec §4.11): GET /api/v1/agent, GET /api/v2/agents, POST /api/v2/agent/<name>/<action>,
// POST /api/v2/agents/<action>; and the deploy trigger's agent answers live in deploy.cpp.
#include <memory>

#include "embedded/server/errors.h"
#include "embedded/server/router.h"
#include "embedded/server/routes/resources_json.h"
#include "embedded/server/services/agents.h"
#include "embedded/server/services/context.h"

namespace inmanta::server {

namespace {

nlohmann::json agentJson(const AgentView& view) {
  return {{"environment", view.agent.environment},
          {"name", view.agent.name},
          {"paused", view.agent.paused},
          {"unpause_on_resume",
           view.agent.unpause_on_resume ? nlohmann::json(*view.agent.unpause_on_resume) : nlohmann::json()},
          {"process_id", nullptr},
          {"process_name", nullptr},
          {"status", view.status}};
}

}  // namespace

void addAgentRoutes(Router& router, Services& services) {
  auto agents = std::make_shared<AgentService>(services.store, services.deployTrigger());
  router.add({.method = "GET", .path = "/api/v1/agent", .scope = Scope::environment, .handler = [agents](Request& r) {
                nlohmann::json list = nlohmann::json::array();
                for (const AgentView& view : agents->list(*r.environment)) {
                  nlohmann::json item = agentJson(view);
                  item["state"] = view.status;
                  list.push_back(std::move(item));
                }
                return Reply::json({{"agents", list}, {"servertime", store::formatTimestamp(store::now())}});
              }});
  router.add({.method = "GET",
              .path = "/api/v2/agents",
              .args = pagingArgs("name.asc"),
              .scope = Scope::environment,
              .handler = [agents](Request& r) {
                auto [column, ascending] = parseSort(r, {"name", "process_name", "status", "paused"});
                checkFilters(r, {"name", "process_name", "status"});
                std::vector<AgentView> views;
                std::vector<std::string> names = filterValues(r, "name");
                std::vector<std::string> statuses = filterValues(r, "status");
                for (AgentView& view : agents->list(*r.environment)) {
                  bool nameOk = names.empty() || std::any_of(names.begin(), names.end(), [&](const std::string& n) {
                                  return view.agent.name.find(n) != std::string::npos;
                                });
                  bool statusOk = statuses.empty() ||
                                  std::find(statuses.begin(), statuses.end(), view.status) != statuses.end();
                  if (nameOk && statusOk && filterValues(r, "process_name").empty()) views.push_back(std::move(view));
                }
                PageRequest paging = pageRequest(r, ascending, false);
                std::string sortColumn = column;
                Page<AgentView> page = makePage(std::move(views), paging, [&](const AgentView& view) {
                  nlohmann::json key = sortColumn == "status"   ? nlohmann::json(view.status)
                                       : sortColumn == "paused" ? nlohmann::json(view.agent.paused ? "1" : "0")
                                       : sortColumn == "name"   ? nlohmann::json(view.agent.name)
                                                                : nlohmann::json("");
                  return PageKey{key, view.agent.name};
                });
                nlohmann::json items = nlohmann::json::array();
                for (const AgentView& view : page.items) items.push_back(agentJson(view));
                return pagedReply(r, page, items, paging);
              }});
  router.add({.method = "POST",
              .path = "/api/v2/agent/<name>/<action>",
              .scope = Scope::environment,
              .handler = [agents](Request& r) {
                agents->act(*r.environment, r.str("name"), r.str("action"));
                return Reply::empty();
              }});
  router.add({.method = "POST",
              .path = "/api/v2/agents/<action>",
              .scope = Scope::environment,
              .handler = [agents](Request& r) {
                agents->act(*r.environment, "", r.str("action"));
                return Reply::empty();
              }});
}

}  // namespace inmanta::server
