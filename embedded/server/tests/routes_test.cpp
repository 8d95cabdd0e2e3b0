// The routes for files, versions and desired state, resources and their actions, dry-runs,
// agents, parameters and deploy, over loopback against an in-process server, on SQLite and on
// PostgreSQL: each endpoint's answer and its error cases.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "embedded/server/routes/resources_json.h"
#include "embedded/server/tests/test_server.h"

namespace inmanta::server::testing {
namespace {

using nlohmann::json;
using store::test_engines::EngineNames;
using store::test_engines::Engines;

template <class E>
class RoutesTest : public ServerTest<E> {
 protected:
  Answer call(const std::string& method, const std::string& path, const json& body = nullptr,
              const std::string& tid = "") {
    return this->server_->call(method, path, body, tid);
  }

  static json file(const std::string& path, std::vector<std::string> requires_ = {},
                   const std::string& agent = "localhost") {
    return {{"id", "std::File[" + agent + ",path=" + path + "],v=0"},
            {"path", path},
            {"permissions", 644},
            {"requires", requires_},
            {"purged", false}};
  }

  // Stores a version of `resources` (reserving its number) and returns the number.
  std::int64_t put(const std::string& env, const json& resources, const json& extra = json::object()) {
    Answer reserved = call("POST", "/api/v2/reserve_version", nullptr, env);
    EXPECT_EQ(reserved.status, 200) << reserved.body;
    std::int64_t version = reserved.body["data"].get<std::int64_t>();
    json body = {{"version", version}, {"resources", resources}, {"module_version_info", json::object()}};
    for (const auto& [key, value] : extra.items()) body[key] = value;
    Answer stored = call("PUT", "/api/v1/version", body, env);
    EXPECT_EQ(stored.status, 200) << stored.body;
    return version;
  }

