// Environment settings, v1 and v2, and the protected batch of project.yml (spec §4.5).
#include "embedded/server/services/settings.h"
#include "embedded/server/errors.h"
#include "embedded/server/routes/routes.h"

namespace inmanta::server {

namespace {

nlohmann::json storedJson(SettingsService& settings, const std::string& env) {
  nlohmann::json values = nlohmann::json::object();
  for (const auto& [name, value] : settings.stored(env)) values[name] = value;
  return values;
}

}  // namespace

void addSettingRoutes(Router& router, Services& services) {
  SettingsService& settings = services.settings;
  const unsigned all = kApi | kAgent | kCompiler;

  router.add({.method = "GET",
              .path = "/api/v1/environment_settings",
              .scope = Scope::environment,
              .clientTypes = all,
              .handler = [&settings](Request& r) {
                return Reply::json(
                    {{"settings", storedJson(settings, r.envId())}, {"metadata", settings.definitionsJson(r.envId())}});
              }});
  router.add({.method = "GET",
              .path = "/api/v2/environment_settings",
              .scope = Scope::environment,
              .clientTypes = all,
              .handler = [&settings](Request& r) {
                return Reply::data({{"settings", storedJson(settings, r.envId())},
                                    {"definition", settings.definitionsJson(r.envId())}});
              }});
  router.add({.method = "GET",
              .path = "/api/v1/environment_settings/<id>",
              .scope = Scope::environment,
              .clientTypes = all,
              .handler = [&settings](Request& r) {
                nlohmann::json value = settings.get(r.envId(), r.str("id"));
                return Reply::json({{"value", value}, {"metadata", settings.definitionsJson(r.envId())}});
              }});
  router.add(
      {.method = "GET",
       .path = "/api/v2/environment_settings/<id>",
       .scope = Scope::environment,
       .clientTypes = all,
       .handler = [&settings](Request& r) {
         const std::string name = r.str("id");
         nlohmann::json value = settings.get(r.envId(), name);
         return Reply::data({{"settings", {{name, value}}}, {"definition", settings.definitionsJson(r.envId())}});
       }});
  for (const std::string version : {"v1", "v2"}) {
    // v1 answers {}, v2 {"data": null}; an invalid value is 400 on both (the reference's v2
    // answers 500, D5).
    auto done = [v2 = version == "v2"] { return v2 ? Reply::data(nullptr) : Reply::json(nlohmann::json::object()); };
    router.add({.method = "POST",
                .path = "/api/" + version + "/environment_settings/<id>",
                .args = {req("value", ArgType::any)},
                .scope = Scope::environment,
                .clientTypes = all,
                .handler = [&settings, &services, done](Request& r) {
                  settings.set(r.envId(), r.str("id"), r.args.at("value"));
                  services.deployTrigger().settingsChanged(r.envId());
                  return done();
                }});
    router.add({.method = "DELETE",
                .path = "/api/" + version + "/environment_settings/<id>",
                .scope = Scope::environment,
                .clientTypes = all,
                .handler = [&settings, &services, done](Request& r) {
                  settings.reset(r.envId(), r.str("id"));
                  services.deployTrigger().settingsChanged(r.envId());
                  return done();
                }});
  }
  router.add({.method = "POST",
              .path = "/api/v2/protected_environment_settings",
              .args = {req("settings", ArgType::dict), req("protected_by", ArgType::string)},
              .scope = Scope::environment,
              .clientTypes = kApi | kCompiler,
              .handler = [&settings, &services](Request& r) {
                const std::string by = r.str("protected_by");
                if (by != "project_yml" && by != "project.yml")
                  throw badRequest("protected_by must be project_yml, got '" + by + "'");
                settings.setProtected(r.envId(), r.args.at("settings"));
                services.deployTrigger().settingsChanged(r.envId());
                return Reply::empty();
              }});
}

}  // namespace inmanta::server
