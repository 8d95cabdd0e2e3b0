// POST /api/v1/environment_auth and /api/v2/environment_auth: an environment-scoped token for the
// given client types (spec §3.5).
#include "embedded/server/errors.h"
#include "embedded/server/routes/routes.h"

namespace inmanta::server {

void addTokenRoutes(Router& router, Services& services) {
  for (const std::string version : {"v1", "v2"}) {
    const bool v2 = version == "v2";
    router.add(
        {.method = "POST",
         .path = "/api/" + version + "/environment_auth",
         .args = {req("client_types", ArgType::list, ArgType::string), opt("idempotent", ArgType::boolean, false)},
         .scope = Scope::environment,
         .clientTypes = kApi | kCompiler,
         .handler = [&services, v2](Request& r) {
           if (!services.options.auth || !services.auth.canSign())
             throw badRequest("Auth is not enabled on the server (or no [auth_jwt_*] section has sign=true).");
           unsigned types = 0;
           for (const auto& name : r.args.at("client_types")) {
             unsigned type = clientTypeFromName(name.get<std::string>());
             if (type == 0)
               throw badRequest("Invalid client type '" + name.get<std::string>() + "' (api, agent or compiler).");
             types |= type;
           }
           if (types == 0) throw badRequest("client_types may not be empty.");
           std::string token = services.auth.mint(types, r.envId(), r.boolean("idempotent"));
           return v2 ? Reply::data(token) : Reply::json({{"token", token}});
         }});
  }
}

}  // namespace inmanta::server
