// The routes of projects, environments, settings, status and tokens over loopback HTTP: a server
// started in-process on an ephemeral port over a real store, SQLite and PostgreSQL (the scenarios
// O-1, O-2, O-4 … O-8, O-14, O-15 of the spec at the API level).
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <zlib.h>

#include <cstdlib>
#include <memory>
#include <optional>

#include "embedded/server/dispatcher.h"
#include "embedded/server/http_server.h"
#include "embedded/server/routes/routes.h"
#include "embedded/server/services/maintenance.h"
#include "embedded/store/test_engines.h"

namespace inmanta::server {
namespace {

using nlohmann::json;

struct Answer {
  int status = 0;
  json body;  // null for an empty body
  httplib::Headers headers;
};

std::string gzip(const std::string& data) {
  z_stream zs{};
  deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&zs, data.size()) + 32, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

// One server over one engine's store, with the options a test sets before start().
template <class E>
class CoreRoutesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!store::test_engines::ready(engine_)) return;
    options_.bindPort = 0;
    options_.database = engine_.config();
  }

  void start(const util::Settings& settings = {}) {
    store_ = store::Store::open(engine_.config());
    auth_ = std::make_unique<Auth>(settings);
    services_ = std::make_unique<Services>(*store_, options_, *auth_, "1.2.3");
    addAllRoutes(router_, *services_);
    dispatcher_ = std::make_unique<Dispatcher>(router_, *services_);
    http_ = std::make_unique<HttpServer>(*dispatcher_, options_);
    http_->start();
    client_ = std::make_unique<httplib::Client>("127.0.0.1", http_->port());
  }
  void TearDown() override {
    if (http_) http_->stop();
  }

  Answer call(const std::string& method, const std::string& path, const std::optional<std::string>& body = {},
              httplib::Headers headers = {}) {
    if (!client_) start();
    httplib::Request request;
    request.method = method;
    request.path = path;
    request.headers = std::move(headers);
    if (body) {
      request.body = *body;
      if (!request.has_header("Content-Type")) request.set_header("Content-Type", "application/json");
    }
    httplib::Result result = client_->send(request);
    EXPECT_TRUE(result) << method << " " << path << ": " << httplib::to_string(result.error());
    if (!result) return {};
    Answer answer{result->status, nullptr, result->headers};
    if (!result->body.empty()) answer.body = json::parse(result->body);
    return answer;
  }
  Answer call(const std::string& method, const std::string& path, const json& body, httplib::Headers headers = {}) {
    return call(method, path, std::optional<std::string>(body.dump()), std::move(headers));
  }
  httplib::Headers tid(const std::string& env) { return {{"X-Inmanta-tid", env}}; }

  // A project and an environment in it; returns the environment's id.
  std::string environment(const std::string& name = "dev") {
    Answer project = call("PUT", "/api/v2/project", json{{"name", "p-" + name}});
    EXPECT_EQ(project.status, 200);
    Answer env = call("PUT", "/api/v2/environment", json{{"name", name}, {"project_id", project.body["data"]["id"]}});
    EXPECT_EQ(env.status, 200);
    return env.body["data"]["id"];
  }

  E engine_;
  ServerOptions options_;
  std::unique_ptr<store::Store> store_;
  std::unique_ptr<Auth> auth_;
  std::unique_ptr<Services> services_;
  Router router_;
  std::unique_ptr<Dispatcher> dispatcher_;
  std::unique_ptr<HttpServer> http_;
  std::unique_ptr<httplib::Client> client_;
};

TYPED_TEST_SUITE(CoreRoutesTest, store::test_engines::Engines, store::test_engines::EngineNames);

TYPED_TEST(CoreRoutesTest, HealthAndStatus) {  // O-1
  Answer health = this->call("GET", "/api/v2/health");
  EXPECT_EQ(health.status, 200);
  EXPECT_EQ(health.body, (json{{"data", nullptr}}));
  Answer status = this->call("GET", "/api/v1/serverstatus");
  EXPECT_EQ(status.status, 200);
  EXPECT_EQ(status.body["data"]["version"], "1.2.3");
  EXPECT_EQ(status.body["data"]["product"], "inmanta-cpp");
  EXPECT_EQ(status.body["data"]["status"], "OK");
}

