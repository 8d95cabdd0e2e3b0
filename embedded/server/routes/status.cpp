// GET /api/v2/health and GET /api/v1/serverstatus (spec §4.2).
#include "embedded/server/routes/routes.h"

namespace inmanta::server {

namespace {

std::string storeKind(const Services& services) {
  const store::StoreConfig& db = services.options.database;
  std::string kind = db.engine == store::Engine::postgresql ? "PostgreSQL (" + db.host + ":" + std::to_string(db.port) + "/" + db.name + ")"
                                                             : "SQLite (" + db.sqlite_path + ")";
  return kind + ", schema " + std::to_string(services.store.schemaVersion());
}

}  // namespace

void addStatusRoutes(Router& router, Services& services) {
  // Open even when auth is on: load balancers and scripts poll it.
  router.add({.method = "GET",
              .path = "/api/v2/health",
              .clientTypes = kApi | kAgent | kCompiler,
              .enforceAuth = false,
              .handler = [](Request&) { return Reply::data(nullptr); }});

  router.add({.method = "GET",
              .path = "/api/v1/serverstatus",
              .handler = [&services](Request&) {
                nlohmann::json slices = nlohmann::json::array();
                for (const char* name : {"core.server", "core.database"})
                  slices.push_back({{"name", name}, {"status", nlohmann::json::object()}, {"reported_status", "OK"},
                                    {"message", nullptr}});
                return Reply::data({{"product", "inmanta-cpp"},
                                    {"edition", "Open Source Edition"},
                                    {"version", services.version},
                                    {"license", "Apache Software License 2"},
                                    {"extensions", nlohmann::json::array()},
                                    {"slices", slices},
                                    {"features", nlohmann::json::array()},
                                    {"status", "OK"},
                                    {"python_version", nullptr},
                                    {"postgresql_version", storeKind(services)}});
              }});
}

}  // namespace inmanta::server
