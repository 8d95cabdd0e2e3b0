#include "embedded/server/services/settings.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <optional>
#include <stdexcept>

#include "embedded/scheduler/cron.h"
#include "embedded/server/arguments.h"
#include "embedded/server/errors.h"

namespace inmanta::server {

namespace {

using nlohmann::json;

std::map<std::string, SettingDefinition> makeDefinitions() {
  const std::vector<SettingDefinition> table = {
      {"auto_deploy",
       SettingType::boolean,
       true,
       "When this boolean is set to true, the orchestrator will automatically release a new version that was "
       "compiled by the orchestrator itself.",
       false,
       false,
       false,
       {},
       "deploy"},
      {"autostart_agent_deploy_interval",
       SettingType::interval,
       "600",
       "The deployment interval of the autostarted agents: resources that are not known to be in their desired "
       "state are retried at this interval (seconds, or a cron expression). 0 disables it.",
       false,
       false,
       false,
       {},
       "agent"},
      {"autostart_agent_repair_interval",
       SettingType::interval,
       "86400",
       "The repair interval of the autostarted agents: every resource is re-deployed at this interval (seconds, "
       "or a cron expression). 0 disables it.",
       false,
       false,
       false,
       {},
       "agent"},
      {"reset_deploy_progress_on_start",
       SettingType::boolean,
       false,
       "By default the orchestrator resumes the deployment where it stopped; with this setting on, it forgets "
       "the persisted deploy progress and redeploys everything when the scheduler starts.",
       false,
       false,
       true,
       {},
       "scheduler"},
      {"autostart_on_start",
       SettingType::boolean,
       true,
       "Automatically start the scheduler of this environment when the server starts.",
       false,
       false,
       false,
       {},
       "agent"},
      {"autostart_agent_map",
       SettingType::dict,
       json{{"internal", "local:"}},
       "A dict with key the name of the agent and value the location where it runs (local: or an ssh:// URI); "
       "kept for std::AgentConfig.",
       false,
       false,
       true,
       {},
       "agent"},
      {"server_compile",
       SettingType::boolean,
       true,
       "Allow the server to compile the configuration model (stored; this server does not compile).",
       false,
       false,
       false,
       {},
       "compiler"},
      {"auto_full_compile",
       SettingType::cron,
       "",
       "Periodically run a full compile following a cron-like time-to-run specification (stored; this server "
       "does not compile).",
       false,
       false,
       false,
       {},
       "compiler"},
      {"resource_action_logs_retention",
       SettingType::integer,
       7,
       "The number of days to retain resource-action logs.",
       false,
       false,
       false,
       {},
       "storage"},
      {"available_versions_to_keep",
       SettingType::integer,
       100,
       "The number of versions to keep stored in the database, the newest released one always among them.",
       false,
       false,
       false,
       {},
       "storage"},
      {"protected_environment",
       SettingType::boolean,
       false,
       "When set to true, this environment cannot be cleared, deleted or decommissioned.",
       false,
       false,
       false,
       {},
       "environment"},
      {"notification_retention",
       SettingType::integer,
       365,
       "The number of days to retain notifications (stored; no effect).",
       false,
       false,
       false,
       {},
       "storage"},
      {"recompile_backoff",
       SettingType::positiveFloat,
       0.1,
       "The number of seconds to wait before the server may attempt another recompile (stored; no effect).",
       false,
       false,
       false,
       {},
       "compiler"},
      {"environment_metrics_retention",
       SettingType::integer,
       336,
       "The number of hours that environment metrics have to be retained (stored; no effect).",
       false,
       false,
       false,
       {},
       "storage"},
  };
  std::map<std::string, SettingDefinition> byName;
  for (const auto& d : table) byName.emplace(d.name, d);
  return byName;
}

const char* typeName(SettingType type) {
  switch (type) {
    case SettingType::boolean: return "bool";
    case SettingType::integer: return "int";
    case SettingType::string:
    case SettingType::interval:
    case SettingType::cron: return "str";
    case SettingType::enumeration: return "enum";
    case SettingType::dict: return "dict";
    case SettingType::positiveFloat: return "positive_float";
  }
  return "str";
}

HttpError invalid(const std::string& reason) { return badRequest("Invalid value. " + reason); }

// Why `text` is not a cron expression, in the reference's words; nullopt when it is one.
std::optional<std::string> cronProblem(const std::string& text) {
  try {
    scheduler::Cron::parse(text);
    return std::nullopt;
  } catch (const std::invalid_argument& e) {
    return "'" + text + "' is not a valid cron expression: " + e.what();
  }
}

// A number from a JSON number or numeric text (as a request argument converts it); nullopt
// otherwise.
std::optional<double> numberOf(const json& value) {
  if (value.is_boolean()) return std::nullopt;
  try {
    return convertArgument(Arg{"value", ArgType::number}, value).get<double>();
  } catch (const std::invalid_argument&) {
    return std::nullopt;
  }
}

}  // namespace

const std::map<std::string, SettingDefinition>& settingDefinitions() {
  static const std::map<std::string, SettingDefinition> definitions = makeDefinitions();
  return definitions;
}

const SettingDefinition& SettingsService::definition(const std::string& name) {
  const auto& definitions = settingDefinitions();
  auto it = definitions.find(name);
  if (it == definitions.end()) throw notFound(name + " is not a valid setting");
  return it->second;
}

json SettingsService::validate(const SettingDefinition& d, const json& value) {
  switch (d.type) {
    case SettingType::boolean:
      // JSON booleans and true/false/yes/no/on/off/1/0, as a boolean request argument
      try {
        return convertArgument(Arg{"value", ArgType::boolean}, value);
      } catch (const std::invalid_argument&) {
        throw invalid(d.name + " must be a boolean, got " + value.dump());
      }
    case SettingType::integer: {
      std::optional<double> n = numberOf(value);
      if (!n) throw invalid(d.name + " must be an integer, got " + value.dump());
      // a float that is not integral stays a float, as the reference keeps it (§5)
      if (*n == std::floor(*n) && std::fabs(*n) < 9.2e18) return static_cast<std::int64_t>(*n);
      return *n;
    }
    case SettingType::positiveFloat: {
      std::optional<double> n = numberOf(value);
      if (!n || *n <= 0) throw invalid(d.name + " must be a positive number, got " + value.dump());
      return *n;
    }
    case SettingType::interval: {
      // An integer number of seconds (kept as text) or a cron expression, kept as given (§5).
      std::string text;
      if (value.is_number_integer()) text = std::to_string(value.get<std::int64_t>());
      else if (value.is_string()) text = value.get<std::string>();
      else throw invalid(d.name + " must be an integer number of seconds or a cron expression, got " + value.dump());
      std::string trimmed = text;
      trimmed.erase(0, trimmed.find_first_not_of(' '));
      trimmed.erase(trimmed.find_last_not_of(' ') + 1);
      bool digits = !trimmed.empty() && std::all_of(trimmed.begin(), trimmed.end(),
                                                    [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
      if (digits) return trimmed.substr(std::min(trimmed.find_first_not_of('0'), trimmed.size() - 1));
      if (trimmed.empty())
        throw invalid("'" + text +
                      "' is not a valid cron expression or int: The given cron expression is an empty string");
      if (std::optional<std::string> why = cronProblem(text))
        throw invalid("'" + text + "' is not a valid cron expression or int: " + *why);
      return text;
    }
    case SettingType::cron:
      if (!value.is_string()) throw invalid(d.name + " must be a string, got " + value.dump());
      if (!value.get_ref<const std::string&>().empty())
        if (std::optional<std::string> why = cronProblem(value.get<std::string>())) throw invalid(*why);
      return value;
    case SettingType::string:
      if (!value.is_string()) throw invalid(d.name + " must be a string, got " + value.dump());
      return value;
    case SettingType::enumeration: {
      if (!value.is_string() ||
          std::find(d.allowedValues.begin(), d.allowedValues.end(), value.get<std::string>()) == d.allowedValues.end())
        throw invalid(d.name + " must be one of the allowed values, got " + value.dump());
      return value;
    }
    case SettingType::dict: {
      if (!value.is_object()) throw invalid(d.name + " must be a dict, got " + value.dump());
      for (const auto& [key, item] : value.items())
        if (!item.is_string()) throw invalid("the value for " + key + " in " + d.name + " must be a string");
      return value;
    }
  }
  return value;
}

std::map<std::string, json> SettingsService::stored(const std::string& env) {
  std::map<std::string, json> values;
  const auto& definitions = settingDefinitions();
  for (const auto& [name, setting] : store_.getSettings(env))
    if (definitions.count(name)) values[name] = setting.value;
  return values;
}

json SettingsService::get(const std::string& env, const std::string& name) {
  const SettingDefinition& d = definition(name);
  store::Settings settings = store_.getSettings(env);
  if (auto it = settings.find(name); it != settings.end()) return it->second.value;
  store_.setSetting(env, name, store::SettingValue{d.fallback, false, ""});
  return d.fallback;
}

json SettingsService::value(const std::string& env, const std::string& name) {
  const SettingDefinition& d = definition(name);
  store::Settings settings = store_.getSettings(env);
  if (auto it = settings.find(name); it != settings.end()) return it->second.value;
  return d.fallback;
}

namespace {

void refuseProtected(store::Store& store, const std::string& env, const std::string& name, const char* verb) {
  store::Settings settings = store.getSettings(env);
  auto it = settings.find(name);
  if (it != settings.end() && it->second.is_protected)
    throw forbidden(std::string("Cannot ") + verb + " environment setting " + name +
                    " because it's protected (reason=Setting is managed by the project.yml file of the Inmanta "
                    "project.).");
}

}  // namespace

void SettingsService::set(const std::string& env, const std::string& name, const json& value) {
  const SettingDefinition& d = definition(name);
  json converted = validate(d, value);
  refuseProtected(store_, env, name, "update");
  store_.setSetting(env, name, store::SettingValue{converted, false, ""});
}

void SettingsService::reset(const std::string& env, const std::string& name) {
  definition(name);
  refuseProtected(store_, env, name, "delete");
  store_.deleteSetting(env, name);
}

void SettingsService::setProtected(const std::string& env, const json& settings) {
  std::map<std::string, json> values;
  for (const auto& [name, value] : settings.items()) {
    const auto& definitions = settingDefinitions();
    auto it = definitions.find(name);
    if (it == definitions.end())
      throw badRequest("Invalid setting in project.yml: " + name + " is not a valid setting");
    try {
      values[name] = validate(it->second, value);
    } catch (const HttpError& e) {
      throw badRequest("Invalid setting in project.yml: " + name + ": " +
                       (e.what() + std::string(kBadRequestPrefix).size()));
    }
  }
  store_.setProtectedSettings(env, values, kProtectedByProjectYml);
}

json SettingsService::definitionsJson(const std::string& env) {
  store::Settings settings = store_.getSettings(env);
  json out = json::object();
  for (const auto& [name, d] : settingDefinitions()) {
    auto it = settings.find(name);
    bool isProtected = it != settings.end() && it->second.is_protected;
    out[name] = {{"name", d.name},
                 {"type", typeName(d.type)},
                 {"default", d.fallback},
                 {"doc", d.doc},
                 {"recompile", d.recompile},
                 {"update_model", d.updateModel},
                 {"agent_restart", d.agentRestart},
                 {"allowed_values", d.allowedValues.empty() ? json(nullptr) : json(d.allowedValues)},
                 {"section", d.section},
                 {"protected", isProtected},
                 {"protected_by", isProtected ? json(it->second.protected_by) : json(nullptr)}};
  }
  return out;
}

}  // namespace inmanta::server