  std::string manualEnvironment() {
    std::string env = this->server_->environment();
    EXPECT_EQ(call("POST", "/api/v2/environment_settings/auto_deploy", {{"value", false}}, env).status, 200);
    return env;
  }
};
TYPED_TEST_SUITE(RoutesTest, Engines, EngineNames);

TYPED_TEST(RoutesTest, Files) {
  // "hello\n": sha1 f572d396fae9206628714fb2ce00f72e94f2258f, base64 aGVsbG8K
  const std::string hash = "f572d396fae9206628714fb2ce00f72e94f2258f";
  EXPECT_EQ(this->call("HEAD", "/api/v1/file/" + hash).status, 404);
  Answer missing = this->call("POST", "/api/v1/file", {{"files", {hash, "0000000000000000000000000000000000000000"}}});
  ASSERT_EQ(missing.status, 200);
  EXPECT_EQ(missing.body["files"].size(), 2u);
  // what the reference's client sends: the path's id in the body too, a form content type
  Answer put = this->server_->call("PUT", "/api/v1/file/" + hash, {{"id", hash}, {"content", "aGVsbG8K"}}, "",
                                   "application/x-www-form-urlencoded");
  EXPECT_EQ(put.status, 200) << put.body;
  EXPECT_EQ(this->call("HEAD", "/api/v1/file/" + hash).status, 200);
  Answer got = this->call("GET", "/api/v1/file/" + hash);
  EXPECT_EQ(got.status, 200);
  EXPECT_EQ(got.body["content"], "aGVsbG8K");
  missing = this->call("POST", "/api/v1/file", {{"files", {hash}}});
  EXPECT_EQ(missing.body["files"], json::array());

  Answer wrong = this->call("PUT", "/api/v1/file/0000000000000000000000000000000000000000", {{"content", "aGVsbG8K"}});
  EXPECT_EQ(wrong.status, 400) << wrong.body;
  EXPECT_EQ(this->call("PUT", "/api/v1/file/" + hash, {{"content", "not base64!"}}).status, 400);
  EXPECT_EQ(this->call("GET", "/api/v1/file/0000000000000000000000000000000000000000").status, 404);
  EXPECT_EQ(this->call("POST", "/api/v1/file", json::object()).status, 400);

  const std::string other = "d0a0d4e2a1d4c1c1d0e0a41d5a02bf1b4e8d1c28";  // never uploaded
  Answer diff = this->call("POST", "/api/v1/filediff", {{"file_id_1", ""}, {"file_id_2", hash}});
  ASSERT_EQ(diff.status, 200) << diff.body;
  EXPECT_EQ(diff.body["diff"], json({"--- \n", "+++ " + hash + "\n", "@@ -0,0 +1 @@\n", "+hello\n"}));
  EXPECT_EQ(this->call("POST", "/api/v1/filediff", {{"file_id_1", hash}, {"file_id_2", other}}).status, 404);
}

TYPED_TEST(RoutesTest, VersionsPutReleaseListDelete) {
  std::string env = this->manualEnvironment();
  json resources = {this->file("/a"), this->file("/b", {"std::File[localhost,path=/a],v=0"})};
  std::int64_t v1 = this->put(env, resources);

  // the store action, the rows, the hash
  Answer got = this->call("GET", "/api/v1/version/" + std::to_string(v1) + "?include_logs=true", nullptr, env);
  ASSERT_EQ(got.status, 200) << got.body;
  EXPECT_EQ(got.body["model"]["released"], false);
  EXPECT_EQ(got.body["model"]["total"], 2);
  ASSERT_EQ(got.body["resources"].size(), 2u);
  EXPECT_EQ(got.body["resources"][0]["actions"][0]["action"], "store");
  EXPECT_EQ(got.body["resources"][0]["actions"][0]["messages"][0]["msg"],
            "Successfully stored version " + std::to_string(v1));
  EXPECT_EQ(got.body["resources"][0]["attribute_hash"].get<std::string>().size(), 32u);

  // errors of the put
  json body = {{"version", v1 + 100},
               {"resources", {this->file("/c", {"std::File[localhost,path=/nope],v=0"})}},
               {"module_version_info", json::object()}};
  Answer open = this->call("PUT", "/api/v1/version", body, env);
  EXPECT_EQ(open.status, 400);
  EXPECT_NE(open.body["message"].get<std::string>().find("closed"), std::string::npos) << open.body;
  body["resources"] = {this->file("/c"), this->file("/c")};
  EXPECT_EQ(this->call("PUT", "/api/v1/version", body, env).status, 400);
  body["resources"] = {{{"id", "not an id"}}};
  EXPECT_EQ(this->call("PUT", "/api/v1/version", body, env).status, 400);
  body.erase("version");
  EXPECT_EQ(this->call("PUT", "/api/v1/version", body, env).status, 400);
  EXPECT_EQ(this->call("PUT", "/api/v1/version", {{"version", 1}}, "").status, 400);  // no environment

  // release as the reference's client sends it: the id in the body too
  Answer released = this->server_->call("POST", "/api/v1/version/" + std::to_string(v1),
                                        {{"id", v1}, {"push", true}, {"agent_trigger_method", "push_full_deploy"}}, env,
                                        "application/x-www-form-urlencoded");
  ASSERT_EQ(released.status, 200) << released.body;
  EXPECT_EQ(released.body["model"]["released"], true);
  EXPECT_EQ(this->call("POST", "/api/v1/version/" + std::to_string(v1), json::object(), env).status, 409);
  Answer unknown = this->call("POST", "/api/v1/version/9999", json::object(), env);
  EXPECT_EQ(unknown.status, 404);
  EXPECT_EQ(unknown.body["message"], "The request version does not exist.");

  std::int64_t v2 = this->put(env, resources);
  Answer list = this->call("GET", "/api/v1/version?start=0&limit=1", nullptr, env);
  ASSERT_EQ(list.status, 200) << list.body;
  EXPECT_EQ(list.body["count"], 2);
  EXPECT_EQ(list.body["versions"].size(), 1u);
  Answer every = this->call("GET", "/api/v1/version?start=0&limit=0", nullptr, env);  // 0: no limit
  EXPECT_EQ(every.body["versions"].size(), 2u) << every.body;
  EXPECT_EQ(this->call("GET", "/api/v1/version?start=-1&limit=1", nullptr, env).status, 400);
  EXPECT_EQ(this->call("GET", "/api/v1/version?start=0", nullptr, env).status, 400);
  EXPECT_EQ(this->call("GET", "/api/v1/version?start=0&limit=1001", nullptr, env).status, 400);

  // the active version cannot go; a candidate can
  EXPECT_EQ(this->call("DELETE", "/api/v1/version/" + std::to_string(v1), nullptr, env).status, 400);
  EXPECT_EQ(this->call("DELETE", "/api/v1/version/" + std::to_string(v2), nullptr, env).status, 200);
  EXPECT_EQ(this->call("GET", "/api/v1/version/" + std::to_string(v2), nullptr, env).status, 404);
  EXPECT_EQ(this->call("DELETE", "/api/v1/version/9999", nullptr, env).status, 404);
}

TYPED_TEST(RoutesTest, AutoDeployReleasesAndPartialExports) {
  std::string env = this->server_->environment();  // auto_deploy is on by default
  json base = {this->file("/shared"), this->file("/s1"), this->file("/s2")};
  std::int64_t v1 =
      this->put(env, base,
                {{"resource_sets",
                  {{"std::File[localhost,path=/s1]", "set-1"}, {"std::File[localhost,path=/s2]", "set-2"}}}});
  Answer got = this->call("GET", "/api/v1/version/" + std::to_string(v1), nullptr, env);
  EXPECT_EQ(got.body["model"]["released"], true);

  // set-1 replaced by one new resource; set-2 and the shared one stay
  json partial = {{"resources", {this->file("/s1-new")}},
                  {"resource_sets", {{"std::File[localhost,path=/s1-new]", "set-1"}}},
                  {"module_version_info", json::object()}};
  Answer stored = this->call("PUT", "/api/v2/version/partial", partial, env);
  ASSERT_EQ(stored.status, 200) << stored.body;
  std::int64_t v2 = stored.body["data"].get<std::int64_t>();
  EXPECT_EQ(v2, v1 + 1);
  Answer resources = this->call("GET", "/api/v2/desiredstate/" + std::to_string(v2), nullptr, env);
  ASSERT_EQ(resources.status, 200) << resources.body;
  std::vector<std::string> ids;
  for (const json& item : resources.body["data"]) ids.push_back(item["resource_id"]);
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(ids, (std::vector<std::string>{"std::File[localhost,path=/s1-new]", "std::File[localhost,path=/s2]",
                                           "std::File[localhost,path=/shared]"}));
  // a shared resource changed by a partial export
  json changed = this->file("/shared");
  changed["permissions"] = 600;
  Answer refused = this->call("PUT", "/api/v1/version/partial",
                              {{"resources", {changed}}, {"module_version_info", json::object()}}, env);
  EXPECT_EQ(refused.status, 400) << refused.body;
  // resource_sets naming a resource not sent
  Answer stranger =
      this->call("PUT", "/api/v1/version/partial",
                 {{"resources", json::array()}, {"resource_sets", {{"std::File[localhost,path=/x]", "s"}}}}, env);
  EXPECT_EQ(stranger.status, 400) << stranger.body;
}

TYPED_TEST(RoutesTest, DesiredState) {
  std::string env = this->manualEnvironment();
  json v1Resources = {this->file("/a"), this->file("/b", {"std::File[localhost,path=/a],v=0"}, "other")};
  std::int64_t v1 = this->put(env, v1Resources);
  json changed = this->file("/a");
  changed["permissions"] = 600;
  changed["mode"] = {{"x", 1}};
  std::int64_t v2 = this->put(env, {changed, this->file("/c")});
  ASSERT_EQ(this->call("POST", "/api/v2/desiredstate/" + std::to_string(v1) + "/promote", json::object(), env).status,
            200);

  Answer list = this->call("GET", "/api/v2/desiredstate", nullptr, env);
  ASSERT_EQ(list.status, 200) << list.body;
  ASSERT_EQ(list.body["data"].size(), 2u);
  EXPECT_EQ(list.body["data"][0]["version"], v2);
  EXPECT_EQ(list.body["data"][0]["status"], "candidate");
  EXPECT_EQ(list.body["data"][1]["status"], "active");
  Answer filtered = this->call("GET", "/api/v2/desiredstate?filter.status=active", nullptr, env);
  EXPECT_EQ(filtered.body["data"].size(), 1u);
  Answer paged = this->call("GET", "/api/v2/desiredstate?limit=1", nullptr, env);
  EXPECT_EQ(paged.body["metadata"]["total"], 2);
  EXPECT_EQ(paged.body["metadata"]["after"], 1);
  EXPECT_TRUE(paged.body["links"].contains("next"));
  EXPECT_EQ(this->call("GET", "/api/v2/desiredstate?filter.status=bogus", nullptr, env).status, 400);
  EXPECT_EQ(this->call("GET", "/api/v2/desiredstate?sort=bogus.asc", nullptr, env).status, 400);
  // limit=0 is the whole list, as the reference answers it; above 1000 is refused
  Answer whole = this->call("GET", "/api/v2/desiredstate?limit=0", nullptr, env);
  ASSERT_EQ(whole.status, 200) << whole.body;
  EXPECT_EQ(whole.body["data"].size(), 2u);
  EXPECT_EQ(whole.body["metadata"]["page_size"], 0);
  EXPECT_FALSE(whole.body["links"].contains("next"));
  Answer tooMany = this->call("GET", "/api/v2/desiredstate?limit=1001", nullptr, env);
  EXPECT_EQ(tooMany.status, 400);
  EXPECT_EQ(tooMany.body["message"], "Invalid request: limit parameter can not exceed 1000, got 1001.");

  Answer version =
      this->call("GET", "/api/v2/desiredstate/" + std::to_string(v1) + "?filter.agent=other", nullptr, env);
  ASSERT_EQ(version.status, 200) << version.body;
  ASSERT_EQ(version.body["data"].size(), 1u);
  EXPECT_EQ(version.body["data"][0]["requires"], json({"std::File[localhost,path=/a]"}));
  EXPECT_EQ(this->call("GET", "/api/v2/desiredstate/9999", nullptr, env).status, 404);

  Answer one = this->call("GET",
                          "/api/v2/desiredstate/" + std::to_string(v1) + "/resource/" +
                              "std%3A%3AFile%5Blocalhost%2Cpath%3D%2Fa%5D",
                          nullptr, env);
  ASSERT_EQ(one.status, 200) << one.body;
  EXPECT_EQ(one.body["data"]["attributes"]["permissions"], 644);
  EXPECT_EQ(this->call("GET", "/api/v2/desiredstate/" + std::to_string(v1) + "/resource/std::File[x,path=/none]",
                       nullptr, env)
                .status,
            404);

  Answer diff =
      this->call("GET", "/api/v2/desiredstate/diff/" + std::to_string(v1) + "/" + std::to_string(v2), nullptr, env);
  ASSERT_EQ(diff.status, 200) << diff.body;
  // by resource id: [localhost,path=/a] modified, [localhost,path=/c] added, [other,path=/b] deleted
  ASSERT_EQ(diff.body["data"].size(), 3u);
  EXPECT_EQ(diff.body["data"][0]["status"], "modified");
  EXPECT_EQ(diff.body["data"][0]["attributes"]["permissions"]["from_value_compare"], "644");
  // dicts as Python's json.dumps(indent=4, sort_keys=True)
  EXPECT_EQ(diff.body["data"][0]["attributes"]["mode"]["to_value_compare"], "{\n    \"x\": 1\n}");
  EXPECT_EQ(diff.body["data"][1]["status"], "added");
  EXPECT_EQ(diff.body["data"][2]["status"], "deleted");
  EXPECT_EQ(this->call("GET", "/api/v2/desiredstate/diff/" + std::to_string(v2) + "/" + std::to_string(v1), nullptr,
                       env)
                .status,
            400);
}

TYPED_TEST(RoutesTest, ResourcesAndActions) {
  std::string env = this->manualEnvironment();
  EXPECT_EQ(this->call("GET", "/api/v2/resource", nullptr, env).body["data"], json::array());
  std::int64_t v1 = this->put(env, {this->file("/a"), this->file("/b", {"std::File[localhost,path=/a],v=0"}),
                                    this->file("/c", {}, "other")});
  EXPECT_EQ(this->call("POST", "/api/v1/version/" + std::to_string(v1), json::object(), env).status, 200);

  Answer list =
      this->call("GET", "/api/v2/resource?deploy_summary=true&sort=resource_id_value.asc&limit=2", nullptr, env);
  ASSERT_EQ(list.status, 200) << list.body;
  ASSERT_EQ(list.body["data"].size(), 2u);
  // the whole item, as the snapshot keeps it serialised
  EXPECT_EQ(list.body["data"][0], json({{"resource_id", "std::File[localhost,path=/a]"},
                                        {"resource_version_id", "std::File[localhost,path=/a],v=" + std::to_string(v1)},
                                        {"id_details",
                                         {{"resource_type", "std::File"},
                                          {"agent", "localhost"},
                                          {"attribute", "path"},
                                          {"resource_id_value", "/a"}}},
                                        {"requires", json::array()},
                                        {"status", "available"}}));
  EXPECT_EQ(list.body["data"][1]["requires"], json({"std::File[localhost,path=/a]"}));
  EXPECT_EQ(list.body["metadata"]["deploy_summary"]["total"], 3);
  EXPECT_EQ(list.body["metadata"]["deploy_summary"]["by_state"]["available"], 3);
  ASSERT_TRUE(list.body["links"].contains("next"));
  Answer next = this->call("GET", list.body["links"]["next"].get<std::string>(), nullptr, env);
  ASSERT_EQ(next.status, 200) << next.body;
  ASSERT_EQ(next.body["data"].size(), 1u);
  EXPECT_EQ(next.body["data"][0]["id_details"]["resource_id_value"], "/c");
  EXPECT_EQ(next.body["metadata"]["before"], 2);
  EXPECT_TRUE(next.body["links"].contains("prev"));

  // what the reference's inmanta-cli monitor asks: the summary with every resource
  Answer whole = this->call("GET", "/api/v2/resource?deploy_summary=true&limit=0", nullptr, env);
  ASSERT_EQ(whole.status, 200) << whole.body;
  EXPECT_EQ(whole.body["data"].size(), 3u);
  EXPECT_EQ(whole.body["metadata"]["total"], 3);
  EXPECT_EQ(whole.body["metadata"]["deploy_summary"]["total"], 3);
  EXPECT_EQ(this->call("GET", "/api/v2/resource?limit=1001", nullptr, env).status, 400);

  EXPECT_EQ(this->call("GET", "/api/v2/resource?filter.agent=other", nullptr, env).body["data"].size(), 1u);
  EXPECT_EQ(this->call("GET", "/api/v2/resource?filter.status=!available", nullptr, env).body["data"].size(), 0u);
  EXPECT_EQ(this->call("GET", "/api/v2/resource?filter.status=nope", nullptr, env).status, 400);
  EXPECT_EQ(this->call("GET", "/api/v2/resource?filter.bogus=x", nullptr, env).status, 400);
  EXPECT_EQ(this->call("GET", "/api/v2/resource?sort=size.asc", nullptr, env).status, 400);

  // a new released version with /a only: the list follows (the cache is invalidated), /b and /c
  // are orphans, left out of the deploy summary
  std::int64_t v2 = this->put(env, json::array({this->file("/a")}));
  EXPECT_EQ(this->call("POST", "/api/v1/version/" + std::to_string(v2), json::object(), env).status, 200);
  Answer after = this->call("GET", "/api/v2/resource?deploy_summary=true&filter.status=orphaned", nullptr, env);
  EXPECT_EQ(after.body["metadata"]["total"], 2) << after.body;
  EXPECT_EQ(after.body["metadata"]["deploy_summary"]["total"], 1) << after.body;

  const std::string rid = "std%3A%3AFile%5Blocalhost%2Cpath%3D%2Fa%5D";
  Answer one = this->call("GET", "/api/v2/resource/" + rid, nullptr, env);
  ASSERT_EQ(one.status, 200) << one.body;
  EXPECT_EQ(one.body["data"]["status"], "available");
  EXPECT_EQ(one.body["data"]["id_attribute"], "path");
  EXPECT_EQ(this->call("GET", "/api/v2/resource/std::Nope[x,y=z]", nullptr, env).status, 404);

  Answer history = this->call("GET", "/api/v2/resource/" + rid + "/history", nullptr, env);
  ASSERT_EQ(history.status, 200) << history.body;
  EXPECT_EQ(history.body["data"].size(), 1u);  // the same desired state in both versions

  Answer logs = this->call("GET", "/api/v2/resource/" + rid + "/logs", nullptr, env);
  ASSERT_EQ(logs.status, 200) << logs.body;
  ASSERT_EQ(logs.body["data"].size(), 2u);  // one store line per version
  EXPECT_EQ(logs.body["data"][0]["action"], "store");
  EXPECT_EQ(this->call("GET", "/api/v2/resource/" + rid + "/logs?filter.minimal_log_level=ERROR", nullptr, env)
                .body["data"]
                .size(),
            0u);

  Answer actions = this->call("GET", "/api/v2/resource_actions?resource_type=std::File&limit=1", nullptr, env);
  ASSERT_EQ(actions.status, 200) << actions.body;
  ASSERT_EQ(actions.body["data"].size(), 1u);
  EXPECT_EQ(actions.body["data"][0]["version"], v2);
  ASSERT_TRUE(actions.body["links"].contains("next"));
  Answer older = this->call("GET", actions.body["links"]["next"].get<std::string>(), nullptr, env);
  ASSERT_EQ(older.status, 200) << older.body;
  ASSERT_EQ(older.body["data"].size(), 1u);
  EXPECT_EQ(older.body["data"][0]["version"], v1);
  Answer newer = this->call("GET", older.body["links"]["prev"].get<std::string>(), nullptr, env);
  ASSERT_EQ(newer.body["data"].size(), 1u);
  EXPECT_EQ(newer.body["data"][0]["version"], v2);
  EXPECT_EQ(
      this->call("GET", "/api/v2/resource_actions?attribute=path&attribute_value=/c", nullptr, env).body["data"].size(),
      1u);
  EXPECT_EQ(this->call("GET", "/api/v2/resource_actions?log_severity=info", nullptr, env).body["data"].size(), 2u);
  EXPECT_EQ(this->call("GET", "/api/v2/resource_actions?log_severity=error", nullptr, env).body["data"].size(), 0u);
  // store actions have no change: excluding any change leaves them out, as the reference's NOT IN
  EXPECT_EQ(this->call("GET", "/api/v2/resource_actions?exclude_changes=nochange", nullptr, env).body["data"].size(),
            0u);
  EXPECT_EQ(this->call("GET", "/api/v2/resource_actions?attribute=path", nullptr, env).status, 400);
  EXPECT_EQ(this->call("GET", "/api/v2/resource_actions?limit=1001", nullptr, env).status, 400);
  EXPECT_EQ(this->call("GET", "/api/v2/resource_actions?action_id=" + store::newUuid(), nullptr, env).status, 400);
  EXPECT_EQ(this->call("GET", "/api/v2/resource_actions?first_timestamp=yesterday&action_id=" + store::newUuid(),
                       nullptr, env)
                .status,
            400);
}

// GET /api/v1/resource/<rvid>, the reference's get_resource (inmanta-cli action-log).
TYPED_TEST(RoutesTest, ResourceOfOneVersion) {
  std::string env = this->manualEnvironment();
  std::int64_t v1 = this->put(env, {this->file("/a"), this->file("/b")});
  json changed = this->file("/a");
  changed["permissions"] = 600;
  std::int64_t v2 = this->put(env, json::array({changed}));
  const std::string rid = "std::File[localhost,path=/a]";
  auto path = [&](std::int64_t version, const std::string& query = "") {
    return "/api/v1/resource/" + percentEncode(rid + ",v=" + std::to_string(version)) + query;
  };

  // without logs: the resource of that version and no actions
  Answer plain = this->call("GET", path(v1), nullptr, env);
  ASSERT_EQ(plain.status, 200) << plain.body;
  EXPECT_EQ(plain.body["resource"]["resource_id"], rid);
  EXPECT_EQ(plain.body["resource"]["environment"], env);
  EXPECT_EQ(plain.body["resource"]["attributes"]["permissions"], 644);
  EXPECT_EQ(plain.body["logs"], json::array());
  EXPECT_EQ(this->call("GET", path(v2), nullptr, env).body["resource"]["attributes"]["permissions"], 600);

  // with logs: the actions on that version only, newest first
  store::Store& store = this->server_->store();
  store::ResourceAction deploy;
  deploy.environment = env;
  deploy.version = v1;
  deploy.resource_version_ids = {rid + ",v=" + std::to_string(v1)};
  deploy.action = "deploy";
  deploy.started = store::now();
  deploy.messages = json::array({{{"level", "INFO"},
                                  {"msg", "deployed"},
                                  {"args", json::array()},
                                  {"kwargs", json::object()},
                                  {"timestamp", store::formatTimestamp(deploy.started)}}});
  std::string deployId = store.insertResourceAction(deploy);
  Answer logs = this->call("GET", path(v1, "?logs=true"), nullptr, env);
  ASSERT_EQ(logs.status, 200) << logs.body;
  ASSERT_EQ(logs.body["logs"].size(), 2u);
  EXPECT_EQ(logs.body["logs"][0]["action_id"], deployId);
  EXPECT_EQ(logs.body["logs"][0]["messages"][0]["msg"], "deployed");
  EXPECT_EQ(logs.body["logs"][1]["action"], "store");
  EXPECT_EQ(logs.body["logs"][1]["version"], v1);
  Answer stores = this->call("GET", path(v1, "?logs=true&log_action=store"), nullptr, env);
  ASSERT_EQ(stores.body["logs"].size(), 1u);
  EXPECT_EQ(stores.body["logs"][0]["action"], "store");
  EXPECT_EQ(this->call("GET", path(v1, "?logs=true&log_limit=1"), nullptr, env).body["logs"].size(), 1u);
  EXPECT_EQ(this->call("GET", path(v1, "?logs=true&log_limit=0"), nullptr, env).body["logs"].size(), 2u);
  EXPECT_EQ(this->call("GET", path(v2, "?logs=true"), nullptr, env).body["logs"].size(), 1u);

  // errors, with the reference's bare messages
  Answer bad = this->call("GET", "/api/v1/resource/" + percentEncode(rid), nullptr, env);
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(bad.body["message"], rid + " is not a valid resource version id");
  Answer missing = this->call("GET", path(9999), nullptr, env);
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(missing.body["message"], "The resource with the given id does not exist in the given environment");
  EXPECT_EQ(this->call("GET", path(v2).replace(path(v2).find("/a"), 2, "/b"), nullptr, env).status, 404);
  EXPECT_EQ(this->call("GET", path(v1, "?logs=true&log_action=fly"), nullptr, env).status, 400);
  EXPECT_EQ(this->call("GET", path(v1, "?status=true"), nullptr, env).status, 400);  // gone from the reference
  EXPECT_EQ(this->call("GET", path(v1), nullptr, "").status, 400);                   // no environment
}

TYPED_TEST(RoutesTest, DryRuns) {
  std::string env = this->manualEnvironment();
  std::int64_t v1 = this->put(env, {this->file("/a"), this->file("/b")});
  Answer created = this->call("POST", "/api/v2/dryrun/" + std::to_string(v1), json::object(), env);
  ASSERT_EQ(created.status, 200) << created.body;
  std::string id = created.body["data"];
  Answer list = this->call("GET", "/api/v2/dryrun/" + std::to_string(v1), nullptr, env);
  ASSERT_EQ(list.body["data"].size(), 1u);
  EXPECT_EQ(list.body["data"][0]["total"], 2);
  EXPECT_EQ(list.body["data"][0]["todo"], 2);
  EXPECT_EQ(this->call("GET", "/api/v2/dryrun/" + std::to_string(v1) + "/" + id, nullptr, env).status, 200);
  Answer v1List = this->call("GET", "/api/v1/dryrun", nullptr, env);
  EXPECT_EQ(v1List.body["dryruns"].size(), 1u);
  Answer v1Get = this->call("GET", "/api/v1/dryrun/" + id, nullptr, env);
  ASSERT_EQ(v1Get.status, 200) << v1Get.body;
  EXPECT_EQ(v1Get.body["dryrun"]["model"], v1);
  Answer v1Created = this->call("POST", "/api/v1/dryrun/" + std::to_string(v1), json::object(), env);
  EXPECT_EQ(v1Created.status, 200) << v1Created.body;

  EXPECT_EQ(this->call("POST", "/api/v2/dryrun/9999", json::object(), env).status, 404);
  EXPECT_EQ(this->call("GET", "/api/v1/dryrun/" + store::newUuid(), nullptr, env).status, 404);
  EXPECT_EQ(this->call("GET", "/api/v1/dryrun/not-a-uuid", nullptr, env).status, 400);
  EXPECT_EQ(this->call("POST", "/api/v2/actions/environment/halt", json::object(), env).status, 200);
  EXPECT_EQ(this->call("POST", "/api/v2/dryrun/" + std::to_string(v1), json::object(), env).status, 409);
}

TYPED_TEST(RoutesTest, AgentsAndDeploy) {
  std::string env = this->manualEnvironment();
  Answer none = this->call("POST", "/api/v1/deploy", json::object(), env);
  EXPECT_EQ(none.status, 404) << none.body;
  std::int64_t v1 = this->put(env, {this->file("/a"), this->file("/b", {}, "other")});
  ASSERT_EQ(this->call("POST", "/api/v1/version/" + std::to_string(v1), json::object(), env).status, 200);

  Answer agents = this->call("GET", "/api/v2/agents", nullptr, env);
  ASSERT_EQ(agents.status, 200) << agents.body;
  ASSERT_EQ(agents.body["data"].size(), 2u);
  EXPECT_EQ(agents.body["data"][0]["name"], "localhost");
  EXPECT_EQ(agents.body["data"][0]["status"], "down");
  EXPECT_EQ(this->call("GET", "/api/v2/agents?filter.name=oth", nullptr, env).body["data"].size(), 1u);
  // no agent process runs before the scheduler (issue 31): no process name matches
  EXPECT_EQ(this->call("GET", "/api/v2/agents?filter.process_name=x", nullptr, env).body["data"].size(), 0u);

  EXPECT_EQ(this->call("POST", "/api/v2/agent/localhost/pause", json::object(), env).status, 200);
  Answer v1List = this->call("GET", "/api/v1/agent", nullptr, env);
  ASSERT_EQ(v1List.status, 200);
  EXPECT_EQ(v1List.body["agents"][0]["state"], "paused");
  EXPECT_EQ(this->call("POST", "/api/v2/agent/nobody/pause", json::object(), env).status, 404);
  EXPECT_EQ(this->call("POST", "/api/v2/agent/%24__scheduler/pause", json::object(), env).status, 400);
  EXPECT_EQ(this->call("POST", "/api/v2/agent/localhost/dance", json::object(), env).status, 400);
  EXPECT_EQ(this->call("POST", "/api/v2/agents/unpause", json::object(), env).status, 200);
  EXPECT_EQ(this->call("POST", "/api/v2/agents/keep_paused_on_resume", json::object(), env).status, 403);

  Answer deploy = this->call("POST", "/api/v1/deploy", {{"agents", {"other", "ghost"}}}, env);
  ASSERT_EQ(deploy.status, 200) << deploy.body;
  EXPECT_EQ(deploy.body["agents"], json({"other"}));
  EXPECT_TRUE(deploy.body.contains("metadata"));
  Answer all = this->call("POST", "/api/v1/deploy", {{"agent_trigger_method", "push_incremental_deploy"}}, env);
  EXPECT_EQ(all.body["agents"], json({"localhost", "other"}));
  EXPECT_EQ(this->call("POST", "/api/v1/deploy", {{"agent_trigger_method", "sideways"}}, env).status, 400);

  EXPECT_EQ(this->call("POST", "/api/v2/actions/environment/halt", json::object(), env).status, 200);
  EXPECT_EQ(this->call("POST", "/api/v2/agent/localhost/unpause", json::object(), env).status, 403);
  EXPECT_EQ(this->call("POST", "/api/v2/agent/localhost/keep_paused_on_resume", json::object(), env).status, 200);
}

TYPED_TEST(RoutesTest, ParametersAndFacts) {
  std::string env = this->server_->environment();
  Answer set = this->call("PUT", "/api/v1/parameter/color",
                          {{"value", "blue"}, {"source", "user"}, {"metadata", {{"k", "v"}}}}, env);
  ASSERT_EQ(set.status, 200) << set.body;
  EXPECT_EQ(set.body["parameter"]["value"], "blue");
  EXPECT_EQ(set.body["parameter"]["name"], "color");
  Answer got = this->call("GET", "/api/v1/parameter/color", nullptr, env);
  ASSERT_EQ(got.status, 200) << got.body;
  EXPECT_EQ(got.body["parameter"]["source"], "user");
  EXPECT_EQ(this->call("GET", "/api/v1/parameter/nothing", nullptr, env).status, 404);
  EXPECT_EQ(this->call("PUT", "/api/v1/parameter/x", {{"value", "1"}, {"source", "martians"}}, env).status, 400);

  const std::string rid = "std::File[localhost,path=/a]";
  Answer fact =
      this->call("PUT", "/api/v1/parameter/size", {{"value", 12}, {"source", "fact"}, {"resource_id", rid}}, env);
  ASSERT_EQ(fact.status, 200) << fact.body;
  Answer batch = this->call("PUT", "/api/v1/parameters",
                            {{"parameters",
                              {{{"id", "a"}, {"value", "1"}, {"source", "plugin"}},
                               {{"id", "b"}, {"value", "2"}, {"source", "plugin"}, {"metadata", {{"k", "v"}}}}}}},
                            env);
  EXPECT_EQ(batch.status, 200) << batch.body;
  Answer listed = this->call("POST", "/api/v1/parameter", {{"query", {{"k", "v"}}}}, env);
  ASSERT_EQ(listed.status, 200) << listed.body;
  EXPECT_EQ(listed.body["parameters"].size(), 2u);  // color and b
  Answer facts = this->call("GET", "/api/v2/facts", nullptr, env);
  ASSERT_EQ(facts.status, 200) << facts.body;
  EXPECT_EQ(facts.body["data"].size(), 1u);
  Answer ofResource =
      this->call("GET", "/api/v2/resource/std%3A%3AFile%5Blocalhost%2Cpath%3D%2Fa%5D/facts", nullptr, env);
  ASSERT_EQ(ofResource.status, 200) << ofResource.body;
  EXPECT_EQ(ofResource.body["data"][0]["name"], "size");

  EXPECT_EQ(this->call("DELETE", "/api/v1/parameter/color", nullptr, env).status, 200);
  EXPECT_EQ(this->call("DELETE", "/api/v1/parameter/color", nullptr, env).status, 404);
}

}  // namespace
}  // namespace inmanta::server::testing
