// inmanta-cli version list/release/report (the reference's `version` group).
#include <unistd.h>

#include <iostream>
#include <map>

#include "cli/inmanta_cli/session.h"
#include "util/resource_id.h"

namespace inmanta::cli::client {

namespace {

struct VersionOptions {
  std::string environment;
  long long version = 0;
  bool push = false, full = false, detailed = false, json = false;
};

// Bold on a terminal, plain otherwise (as click.style is when click echoes to a pipe).
std::string bold(const std::string& text) {
  static const bool tty = isatty(STDOUT_FILENO) != 0;
  return tty ? "\033[1m" + text + "\033[0m" : text;
}

const std::string kRule(72, '=');
const std::string kThinRule(72, '-');

// The deploy state of every resource of version `version`, by resource id: the rows' own
// `status` when the server sends one, otherwise, for the version the server enforces, the states
// of GET /api/v2/resource (whose items name the version they come from).
std::map<std::string, std::string> resourceStates(Session& session, const std::string& tid, long long version,
                                                  const json& rows) {
  std::map<std::string, std::string> states;
  for (const json& row : rows)
    if (row.contains("status") && row["status"].is_string()) states[field(row, "resource_id")] = field(row, "status");
  if (!states.empty()) return states;
  std::string path = "/api/v2/resource?limit=1000";
  while (!path.empty()) {
    json page = session.request("GET", path, nullptr, tid, "resources");
    for (const json& item : page.value("data", json::array()))
      if (field(item, "resource_version_id") == util::versionedId(field(item, "resource_id"), version))
        states[field(item, "resource_id")] = field(item, "status");
    json links = page.value("links", json::object());
    path = links.contains("next") && links["next"].is_string() ? links["next"].get<std::string>() : "";
  }
  return states;
}

// The changes of a dry-run or deploy action to one resource, with file contents as a diff.
void printChanges(Session& session, const json& changes) {
  if (!changes.is_object() || changes.empty()) {
    std::cout << "* no changes\n";
    return;
  }
  std::cout << "* changes:\n";
  std::map<std::string, json> sorted;
  for (const auto& [name, change] : changes.items()) sorted[name] = change;
  for (const auto& [name, change] : sorted) {
    json from = change.value("current", json()), to = change.value("desired", json());
    if (name == "hash") {
      std::cout << "  - content:\n";
      json diff = session.request("POST", "/api/v1/filediff",
                                  {{"file_id_1", from.is_string() ? from : json("")},
                                   {"file_id_2", to.is_string() ? to : json("")}},
                                  "", "file diff");
      std::string text;
      for (const json& line : diff.value("diff", json::array())) text += "    " + pythonStr(line);
      std::cout << text << (text.empty() || text.back() != '\n' ? "\n" : "");
    } else {
      std::cout << "  - " << name << ":\n";
      std::cout << "    " << bold("from:") << " " << pythonStr(from) << "\n";
      std::cout << "    " << bold("to:") << " " << pythonStr(to) << "\n";
    }
    std::cout << "\n";
  }
}

// The reference's report: per agent and resource type, each resource with its number of actions,
// and (our addition) its deploy state; for a version not released, the last check's result and
// changes.
void printReport(Session& session, const std::string& tid, const json& answer, bool detailed) {
  json model = answer.value("model", json::object());
  bool released = model.value("released", false);
  long long version = model.value("version", 0LL);
  json rows = answer.value("resources", json::array());
  std::map<std::string, std::string> states = resourceStates(session, tid, version, rows);
  std::map<std::string, std::map<std::string, std::vector<json>>> byAgent;
  for (const json& row : rows) {
    json actions = row.value("actions", json::array());
    if (!actions.empty() || detailed) byAgent[field(row, "agent")][field(row, "resource_type")].push_back(row);
  }
  for (const auto& [agent, types] : byAgent) {
    std::cout << bold("Agent: " + agent) << "\n" << kRule << "\n";
    for (const auto& [type, resources] : types) {
      auto first = util::parseResourceId(field(resources.front(), "resource_id"));
      std::cout << bold("Resource type:") << type << " (" << (first ? first->attribute : "") << ")\n"
                << kThinRule << "\n";
      for (const json& row : resources) {
        auto parts = util::parseResourceId(field(row, "resource_id"));
        json actions = row.value("actions", json::array());
        std::cout << bold(parts ? parts->value : field(row, "resource_id_value")) << " (#actions=" << actions.size()
                  << ")\n";
        if (auto state = states.find(field(row, "resource_id")); state != states.end())
          std::cout << "* state: " << state->second << "\n";
        if (released || actions.empty()) continue;
        const json& last = actions.front();
        std::cout << "* last check: " << field(last, "started") << "\n";
        bool failed = field(last, "status") == "failed";
        for (const json& message : last.value("messages", json::array())) {
          std::string level = field(message, "level");
          failed = failed || level == "ERROR" || level == "CRITICAL";
        }
        std::cout << "* result: " << (failed ? "error" : "success") << "\n";
        json changes = last.value("changes", json::object());
        printChanges(session, changes.is_object()
                                  ? changes.value(util::versionedId(field(row, "resource_id"), version), json::object())
                                  : json::object());
        std::cout << "\n";
      }
      std::cout << "\n";
    }
  }
}

}  // namespace

void addVersionCommands(CLI::App& root, Session& session) {
  CLI::App* group = root.add_subcommand("version", "Subcommand to manage versions");
  group->require_subcommand(1);
  auto o = std::make_shared<VersionOptions>();

  CLI::App* list = group->add_subcommand("list", "List versions in an environment");
  addEnvironmentOption(*list, o->environment);
  addJsonFlag(*list, o->json);
  list->callback([&session, o] {
    std::string tid = session.environmentId(o->environment);
    json versions = session.requestKey("GET", "/api/v2/desiredstate", "data", nullptr, tid, "versions");
    if (o->json) return printJson(versions);
    std::vector<std::vector<std::string>> rows;
    for (const json& v : versions) {
      std::string status = field(v, "status");
      bool released = status != "candidate" && status != "skipped_candidate";
      rows.push_back({field(v, "date"), field(v, "version"), released ? "True" : "False", field(v, "total"), status});
    }
    printTable({"Created at", "Version", "Released", "# Resources", "State"}, rows);
  });

  CLI::App* release = group->add_subcommand("release",
                                            "Release the specified version of the configuration model "
                                            "for deployment");
  addEnvironmentOption(*release, o->environment);
  release->add_flag("-p,--push", o->push, "[Deprecated] will be ignored");
  release->add_flag("--full", o->full, "[Deprecated] will be ignored");
  release->add_option("version", o->version, "Version of the model to release")->required();
  addJsonFlag(*release, o->json);
  release->callback([&session, o] {
    std::string tid = session.environmentId(o->environment);
    json model = session.requestKey("POST", "/api/v1/version/" + std::to_string(o->version), "model", json::object(),
                                    tid, "version " + std::to_string(o->version));
    if (o->json) return printJson(model);
    printTable({"Created at", "Version", "Released", "# Resources"},
               {{field(model, "date"), field(model, "version"), field(model, "released"), field(model, "total")}});
  });

  CLI::App* report =
      group->add_subcommand("report",
                            "Get a report about a version, describing the involved resources, agents and actions");
  addEnvironmentOption(*report, o->environment);
  report->add_option("-i,--version", o->version, "The version to create a report from")->required();
  report->add_flag("-l", o->detailed, "Show a detailed version of the report");
  addJsonFlag(*report, o->json);
  report->callback([&session, o] {
    std::string tid = session.environmentId(o->environment);
    json answer = session.request("GET", "/api/v1/version/" + std::to_string(o->version) + "?include_logs=true",
                                  nullptr, tid, "version " + std::to_string(o->version));
    if (o->json) return printJson(answer);
    printReport(session, tid, answer, o->detailed);
  });
}

}  // namespace inmanta::cli::client