TYPED_TEST(CoreRoutesTest, ProjectsAndEnvironments) {  // O-2
  Answer p = this->call("PUT", "/api/v1/project", json{{"name", "P"}});
  ASSERT_EQ(p.status, 200);
  const std::string project = p.body["project"]["id"];
  EXPECT_EQ(p.body["project"]["environments"], json::array());
  EXPECT_EQ(this->call("PUT", "/api/v1/project", json{{"name", "P"}}).status, 409);

  Answer e = this->call("PUT", "/api/v2/environment", json{{"name", "E"}, {"project_id", project}});
  ASSERT_EQ(e.status, 200);
  const std::string env = e.body["data"]["id"];
  EXPECT_EQ(e.body["data"]["project_id"], project);
  EXPECT_EQ(e.body["data"]["halted"], false);

  Answer v1list = this->call("GET", "/api/v1/environment");
  ASSERT_EQ(v1list.body["environments"].size(), 1u);
  EXPECT_EQ(v1list.body["environments"][0]["project"], project);
  EXPECT_EQ(this->call("GET", "/api/v2/environment").body["data"][0]["project_id"], project);
  EXPECT_EQ(this->call("GET", "/api/v1/project/" + project).body["project"]["environments"], json::array({env}));
  Answer nested = this->call("GET", "/api/v2/project");
  EXPECT_EQ(nested.body["data"][0]["environments"][0]["id"], env);
  EXPECT_EQ(nested.body["data"][0]["environments"][0]["name"], "E");

  Answer again = this->call("PUT", "/api/v2/environment", json{{"name", "E"}, {"project_id", project}});
  EXPECT_EQ(again.status, 400);
  EXPECT_EQ(again.body["message"].get<std::string>().rfind("Invalid request: ", 0), 0u);
  Answer orphan = this->call("PUT", "/api/v2/environment",
                             json{{"name", "X"}, {"project_id", "4e5ad3c6-0e6e-4c5c-8a0e-6fb2a8e3c9a1"}});
  EXPECT_EQ(orphan.status, 404);
  EXPECT_EQ(this->call("PUT", "/api/v2/environment", json{{"name", "X"}, {"project_id", project}, {"repository", "r"}})
                .status,
            400);

  Answer renamed = this->call("POST", "/api/v2/environment/" + env, json{{"name", "E2"}, {"description", "d"}});
  EXPECT_EQ(renamed.body["data"]["name"], "E2");
  EXPECT_EQ(renamed.body["data"]["description"], "d");
  EXPECT_EQ(this->call("POST", "/api/v2/environment/" + env,
                       json{{"name", "E2"}, {"icon", "data:text/html;base64,AA=="}})
                .status,
            400);
  EXPECT_EQ(this->call("POST", "/api/v2/environment/" + env,
                       json{{"name", "E2"}, {"icon", "data:image/png;base64,iVBORw0KGgo="}})
                .status,
            200);
  EXPECT_EQ(this->call("POST", "/api/v2/environment/" + env,
                       json{{"name", "E2"}, {"description", std::string(256, 'x')}})
                .status,
            400);

  Answer busy = this->call("DELETE", "/api/v1/project/" + project);
  EXPECT_EQ(busy.status, 409);
  EXPECT_EQ(this->call("DELETE", "/api/v2/environment/" + env).status, 200);
  Answer gone = this->call("DELETE", "/api/v1/project/" + project);
  EXPECT_EQ(gone.status, 200);
  EXPECT_TRUE(gone.body.is_null());  // an empty body
  EXPECT_EQ(this->call("GET", "/api/v2/environment/" + env).status, 404);
  Answer missing = this->call("GET", "/api/v1/project/" + project);
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(missing.body["message"].get<std::string>().rfind("Request or referenced resource does not exist: ", 0), 0u);
}

