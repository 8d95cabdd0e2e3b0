// Environments, v1 and v2, halt/resume and decommission (spec §4.4).
#include "embedded/server/services/environments.h"
#include "embedded/server/routes/routes.h"

namespace inmanta::server {

namespace {

std::string orEmpty(const Request& r, const std::string& name) { return r.optStr(name).value_or(""); }

store::NewEnvironment newEnvironment(const Request& r) {
  checkRepository(r.optStr("repository"), r.optStr("branch"));
  store::NewEnvironment env;
  env.id = r.optStr("environment_id");
  env.project_id = r.str("project_id");
  env.name = r.str("name");
  env.repo_url = orEmpty(r, "repository");
  env.repo_branch = orEmpty(r, "branch");
  env.description = orEmpty(r, "description");
  env.icon = orEmpty(r, "icon");
  return env;
}

store::EnvironmentUpdate environmentUpdate(const Request& r) {
  checkRepository(r.optStr("repository"), r.optStr("branch"));
  store::EnvironmentUpdate update;
  update.name = r.str("name");
  update.repo_url = r.optStr("repository");
  update.repo_branch = r.optStr("branch");
  update.project_id = r.optStr("project_id");
  update.description = r.optStr("description");
  update.icon = r.optStr("icon");
  return update;
}

}  // namespace

void addEnvironmentRoutes(Router& router, Services& services) {
  EnvironmentService& environments = services.environments;
  const std::vector<Arg> repository = {opt("repository", ArgType::string), opt("branch", ArgType::string)};
  auto with = [](std::vector<Arg> args, const std::vector<Arg>& more) {
    args.insert(args.end(), more.begin(), more.end());
    return args;
  };
  const std::vector<Arg> v2Fields = {opt("description", ArgType::string), opt("icon", ArgType::string)};

  // v1: {"environment": …} with `project` for the project id
  router.add({.method = "PUT",
              .path = "/api/v1/environment",
              .args = with({req("project_id", ArgType::uuid), req("name", ArgType::string),
                            opt("environment_id", ArgType::uuid)},
                           repository),
              .handler = [&environments](Request& r) {
                return Reply::json({{"environment", environmentJson(environments.create(newEnvironment(r)), true)}});
              }});
  router.add({.method = "GET", .path = "/api/v1/environment", .handler = [&environments](Request&) {
                nlohmann::json list = nlohmann::json::array();
                for (const auto& env : environments.list()) list.push_back(environmentJson(env, true));
                return Reply::json({{"environments", list}});
              }});
  router.add({.method = "GET",
              .path = "/api/v1/environment/<id>",
              .args = {req("id", ArgType::uuid)},
              .scope = Scope::pathId,
              .handler = [&environments](Request& r) {
                return Reply::json({{"environment", environmentJson(environments.get(r.str("id")), true)}});
              }});
  router.add({.method = "POST",
              .path = "/api/v1/environment/<id>",
              .args = with({req("id", ArgType::uuid), req("name", ArgType::string)}, repository),
              .scope = Scope::pathId,
              .handler = [&environments](Request& r) {
                return Reply::json(
                    {{"environment", environmentJson(environments.modify(r.str("id"), environmentUpdate(r)), true)}});
              }});

  // v2: {"data": Environment}
  router.add({.method = "PUT",
              .path = "/api/v2/environment",
              .args = with(with({req("project_id", ArgType::uuid), req("name", ArgType::string),
                                 opt("environment_id", ArgType::uuid)},
                                repository),
                           v2Fields),
              .handler = [&environments](Request& r) {
                return Reply::data(environmentJson(environments.create(newEnvironment(r))));
              }});
  router.add({.method = "GET",
              .path = "/api/v2/environment",
              .args = {opt("details", ArgType::boolean, false)},
              .handler = [&environments](Request&) {
                nlohmann::json list = nlohmann::json::array();
                for (const auto& env : environments.list()) list.push_back(environmentJson(env));
                return Reply::data(list);
              }});
  router.add(
      {.method = "GET",
       .path = "/api/v2/environment/<id>",
       .args = {req("id", ArgType::uuid), opt("details", ArgType::boolean, false)},
       .scope = Scope::pathId,
       .handler = [&environments](Request& r) { return Reply::data(environmentJson(environments.get(r.str("id")))); }});
  router.add(
      {.method = "POST",
       .path = "/api/v2/environment/<id>",
       .args = with(with({req("id", ArgType::uuid), req("name", ArgType::string), opt("project_id", ArgType::uuid)},
                         repository),
                    v2Fields),
       .scope = Scope::pathId,
       .handler = [&environments](Request& r) {
         return Reply::data(environmentJson(environments.modify(r.str("id"), environmentUpdate(r))));
       }});

  for (const std::string version : {"v1", "v2"}) {
    router.add({.method = "DELETE",
                .path = "/api/" + version + "/environment/<id>",
                .args = {req("id", ArgType::uuid)},
                .scope = Scope::pathId,
                .handler = [&environments, &services](Request& r) {
                  // the scheduler stops before the data it writes goes away
                  services.deployTrigger().environmentStopped(r.str("id"));
                  environments.remove(r.str("id"));
                  return Reply::empty();
                }});
    router.add({.method = "DELETE",
                .path = "/api/" + version + "/decommission/<id>",
                .args = {req("id", ArgType::uuid)},
                .scope = Scope::pathId,
                .handler = [&environments, &services](Request& r) {
                  services.deployTrigger().environmentStopped(r.str("id"));
                  environments.decommission(r.str("id"));
                  return Reply::empty();
                }});
  }

  router.add({.method = "POST",
              .path = "/api/v2/actions/environment/halt",
              .scope = Scope::environment,
              .handler = [&environments, &services](Request& r) {
                environments.halt(r.envId());
                services.deployTrigger().environmentStopped(r.envId());
                return Reply::empty();
              }});
  router.add({.method = "POST",
              .path = "/api/v2/actions/environment/resume",
              .scope = Scope::environment,
              .handler = [&environments, &services](Request& r) {
                environments.resume(r.envId());
                services.deployTrigger().environmentResumed(r.envId());
                return Reply::empty();
              }});
}

}  // namespace inmanta::server
