#include "embedded/server/routes/routes.h"

namespace inmanta::server {

// One line per area; keep it a plain list so that adding an area is a one-line change.
void addAllRoutes(Router& router, Services& services) {
  addStatusRoutes(router, services);
  addProjectRoutes(router, services);
  addEnvironmentRoutes(router, services);
  addSettingRoutes(router, services);
  addTokenRoutes(router, services);
}

}  // namespace inmanta::server
