// inmanta-cli's session with the server: settings, requests, the errors users see, and projects
// and environments named by id or name.
#include <stdexcept>

#include "cli/inmanta_cli/session.h"
#include "exporter/settings.h"

namespace inmanta::cli::client {

namespace {

const char* const kTransport = "cmdline_rest_transport";

bool isUuid(const std::string& text) {
  try {
    exporter::normaliseUuid(text);
    return true;
  } catch (const std::runtime_error&) {
    return false;
  }
}

// The one id among `items` whose `name` is `ref` (and whose `scopeKey` is `scope` when given);
// `kind` is `project` or `environment`, `article` its article.
std::string idByName(const json& items, const std::string& ref, const std::string& scopeKey, const std::string& scope,
                     const std::string& article, const std::string& kind) {
  std::vector<std::string> ids;
  for (const json& item : items)
    if (item.value("name", "") == ref && (scope.empty() || item.value(scopeKey, "") == scope))
      ids.push_back(item.value("id", ""));
  if (ids.empty()) throw CliError("Unable to find " + article + " " + kind + " with the given id or name: " + ref);
  if (ids.size() > 1) throw CliError("Found multiple " + kind + "s with " + ref + " name, please use the ID.");
  return ids.front();
}

}  // namespace

const exporter::ServerSettings& Session::settings() {
  if (!settings_) {
    exporter::Settings loaded;
    try {
      loaded = exporter::loadSettings(exporter::SettingsFlags{});
      if (host) loaded.set(kTransport, "host", *host);
      if (port) loaded.set(kTransport, "port", std::to_string(*port));
      settings_ = exporter::serverSettings(loaded, kTransport);
    } catch (const std::runtime_error& e) {
      throw CliError(std::string("invalid configuration: ") + e.what());
    }
  }
  return *settings_;
}

exporter::RestClient& Session::clientFor(const std::string& tid) {
  auto& client = clients_[tid];
  if (!client) {
    exporter::ServerSettings s = settings();
    s.environment = tid;
    client = std::make_unique<exporter::RestClient>(s);
  }
  return *client;
}

std::optional<json> Session::call(const std::string& method, const std::string& path, const json& body,
                                  const std::string& tid, const std::string& what, bool allowMissing) {
  exporter::RestClient& client = clientFor(tid);
  std::string text = body.is_null() ? std::string() : body.dump();
  if (method != "GET" && method != "DELETE" && text.empty()) text = "{}";
  exporter::RestReply reply = client.call(method, path, text, !tid.empty());
  if (reply.status == 200) return reply.body;
  if (reply.status == 0)
    throw CliError("could not reach the server at " + client.baseUrl() + " (" + reply.message() +
                   "); check --host/--port, or host, port and ssl in [cmdline_rest_transport] of .inmanta");
  if (reply.status == 404 && allowMissing) return std::nullopt;
  std::string subject = what.empty() ? method + " " + path : what;
  std::string message = reply.status == 404 ? "Requested " + subject + " not found on server"
                                            : "An error occurred while requesting " + subject;
  std::string detail = reply.message();
  if (!detail.empty()) message += ": " + detail;
  if (reply.status == 401 || reply.status == 403)
    message += " (check the token: token in [cmdline_rest_transport] or INMANTA_CMDLINE_REST_TRANSPORT_TOKEN)";
  throw CliError(message);
}

json Session::request(const std::string& method, const std::string& path, const json& body, const std::string& tid,
                      const std::string& what) {
  return *call(method, path, body, tid, what, false);
}

json Session::requestKey(const std::string& method, const std::string& path, const std::string& key, const json& body,
                         const std::string& tid, const std::string& what) {
  json answer = request(method, path, body, tid, what.empty() ? key : what);
  if (!answer.is_object() || !answer.contains(key))
    throw CliError("Expected " + key + " in the answer of " + method + " " + path + ", got: " + answer.dump());
  return answer[key];
}

std::string Session::projectId(const std::string& ref) {
  if (isUuid(ref)) return exporter::normaliseUuid(ref);
  return idByName(requestKey("GET", "/api/v1/project", "projects"), ref, "", "", "a", "project");
}

std::string Session::environmentId(const std::string& ref, const std::string& projectId) {
  if (isUuid(ref)) return exporter::normaliseUuid(ref);
  return idByName(requestKey("GET", "/api/v1/environment", "environments"), ref, "project", projectId, "an",
                  "environment");
}

CLI::Option* addEnvironmentOption(CLI::App& command, std::string& target) {
  return command.add_option("-e,--environment", target, "The environment to use (its id or name)")->required();
}

CLI::Option* addJsonFlag(CLI::App& command, bool& target) {
  return command.add_flag("--json", target, "Print the server's JSON answer instead of a table");
}

}  // namespace inmanta::cli::client
