#include "embedded/server/services/environments.h"

#include <algorithm>
#include <cctype>

#include "embedded/server/errors.h"
#include "embedded/store/errors.h"

namespace inmanta::server {

namespace {

bool isBase64(const std::string& data) {
  if (data.empty() || data.size() % 4 != 0) return false;
  size_t end = data.find_last_not_of('=');
  if (end == std::string::npos || data.size() - end - 1 > 2) return false;
  return std::all_of(data.begin(), data.begin() + static_cast<std::ptrdiff_t>(end + 1),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '/'; });
}

}  // namespace

void checkRepository(const std::optional<std::string>& repository, const std::optional<std::string>& branch) {
  if (repository.has_value() != branch.has_value()) throw badRequest("Repository and branch should be set together.");
}

void checkDescription(const std::string& description) {
  if (description.size() > 255)
    throw badRequest("The description of an environment may be at most 255 characters long (got " +
                     std::to_string(description.size()) + ").");
}

void checkIcon(const std::string& icon) {
  if (icon.empty()) return;
  if (icon.size() > 64 * 1024) throw badRequest("The icon of an environment may be at most 64 KiB.");
  static const char* const kTypes[] = {"image/png", "image/jpeg", "image/webp", "image/svg+xml"};
  for (const char* type : kTypes) {
    std::string prefix = std::string("data:") + type + ";base64,";
    if (icon.rfind(prefix, 0) == 0) {
      if (!isBase64(icon.substr(prefix.size()))) throw badRequest("The icon's data is not valid base64.");
      return;
    }
  }
  throw badRequest("The icon must be a data URL of the form data:image/<png|jpeg|webp|svg+xml>;base64,<data>.");
}

store::Environment EnvironmentService::create(const store::NewEnvironment& env) {
  if (env.name.empty()) throw badRequest("the name of an environment may not be empty.");
  checkDescription(env.description);
  checkIcon(env.icon);
  store::Environment created;
  try {
    created = store_.createEnvironment(env);
  } catch (const store::Conflict& e) {
    throw badRequest(e.what());
  }
  // The reference stores this one at creation; its environments show it from the start.
  settings_.get(created.id, "auto_full_compile");
  return store_.getEnvironment(created.id);
}

store::Environment EnvironmentService::get(const std::string& id) { return store_.getEnvironment(id); }

std::vector<store::Environment> EnvironmentService::list() { return store_.listEnvironments(); }

store::Environment EnvironmentService::modify(const std::string& id, const store::EnvironmentUpdate& update) {
  if (update.name && update.name->empty()) throw badRequest("the name of an environment may not be empty.");
  if (update.description) checkDescription(*update.description);
  if (update.icon) checkIcon(*update.icon);
  store_.getEnvironment(id);  // 404 for the environment itself before anything else
  try {
    return store_.updateEnvironment(id, update);
  } catch (const store::Conflict& e) {
    throw badRequest(e.what());
  } catch (const store::NotFound& e) {
    throw badRequest(e.what());
  }
}

void EnvironmentService::refuseProtected(const std::string& id) {
  if (settings_.value(id, "protected_environment") == true)
    throw forbidden("Environment " + id + " is protected. See environment setting: protected_environment");
}

void EnvironmentService::remove(const std::string& id) {
  store_.getEnvironment(id);
  refuseProtected(id);
  store_.setMarkedForDeletion(id, true);
  store_.haltEnvironment(id);
  store_.deleteEnvironment(id);
}

void EnvironmentService::decommission(const std::string& id) {
  store::Environment env = store_.getEnvironment(id);
  refuseProtected(id);
  if (!env.halted) store_.haltEnvironment(id);
  store_.decommissionEnvironment(id);
  if (!env.halted) store_.resumeEnvironment(id);
}

void EnvironmentService::halt(const std::string& id) { store_.haltEnvironment(id); }

void EnvironmentService::resume(const std::string& id) {
  if (store_.getEnvironment(id).is_marked_for_deletion)
    throw badRequest("Cannot resume an environment that is marked for deletion.");
  store_.resumeEnvironment(id);
}

nlohmann::json environmentJson(const store::Environment& env, bool v1) {
  nlohmann::json settings = nlohmann::json::object();
  const auto& definitions = settingDefinitions();
  for (const auto& [name, value] : env.settings)
    if (definitions.count(name)) settings[name] = value.value;
  return {{"id", env.id},
          {v1 ? "project" : "project_id", env.project_id},
          {"name", env.name},
          {"repo_url", env.repo_url},
          {"repo_branch", env.repo_branch},
          {"settings", settings},
          {"halted", env.halted},
          {"is_marked_for_deletion", env.is_marked_for_deletion},
          {"description", env.description},
          {"icon", env.icon}};
}

}  // namespace inmanta::server
