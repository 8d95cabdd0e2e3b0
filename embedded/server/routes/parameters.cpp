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
  router.add({.method = "GET",
              .path = "/api/v1/parameter/<id>",
              .args = {opt("resource_id", ArgType::string)},
              .scope = Scope::environment,
              .clientTypes = everyone,
              .handler = [parameters, rid](Request& r) {
                return Reply::json({{"parameter", parameterJson(parameters->get(r.envId(), r.str("id"), rid(r)))}});
              }});
  router.add({.method = "PUT",
              .path = "/api/v1/parameter/<id>",
              .args = {req("source", ArgType::string), req("value", ArgType::any), opt("resource_id", ArgType::string),
                       opt("metadata", ArgType::dict), opt("recompile", ArgType::boolean, false),
                       opt("expires", ArgType::boolean)},
              .scope = Scope::environment,
              .clientTypes = everyone,
              .handler = [parameters, rid](Request& r) {
                store::Parameter p = parameters->set(r.envId(), r.str("id"), r.args["value"], r.str("source"), rid(r),
                                                     r.has("metadata") ? r.args["metadata"] : json());
                return Reply::json({{"parameter", parameterJson(p)}});
              }});
  router.add({.method = "DELETE",
              .path = "/api/v1/parameter/<id>",
              .args = {opt("resource_id", ArgType::string)},
              .scope = Scope::environment,
              .clientTypes = everyone,
              .handler = [parameters, rid](Request& r) {
                parameters->remove(r.envId(), r.str("id"), rid(r));
                return Reply::empty();
              }});
  router.add(
      {.method = "POST",
       .path = "/api/v1/parameter",
       .args = {opt("query", ArgType::dict)},
       .scope = Scope::environment,
       .clientTypes = everyone,
       .handler = [parameters](Request& r) {
         std::map<std::string, std::string> query;
         if (r.has("query"))
           for (const auto& [key, value] : r.args["query"].items())
             query[key] = value.is_string() ? value.get<std::string>() : value.dump();
         json list = json::array();
         for (const store::Parameter& p : parameters->list(r.envId(), query)) list.push_back(parameterJson(p));
         return Reply::json({{"parameters", list}, {"expire", 3600}, {"now", store::formatTimestamp(store::now())}});
       }});
  router.add({.method = "PUT",
              .path = "/api/v1/parameters",
              .args = {req("parameters", ArgType::list)},
              .scope = Scope::environment,
              .clientTypes = everyone,
              .handler = [parameters](Request& r) {
                parameters->setMany(r.envId(), r.args["parameters"]);
                return Reply::empty();
              }});
  auto facts = [parameters](const std::string& env, const std::optional<std::string>& resource) {
    json list = json::array();
    for (const store::Parameter& p : parameters->facts(env, resource)) list.push_back(parameterJson(p));
    return list;
  };
  router.add({.method = "GET", .path = "/api/v2/facts", .scope = Scope::environment, .handler = [facts](Request& r) {
                return Reply::data(facts(r.envId(), std::nullopt));
              }});
  router.add({.method = "GET",
              .path = "/api/v2/resource/<rid>/facts",
              .scope = Scope::environment,
              .handler = [facts](Request& r) { return Reply::data(facts(r.envId(), r.str("rid"))); }});
}

}  // namespace inmanta::server
