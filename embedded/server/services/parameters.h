// Parameters and facts (`/api/v1/parameter*`, `/api/v2/facts`; what std::getfact reads): values by
// environment, name and resource id (empty = a parameter, else a fact of that resource), as the
// reference's parameter service keeps them. Values are text (the reference stores str(value)).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "embedded/store/store.h"

namespace inmanta::server {

class ParameterService {
 public:
  explicit ParameterService(store::Store& store) : store_(store) {}

  // 404 when unknown (there is no agent to ask for a missing fact).
  store::Parameter get(const std::string& env, const std::string& name, const std::string& resource_id);
  // `value` as given when a string, else its JSON text; 400 for an unknown source.
  store::Parameter set(const std::string& env, const std::string& name, const nlohmann::json& value,
                       const std::string& source, const std::string& resource_id, const nlohmann::json& metadata);
  // Each element {"id", "source", "value"?, "resource_id"?, "metadata"?}; all checked first.
  void setMany(const std::string& env, const nlohmann::json& parameters);
  // 404 when unknown.
  void remove(const std::string& env, const std::string& name, const std::string& resource_id);
  // Those whose metadata has every key/value of `query`.
  std::vector<store::Parameter> list(const std::string& env, const std::map<std::string, std::string>& query);
  // The facts (parameters of resources), of one resource when given, sorted by name.
  std::vector<store::Parameter> facts(const std::string& env, const std::optional<std::string>& resource_id);

 private:
  store::Store& store_;
};

// A parameter as the v1 API writes it (expires: facts do, parameters do not).
nlohmann::json parameterJson(const store::Parameter& parameter);

}  // namespace inmanta::server