TYPED_TEST(CoreRoutesTest, BadBodiesAndArguments) {  // O-4, O-5
  Answer bad = this->call("PUT", "/api/v2/environment", std::optional<std::string>("{\"name\": env}"));
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(bad.body["message"].get<std::string>().rfind("The request body couldn't be decoded as a JSON", 0), 0u);
  EXPECT_EQ(this->call("PUT", "/api/v2/environment", std::optional<std::string>("[1, 2]")).status, 400);
  EXPECT_EQ(this->call("PUT", "/api/v2/environment", std::optional<std::string>("\"text\"")).status, 400);
  EXPECT_EQ(this->call("GET", "/api/v2/health").status, 200);

  Answer unknown = this->call("PUT", "/api/v1/project", json{{"name", "a"}, {"x", 1}});
  EXPECT_EQ(unknown.body["message"],
            "Invalid request: request contains fields {'x'} that are not declared in method "
            "and no kwargs argument is provided.");
  Answer required = this->call("PUT", "/api/v1/project", json::object());
  EXPECT_EQ(required.body["message"], "Invalid request: Field 'name' is required.");
  Answer typed = this->call("PUT", "/api/v1/project", json{{"name", "a"}, {"project_id", "nope"}});
  EXPECT_EQ(typed.status, 400);
  EXPECT_EQ(typed.body["message"].get<std::string>().rfind("Invalid request: Failed to validate argument", 0), 0u);
  EXPECT_TRUE(typed.body["error_details"]["validation_errors"].is_array());
  EXPECT_EQ(this->call("GET", "/api/v1/project/not-a-uuid").status, 400);
  EXPECT_EQ(this->call("GET", "/api/v2/project?environment_details=maybe").status, 400);
  EXPECT_EQ(this->call("GET", "/api/v2/project?environment_details=YES").status, 200);

  // gzip bodies are accepted (O-37 for the routes here)
  Answer zipped = this->call("PUT", "/api/v1/project",
                             std::optional<std::string>(gzip(json{{"name", "zipped"}}.dump())),
                             {{"Content-Encoding", "gzip"}});
  EXPECT_EQ(zipped.status, 200);
  EXPECT_EQ(zipped.body["project"]["name"], "zipped");
}

TYPED_TEST(CoreRoutesTest, BodyLimit) {
  this->options_.maxRequestBodySize = 1000;
  Answer big = this->call("PUT", "/api/v1/project", json{{"name", std::string(2000, 'x')}});
  EXPECT_EQ(big.status, 413);
  EXPECT_TRUE(big.body.contains("message"));
  EXPECT_EQ(this->call("GET", "/api/v2/health").status, 200);
}

TYPED_TEST(CoreRoutesTest, EnvironmentHeader) {  // O-6
  Answer none = this->call("GET", "/api/v2/environment_settings");
  EXPECT_EQ(none.status, 400);
  EXPECT_EQ(none.body["message"], "Invalid request: Field 'tid' is required.");
  EXPECT_EQ(this->call("GET", "/api/v2/environment_settings", std::nullopt, {{"X-Inmanta-tid", "12"}}).status, 400);
  Answer unknown = this->call("GET", "/api/v2/environment_settings", std::nullopt,
                              {{"x-inmanta-TID", "4e5ad3c6-0e6e-4c5c-8a0e-6fb2a8e3c9a1"}});
  EXPECT_EQ(unknown.status, 404);
  EXPECT_EQ(unknown.body["message"],
            "Request or referenced resource does not exist: The given environment id does not exist!");
}

TYPED_TEST(CoreRoutesTest, MethodsPathsCorsAndShutdown) {  // O-7
  Answer patch = this->call("PATCH", "/api/v1/project", json::object());
  EXPECT_EQ(patch.status, 405);
  EXPECT_EQ(patch.headers.find("Allow")->second, "PUT, GET");
  EXPECT_EQ(patch.body["message"], "PATCH is not supported for this url. Supported methods: PUT, GET");
  Answer nowhere = this->call("GET", "/api/v9/nothing");
  EXPECT_EQ(nowhere.status, 404);
  EXPECT_EQ(nowhere.body["message"], "Request or referenced resource does not exist");
  Answer options = this->call("OPTIONS", "/api/v1/project");
  EXPECT_EQ(options.status, 200);
  EXPECT_NE(options.headers.find("Access-Control-Allow-Headers")->second.find("X-Inmanta-tid"), std::string::npos);

  this->dispatcher_->beginShutdown();
  Answer late = this->call("GET", "/api/v2/health");
  EXPECT_EQ(late.status, 503);
  EXPECT_EQ(late.body["message"], "Can not complete this request as a shutdown is on progress");
}

