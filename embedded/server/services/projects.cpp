#include "embedded/server/services/projects.h"

#include "embedded/server/errors.h"

namespace inmanta::server {

namespace {

void checkName(const std::string& name) {
  if (name.empty()) throw badRequest("the name of a project may not be empty.");
}

}  // namespace

store::Project ProjectService::create(const std::string& name, const std::optional<std::string>& id) {
  checkName(name);
  return store_.createProject(name, id);
}

std::vector<store::Project> ProjectService::list() { return store_.listProjects(); }

store::Project ProjectService::get(const std::string& id) { return store_.getProject(id); }

store::Project ProjectService::rename(const std::string& id, const std::string& name) {
  checkName(name);
  return store_.renameProject(id, name);
}

void ProjectService::remove(const std::string& id) { store_.deleteProject(id); }

nlohmann::json projectJson(const store::Project& project) {
  return {{"id", project.id}, {"name", project.name}, {"environments", project.environment_ids}};
}

}  // namespace inmanta::server
