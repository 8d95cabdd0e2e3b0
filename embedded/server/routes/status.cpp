// GET /api/v2/health and GET /api/v1/serverstatus (spec §4.2).
#include "embedded/server/routes/routes.h"

namespace inmanta::server {

namespace {

std::string storeKind(const Services& services) {
  const store::StoreConfig& db = services.options.database;
  std::string kind = db.engine == store::Engine::postgresql
                         ? "PostgreSQL (" + db.host + ":" + std::to_string(db.port) + "/" + db.name + ")"
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

  router.add({.method = "GET", .path = "/api/v1/serverstatus", .handler = [&services](Request&) {
                // the parts of the reference's server this one has; each reports OK while it answers
                nlohmann::json slices = nlohmann::json::array();
                auto slice = [&slices](const char* name, nlohmann::json status) {
                  slices.push_back(
                      {{"name", name}, {"status", std::move(status)}, {"reported_status", "OK"}, {"message", nullptr}});
                };
                slice("core.transport",
                      {{"inflight", services.inflight.load()}, {"running", true}, {"sockets", services.sockets}});
                slice("core.server", nlohmann::json::object());
                slice("core.database", {{"connected", true}, {"store", storeKind(services)}});
                for (const char* name : {"core.project", "core.environment", "core.file", "core.parameters",
                                         "core.resource", "core.orchestration", "core.dryrun"})
                  slice(name, nlohmann::json::object());
                // the reference's optional features, which this server does not have
                nlohmann::json features = nlohmann::json::array();
                for (const char* name : {"resource_discovery", "compliance_reporting"})
                  features.push_back({{"name", name}, {"slice", "core.resource"}, {"value", false}});
                return Reply::data(
                    {{"product", "inmanta-cpp"},
                     {"edition", "Open Source Edition"},
                     {"version", services.version},
                     {"license", "Apache Software License 2"},
                     {"extensions", {{{"name", "core"}, {"package", "inmanta-cpp"}, {"version", services.version}}}},
                     {"slices", slices},
                     {"features", features},
                     {"status", "OK"},
                     {"python_version", nullptr},
                     {"postgresql_version", storeKind(services)}});
              }});
}

}  // namespace inmanta::server