TYPED_TEST(CoreRoutesTest, AllowOrigin) {
  this->options_.accessControlAllowOrigin = "https://ui.example";
  EXPECT_EQ(this->call("GET", "/api/v2/health").headers.find("Access-Control-Allow-Origin")->second,
            "https://ui.example");
}

TYPED_TEST(CoreRoutesTest, Settings) {  // O-14
  const std::string env = this->environment();
  auto h = this->tid(env);
  EXPECT_EQ(this->call("POST", "/api/v2/environment_settings/autostart_agent_repair_interval", json{{"value", "30"}}, h)
                .status,
            200);
  EXPECT_EQ(this->call("GET", "/api/v1/environment_settings", std::nullopt, h)
                .body["settings"]["autostart_agent_repair_interval"],
            "30");
  Answer v2 = this->call("GET", "/api/v2/environment_settings", std::nullopt, h);
  EXPECT_EQ(v2.body["data"]["settings"]["autostart_agent_repair_interval"], "30");
  EXPECT_EQ(v2.body["data"]["definition"]["auto_deploy"]["type"], "bool");
  EXPECT_EQ(v2.body["data"]["definition"]["autostart_agent_map"]["default"], (json{{"internal", "local:"}}));
  Answer invalid =
      this->call("POST", "/api/v1/environment_settings/autostart_agent_repair_interval", json{{"value", "abc"}}, h);
  EXPECT_EQ(invalid.status, 400);
  EXPECT_EQ(invalid.body["message"].get<std::string>().rfind("Invalid request: Invalid value. ", 0), 0u);
  EXPECT_EQ(invalid.body["message"],
            "Invalid request: Invalid value. 'abc' is not a valid cron expression or int: 'abc' is not a valid cron "
            "expression: a cron expression has 5, 6 or 7 fields ([second] minute hour day-of-month month "
            "day-of-week [year]), this one has 1");
  // a cron expression in place of seconds is kept as given (§5, §6.7), as is one for auto_full_compile
  EXPECT_EQ(this->call("POST", "/api/v2/environment_settings/autostart_agent_deploy_interval",
                       json{{"value", "*/5 * * * *"}}, h)
                .status,
            200);
  EXPECT_EQ(
      this->call("GET", "/api/v1/environment_settings/autostart_agent_deploy_interval", std::nullopt, h).body["value"],
      "*/5 * * * *");
  Answer badCron = this->call("POST", "/api/v2/environment_settings/autostart_agent_deploy_interval",
                              json{{"value", "61 * * * *"}}, h);
  EXPECT_EQ(badCron.status, 400);
  EXPECT_NE(badCron.body["message"].get<std::string>().find("the minute 61 is not in 0-59"), std::string::npos);
  EXPECT_EQ(
      this->call("POST", "/api/v2/environment_settings/auto_full_compile", json{{"value", "0 2 * * *"}}, h).status,
      200);
  EXPECT_EQ(
      this->call("POST", "/api/v2/environment_settings/auto_full_compile", json{{"value", "every day"}}, h).status,
      400);
  EXPECT_EQ(this->call("POST", "/api/v2/environment_settings/auto_deploy", json{{"value", "maybe"}}, h).status, 400);
  EXPECT_EQ(this->call("POST", "/api/v1/environment_settings/push_on_auto_deploy", json{{"value", true}}, h).status,
            404);
  EXPECT_EQ(this->call("GET", "/api/v2/environment_settings/purge_on_delete", std::nullopt, h).status, 404);

  Answer deleted =
      this->call("DELETE", "/api/v1/environment_settings/autostart_agent_repair_interval", std::nullopt, h);
  EXPECT_EQ(deleted.status, 200);
  EXPECT_EQ(deleted.body, json::object());
  EXPECT_EQ(
      this->call("GET", "/api/v1/environment_settings/autostart_agent_repair_interval", std::nullopt, h).body["value"],
      "86400");
  Answer one = this->call("GET", "/api/v2/environment_settings/available_versions_to_keep", std::nullopt, h);
  EXPECT_EQ(one.body["data"]["settings"], (json{{"available_versions_to_keep", 100}}));

  EXPECT_EQ(this->call("POST", "/api/v2/environment_settings/auto_deploy", json{{"value", "off"}}, h).status, 200);
  EXPECT_EQ(this->call("GET", "/api/v2/environment/" + env).body["data"]["settings"]["auto_deploy"], false);

  // project.yml's settings: protected; the batch is validated (D5)
  Answer bad = this->call("POST", "/api/v2/protected_environment_settings",
                          json{{"settings", {{"auto_deploy", "maybe"}}}, {"protected_by", "project_yml"}}, h);
  EXPECT_EQ(bad.status, 400);
  EXPECT_NE(bad.body["message"].get<std::string>().find("auto_deploy"), std::string::npos);
  Answer batch = this->call("POST", "/api/v2/protected_environment_settings",
                            json{{"settings", {{"auto_deploy", false}}}, {"protected_by", "project_yml"}}, h);
  EXPECT_EQ(batch.status, 200);
  EXPECT_TRUE(batch.body.is_null());
  Answer refused = this->call("POST", "/api/v2/environment_settings/auto_deploy", json{{"value", true}}, h);
  EXPECT_EQ(refused.status, 403);
  EXPECT_EQ(refused.body["message"],
            "Access denied: Cannot update environment setting auto_deploy because it's protected "
            "(reason=Setting is managed by the project.yml file of the Inmanta project.).");
  EXPECT_EQ(this->call("DELETE", "/api/v2/environment_settings/auto_deploy", std::nullopt, h).status, 403);
  Answer definitions = this->call("GET", "/api/v1/environment_settings", std::nullopt, h);
  EXPECT_EQ(definitions.body["metadata"]["auto_deploy"]["protected"], true);
  // absent from the next batch: no longer protected
  EXPECT_EQ(this->call("POST", "/api/v2/protected_environment_settings",
                       json{{"settings", json::object()}, {"protected_by", "project_yml"}}, h)
                .status,
            200);
  EXPECT_EQ(this->call("POST", "/api/v2/environment_settings/auto_deploy", json{{"value", true}}, h).status, 200);
}

