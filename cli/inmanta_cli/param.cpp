// inmanta-cli param list/get/set (the reference's `param` group: parameters and facts).
#include <ctime>
#include <iostream>
#include <optional>

#include "cli/inmanta_cli/session.h"

namespace inmanta::cli::client {

namespace {

struct ParamOptions {
  std::string environment, name, value, resource;
  bool json = false;
};

// Seconds since the epoch of an ISO 8601 timestamp as the server writes them
// (`2025-01-31T10:00:00.123456+00:00`, `Z` or no offset meaning UTC); nullopt when it is not one.
std::optional<double> parseTimestamp(const std::string& text) {
  std::tm tm{};
  int consumed = 0;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
                  &tm.tm_min, &tm.tm_sec, &consumed) != 6)
    return std::nullopt;
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  double seconds = static_cast<double>(timegm(&tm));
  std::size_t i = static_cast<std::size_t>(consumed);
  if (i < text.size() && text[i] == '.') {
    std::size_t start = i++;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
    seconds += std::stod("0" + text.substr(start, i - start));
  }
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) {
    int hours = 0, minutes = 0;
    if (std::sscanf(text.c_str() + i + 1, "%2d:%2d", &hours, &minutes) != 2) return std::nullopt;
    seconds -= (text[i] == '+' ? 1 : -1) * (hours * 3600.0 + minutes * 60.0);
  }
  return seconds;
}

void printParameter(const json& p) {
  printTable({"Name", "Value", "Source", "Updated"},
             {{field(p, "name"), field(p, "value"), field(p, "source"), field(p, "updated")}});
}

}  // namespace

void addParamCommands(CLI::App& root, Session& session) {
  CLI::App* group = root.add_subcommand("param", "Subcommand to manage parameters");
  group->require_subcommand(1);
  auto o = std::make_shared<ParamOptions>();

  CLI::App* list = group->add_subcommand("list", "List parameters in an environment");
  addEnvironmentOption(*list, o->environment);
  addJsonFlag(*list, o->json);
  list->callback([&session, o] {
    std::string tid = session.environmentId(o->environment);
    json answer = session.request("POST", "/api/v1/parameter", {{"query", json::object()}}, tid, "parameters");
    if (o->json) return printJson(answer);
    // a parameter is expired when it was updated more than `expire` seconds before `now`
    std::optional<double> now = parseTimestamp(field(answer, "now"));
    double expire = answer.value("expire", json(0)).is_number() ? answer["expire"].get<double>() : 0;
    std::vector<std::vector<std::string>> rows;
    for (const json& p : answer.value("parameters", json::array())) {
      std::optional<double> updated = parseTimestamp(field(p, "updated"));
      bool expired = now && updated && *updated < *now - expire;
      rows.push_back({field(p, "resource_id"), field(p, "name"), field(p, "source"), field(p, "updated"),
                      expired ? "True" : "False"});
    }
    printTable({"Resource", "Name", "Source", "Updated", "Expired"}, rows);
  });

  CLI::App* set = group->add_subcommand("set", "Set a parameter in an environment");
  addEnvironmentOption(*set, o->environment);
  set->add_option("--name", o->name, "The name of the parameter")->required();
  set->add_option("--value", o->value, "The value of the parameter")->required();
  addJsonFlag(*set, o->json);
  set->callback([&session, o] {
    std::string tid = session.environmentId(o->environment);
    std::string path = "/api/v1/parameter/" + urlEncode(o->name);
    // an existing parameter keeps its source and metadata
    std::optional<json> existing = session.call("GET", path + "?resource_id=", nullptr, tid, "parameter", true);
    json current = existing ? existing->value("parameter", json::object()) : json::object();
    json body = {{"value", o->value},
                 {"source", current.contains("source") ? current["source"] : json("user")},
                 {"resource_id", ""},
                 {"metadata", current.contains("metadata") && !current["metadata"].is_null() ? current["metadata"]
                                                                                             : json::object()}};
    json p = session.requestKey("PUT", path, "parameter", body, tid);
    if (o->json) printJson(p);
    else printParameter(p);
  });

  CLI::App* get = group->add_subcommand("get", "Get a parameter from an environment");
  addEnvironmentOption(*get, o->environment);
  get->add_option("--name", o->name, "The name of the parameter")->required();
  get->add_option("--resource", o->resource, "The resource id of the parameter");
  addJsonFlag(*get, o->json);
  get->callback([&session, o] {
    std::string tid = session.environmentId(o->environment);
    json p = session.requestKey("GET",
                                "/api/v1/parameter/" + urlEncode(o->name) + "?resource_id=" + urlEncode(o->resource),
                                "parameter", nullptr, tid);
    if (o->json) printJson(p);
    else printParameter(p);
  });
}

}  // namespace inmanta::cli::client
