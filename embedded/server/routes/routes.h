// The route files, one per API area: each adds its endpoints to the router. A route decodes the
// request (its declared arguments, request.h), calls its area's service, and encodes the answer
// (reply.h); the dispatcher does the rest (errors, auth, the environment header).
//
// Pattern (routes/status.cpp is the smallest example):
//
//   void addProjectRoutes(Router& router, Services& services) {
//     router.add({.method = "GET", .path = "/api/v1/project/<id>",
//                 .args = {req("id", ArgType::uuid)},
//                 .handler = [&services](Request& r) {
//                   return Reply::json({{"project", projectJson(services.projects.get(r.str("id")))}});
//                 }});
//   }
//
// A new area: a file routes/<area>.cpp with add<Area>Routes, a declaration below, and one call in
// routes/all.cpp.
#pragma once

#include "embedded/server/router.h"
#include "embedded/server/services/context.h"

namespace inmanta::server {

void addStatusRoutes(Router& router, Services& services);
void addProjectRoutes(Router& router, Services& services);
void addEnvironmentRoutes(Router& router, Services& services);
void addSettingRoutes(Router& router, Services& services);
void addTokenRoutes(Router& router, Services& services);
void addFileRoutes(Router& router, Services& services);
void addVersionRoutes(Router& router, Services& services);
void addResourceRoutes(Router& router, Services& services);
void addDryRunRoutes(Router& router, Services& services);
void addAgentRoutes(Router& router, Services& services);
void addParameterRoutes(Router& router, Services& services);
void addDeployRoutes(Router& router, Services& services);

// Every area's routes (routes/all.cpp).
void addAllRoutes(Router& router, Services& services);

}  // namespace inmanta::server