TYPED_TEST(CoreRoutesTest, ProtectedEnvironmentHaltAndResume) {  // O-15
  const std::string env = this->environment();
  auto h = this->tid(env);
  ASSERT_EQ(this->call("POST", "/api/v2/environment_settings/protected_environment", json{{"value", true}}, h).status,
            200);
  Answer refused = this->call("DELETE", "/api/v2/environment/" + env);
  EXPECT_EQ(refused.status, 403);
  EXPECT_EQ(refused.body["message"],
            "Access denied: Environment " + env + " is protected. See environment setting: protected_environment");
  EXPECT_EQ(this->call("DELETE", "/api/v2/decommission/" + env).status, 403);

  EXPECT_EQ(this->call("POST", "/api/v2/actions/environment/halt", std::nullopt, h).status, 200);
  EXPECT_EQ(this->call("GET", "/api/v2/environment/" + env).body["data"]["halted"], true);
  EXPECT_EQ(this->call("POST", "/api/v2/actions/environment/halt", std::nullopt, h).status, 200);  // a no-op
  EXPECT_EQ(this->call("POST", "/api/v2/actions/environment/resume", json::object(), h).status, 200);
  EXPECT_EQ(this->call("GET", "/api/v2/environment/" + env).body["data"]["halted"], false);

  EXPECT_EQ(this->call("DELETE", "/api/v2/environment_settings/protected_environment", std::nullopt, h).status, 200);
  EXPECT_EQ(this->call("DELETE", "/api/v2/decommission/" + env).status, 200);
  EXPECT_EQ(this->call("DELETE", "/api/v2/environment/" + env).status, 200);
  EXPECT_EQ(this->call("GET", "/api/v2/environment/" + env).status, 404);
  EXPECT_EQ(this->call("DELETE", "/api/v1/environment/" + env).status, 404);
}

