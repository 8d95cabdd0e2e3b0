#include "embedded/server/routes/routes.h"

namespace inmanta::server {

// One line per area; keep it a plain list so that adding an area is a one-line change.
void addAllRoutes(Router& router, Services& services) {
  addStatusRoutes(router, services);
  addProjectRoutes(router, services);
  addEnvironmentRoutes(router, services);
  addSettingRoutes(router, services);
  addTokenRoutes(router, services);
  addFileRoutes(router, services);
  addVersionRoutes(router, services);
  addResourceRoutes(router, services);
  addDryRunRoutes(router, services);
  addAgentRoutes(router, services);
  addParameterRoutes(router, services);
  addDeployRoutes(router, services);
}

}  // namespace inmanta::server
