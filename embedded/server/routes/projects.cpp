// Projects, v1 and v2 (spec §4.3).
#include <algorithm>

#include "embedded/server/routes/routes.h"
#include "embedded/server/services/environments.h"
#include "embedded/server/services/projects.h"

namespace inmanta::server {

namespace {

// The v2 Project: its environments as objects, sorted by name (the reference nests them with
// or without environment_details).
nlohmann::json projectV2(const store::Project& project, const std::vector<store::Environment>& environments) {
  std::vector<const store::Environment*> own;
  for (const auto& env : environments)
    if (env.project_id == project.id) own.push_back(&env);
  std::sort(own.begin(), own.end(), [](const auto* a, const auto* b) { return a->name < b->name; });
  nlohmann::json json = projectJson(project);
  json["environments"] = nlohmann::json::array();
  for (const auto* env : own) json["environments"].push_back(environmentJson(*env));
  return json;
}

}  // namespace

void addProjectRoutes(Router& router, Services& services) {
  ProjectService& projects = services.projects;
  for (const std::string version : {"v1", "v2"}) {
    const bool v2 = version == "v2";
    const std::string base = "/api/" + version + "/project";
    auto wrap = [v2](nlohmann::json project) {
      return v2 ? Reply::data(std::move(project)) : Reply::json({{"project", std::move(project)}});
    };

    router.add({.method = "PUT",
                .path = base,
                .args = {req("name", ArgType::string), opt("project_id", ArgType::uuid)},
                .handler = [&projects, wrap](Request& r) {
                  return wrap(projectJson(projects.create(r.str("name"), r.optStr("project_id"))));
                }});
    router.add({.method = "POST",
                .path = base + "/<id>",
                .args = {req("id", ArgType::uuid), req("name", ArgType::string)},
                .handler = [&projects, wrap](Request& r) {
                  return wrap(projectJson(projects.rename(r.str("id"), r.str("name"))));
                }});
    router.add({.method = "DELETE",
                .path = base + "/<id>",
                .args = {req("id", ArgType::uuid)},
                .handler = [&projects](Request& r) {
                  projects.remove(r.str("id"));
                  return Reply::empty();
                }});
  }

  router.add({.method = "GET", .path = "/api/v1/project", .handler = [&projects](Request&) {
                nlohmann::json list = nlohmann::json::array();
                for (const auto& project : projects.list()) list.push_back(projectJson(project));
                return Reply::json({{"projects", list}});
              }});
  router.add({.method = "GET",
              .path = "/api/v1/project/<id>",
              .args = {req("id", ArgType::uuid)},
              .handler = [&projects](Request& r) {
                return Reply::json({{"project", projectJson(projects.get(r.str("id")))}});
              }});
  router.add({.method = "GET",
              .path = "/api/v2/project",
              .args = {opt("environment_details", ArgType::boolean, false)},
              .handler = [&services](Request&) {
                std::vector<store::Environment> environments = services.environments.list();
                nlohmann::json list = nlohmann::json::array();
                for (const auto& project : services.projects.list()) list.push_back(projectV2(project, environments));
                return Reply::data(list);
              }});
  router.add({.method = "GET",
              .path = "/api/v2/project/<id>",
              .args = {req("id", ArgType::uuid), opt("environment_details", ArgType::boolean, false)},
              .handler = [&services](Request& r) {
                store::Project project = services.projects.get(r.str("id"));
                return Reply::data(projectV2(project, services.environments.list()));
              }});
}

}  // namespace inmanta::server
