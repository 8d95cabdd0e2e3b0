// Projects (spec §4.3): the rules behind /api/v1/project and /api/v2/project, and their JSON forms.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "embedded/store/store.h"

namespace inmanta::server {

class ProjectService {
 public:
  explicit ProjectService(store::Store& store) : store_(store) {}

  // Conflict (409) for a name or id that is taken.
  store::Project create(const std::string& name, const std::optional<std::string>& id);
  std::vector<store::Project> list();
  store::Project get(const std::string& id);
  store::Project rename(const std::string& id, const std::string& name);
  // Conflict (409) while it still has environments.
  void remove(const std::string& id);

 private:
  store::Store& store_;
};

// {"id", "name", "environments": [environment ids]}
nlohmann::json projectJson(const store::Project& project);

}  // namespace inmanta::server
