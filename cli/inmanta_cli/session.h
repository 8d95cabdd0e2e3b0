// `inmanta-cli`, the management client (the reference's inmanta-cli: same commands, options,
// output and exit codes). This header is what its command groups share: the session with the
// server (settings, requests, errors, names resolved to ids) and the output helpers (tables in
// the reference's style, --json, Python's way of printing values). One file per command group
// registers its subcommands (project.cpp, environment.cpp, ...); app.cpp builds the command line.
#pragma once

#include <CLI/CLI.hpp>

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "exporter/rest_client.h"

namespace inmanta::cli::client {

using nlohmann::json;

// A failure the user is told about as `Error: <message>` with exit status `code` (1 like the
// reference's failed requests and click errors; 2 for usage errors). An empty message: the
// failure was reported already, only the exit status is left to give.
class CliError : public std::runtime_error {
 public:
  explicit CliError(const std::string& message, int code = 1) : std::runtime_error(message), code_(code) {}
  int code() const { return code_; }

 private:
  int code_;
};

// The connection to the server: `[cmdline_rest_transport]` of the configuration files and
// INMANTA_CMDLINE_REST_TRANSPORT_* (host, port, ssl, ssl_ca_cert_file, token, request_timeout),
// with --host/--port winning. Requests go through the exporter's REST client (gzip, bearer token,
// X-Inmanta-tid, TLS).
class Session {
 public:
  // Set by the global options before the first request.
  std::optional<std::string> host;
  std::optional<int> port;

  // One request. `tid`: the environment id sent as X-Inmanta-tid (empty: none). `what` names the
  // thing asked for in messages (`project`, `environment setting`). A 200 answer gives its JSON
  // body (null for an empty body); a 404 gives nullopt when `allowMissing`; any other answer, or
  // no answer, throws CliError with the server's message.
  std::optional<json> call(const std::string& method, const std::string& path, const json& body = nullptr,
                           const std::string& tid = "", const std::string& what = "", bool allowMissing = false);
  // As call(), never missing: a 404 throws too.
  json request(const std::string& method, const std::string& path, const json& body = nullptr,
               const std::string& tid = "", const std::string& what = "");
  // `key` of the object a request answers; throws CliError when it is absent.
  json requestKey(const std::string& method, const std::string& path, const std::string& key,
                  const json& body = nullptr, const std::string& tid = "", const std::string& what = "");

  // A project or environment given as its id or its name, as the reference accepts them: a UUID
  // is taken as is; a name must match exactly one (an environment's, within `projectId` when
  // given), otherwise CliError.
  std::string projectId(const std::string& ref);
  std::string environmentId(const std::string& ref, const std::string& projectId = "");

  // The settings in use (after the global options).
  const exporter::ServerSettings& settings();

 private:
  exporter::RestClient& clientFor(const std::string& tid);

  std::optional<exporter::ServerSettings> settings_;
  // one client per environment header (the REST client sends the one of its settings)
  std::map<std::string, std::unique_ptr<exporter::RestClient>> clients_;
};

// Output helpers (output.cpp).

// A table as the reference draws it (texttable with a border, vertical lines and a header rule):
// headers centred, cells left-aligned, multi-line cells kept; on a terminal, wide columns wrap to
// its width.
void printTable(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows);
std::string formatTable(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows,
                        std::size_t maxWidth);
// Machine output: the server's JSON, indented.
void printJson(const json& value);
// A value as Python's str() prints it (the reference prints the server's values that way):
// True/False/None, 'quoted' strings inside lists and dicts.
std::string pythonStr(const json& value);
// A text field of a server object; "" when absent or null, pythonStr for other values.
std::string field(const json& object, const std::string& key);
// Percent-encoding of one path segment or query value (every reserved character encoded).
std::string urlEncode(const std::string& text);

// The command groups, one file each; each adds its subcommands to `root`. A leaf's callback does
// the work and throws CliError on failure.
void addProjectCommands(CLI::App& root, Session& session);
void addEnvironmentCommands(CLI::App& root, Session& session);
void addAgentCommands(CLI::App& root, Session& session);
void addVersionCommands(CLI::App& root, Session& session);
void addParamCommands(CLI::App& root, Session& session);
void addTokenCommands(CLI::App& root, Session& session);
void addActionLogCommands(CLI::App& root, Session& session);
void addMonitorCommand(CLI::App& root, Session& session);

// The required `-e/--environment` option of most commands.
CLI::Option* addEnvironmentOption(CLI::App& command, std::string& target);
// The `--json` flag of read commands.
CLI::Option* addJsonFlag(CLI::App& command, bool& target);

}  // namespace inmanta::cli::client

namespace inmanta::cli {
// `inmanta-cli` (main.cpp calls it when argv[0]'s base name is inmanta-cli); returns the exit status.
int runInmantaCli(int argc, char** argv);
// The inmanta-cli command line, its commands' callbacks working with `session`; also what
// `inmanta completion` and `inmanta man` describe.
std::unique_ptr<CLI::App> makeInmantaCliApp(client::Session& session);
}  // namespace inmanta::cli
