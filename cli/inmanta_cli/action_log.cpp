// inmanta-cli action-log list/show-messages (the reference's `action-log` group): the resource
// actions of one resource version (GET /api/v1/resource/<rvid>?logs=true).
#include <iostream>

#include "cli/inmanta_cli/session.h"
#include "exporter/settings.h"
#include "util/resource_id.h"

namespace inmanta::cli::client {

namespace {

struct ActionLogOptions {
  std::string environment, rvid, action, actionId;
  bool json = false;
};

// --rvid must be a resource version id (`TYPE[AGENT,ATTR=VALUE],v=N`).
std::string checkResourceVersionId(const std::string& text) {
  auto parts = util::parseResourceId(text);
  if (!parts || !parts->version) return "not a resource version id (TYPE[AGENT,ATTRIBUTE=VALUE],v=VERSION): " + text;
  return "";
}

std::string checkUuid(const std::string& text) {
  try {
    exporter::normaliseUuid(text);
    return "";
  } catch (const std::runtime_error&) {
    return text + " is not a valid UUID.";
  }
}

// The resource's action log entries, newest first as the server sends them.
json resourceLogs(Session& session, const ActionLogOptions& o, bool filtered) {
  std::string tid = session.environmentId(o.environment);
  std::string path = "/api/v1/resource/" + urlEncode(o.rvid) + "?logs=true";
  if (filtered && !o.action.empty()) path += "&log_action=" + urlEncode(o.action);
  return session.requestKey("GET", path, "logs", nullptr, tid, "resource " + o.rvid);
}

void addCommonOptions(CLI::App& command, ActionLogOptions& o) {
  command.add_option("-e,--environment", o.environment, "The ID or name of the environment to use")->required();
  command.add_option("--rvid", o.rvid, "The resource version ID of the resource")
      ->required()
      ->check(CLI::Validator(checkResourceVersionId, "RVID", "resource version id"));
}

}  // namespace

void addActionLogCommands(CLI::App& root, Session& session) {
  CLI::App* group = root.add_subcommand("action-log", "Subcommand to view the resource action log");
  group->require_subcommand(1);
  auto o = std::make_shared<ActionLogOptions>();

  CLI::App* list = group->add_subcommand("list", "List the resource action log for a specific Resource.");
  addCommonOptions(*list, *o);
  list->add_option("--action", o->action, "Only list this resource action")
      ->check(CLI::IsMember({"store", "push", "pull", "deploy", "dryrun", "getfact", "other"}));
  addJsonFlag(*list, o->json);
  list->callback([&session, o] {
    json logs = resourceLogs(session, *o, true);
    if (o->json) return printJson(logs);
    std::vector<std::vector<std::string>> rows;
    for (const json& log : logs)
      rows.push_back({field(log, "action_id"), field(log, "action"), field(log, "started"), field(log, "finished"),
                      field(log, "status")});
    if (rows.empty()) std::cout << "No resource action log entry found.\n";
    else printTable({"Action ID", "Action", "Started", "Finished", "Status"}, rows);
  });

  CLI::App* show =
      group->add_subcommand("show-messages", "Show the log messages for a specific entry in the resource action log.");
  addCommonOptions(*show, *o);
  show->add_option("--action-id", o->actionId, "The ID of the resource action record")
      ->required()
      ->check(CLI::Validator(checkUuid, "UUID", "uuid"));
  addJsonFlag(*show, o->json);
  show->callback([&session, o] {
    std::string actionId = exporter::normaliseUuid(o->actionId);
    json entry;
    for (const json& log : resourceLogs(session, *o, false))
      if (field(log, "action_id") == actionId) {
        entry = log;
        break;
      }
    if (o->json) return printJson(entry.is_null() ? json::array() : entry.value("messages", json::array()));
    if (entry.is_null()) {
      std::cout << "No log messages found for action-id " << actionId << "\n";
      return;
    }
    for (const json& msg : entry.value("messages", json::array()))
      std::cout << field(msg, "timestamp") << " " << field(msg, "level") << " " << field(msg, "msg") << "\n";
  });
}

}  // namespace inmanta::cli::client