TYPED_TEST(CoreRoutesTest, Auth) {  // O-8 at the API level
  util::Settings settings;
  settings.set("auth_jwt_default", "sign", "true");
  settings.set("auth_jwt_default", "client_types", "api,agent,compiler");
  settings.set("auth_jwt_default", "key", "c2VjcmV0LWtleS1vZi1hdC1sZWFzdC0zMi1ieXRlcy1sb25nLW9r");
  this->options_.auth = true;
  this->start(settings);
  const Auth& auth = *this->auth_;
  auto bearer = [](const std::string& token) { return httplib::Headers{{"Authorization", "Bearer " + token}}; };
  const std::string api = auth.mint(kApi, std::nullopt);

  Answer none = this->call("GET", "/api/v1/project");
  EXPECT_EQ(none.status, 401);
  EXPECT_EQ(none.body["message"].get<std::string>().rfind("Access to this resource is unauthorized", 0), 0u);
  EXPECT_EQ(this->call("GET", "/api/v2/health").status, 200);
  EXPECT_EQ(this->call("GET", "/api/v1/project", std::nullopt, bearer("garbage")).status, 403);
  EXPECT_EQ(this->call("GET", "/api/v1/project", std::nullopt, {{"Authorization", "Basic " + api}}).status, 401);

  Answer p = this->call("PUT", "/api/v2/project", json{{"name", "p"}}, bearer(api));
  ASSERT_EQ(p.status, 200);
  Answer ea =
      this->call("PUT", "/api/v2/environment", json{{"name", "a"}, {"project_id", p.body["data"]["id"]}}, bearer(api));
  Answer eb =
      this->call("PUT", "/api/v2/environment", json{{"name", "b"}, {"project_id", p.body["data"]["id"]}}, bearer(api));
  const std::string a = ea.body["data"]["id"], b = eb.body["data"]["id"];

  httplib::Headers scopedA = bearer(auth.mint(kApi, a));
  scopedA.emplace("X-Inmanta-tid", a);
  EXPECT_EQ(this->call("GET", "/api/v2/environment_settings", std::nullopt, scopedA).status, 200);
  httplib::Headers wrongEnv = bearer(auth.mint(kApi, a));
  wrongEnv.emplace("X-Inmanta-tid", b);
  Answer foreign = this->call("GET", "/api/v2/environment_settings", std::nullopt, wrongEnv);
  EXPECT_EQ(foreign.status, 403);
  EXPECT_NE(foreign.body["message"].get<std::string>().find("not valid for the requested environment"),
            std::string::npos);
  EXPECT_EQ(this->call("GET", "/api/v2/environment/" + b, std::nullopt, bearer(auth.mint(kApi, a))).status, 403);
  Answer agnostic = this->call("GET", "/api/v1/project", std::nullopt, bearer(auth.mint(kApi, a)));
  EXPECT_EQ(agnostic.status, 403);
  EXPECT_NE(agnostic.body["message"].get<std::string>().find("scoped to a specific environment"), std::string::npos);

  httplib::Headers agent = bearer(auth.mint(kAgent, std::nullopt));
  Answer wrongType = this->call("GET", "/api/v1/project", std::nullopt, agent);
  EXPECT_EQ(wrongType.status, 403);
  EXPECT_NE(wrongType.body["message"].get<std::string>().find("(agent provided, api expected)"), std::string::npos);

  // environment_auth mints a scoped token that works for its environment only
  httplib::Headers withTid = bearer(api);
  withTid.emplace("X-Inmanta-tid", a);
  Answer minted = this->call("POST", "/api/v1/environment_auth", json{{"client_types", {"api", "compiler"}}}, withTid);
  ASSERT_EQ(minted.status, 200);
  httplib::Headers mintedA = bearer(minted.body["token"]);
  mintedA.emplace("X-Inmanta-tid", a);
  EXPECT_EQ(this->call("GET", "/api/v1/environment_settings", std::nullopt, mintedA).status, 200);
  EXPECT_EQ(this->call("POST", "/api/v2/environment_auth", json{{"client_types", {"root"}}}, withTid).status, 400);
}

TYPED_TEST(CoreRoutesTest, EnvironmentAuthNeedsAuth) {
  const std::string env = this->environment();
  EXPECT_EQ(this->call("POST", "/api/v1/environment_auth", json{{"client_types", {"api"}}}, this->tid(env)).status,
            400);
}

