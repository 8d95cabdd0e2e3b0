// Environment settings (spec §4.5 and §5): the table of definitions, validation and conversion of
// values, the stored map, protection by project.yml.
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

#include "embedded/store/store.h"

namespace inmanta::server {

enum class SettingType { boolean, integer, string, interval, cron, enumeration, dict, positiveFloat };

struct SettingDefinition {
  std::string name;
  SettingType type;
  nlohmann::json fallback;  // the default
  std::string doc;
  bool recompile = false;
  bool updateModel = false;
  bool agentRestart = false;
  std::vector<std::string> allowedValues;  // enums
  std::string section;
};

// Every setting an environment knows (HEAD's, plus autostart_agent_map per decision D2), by name.
const std::map<std::string, SettingDefinition>& settingDefinitions();

// The reason protected settings have: "project.yml" (spec §4.5).
inline constexpr const char* kProtectedByProjectYml = "project.yml";

class SettingsService {
 public:
  explicit SettingsService(store::Store& store) : store_(store) {}

  // The definition of `name`; 404 for a name the table does not have.
  static const SettingDefinition& definition(const std::string& name);
  // `value` converted to the setting's type; 400 `Invalid value. <reason>` when it does not fit.
  static nlohmann::json validate(const SettingDefinition& definition, const nlohmann::json& value);

  // The stored values (only those set, reset or read once, as the reference), by name.
  std::map<std::string, nlohmann::json> stored(const std::string& env);
  // The effective value; stores the default when none is stored (the reference's quirk, §4.5):
  // what a client's read does.
  nlohmann::json get(const std::string& env, const std::string& name);
  // The effective value without storing anything: what the server's own reads use.
  nlohmann::json value(const std::string& env, const std::string& name);
  // Validates and stores; 403 for a protected setting.
  void set(const std::string& env, const std::string& name, const nlohmann::json& value);
  // Back to the default; 403 for a protected setting.
  void reset(const std::string& env, const std::string& name);
  // The protected batch of project.yml: every name and value validated first (400 naming the bad
  // one, D5), then stored in one step, un-protecting the ones protected before and absent now.
  void setProtected(const std::string& env, const nlohmann::json& settings);
  // {name: definition} with each one's protection in `env` (the `metadata`/`definition` maps).
  nlohmann::json definitionsJson(const std::string& env);

 private:
  store::Store& store_;
};

}  // namespace inmanta::server
