// Environments (spec §4.4): create/modify with their checks, delete and decommission (refused for
// a protected environment), halt and resume, and their v1/v2 JSON forms.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "embedded/server/services/settings.h"
#include "embedded/store/store.h"

namespace inmanta::server {

class EnvironmentService {
 public:
  EnvironmentService(store::Store& store, SettingsService& settings) : store_(store), settings_(settings) {}

  // 404 for an unknown project; 400 when the name is taken in the project, when only one of
  // repository and branch is given, for a description over 255 characters or a bad icon.
  store::Environment create(const store::NewEnvironment& env);
  store::Environment get(const std::string& id);
  std::vector<store::Environment> list();
  // Absent fields stay; 400 for an unknown project or a name clash, and the checks of create.
  store::Environment modify(const std::string& id, const store::EnvironmentUpdate& update);
  // Halts and removes the environment with everything in it; 403 when protected.
  void remove(const std::string& id);
  // Removes its versions, resources, logs, agents, … keeping the environment and its settings;
  // 403 when protected.
  void decommission(const std::string& id);
  void halt(const std::string& id);
  // 400 while the environment is being deleted.
  void resume(const std::string& id);

 private:
  void refuseProtected(const std::string& id);

  store::Store& store_;
  SettingsService& settings_;
};

// The v2 Environment object; `v1` renames project_id to project.
nlohmann::json environmentJson(const store::Environment& env, bool v1 = false);

// Checks of the v2 fields: description ≤ 255 characters; icon a data URL
// `data:image/(png|jpeg|webp|svg+xml);base64,<data>` of at most 64 KiB. 400 naming the field.
void checkDescription(const std::string& description);
// Repository and branch are given together or not at all (400).
void checkRepository(const std::optional<std::string>& repository, const std::optional<std::string>& branch);
void checkIcon(const std::string& icon);

}  // namespace inmanta::server
