// Parameters and facts: /api/v1/parameter/<id> GET/PUT/DELETE, POST /api/v1/parameter (list),
// PUT /api/v1/parameters (batch), GET /api/v2/facts, GET /api/v2/resource/<rid>/facts.
#include <memory>

#include "embedded/server/router.h"
#include "embedded/server/services/context.h"
#include "embedded/server/services/parameters.h"

namespace inmanta::server {

void addParameterRoutes(Router& router, Services& services) {
  auto parameters = std::make_shared<ParameterService>(services.store);
  using nlohmann::json;
  const unsigned everyone = kApi | kAgent | kCompiler;
  auto rid = [](const Request& r) { return r.has("resource_id") ? r.str("resource_id") : std::string(); };
  router.add({"GET", "/api/v1/parameter/<id>", {opt("resource_id", ArgType::string)}, Scope::environment, everyone, true,
              false, [parameters, rid](Request& r) {
                return Reply::json({{"parameter", parameterJson(parameters->get(r.envId(), r.str("id"), rid(r)))}});
              }});
  router.add({"PUT", "/api/v1/parameter/<id>",
              {req("source", ArgType::string), req("value", ArgType::any), opt("resource_id", ArgType::string),
               opt("metadata", ArgType::dict), opt("recompile", ArgType::boolean, false), opt("expires", ArgType::boolean)},
              Scope::environment, everyone, true, false, [parameters, rid](Request& r) {
                store::Parameter p = parameters->set(r.envId(), r.str("id"), r.args["value"], r.str("source"), rid(r),
                                                     r.has("metadata") ? r.args["metadata"] : json());
                return Reply::json({{"parameter", parameterJson(p)}});
              }});
  router.add({"DELETE", "/api/v1/parameter/<id>", {opt("resource_id", ArgType::string)}, Scope::environment, everyone, true,
              false, [parameters, rid](Request& r) {
                parameters->remove(r.envId(), r.str("id"), rid(r));
                return Reply::empty();
              }});
  router.add({"POST", "/api/v1/parameter", {opt("query", ArgType::dict)}, Scope::environment, everyone, true, false,
              [parameters](Request& r) {
                std::map<std::string, std::string> query;
                if (r.has("query"))
                  for (const auto& [key, value] : r.args["query"].items())
                    query[key] = value.is_string() ? value.get<std::string>() : value.dump();
                json list = json::array();
                for (const store::Parameter& p : parameters->list(r.envId(), query)) list.push_back(parameterJson(p));
                return Reply::json({{"parameters", list}, {"expire", 3600}, {"now", store::formatTimestamp(store::now())}});
              }});
  router.add({"PUT", "/api/v1/parameters", {req("parameters", ArgType::list)}, Scope::environment, everyone, true, false,
              [parameters](Request& r) {
                parameters->setMany(r.envId(), r.args["parameters"]);
                return Reply::empty();
              }});
  auto facts = [parameters](const std::string& env, const std::optional<std::string>& resource) {
    json list = json::array();
    for (const store::Parameter& p : parameters->facts(env, resource)) list.push_back(parameterJson(p));
    return list;
  };
  router.add({"GET", "/api/v2/facts", {}, Scope::environment, kApi, true, false,
              [facts](Request& r) { return Reply::data(facts(r.envId(), std::nullopt)); }});
  router.add({"GET", "/api/v2/resource/<rid>/facts", {}, Scope::environment, kApi, true, false,
              [facts](Request& r) { return Reply::data(facts(r.envId(), r.str("rid"))); }});
}

}  // namespace inmanta::server