// Reads one HTTP answer from `fd`: its status line and, after the headers, Content-Length bytes
// (none for a HEAD). Empty when the connection ends first.
std::string readAnswer(int fd, bool head) {
  std::string data;
  char buffer[4096];
  size_t end;
  while ((end = data.find("\r\n\r\n")) == std::string::npos) {
    ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
    if (n <= 0) return "";
    data.append(buffer, static_cast<size_t>(n));
  }
  size_t length = 0;
  if (size_t at = data.find("Content-Length: "); at != std::string::npos && !head)
    length = std::stoul(data.substr(at + 16));
  while (data.size() < end + 4 + length) {
    ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
    if (n <= 0) return "";
    data.append(buffer, static_cast<size_t>(n));
  }
  std::string status = data.substr(0, data.find("\r\n"));
  if (data.substr(0, end).find("Connection: close") != std::string::npos) status += " (Connection: close)";
  return status + "|" + data.substr(end + 4, length);
}

int connectTo(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  return fd;
}

TYPED_TEST(CoreRoutesTest, BodiesOfGetHeadAndOptionsDoNotSpillIntoTheNextRequest) {
  this->start();
  int fd = connectTo(this->http_->port());
  auto send = [&fd](const std::string& text) {
    ASSERT_EQ(::send(fd, text.data(), text.size(), 0), static_cast<ssize_t>(text.size()));
  };
  for (const char* method : {"GET", "HEAD", "OPTIONS"}) {
    for (const char* encoding : {"", "Content-Encoding: gzip\r\n"}) {  // a plain body, and one that does not unzip
      send(std::string(method) + " /api/v2/health HTTP/1.1\r\nHost: t\r\n" + encoding +
           "Content-Length: 10\r\n\r\nGET / junk");
      std::string first = readAnswer(fd, std::string(method) == "HEAD");
      EXPECT_EQ(first.substr(0, 9), "HTTP/1.1 ") << method << ": " << first;
      if (first.find("Connection: close") != std::string::npos || first.empty()) {
        // the server ended the connection after a body it could not read: take a new one
        ::close(fd);
        fd = connectTo(this->http_->port());
      }
      send("GET /api/v2/health HTTP/1.1\r\nHost: t\r\n\r\n");
      EXPECT_EQ(readAnswer(fd, false), "HTTP/1.1 200 OK|{\"data\":null}") << "after " << method << " " << encoding;
    }
  }
  ::close(fd);
}

TYPED_TEST(CoreRoutesTest, PruningJobs) {  // the hourly clean-up (spec §8), run once by hand
  const std::string env = this->environment();
  auto h = this->tid(env);
  ASSERT_EQ(this->call("POST", "/api/v2/environment_settings/available_versions_to_keep", json{{"value", 2}}, h).status,
            200);
  store::Store& store = *this->store_;
  for (int i = 0; i < 4; ++i) {
    store::NewVersion version;
    version.environment = env;
    version.version = store.reserveVersion(env);
    store.putVersion(version);
  }
  store.releaseVersion(env, 1);
  // the two newest stay, and the newest released one
  EXPECT_EQ(pruneVersions(*this->services_), 1);
  std::vector<std::int64_t> kept;
  for (const auto& version : store.listVersions(env, 0, 10).versions) kept.push_back(version.version);
  EXPECT_EQ(kept, (std::vector<std::int64_t>{4, 3, 1}));

  // resource actions older than resource_action_logs_retention (7 days by default) go
  store::ResourceAction old;
  old.environment = env;
  old.version = 4;
  old.action = "other";
  old.started = store::now() - std::chrono::hours(24 * 8);
  const std::string oldId = store.insertResourceAction(old);
  store::ResourceAction recent = old;
  recent.started = store::now() - std::chrono::hours(24 * 6);
  const std::string recentId = store.insertResourceAction(recent);
  EXPECT_GE(pruneResourceActions(*this->services_), 1);
  EXPECT_FALSE(store.getResourceAction(env, oldId));
  EXPECT_TRUE(store.getResourceAction(env, recentId));
}

}  // namespace
}  // namespace inmanta::server
