// POST /api/v1/deploy (spec §4.9): which agents of the active version deploy (or repair); the
// scheduler gets the request through the server's DeployTrigger.
#include <memory>

#include "embedded/server/router.h"
#include "embedded/server/services/agents.h"
#include "embedded/server/services/context.h"

namespace inmanta::server {

void addDeployRoutes(Router& router, Services& services) {
  auto agents = std::make_shared<AgentService>(services.store, services.deployTrigger());
  router.add({.method = "POST",
              .path = "/api/v1/deploy",
              .args = {opt("agent_trigger_method", ArgType::string, "push_full_deploy"),
                       opt("agents", ArgType::list, nullptr, ArgType::string)},
              .scope = Scope::environment,
              .handler = [agents](Request& r) {
                std::optional<std::vector<std::string>> requested;
                if (r.has("agents")) requested = r.args["agents"].get<std::vector<std::string>>();
                std::vector<std::string> warnings;
                std::vector<std::string> chosen =
                    agents->deploy(*r.environment, r.str("agent_trigger_method"), requested, warnings);
                nlohmann::json body = {{"agents", chosen}};
                if (!warnings.empty()) body["metadata"] = {{"warnings", warnings}};
                return Reply::json(std::move(body));
              }});
}

}  // namespace inmanta::server
