#include "embedded/server/services/parameters.h"

#include <algorithm>

#include "embedded/server/errors.h"

namespace inmanta::server {

namespace {

void checkSource(const std::string& source) {
  static const std::vector<std::string> sources{"fact", "plugin", "user", "report"};
  if (std::find(sources.begin(), sources.end(), source) == sources.end())
    throw badRequest("source must be one of fact, plugin, user, report, not " + source);
}

std::string textOf(const nlohmann::json& value) { return value.is_string() ? value.get<std::string>() : value.dump(); }

}  // namespace

store::Parameter ParameterService::get(const std::string& env, const std::string& name,
                                       const std::string& resource_id) {
  std::optional<store::Parameter> parameter = store_.getParameter(env, name, resource_id);
  if (!parameter)
    throw notFound("The parameter " + name + (resource_id.empty() ? "" : " of resource " + resource_id) +
                   " does not exist");
  return *parameter;
}

store::Parameter ParameterService::set(const std::string& env, const std::string& name, const nlohmann::json& value,
                                       const std::string& source, const std::string& resource_id,
                                       const nlohmann::json& metadata) {
  checkSource(source);
  if (!metadata.is_null() && !metadata.is_object()) throw badRequest("metadata must be a dict");
  store::Parameter parameter;
  parameter.environment = env;
  parameter.name = name;
  parameter.value = textOf(value);
  parameter.source = source;
  parameter.resource_id = resource_id;
  parameter.metadata = metadata.is_object() ? metadata : nlohmann::json::object();
  parameter.updated = store::now();
  return store_.setParameter(parameter);
}

void ParameterService::setMany(const std::string& env, const nlohmann::json& parameters) {
  if (!parameters.is_array()) throw badRequest("parameters must be a list");
  for (const nlohmann::json& p : parameters) {
    if (!p.is_object() || !p.contains("id") || !p["id"].is_string() || !p.contains("source") ||
        !p["source"].is_string())
      throw badRequest("every parameter needs a string id and source: " + p.dump());
    if (p.contains("resource_id") && !p["resource_id"].is_null() && !p["resource_id"].is_string())
      throw badRequest("the resource_id of parameter " + p["id"].get<std::string>() + " must be a string");
    checkSource(p["source"].get<std::string>());
  }
  for (const nlohmann::json& p : parameters) {
    std::string rid = p.contains("resource_id") && p["resource_id"].is_string() ? p["resource_id"].get<std::string>()
                                                                                : "";
    set(env, p["id"].get<std::string>(), p.value("value", nlohmann::json("")), p["source"].get<std::string>(), rid,
        p.value("metadata", nlohmann::json()));
  }
}

void ParameterService::remove(const std::string& env, const std::string& name, const std::string& resource_id) {
  if (!store_.deleteParameter(env, name, resource_id))
    throw notFound("The parameter " + name + (resource_id.empty() ? "" : " of resource " + resource_id) +
                   " does not exist");
}

std::vector<store::Parameter> ParameterService::list(const std::string& env,
                                                     const std::map<std::string, std::string>& query) {
  std::vector<store::Parameter> out;
  for (store::Parameter& parameter : store_.listParameters(env)) {
    bool matches = std::all_of(query.begin(), query.end(), [&](const auto& entry) {
      return parameter.metadata.contains(entry.first) && textOf(parameter.metadata[entry.first]) == entry.second;
    });
    if (matches) out.push_back(std::move(parameter));
  }
  return out;
}

std::vector<store::Parameter> ParameterService::facts(const std::string& env,
                                                      const std::optional<std::string>& resource_id) {
  std::vector<store::Parameter> out;
  for (store::Parameter& parameter : store_.listParameters(env, resource_id))
    if (!parameter.resource_id.empty()) out.push_back(std::move(parameter));
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return out;
}

nlohmann::json parameterJson(const store::Parameter& parameter) {
  return {{"name", parameter.name},
          {"value", parameter.value},
          {"environment", parameter.environment},
          {"resource_id", parameter.resource_id},
          {"source", parameter.source},
          {"updated", store::formatTimestamp(parameter.updated)},
          {"metadata", parameter.metadata},
          {"expires", !parameter.resource_id.empty()}};
}

}  // namespace inmanta::server
