// One typed suite over both engines: every case runs on SQLite (a file in a temporary folder) and
// on PostgreSQL (a fresh database on the server of the `postgresql` ctest fixture).
#include <libpq-fe.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "embedded/store/database.h"
#include "embedded/store/sqlite_store.h"
#include "embedded/store/store.h"
#include "embedded/store/test_engines.h"
#include "embedded/store/upload_log.h"

namespace inmanta::store {
namespace {

using nlohmann::json;

using test_engines::PostgresEngine;
using test_engines::SqliteEngine;

template <class E>
class StoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!test_engines::ready(engine_)) return;
    store_ = Store::open(engine_.config());
  }

  std::string environment(const std::string& name = "dev") {
    auto project = store_->createProject("p-" + name + "-" + newUuid());
    return store_->createEnvironment({std::nullopt, project.id, name, "", "", "", ""}).id;
  }

  // A forked process opens the store as the one server, runs `work` and is killed with SIGKILL
  // once `work` returned, its store still open; then this one opens the store again (store_ stays
  // empty when that fails).
  void killedAfter(const std::function<void(Store&)>& work) {
    store_.reset();
    int ack[2];
    ASSERT_EQ(pipe(ack), 0);
    pid_t child = fork();
    if (child == 0) {
      close(ack[0]);
      auto store = Store::open(engine_.config());
      work(*store);
      char byte = 'k';
      if (write(ack[1], &byte, 1) != 1) _exit(3);
      for (;;) pause();  // killed here
    }
    close(ack[1]);
    char byte = 0;
    ASSERT_EQ(read(ack[0], &byte, 1), 1);
    close(ack[0]);
    kill(child, SIGKILL);
    int status = 0;
    waitpid(child, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status));
    store_ = Store::open(engine_.config());
  }

  // A journal record that inserts the action `action` (a fresh id, started now) of one resource.
  static JournalWrite insertRecord(const std::string& env, std::int64_t version, const std::string& action,
                                   const std::string& rvid) {
    JournalWrite w;
    w.kind = JournalWrite::Kind::insertAction;
    w.action.action_id = newTimeOrderedUuid();
    w.action.environment = env;
    w.action.version = version;
    w.action.action = action;
    w.action.started = now();
    w.action.resource_version_ids = {rvid};
    return w;
  }

  static Resource resource(const std::string& path, const std::string& agent = "localhost",
                           std::vector<std::string> requires_ = {}) {
    Resource r;
    r.resource_id = "std::File[" + agent + ",path=" + path + "]";
    r.resource_type = "std::File";
    r.agent = agent;
    r.id_attribute = "path";
    r.resource_id_value = path;
    r.attributes = {{"path", path}, {"requires", requires_}};
    r.attribute_hash = "hash-" + path;
    return r;
  }

  // A deploy action (started now) of the resource version ids `rvids`; returns its id. One id of
  // the action's own version makes it a run, which names its resource in its own row (migration
  // 005); other actions have rows of resource_action_resource.
  std::string insertDeploy(const std::string& env, std::int64_t version, std::vector<std::string> rvids) {
    ResourceAction action;
    action.environment = env;
    action.version = version;
    action.action = "deploy";
    action.started = now();
    action.resource_version_ids = std::move(rvids);
    return store_->insertResourceAction(action);
  }

  // The environment's rows of `table`, which no Store call shows (the rows a delete must take).
  std::int64_t rowsOf(const std::string& table, const std::string& env) {
    return engine_.rawCount("SELECT COUNT(*) FROM " + table + " WHERE environment = '" + env + "'");
  }

  static std::string versioned(const Resource& resource, std::int64_t version) {
    return resource.resource_id + ",v=" + std::to_string(version);
  }

  std::int64_t put(const std::string& env, std::vector<Resource> resources, std::int64_t version = -1) {
    NewVersion v;
    v.environment = env;
    v.version = version >= 0 ? version : store_->reserveVersion(env);
    v.resources = std::move(resources);
    return store_->putVersion(v);
  }

  E engine_;
  std::unique_ptr<Store> store_;
};

TYPED_TEST_SUITE(StoreTest, test_engines::Engines, test_engines::EngineNames);

TYPED_TEST(StoreTest, Projects) {
  Store& s = *this->store_;
  auto b = s.createProject("b");
  auto a = s.createProject("a", "0f3e1c4a-1111-4222-8333-444455556666");
  EXPECT_EQ(a.id, "0f3e1c4a-1111-4222-8333-444455556666");
  EXPECT_THROW(s.createProject("a"), Conflict);
  EXPECT_THROW(s.createProject("c", a.id), Conflict);
  auto all = s.listProjects();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].name, "a");
  EXPECT_EQ(s.renameProject(b.id, "c").name, "c");
  EXPECT_THROW(s.renameProject(b.id, "a"), Conflict);
  EXPECT_THROW(s.getProject(newUuid()), NotFound);
  s.createEnvironment({std::nullopt, a.id, "env", "", "", "", ""});
  EXPECT_EQ(s.getProject(a.id).environment_ids.size(), 1u);
  try {
    s.deleteProject(a.id);
    FAIL() << "deleted a project with environments";
  } catch (const Conflict& e) {
    EXPECT_NE(std::string(e.what()).find("still contains some environments: env"), std::string::npos);
  }
  s.deleteProject(b.id);
  EXPECT_THROW(s.getProject(b.id), NotFound);
  EXPECT_THROW(s.deleteProject(b.id), NotFound);
}

TYPED_TEST(StoreTest, Environments) {
  Store& s = *this->store_;
  auto p = s.createProject("p");
  auto q = s.createProject("q");
  EXPECT_THROW(s.createEnvironment({std::nullopt, newUuid(), "x", "", "", "", ""}), NotFound);
  auto e = s.createEnvironment({std::nullopt, p.id, "dev", "git://r", "main", "desc", ""});
  EXPECT_EQ(e.repo_url, "git://r");
  EXPECT_FALSE(e.halted);
  EXPECT_THROW(s.createEnvironment({std::nullopt, p.id, "dev", "", "", "", ""}), Conflict);
  auto f = s.createEnvironment({std::nullopt, p.id, "acc", "", "", "", ""});
  auto envs = s.listEnvironments();
  ASSERT_EQ(envs.size(), 2u);
  EXPECT_EQ(envs[0].name, "acc");
  EnvironmentUpdate rename;
  rename.name = "acc";
  EXPECT_THROW(s.updateEnvironment(e.id, rename), Conflict);
  EnvironmentUpdate move;
  move.project_id = q.id;
  move.description = "moved";
  auto moved = s.updateEnvironment(e.id, move);
  EXPECT_EQ(moved.project_id, q.id);
  EXPECT_EQ(moved.description, "moved");
  EXPECT_EQ(moved.repo_branch, "main");
  EnvironmentUpdate nowhere;
  nowhere.project_id = newUuid();
  EXPECT_THROW(s.updateEnvironment(e.id, nowhere), NotFound);
  s.setMarkedForDeletion(f.id, true);
  EXPECT_TRUE(s.getEnvironment(f.id).is_marked_for_deletion);
  s.deleteEnvironment(f.id);
  EXPECT_THROW(s.getEnvironment(f.id), NotFound);
  EXPECT_THROW(s.deleteEnvironment(f.id), NotFound);
}

TYPED_TEST(StoreTest, Settings) {
  Store& s = *this->store_;
  auto env = this->environment();
  s.setSetting(env, "auto_deploy", {false, false, ""});
  s.setSetting(env, "autostart_agent_map", {{{"internal", "local:"}}, false, ""});
  auto settings = s.getSettings(env);
  EXPECT_EQ(settings.at("auto_deploy").value, json(false));
  EXPECT_EQ(settings.at("autostart_agent_map").value["internal"], "local:");
  EXPECT_TRUE(s.deleteSetting(env, "auto_deploy"));
  EXPECT_FALSE(s.deleteSetting(env, "auto_deploy"));
  s.setProtectedSettings(env, {{"a", 1}, {"b", 2}}, "project.yml");
  s.setProtectedSettings(env, {{"a", 3}}, "project.yml");
  settings = s.getSettings(env);
  EXPECT_TRUE(settings.at("a").is_protected);
  EXPECT_EQ(settings.at("a").value, 3);
  EXPECT_EQ(settings.at("a").protected_by, "project.yml");
  EXPECT_FALSE(settings.at("b").is_protected);
  EXPECT_EQ(settings.at("b").value, 2);
  EXPECT_EQ(s.getEnvironment(env).settings.size(), 3u);
  EXPECT_THROW(s.getSettings(newUuid()), NotFound);
}

TYPED_TEST(StoreTest, Files) {
  Store& s = *this->store_;
  std::string bytes("a\0b\xff\x01", 5);
  s.putFile("aaaa", bytes);
  s.putFile("aaaa", bytes);
  EXPECT_TRUE(s.hasFile("aaaa"));
  EXPECT_FALSE(s.hasFile("bbbb"));
  EXPECT_EQ(s.getFile("aaaa"), bytes);
  EXPECT_EQ(s.getFile("bbbb"), std::nullopt);
  EXPECT_EQ(s.missingFiles({"bbbb", "aaaa", "cccc"}), (std::vector<std::string>{"bbbb", "cccc"}));
}

// The store keeps recent contents in memory (32 MiB, none over 1 MiB): the ones it let go of, and
// one too large to keep, read back from the database.
TYPED_TEST(StoreTest, FilesPastWhatIsKeptInMemoryReadBackFromTheDatabase) {
  Store& s = *this->store_;
  auto contentOf = [](int n) {
    return std::string(std::size_t{1} << 20, static_cast<char>('a' + n % 26)) + std::to_string(n);
  };
  std::vector<std::string> hashes;
  for (int n = 0; n < 40; ++n) {
    hashes.push_back("big-" + std::to_string(n));
    s.putFile(hashes.back(), contentOf(n));
  }
  const std::string huge(std::size_t{3} << 20, 'h');
  s.putFile("huge", huge);
  for (int n = 0; n < 40; ++n) {
    EXPECT_TRUE(s.hasFile(hashes[n]));
    EXPECT_EQ(s.getFile(hashes[n]), contentOf(n)) << n;
  }
  EXPECT_EQ(s.getFile("huge"), huge);
  hashes.push_back("unknown");
  EXPECT_EQ(s.missingFiles(hashes), std::vector<std::string>{"unknown"});
  EXPECT_EQ(s.getFile("unknown"), std::nullopt);
}

// Files put from several threads at once (an export's parallel uploads) are all stored.
TYPED_TEST(StoreTest, FilesPutAtTheSameTimeAreAllStored) {
  Store& s = *this->store_;
  std::vector<std::thread> uploaders;
  for (int t = 0; t < 8; ++t)
    uploaders.emplace_back([&s, t] {
      for (int n = 0; n < 100; ++n)
        s.putFile("f-" + std::to_string(t) + "-" + std::to_string(n), std::to_string(t * n));
    });
  for (auto& uploader : uploaders) uploader.join();
  // read back by a store opened again: from the database, not from what the first kept in memory
  this->store_.reset();
  this->store_ = Store::open(this->engine_.config());
  Store& again = *this->store_;
  std::vector<std::string> hashes;
  for (int t = 0; t < 8; ++t)
    for (int n = 0; n < 100; ++n) {
      hashes.push_back("f-" + std::to_string(t) + "-" + std::to_string(n));
      ASSERT_EQ(again.getFile(hashes.back()), std::to_string(t * n)) << hashes.back();
    }
  EXPECT_TRUE(again.missingFiles(hashes).empty());
  // unknown ones among them, in chunks of the query and past them, come back in the order asked
  hashes.insert(hashes.begin() + 700, "unknown-3");
  hashes.insert(hashes.begin() + 256, "unknown-2");
  hashes.insert(hashes.begin(), "unknown-1");
  hashes.push_back("unknown-4");
  EXPECT_EQ(again.missingFiles(hashes), (std::vector<std::string>{"unknown-1", "unknown-2", "unknown-3", "unknown-4"}));
}

TYPED_TEST(StoreTest, AVersionKeepsItsModuleCode) {
  Store& s = *this->store_;
  auto env = this->environment();
  NewVersion v;
  v.environment = env;
  v.version = s.reserveVersion(env);
  v.module_version_info = {
      {"runner",
       {{"name", "runner"},
        {"version", "v1"},
        {"files_in_module", {{{"name", "inmanta_plugins.runner"}, {"hash_value", "aaaa"}, {"is_byte_code", false}}}},
        {"for_agents", {"internal"}}}}};
  s.putVersion(v);
  EXPECT_EQ(s.moduleCode(env, v.version), v.module_version_info);
  NewVersion without;
  without.environment = env;
  without.version = s.reserveVersion(env);
  s.putVersion(without);
  EXPECT_TRUE(s.moduleCode(env, without.version).is_null());
  EXPECT_THROW(s.moduleCode(env, 99), NotFound);
  EXPECT_THROW(s.moduleCode(newUuid(), v.version), NotFound);
}

TYPED_TEST(StoreTest, PutAndReleaseVersions) {
  Store& s = *this->store_;
  auto env = this->environment();
  EXPECT_EQ(s.reserveVersion(env), 1);
  EXPECT_EQ(s.reserveVersion(env), 2);
  EXPECT_THROW(s.reserveVersion(newUuid()), NotFound);
  NewVersion v;
  v.environment = env;
  v.version = 3;
  EXPECT_THROW(s.putVersion(v), Invalid);  // not reserved
  v.version = -1;
  EXPECT_THROW(s.putVersion(v), Invalid);
  v.version = 1;
  auto a = TestFixture::resource("/a");
  auto b = TestFixture::resource("/b", "other", {a.resource_id});
  b.is_undefined = true;
  b.resource_set = "set1";
  v.resources = {a, b};
  v.unknowns = {{"param", "fact", b.resource_id, {{"k", "v"}}}};
  v.undeployable = {b.resource_id};
  v.version_info = {{"export_metadata", {{"type", "api"}}}};
  EXPECT_EQ(s.putVersion(v), 1);
  EXPECT_THROW(s.putVersion(v), Conflict);

  auto stored = s.getVersion(env, 1);
  EXPECT_EQ(stored.total, 2);
  EXPECT_FALSE(stored.released);
  EXPECT_EQ(stored.undeployable, std::vector<std::string>{b.resource_id});
  EXPECT_EQ(stored.version_info["export_metadata"]["type"], "api");
  auto resources = s.versionResources(env, 1);
  ASSERT_EQ(resources.size(), 2u);
  EXPECT_EQ(resources[1].resource_set, "set1");
  EXPECT_TRUE(resources[1].is_undefined);
  EXPECT_EQ(resources[1].attributes["requires"][0], a.resource_id);
  EXPECT_EQ(s.getResource(env, 1, a.resource_id)->attribute_hash, "hash-/a");
  EXPECT_EQ(s.getResource(env, 1, "std::File[x,path=/none]"), std::nullopt);
  ASSERT_EQ(s.versionUnknowns(env, 1).size(), 1u);
  EXPECT_EQ(s.versionUnknowns(env, 1)[0].metadata["k"], "v");
  auto agents = s.listAgents(env);
  ASSERT_EQ(agents.size(), 2u);
  EXPECT_EQ(agents[0].name, "localhost");

  auto store_actions = s.queryResourceActions(env, {});
  ASSERT_EQ(store_actions.size(), 1u);
  EXPECT_EQ(store_actions[0].action, "store");
  EXPECT_EQ(store_actions[0].messages[0]["msg"], "Successfully stored version 1");
  EXPECT_EQ(store_actions[0].resource_version_ids.size(), 2u);

  // partial exports take the next number themselves
  NewVersion partial;
  partial.environment = env;
  partial.version = 0;
  partial.partial_base = 1;
  partial.resources = {a};
  EXPECT_EQ(s.putVersion(partial), 3);
  EXPECT_EQ(s.getVersion(env, 3).partial_base, 1);

  EXPECT_THROW(s.releaseVersion(env, 9), NotFound);
  EXPECT_EQ(s.latestReleasedVersion(env), std::nullopt);
  EXPECT_TRUE(s.releaseVersion(env, 1).released);
  EXPECT_THROW(s.releaseVersion(env, 1), Conflict);
  auto state = s.getResourceState(env, a.resource_id);
  ASSERT_TRUE(state);
  EXPECT_EQ(state->last_handler_run, "NEW");
  EXPECT_EQ(state->last_non_deploying_status, "available");
  EXPECT_EQ(state->current_intent_attribute_hash, "hash-/a");
  EXPECT_EQ(s.getResourceState(env, b.resource_id)->blocked, "BLOCKED");
  EXPECT_EQ(s.latestReleasedVersion(env), 1);
  s.releaseVersion(env, 3);
  EXPECT_EQ(s.getResourceState(env, b.resource_id)->orphaned_after, 1);
  EXPECT_EQ(s.getResourceState(env, a.resource_id)->orphaned_after, std::nullopt);
  EXPECT_EQ(s.latestVersion(env), 3);

  // a version older than the newest released one can no longer be released
  this->put(env, {a}, 2);
  EXPECT_THROW(s.releaseVersion(env, 2), Conflict);

  auto page = s.listVersions(env, 0, 2);
  EXPECT_EQ(page.count, 3);
  ASSERT_EQ(page.versions.size(), 2u);
  EXPECT_EQ(page.versions[0].version, 3);
  EXPECT_EQ(s.listVersions(env, 2, 10).versions.at(0).version, 1);

  // a release writes the intent of the rows that differ (b back, defined now: no longer orphaned
  // nor blocked; a with a new hash) and leaves the rows that already say it as they are
  ResourceState ran = *s.getResourceState(env, a.resource_id);
  ran.last_handler_run = "SUCCESSFUL";
  ran.last_non_deploying_status = "deployed";
  s.saveResourceStates(env, {ran});
  Resource back = b;
  back.is_undefined = false;
  Resource changed = a;
  changed.attribute_hash = "hash-/a-2";
  s.releaseVersion(env, this->put(env, {changed, back}));
  ResourceState backState = *s.getResourceState(env, b.resource_id);
  EXPECT_EQ(backState.orphaned_after, std::nullopt);
  EXPECT_EQ(backState.blocked, "NOT_BLOCKED");
  EXPECT_FALSE(backState.is_undefined);
  EXPECT_EQ(s.getResourceState(env, a.resource_id)->current_intent_attribute_hash, "hash-/a-2");
  EXPECT_EQ(s.getResourceState(env, a.resource_id)->last_non_deploying_status, "deployed");
  s.releaseVersion(env, this->put(env, {changed, back}));
  EXPECT_EQ(s.getResourceState(env, a.resource_id)->current_intent_attribute_hash, "hash-/a-2");
  EXPECT_EQ(s.getResourceState(env, a.resource_id)->last_handler_run, "SUCCESSFUL");
  EXPECT_EQ(s.getResourceState(env, b.resource_id)->blocked, "NOT_BLOCKED");
}

TYPED_TEST(StoreTest, DeleteVersionCascades) {
  Store& s = *this->store_;
  auto env = this->environment();
  auto a = TestFixture::resource("/a");
  auto b = TestFixture::resource("/b");
  auto c = TestFixture::resource("/c");
  auto v1 = this->put(env, {a, b, c});
  s.releaseVersion(env, v1);
  auto v2 = this->put(env, {a});
  s.releaseVersion(env, v2);
  auto v3 = this->put(env, {a, c});  // not released
  s.createDryRun(env, v1, 2);
  EXPECT_THROW(s.deleteVersion(env, v2), Invalid);
  EXPECT_THROW(s.deleteVersion(env, 42), NotFound);
  s.deleteVersion(env, v1);
  EXPECT_THROW(s.getVersion(env, v1), NotFound);
  EXPECT_TRUE(s.listDryRuns(env).empty());
  EXPECT_EQ(s.getResourceState(env, b.resource_id), std::nullopt);  // in no version any more
  EXPECT_TRUE(s.getResourceState(env, a.resource_id));
  EXPECT_TRUE(s.getResourceState(env, c.resource_id));  // still in v3
  s.deleteVersion(env, v3);
  EXPECT_EQ(s.getResourceState(env, c.resource_id), std::nullopt);
  EXPECT_TRUE(s.getResourceState(env, a.resource_id));  // in v2
  ActionQuery q;
  q.version = v1;
  EXPECT_TRUE(s.queryResourceActions(env, q).empty());
}

TYPED_TEST(StoreTest, DecommissionAndDeleteEnvironment) {
  Store& s = *this->store_;
  auto env = this->environment();
  s.setSetting(env, "auto_deploy", {true, false, ""});
  auto v = this->put(env, {TestFixture::resource("/a")});
  s.releaseVersion(env, v);
  s.setParameter({env, "p", "1", "user", "", json::object(), {}});
  s.setLastProcessedVersion(env, v);
  s.createDryRun(env, v, 1);
  s.decommissionEnvironment(env);
  EXPECT_EQ(s.latestVersion(env), std::nullopt);
  EXPECT_TRUE(s.resourceStates(env).empty());
  EXPECT_TRUE(s.listAgents(env).empty());
  EXPECT_TRUE(s.listParameters(env).empty());
  EXPECT_TRUE(s.listDryRuns(env).empty());
  EXPECT_TRUE(s.queryResourceActions(env, {}).empty());
  EXPECT_EQ(s.lastProcessedVersion(env), std::nullopt);
  EXPECT_EQ(s.getSettings(env).size(), 1u);
  EXPECT_EQ(s.reserveVersion(env), v + 1);  // the counter survives

  auto w = this->put(env, {TestFixture::resource("/b")});
  s.releaseVersion(env, w);
  s.deleteEnvironment(env);
  EXPECT_THROW(s.getVersion(env, w), NotFound);
  EXPECT_THROW(s.resourceStates(env), NotFound);
}

// The rows of one per resource (resource, resource_action_resource) have no foreign key since
// migration 002: every way of deleting their parents takes them too.
TYPED_TEST(StoreTest, DeletingLeavesNoResourceRowsBehind) {
  Store& s = *this->store_;
  auto rows = [this](const std::string& table, const std::string& env) { return this->rowsOf(table, env); };
  auto deploy = [this](const std::string& env, std::int64_t version) {
    // two resources: the action's resources are rows of resource_action_resource
    this->insertDeploy(env, version,
                       {TestFixture::versioned(TestFixture::resource("/x"), version),
                        TestFixture::versioned(TestFixture::resource("/y"), version)});
  };
  auto a = this->environment("a");
  auto b = this->environment("b");
  auto c = this->environment("c");
  for (const auto& env : {a, b, c}) {
    auto v1 = this->put(env, {TestFixture::resource("/x"), TestFixture::resource("/y")});
    s.releaseVersion(env, v1);
    deploy(env, v1);
    deploy(env, this->put(env, {TestFixture::resource("/x")}));
  }
  EXPECT_EQ(rows("resource", a), 3);
  EXPECT_EQ(rows("resource_action_resource", a), 4);

  s.deleteVersion(a, 2);
  EXPECT_EQ(rows("resource", a), 2);
  EXPECT_EQ(rows("resource_action_resource", a), 2);
  EXPECT_EQ(s.pruneVersions(b, 0), 1);  // the released version stays
  EXPECT_EQ(rows("resource", b), 2);
  EXPECT_EQ(rows("resource_action_resource", b), 2);

  s.decommissionEnvironment(a);
  EXPECT_EQ(rows("resource", a), 0);
  EXPECT_EQ(rows("resource_action_resource", a), 0);
  s.deleteEnvironment(b);
  EXPECT_EQ(rows("resource", b), 0);
  EXPECT_EQ(rows("resource_action_resource", b), 0);

  EXPECT_EQ(s.pruneResourceActions(now() + std::chrono::hours(1)), 4);  // c's store and deploy actions
  EXPECT_EQ(rows("resource_action_resource", c), 0);
  EXPECT_EQ(rows("resource", c), 3);  // the versions stay
}

// A run (one resource of the action's own version) names its resource in its own row, with no
// resource_action_resource row (migration 005); every filter on resources finds it as it finds an
// action with rows, and an action of one resource of another version keeps a row.
TYPED_TEST(StoreTest, ARunNamesItsResourceInItsOwnRow) {
  Store& s = *this->store_;
  auto env = this->environment();
  auto a = TestFixture::resource("/a");
  auto b = TestFixture::resource("/b", "other");
  auto v1 = this->put(env, {a, b});
  auto v2 = this->put(env, {a, b});
  auto run = this->insertDeploy(env, v2, {b.resource_id + ",v=" + std::to_string(v2)});
  auto old = this->insertDeploy(env, v2, {a.resource_id + ",v=" + std::to_string(v1)});  // not of its own version
  s.writeJournal(env, {TestFixture::insertRecord(env, v1, "dryrun", a.resource_id + ",v=" + std::to_string(v1))});
  EXPECT_EQ(this->rowsOf("resource_action_resource", env), 1);
  EXPECT_EQ(s.getResourceAction(env, run)->resource_version_ids,
            std::vector<std::string>{b.resource_id + ",v=" + std::to_string(v2)});
  EXPECT_EQ(s.getResourceAction(env, old)->resource_version_ids,
            std::vector<std::string>{a.resource_id + ",v=" + std::to_string(v1)});

  auto actionsOf = [&](ActionQuery q) {
    q.oldest_first = true;
    std::vector<std::string> out;
    for (const auto& found : s.queryResourceActions(env, q))
      out.push_back(found.action + " " + std::to_string(found.version));
    return out;
  };
  ActionQuery byId;
  byId.resource_id = b.resource_id;
  EXPECT_EQ(actionsOf(byId), (std::vector<std::string>{"store 1", "store 2", "deploy 2"}));
  // by its row in resource_action_resource (an action of another version), its run of a dry-run
  // and the store actions of its versions
  ActionQuery byIdOfA;
  byIdOfA.resource_id = a.resource_id;
  EXPECT_EQ(actionsOf(byIdOfA), (std::vector<std::string>{"store 1", "store 2", "deploy 2", "dryrun 1"}));
  ActionQuery unknown;
  unknown.resource_id = "std::File[localhost,path=/never]";
  EXPECT_TRUE(actionsOf(unknown).empty());
  ActionQuery byAgent;
  byAgent.agent = "other";
  byAgent.actions = {"deploy"};
  EXPECT_EQ(actionsOf(byAgent), std::vector<std::string>{"deploy 2"});
  ActionQuery byType;
  byType.resource_type = b.resource_type;
  byType.resource_id_value = a.resource_id_value;
  byType.actions = {"deploy", "dryrun"};
  EXPECT_EQ(actionsOf(byType), (std::vector<std::string>{"deploy 2", "dryrun 1"}));
  ActionQuery none;
  none.resource_id_value = "/nowhere";
  EXPECT_TRUE(actionsOf(none).empty());

  // deleting a version takes its runs with it
  s.deleteVersion(env, v2);
  EXPECT_EQ(actionsOf(byId), std::vector<std::string>{"store 1"});
}

// The store action of a version names every resource of the version, though it keeps no rows
// of its own (migration 003), and the filters on resources find it.
TYPED_TEST(StoreTest, TheStoreActionNamesTheVersionsResources) {
  Store& s = *this->store_;
  auto env = this->environment();
  auto a = TestFixture::resource("/a");
  auto b = TestFixture::resource("/b", "other");
  auto v1 = this->put(env, {b, a});
  auto v2 = this->put(env, {a});
  ActionQuery all;
  all.oldest_first = true;
  auto actions = s.queryResourceActions(env, all);
  ASSERT_EQ(actions.size(), 2u);
  EXPECT_EQ(actions[0].action, "store");
  EXPECT_EQ(actions[0].version, v1);
  EXPECT_EQ(actions[0].resource_version_ids,
            (std::vector<std::string>{a.resource_id + ",v=1", b.resource_id + ",v=1"}));
  EXPECT_EQ(s.getResourceAction(env, actions[1].action_id)->resource_version_ids,
            std::vector<std::string>{a.resource_id + ",v=2"});
  ActionQuery of_b;
  of_b.resource_id = b.resource_id;
  auto touching_b = s.queryResourceActions(env, of_b);
  ASSERT_EQ(touching_b.size(), 1u);
  EXPECT_EQ(touching_b[0].version, v1);
  ActionQuery of_agent;
  of_agent.agent = "localhost";
  of_agent.resource_type = "std::File";
  of_agent.resource_id_value = "/a";
  EXPECT_EQ(s.queryResourceActions(env, of_agent).size(), 2u);
  of_agent.resource_id_value = "/b";
  EXPECT_TRUE(s.queryResourceActions(env, of_agent).empty());
  ActionQuery of_v2;
  of_v2.version = v2;
  of_v2.resource_id = b.resource_id;
  EXPECT_TRUE(s.queryResourceActions(env, of_v2).empty());
}

TYPED_TEST(StoreTest, HaltResumeAndAgents) {
  Store& s = *this->store_;
  auto env = this->environment();
  s.registerAgents(env, {"a1", "a2", "a3"});
  s.registerAgents(env, {"a1"});
  s.setAgentPaused(env, "a2", true);
  EXPECT_THROW(s.setAgentPaused(env, "nope", true), NotFound);
  s.haltEnvironment(env);
  s.haltEnvironment(env);  // no-op
  EXPECT_TRUE(s.getEnvironment(env).halted);
  auto agents = s.listAgents(env);
  ASSERT_EQ(agents.size(), 3u);
  for (const auto& a : agents) EXPECT_TRUE(a.paused);
  EXPECT_EQ(agents[0].unpause_on_resume, true);
  EXPECT_EQ(agents[1].unpause_on_resume, false);
  s.setUnpauseOnResume(env, "a3", false);
  s.registerAgents(env, {"a4"});
  EXPECT_TRUE(s.getAgent(env, "a4")->paused);
  s.resumeEnvironment(env);
  EXPECT_FALSE(s.getEnvironment(env).halted);
  EXPECT_FALSE(s.getAgent(env, "a1")->paused);
  EXPECT_TRUE(s.getAgent(env, "a2")->paused);
  EXPECT_TRUE(s.getAgent(env, "a3")->paused);
  EXPECT_FALSE(s.getAgent(env, "a4")->paused);
  EXPECT_EQ(s.getAgent(env, "a1")->unpause_on_resume, std::nullopt);
  s.setAllAgentsPaused(env, false);
  for (const auto& a : s.listAgents(env)) EXPECT_FALSE(a.paused);
  s.setAllUnpauseOnResume(env, true);
  EXPECT_EQ(s.getAgent(env, "a2")->unpause_on_resume, true);
  EXPECT_EQ(s.getAgent(env, "nope"), std::nullopt);
}

TYPED_TEST(StoreTest, TheJournalAppliesItsWritesInOrderInOneStep) {
  Store& s = *this->store_;
  auto env = this->environment();
  auto a = TestFixture::resource("/a");
  auto v = this->put(env, {a});
  s.releaseVersion(env, v);
  DryRun dryrun = s.createDryRun(env, v, 1);
  ResourceState state = *s.getResourceState(env, a.resource_id);
  std::string rvid = a.resource_id + ",v=" + std::to_string(v);

  JournalWrite start = TestFixture::insertRecord(env, v, "deploy", rvid);
  start.action.status = "deploying";
  state.is_deploying = true;
  start.states = {state};
  JournalWrite finish;
  finish.kind = JournalWrite::Kind::finishAction;
  finish.action_id = start.action.action_id;
  finish.result.status = "deployed";
  finish.result.change = "created";
  finish.result.finished = now();
  finish.result.messages = json::array({{{"level", "INFO"}, {"msg", "done"}}});
  state.is_deploying = false;
  state.last_non_deploying_status = "deployed";
  state.last_deployed_attribute_hash = state.current_intent_attribute_hash;
  finish.states = {state};
  JournalWrite dry;
  dry.kind = JournalWrite::Kind::dryRunResource;
  dry.dryrun_id = dryrun.id;
  dry.resource_version_id = rvid;
  dry.entry = {{"id", rvid}, {"changes", json::object()}};
  s.writeJournal(env, {start, finish, dry});

  auto action = s.getResourceAction(env, start.action.action_id);
  ASSERT_TRUE(action.has_value());
  EXPECT_EQ(action->status, "deployed");
  EXPECT_EQ(action->change, "created");
  EXPECT_TRUE(action->finished.has_value());
  ASSERT_EQ(action->messages.size(), 1u);
  EXPECT_FALSE(s.getResourceState(env, a.resource_id)->is_deploying);
  EXPECT_EQ(s.getResourceState(env, a.resource_id)->last_non_deploying_status, "deployed");
  EXPECT_EQ(s.getDryRun(env, dryrun.id)->todo, 0);

  // the entries of a dry-run that is gone are left out; the rest of the batch is kept
  JournalWrite kept = start;
  kept.action.action_id = newUuid();
  JournalWrite gone = dry;
  gone.dryrun_id = newUuid();
  EXPECT_NO_THROW(s.writeJournal(env, {kept, gone}));
  EXPECT_TRUE(s.getResourceAction(env, kept.action.action_id).has_value());

  // all or nothing: a finish of an action that does not exist undoes the batch
  JournalWrite second = start;
  second.action.action_id = newUuid();
  JournalWrite missing;
  missing.kind = JournalWrite::Kind::finishAction;
  missing.action_id = newUuid();
  EXPECT_THROW(s.writeJournal(env, {second, missing}), NotFound);
  EXPECT_FALSE(s.getResourceAction(env, second.action.action_id).has_value());

  // a finish given as texts (the scheduler's) in a later batch than its start: the texts are the
  // action's whole messages and changes
  JournalWrite third = start;
  third.action.action_id = newUuid();
  third.action.messages = json::array({{{"level", "INFO"}, {"msg", "started"}}});
  s.writeJournal(env, {third});
  JournalWrite texts;
  texts.kind = JournalWrite::Kind::finishAction;
  texts.action_id = third.action.action_id;
  texts.result.status = "deployed";
  texts.result.finished = now();
  texts.messages_text = R"([{"level":"INFO","msg":"started"},{"level":"DEBUG","msg":"ran"}])";
  texts.changes_text = "{\"" + rvid + "\":{\"mode\":{\"current\":644,\"desired\":600}}}";
  s.writeJournal(env, {texts});
  auto finishedAction = s.getResourceAction(env, third.action.action_id);
  ASSERT_TRUE(finishedAction.has_value());
  EXPECT_EQ(finishedAction->status, "deployed");
  ASSERT_EQ(finishedAction->messages.size(), 2u);
  EXPECT_EQ(finishedAction->messages[1]["msg"], "ran");
  EXPECT_EQ(finishedAction->changes[rvid]["mode"]["desired"], 600);

  // a state row that exists keeps the intent the release wrote: a record of a run of the old
  // intent, stored after the release of a new one, does not bring the old intent back
  auto changed = TestFixture::resource("/a");
  changed.attributes["mode"] = 600;
  changed.attribute_hash = "the new hash";
  auto v2 = this->put(env, {changed});
  s.releaseVersion(env, v2);
  JournalWrite late;
  late.kind = JournalWrite::Kind::saveStates;
  state.last_non_deploying_status = "failed";
  late.states = {state};  // still the first version's intent
  s.writeJournal(env, {late});
  ResourceState after = *s.getResourceState(env, a.resource_id);
  EXPECT_EQ(after.current_intent_attribute_hash, "the new hash");
  EXPECT_EQ(after.last_non_deploying_status, "failed");
  // saveResourceStates still writes the whole row
  s.saveResourceStates(env, {state});
  EXPECT_EQ(s.getResourceState(env, a.resource_id)->current_intent_attribute_hash, state.current_intent_attribute_hash);
}

TYPED_TEST(StoreTest, TheFirstReadOfAVersionPutByValueIsWhatItsRowsHold) {
  Store& s = *this->store_;
  auto env = this->environment();
  auto b = TestFixture::resource("/b", "other", {"std::File[localhost,path=/a]"});
  b.attributes["mode"] = 420;
  b.attributes["ratio"] = 0.25;
  b.attributes["text"] = "caf\u00e9 \"quoted\"\n";
  b.attributes["nested"] = {{"list", {1, "two", nullptr, false}}};
  b.resource_set = "set-b";
  auto a = TestFixture::resource("/a");
  a.is_undefined = true;
  NewVersion v;
  v.environment = env;
  v.version = s.reserveVersion(env);
  v.resources = {b, a};  // not in id order
  std::int64_t number = s.putVersion(std::move(v));
  std::vector<Resource> first = s.versionResources(env, number);   // the kept resources
  std::vector<Resource> second = s.versionResources(env, number);  // from the rows
  ASSERT_EQ(first.size(), 2u);
  ASSERT_EQ(second.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(first[i].resource_id, second[i].resource_id);
    EXPECT_EQ(first[i].resource_type, second[i].resource_type);
    EXPECT_EQ(first[i].agent, second[i].agent);
    EXPECT_EQ(first[i].id_attribute, second[i].id_attribute);
    EXPECT_EQ(first[i].resource_id_value, second[i].resource_id_value);
    EXPECT_EQ(first[i].attributes, second[i].attributes);
    EXPECT_EQ(first[i].attributes.dump(), second[i].attributes.dump());
    EXPECT_EQ(first[i].attribute_hash, second[i].attribute_hash);
    EXPECT_EQ(first[i].is_undefined, second[i].is_undefined);
    EXPECT_EQ(first[i].resource_set, second[i].resource_set);
  }
  EXPECT_EQ(first[0].resource_id, a.resource_id);  // sorted by id, as the rows are read
  EXPECT_TRUE(first[0].is_undefined);
  EXPECT_EQ(first[1].resource_set, "set-b");
  // a version that went is not found, kept resources or not
  NewVersion gone;
  gone.environment = env;
  gone.version = s.reserveVersion(env);
  gone.resources = {a};
  std::int64_t goneNumber = s.putVersion(std::move(gone));
  s.deleteVersion(env, goneNumber);
  EXPECT_THROW(s.versionResources(env, goneNumber), NotFound);
}

TYPED_TEST(StoreTest, ConcurrentFileUploadsAreAllStored) {
  // uploads at once (the exporter sends on eight connections): each is stored once it returns,
  // duplicates included
  Store& s = *this->store_;
  std::vector<std::thread> threads;
  for (int t = 0; t < 6; ++t)
    threads.emplace_back([&s, t] {
      for (int i = 0; i < 40; ++i) {
        int n = (t % 3) * 40 + i;  // threads t and t + 3 upload the same files
        std::string content = "content " + std::to_string(n) + std::string(std::size_t(n), 'x');
        s.putFile("hash-" + std::to_string(n), content);
        EXPECT_EQ(s.getFile("hash-" + std::to_string(n)), content);
      }
    });
  for (std::thread& thread : threads) thread.join();
  for (int n = 0; n < 120; ++n)
    EXPECT_EQ(s.getFile("hash-" + std::to_string(n)),
              "content " + std::to_string(n) + std::string(std::size_t(n), 'x'));
  EXPECT_FALSE(s.getFile("hash-120").has_value());
}

TYPED_TEST(StoreTest, ManyStateRowsReadBackExactly) {
  // read one row at a time into one reused row: a NULL after a value, a value after a NULL, a
  // shorter text after a longer one
  Store& s = *this->store_;
  auto env = this->environment();
  std::vector<Resource> resources;
  for (int i = 0; i < 50; ++i) resources.push_back(TestFixture::resource("/r" + std::to_string(100 + i)));
  auto v = this->put(env, resources);
  s.releaseVersion(env, v);
  std::vector<ResourceState> states = s.resourceStates(env);
  ASSERT_EQ(states.size(), 50u);
  for (std::size_t i = 0; i < states.size(); ++i) {
    ResourceState& state = states[i];
    if (i % 2 == 0) {
      state.last_deployed_attribute_hash = std::string(i + 1, 'h');
      state.last_deployed_version = v;
      state.last_handler_run_compliant = i % 4 == 0;
    }
    state.last_non_deploying_status = i % 3 == 0 ? "deployed" : "failed";
  }
  s.saveResourceStates(env, states);
  std::vector<ResourceState> read = s.resourceStates(env);
  ASSERT_EQ(read.size(), states.size());
  for (std::size_t i = 0; i < read.size(); ++i) {
    EXPECT_EQ(read[i].resource_id, states[i].resource_id);
    EXPECT_EQ(read[i].last_deployed_attribute_hash, states[i].last_deployed_attribute_hash) << i;
    EXPECT_EQ(read[i].last_deployed_version, states[i].last_deployed_version) << i;
    EXPECT_EQ(read[i].last_handler_run_compliant, states[i].last_handler_run_compliant) << i;
    EXPECT_EQ(read[i].last_non_deploying_status, states[i].last_non_deploying_status) << i;
    EXPECT_EQ(read[i].current_intent_attribute_hash, states[i].current_intent_attribute_hash) << i;
  }
}

TYPED_TEST(StoreTest, ResourceActionsAndStates) {
  Store& s = *this->store_;
  auto env = this->environment();
  auto a = TestFixture::resource("/a");
  auto b = TestFixture::resource("/b", "other");
  auto v = this->put(env, {a, b});
  s.releaseVersion(env, v);
  auto state = *s.getResourceState(env, a.resource_id);
  state.is_deploying = true;
  ResourceAction deploy;
  deploy.environment = env;
  deploy.version = v;
  deploy.action = "deploy";
  deploy.started = now();
  deploy.resource_version_ids = {a.resource_id + ",v=" + std::to_string(v)};
  auto id = s.insertResourceAction(deploy, {state});
  EXPECT_TRUE(s.getResourceState(env, a.resource_id)->is_deploying);
  EXPECT_THROW(
      {
        deploy.action_id = id;
        s.insertResourceAction(deploy);
      },
      Conflict);
  s.appendActionMessages(env, id, json::array({{{"level", "DEBUG"}, {"msg", "one"}}}));
  state.is_deploying = false;
  state.last_handler_run = "SUCCESSFUL";
  state.last_deployed_attribute_hash = state.current_intent_attribute_hash;
  state.last_success = now();
  state.last_handler_run_compliant = true;
  ActionResult result;
  result.finished = now();
  result.status = "deployed";
  result.change = "created";
  result.changes = json{{"x", 1}};
  result.messages = json::array({{{"level", "INFO"}, {"msg", "two"}}});
  s.finishResourceAction(env, id, result, {state});
  EXPECT_THROW(s.finishResourceAction(env, newUuid(), result), NotFound);
  auto stored = *s.getResourceAction(env, id);
  EXPECT_EQ(stored.status, "deployed");
  EXPECT_EQ(stored.change, "created");
  ASSERT_EQ(stored.messages.size(), 2u);
  EXPECT_EQ(stored.messages[1]["msg"], "two");
  auto after = *s.getResourceState(env, a.resource_id);
  EXPECT_FALSE(after.is_deploying);
  EXPECT_EQ(after.last_handler_run, "SUCCESSFUL");
  EXPECT_EQ(after.last_handler_run_compliant, true);
  EXPECT_EQ(after.last_success, state.last_success);

  ActionQuery by_resource;
  by_resource.resource_id = a.resource_id;
  auto found = s.queryResourceActions(env, by_resource);
  ASSERT_EQ(found.size(), 2u);  // the deploy, then the store
  EXPECT_EQ(found[0].action, "deploy");
  ActionQuery by_agent;
  by_agent.agent = "other";
  by_agent.actions = {"deploy"};
  EXPECT_TRUE(s.queryResourceActions(env, by_agent).empty());
  by_agent.actions = {"store"};
  EXPECT_EQ(s.queryResourceActions(env, by_agent).size(), 1u);
  ActionQuery page;
  page.limit = 1;
  page.oldest_first = true;
  auto first = s.queryResourceActions(env, page);
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].action, "store");
  page.after = first[0].started;
  page.after_action_id = first[0].action_id;
  auto second = s.queryResourceActions(env, page);
  ASSERT_EQ(second.size(), 1u);
  EXPECT_EQ(second[0].action_id, id);
  ActionQuery before;
  before.before = second[0].started;
  before.before_action_id = second[0].action_id;
  EXPECT_EQ(s.queryResourceActions(env, before).size(), 1u);

  EXPECT_EQ(s.pruneResourceActions(deploy.started), 1);  // the store action came first
  EXPECT_EQ(s.queryResourceActions(env, {}).size(), 1u);
  ResourceAction bad;
  bad.environment = env;
  bad.action = "deploy";
  bad.resource_version_ids = {"not a resource id"};
  EXPECT_THROW(s.insertResourceAction(bad), Invalid);

  ResourceState fresh = after;
  fresh.resource_id = "std::File[localhost,path=/c]";
  s.saveResourceStates(env, {fresh});
  EXPECT_EQ(s.resourceStates(env).size(), 3u);
}

TYPED_TEST(StoreTest, Parameters) {
  Store& s = *this->store_;
  auto env = this->environment();
  auto stored = s.setParameter({env, "length", "10", "fact", "std::File[h,path=/a]", {{"m", 1}}, {}});
  EXPECT_NE(stored.updated, Timestamp{});
  s.setParameter({env, "length", "12", "fact", "std::File[h,path=/a]", json::object(), {}});
  s.setParameter({env, "global", "x", "user", "", json::object(), {}});
  EXPECT_EQ(s.getParameter(env, "length", "std::File[h,path=/a]")->value, "12");
  EXPECT_EQ(s.getParameter(env, "length"), std::nullopt);
  EXPECT_EQ(s.listParameters(env).size(), 2u);
  EXPECT_EQ(s.listParameters(env, std::string("std::File[h,path=/a]")).size(), 1u);
  EXPECT_TRUE(s.deleteParameter(env, "global"));
  EXPECT_FALSE(s.deleteParameter(env, "global"));
  EXPECT_THROW(s.setParameter({newUuid(), "x", "1", "user", "", {}, {}}), NotFound);
}

TYPED_TEST(StoreTest, DryRuns) {
  Store& s = *this->store_;
  auto env = this->environment();
  auto v = this->put(env, {TestFixture::resource("/a"), TestFixture::resource("/b")});
  EXPECT_THROW(s.createDryRun(env, 99, 1), NotFound);
  auto d = s.createDryRun(env, v, 2);
  EXPECT_EQ(d.todo, 2);
  std::string rvid = "std::File[localhost,path=/a],v=" + std::to_string(v);
  s.recordDryRunResource(env, d.id, rvid, {{"id", rvid}, {"changes", json::object()}});
  s.recordDryRunResource(env, d.id, rvid, {{"id", rvid}, {"changes", {{"x", 1}}}});
  auto got = *s.getDryRun(env, d.id);
  EXPECT_EQ(got.todo, 1);
  EXPECT_EQ(got.resources[rvid]["changes"]["x"], 1);
  EXPECT_THROW(s.recordDryRunResource(env, newUuid(), rvid, json::object()), NotFound);

  // through the journal, many entries in one step: the last of a resource wins, todo counts both
  auto batch = s.createDryRun(env, v, 2);
  std::string other = "std::File[localhost,path=/b],v=" + std::to_string(v);
  std::vector<JournalWrite> writes;
  for (auto [id, x] : std::vector<std::pair<std::string, int>>{{rvid, 1}, {other, 2}, {rvid, 3}}) {
    JournalWrite w;
    w.kind = JournalWrite::Kind::dryRunResource;
    w.dryrun_id = batch.id;
    w.resource_version_id = id;
    w.entry = {{"id", id}, {"changes", {{"x", x}}}};
    writes.push_back(w);
  }
  s.writeJournal(env, writes);
  auto recorded = *s.getDryRun(env, batch.id);
  EXPECT_EQ(recorded.todo, 0);
  EXPECT_EQ(recorded.resources.size(), 2u);
  EXPECT_EQ(recorded.resources[rvid]["changes"]["x"], 3);
  EXPECT_EQ(recorded.resources[other]["changes"]["x"], 2);
  s.createDryRun(env, v, 0);
  EXPECT_EQ(s.listDryRuns(env, v).size(), 3u);
  EXPECT_TRUE(s.listDryRuns(env, v + 1).empty());
  EXPECT_EQ(s.getDryRun(env, newUuid()), std::nullopt);
}

TYPED_TEST(StoreTest, SchedulerAndPruning) {
  Store& s = *this->store_;
  auto env = this->environment();
  EXPECT_EQ(s.lastProcessedVersion(env), std::nullopt);
  s.setLastProcessedVersion(env, 4);
  s.setLastProcessedVersion(env, 5);
  EXPECT_EQ(s.lastProcessedVersion(env), 5);
  auto released = this->put(env, {TestFixture::resource("/a")});
  s.releaseVersion(env, released);
  for (int i = 0; i < 4; ++i) this->put(env, {TestFixture::resource("/a")});
  EXPECT_EQ(s.pruneVersions(env, 2), 2);  // keeps the two newest and the released one
  auto page = s.listVersions(env, 0, 10);
  ASSERT_EQ(page.versions.size(), 3u);
  EXPECT_EQ(page.versions.back().version, released);
  EXPECT_EQ(s.pruneVersions(env, 0), 2);
  EXPECT_EQ(s.listVersions(env, 0, 10).versions.size(), 1u);
}

// The read ahead of a prune reads the versions the prune then deletes, and changes nothing; the
// prune takes the actions' rows of resource_action_resource with them (runs have none).
TYPED_TEST(StoreTest, ReadingAheadOfAPruneChangesNothing) {
  Store& s = *this->store_;
  auto env = this->environment();
  auto rows = [this, &env](const std::string& table) { return this->rowsOf(table, env); };
  auto act = [this, &env](std::int64_t version, const std::vector<std::string>& paths) {
    std::vector<std::string> rvids;
    for (const std::string& path : paths) rvids.push_back(TestFixture::versioned(TestFixture::resource(path), version));
    this->insertDeploy(env, version, std::move(rvids));
  };
  auto released = this->put(env, {TestFixture::resource("/a")});
  s.releaseVersion(env, released);
  for (int i = 0; i < 4; ++i) {
    auto v = this->put(env, {TestFixture::resource("/a"), TestFixture::resource("/b")});
    act(v, {"/a"});        // a run: its resource in its own row
    act(v, {"/a", "/b"});  // two rows of resource_action_resource
  }
  EXPECT_EQ(s.readAheadPrune(env, 2), 2);  // keeps the two newest and the released one
  EXPECT_EQ(s.readAheadPrune(env, 10), 0);
  EXPECT_EQ(s.listVersions(env, 0, 10).versions.size(), 5u);
  EXPECT_EQ(rows("resource"), 9);
  EXPECT_EQ(rows("resource_action"), 8 + 5);  // with the store actions of the five versions
  EXPECT_EQ(rows("resource_action_resource"), 8);
  EXPECT_EQ(s.pruneVersions(env, 2), 2);
  EXPECT_EQ(rows("resource"), 5);
  EXPECT_EQ(rows("resource_action"), 4 + 3);
  EXPECT_EQ(rows("resource_action_resource"), 4);
  EXPECT_EQ(s.readAheadPrune(env, 2), 0);
  EXPECT_THROW(s.readAheadPrune(newUuid(), 2), NotFound);
}

TYPED_TEST(StoreTest, ConcurrentReservationsAreDistinctAndIncreasing) {
  auto env = this->environment();
  std::vector<std::vector<std::int64_t>> got(8);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 20; ++i) got[t].push_back(this->store_->reserveVersion(env));
    });
  for (auto& t : threads) t.join();
  std::set<std::int64_t> all;
  for (const auto& list : got) {
    EXPECT_TRUE(std::is_sorted(list.begin(), list.end()));
    all.insert(list.begin(), list.end());
  }
  EXPECT_EQ(all.size(), 160u);
  EXPECT_EQ(*all.begin(), 1);
  EXPECT_EQ(*all.rbegin(), 160);
}

TYPED_TEST(StoreTest, ConcurrentPutVersions) {
  auto env = this->environment();
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      try {
        std::vector<Resource> resources;
        for (int i = 0; i < 50; ++i)
          resources.push_back(TestFixture::resource("/f" + std::to_string(i), "h" + std::to_string(t)));
        auto v = this->put(env, resources);
        this->store_->releaseVersion(env, v);
      } catch (const Conflict&) {
        // a later version was released first: an expected outcome of racing releases
      } catch (const std::exception& e) {
        ++failures;
        ADD_FAILURE() << e.what();
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures, 0);
  auto page = this->store_->listVersions(env, 0, 100);
  EXPECT_EQ(page.count, 8);
  for (const auto& v : page.versions) EXPECT_EQ(this->store_->versionResources(env, v.version).size(), 50u);
  EXPECT_EQ(this->store_->listAgents(env).size(), 8u);
}

TYPED_TEST(StoreTest, ReadsRunBesideAWrite) {
  auto env = this->environment();
  std::vector<Resource> resources;
  for (int i = 0; i < 2000; ++i) resources.push_back(TestFixture::resource("/r" + std::to_string(i)));
  std::atomic<bool> done{false};
  std::thread writer([&] {
    this->put(env, resources);
    done = true;
  });
  int reads = 0;
  while (!done) {
    this->store_->listProjects();
    ++reads;
  }
  writer.join();
  EXPECT_GT(reads, 0);
}

TYPED_TEST(StoreTest, OneServerAtATime) {
  try {
    auto second = Store::open(this->engine_.config());
    FAIL() << "a second store opened the same database";
  } catch (const StoreError& e) {
    EXPECT_NE(std::string(e.what()).find("in use by another inmanta server"), std::string::npos) << e.what();
  }
  this->store_.reset();
  EXPECT_NO_THROW(Store::open(this->engine_.config()));
  // closed and opened again at once, as a restart does: the lock is free each time
  for (int i = 0; i < 20; ++i) {
    try {
      this->store_ = Store::open(this->engine_.config());
      this->store_.reset();
    } catch (const StoreError& e) {
      FAIL() << "reopen " << i << ": " << e.what();
    }
  }
}

TYPED_TEST(StoreTest, RefusesANewerSchema) {
  int known = this->store_->schemaVersion();
  EXPECT_GE(known, 1);
  this->store_.reset();
  this->engine_.rawExec("INSERT INTO schema_version (version) VALUES (" + std::to_string(known + 1) + ")");
  try {
    Store::open(this->engine_.config());
    FAIL() << "opened a store with a newer schema";
  } catch (const StoreError& e) {
    EXPECT_NE(std::string(e.what()).find("newer than this inmanta knows"), std::string::npos) << e.what();
  }
}

// A store written by the first schema opens with every migration since, its rows intact.
TYPED_TEST(StoreTest, MigratesAStoreOfTheFirstSchema) {
  this->store_.reset();
  TypeParam fresh;
  if (!fresh.config().sqlite_path.empty())
    std::filesystem::create_directories(std::filesystem::path(fresh.config().sqlite_path).parent_path());
  const std::string env = newUuid();
  fresh.rawExec(std::string(sql::migrations().at(0).sql) +
                ";CREATE TABLE schema_version (version INTEGER NOT NULL PRIMARY KEY);"
                "INSERT INTO schema_version (version) VALUES (1);"
                "INSERT INTO project (id, name) VALUES ('" +
                env +
                "', 'p');"
                "INSERT INTO environment (id, project_id, name, last_version) VALUES ('" +
                env + "', '" + env +
                "', 'e', 1);"
                "INSERT INTO model_version VALUES ('" +
                env +
                "', 1, 0, FALSE, '{}', 1, '[]', '[]', NULL, FALSE, "
                "'null', 'null');"
                "INSERT INTO resource VALUES ('" +
                env +
                "', 1, 'std::File[h,path=/m]', 'std::File', 'h', 'path', "
                "'/m', '{\"path\": \"/m\"}', 'hash', FALSE, NULL);"
                "INSERT INTO resource_action VALUES ('" +
                env + "', '" + env +
                "', 1, 'store', 0, 0, NULL, NULL, "
                "'{}', '[]', NULL);"
                "INSERT INTO resource_action_resource VALUES ('" +
                env + "', '" + env +
                "', 'std::File[h,path=/m]', "
                "'std::File[h,path=/m],v=1', 'std::File', 'h', '/m', 0);");
  auto store = Store::open(fresh.config());
  EXPECT_EQ(store->schemaVersion(), static_cast<int>(sql::migrations().size()));
  auto resources = store->versionResources(env, 1);
  ASSERT_EQ(resources.size(), 1u);
  EXPECT_EQ(resources[0].attributes, json({{"path", "/m"}}));
  ActionQuery q;
  q.resource_id = "std::File[h,path=/m]";
  auto actions = store->queryResourceActions(env, q);
  ASSERT_EQ(actions.size(), 1u);
  EXPECT_EQ(actions[0].resource_version_ids, std::vector<std::string>{"std::File[h,path=/m],v=1"});
  // the rebuilt tables take new rows
  EXPECT_EQ(store->reserveVersion(env), 2);
  NewVersion v;
  v.environment = env;
  v.version = 2;
  v.resources = resources;
  EXPECT_EQ(store->putVersion(v), 2);
  EXPECT_EQ(store->versionResources(env, 2).size(), 1u);
}

// An upload is answered once putFile returns: a server killed right after still has it (SQLite
// keeps small ones in its upload log until thousands come or a version, upload_log.h).
TYPED_TEST(StoreTest, AcknowledgedUploadsSurviveKill) {
  const std::string bytes("a\0b\xff\x01", 5);
  this->killedAfter([&](Store& store) {
    for (int i = 0; i < 50; ++i) store.putFile("kept-" + std::to_string(i), bytes + std::to_string(i));
    store.putFile("large", std::string(std::size_t{2} << 20, 'L'));
  });
  ASSERT_NE(this->store_, nullptr);  // (killedAfter's assertions end only it)
  Store* reopened = this->store_.get();
  for (int i = 0; i < 50; ++i) EXPECT_EQ(reopened->getFile("kept-" + std::to_string(i)), bytes + std::to_string(i));
  EXPECT_EQ(reopened->getFile("large"), std::string(std::size_t{2} << 20, 'L'));
  EXPECT_EQ(reopened->missingFiles({"kept-0", "kept-49", "never"}), std::vector<std::string>{"never"});
}

TYPED_TEST(StoreTest, AcknowledgedWritesSurviveKill) {
  auto env = this->environment();
  this->killedAfter([&](Store& store) {
    NewVersion v;
    v.environment = env;
    v.version = store.reserveVersion(env);
    for (int i = 0; i < 100; ++i) v.resources.push_back(TestFixture::resource("/k" + std::to_string(i)));
    store.putVersion(v);
    store.releaseVersion(env, v.version);
  });
  ASSERT_NE(this->store_, nullptr);  // (killedAfter's assertions end only it)
  Store* reopened = this->store_.get();
  EXPECT_EQ(reopened->latestReleasedVersion(env), 1);
  EXPECT_EQ(reopened->versionResources(env, 1).size(), 100u);
  EXPECT_EQ(reopened->reserveVersion(env), 2);
}

// Small uploads wait in the upload log (upload_log.h) and are found there; they go into the database
// all at once before the next version, or once 4,096 are waiting; a large one goes in at once.
TEST(SqliteStore, UploadsGoIntoTheDatabaseManyAtATime) {
  SqliteEngine engine;
  const std::string log = engine.config().sqlite_path + "-uploads";
  auto store = Store::open(engine.config());
  std::string env = store->createEnvironment({std::nullopt, store->createProject("p").id, "e", "", "", "", ""}).id;
  for (int i = 0; i < 10; ++i) store->putFile("small-" + std::to_string(i), "content " + std::to_string(i));
  store->putFile("small-3", "content 3");  // again: nothing more
  EXPECT_EQ(engine.rawCount("SELECT count(*) FROM file"), 0);
  EXPECT_GT(std::filesystem::file_size(log), 10u * std::string("content 0").size());
  EXPECT_TRUE(store->hasFile("small-9"));
  EXPECT_EQ(store->getFile("small-4"), "content 4");
  EXPECT_EQ(store->missingFiles({"small-0", "other", "small-9"}), std::vector<std::string>{"other"});
  store->putFile("large", std::string(std::size_t{2} << 20, 'L'));
  EXPECT_EQ(engine.rawCount("SELECT count(*) FROM file"), 1);
  NewVersion v;
  v.environment = env;
  v.version = store->reserveVersion(env);
  store->putVersion(v);
  EXPECT_EQ(engine.rawCount("SELECT count(*) FROM file"), 11);
  EXPECT_EQ(std::filesystem::file_size(log), 0u);
  EXPECT_EQ(store->getFile("small-4"), "content 4");
  for (int i = 0; i < 5000; ++i) store->putFile("many-" + std::to_string(i), std::to_string(i));
  EXPECT_EQ(engine.rawCount("SELECT count(*) FROM file"), 11 + 4096);
  EXPECT_EQ(store->getFile("many-4999"), "4999");
  EXPECT_EQ(store->getFile("many-0"), "0");
  store.reset();  // a store that closes puts the rest in
  EXPECT_EQ(engine.rawCount("SELECT count(*) FROM file"), 11 + 5000);
  EXPECT_EQ(std::filesystem::file_size(log), 0u);
}

// A flush that waits for the database (another connection holds its write lock here) keeps
// nobody from reading the waiting uploads.
TEST(SqliteStore, AFlushWaitingForTheDatabaseDoesNotBlockReads) {
  SqliteEngine engine;
  auto store = Store::open(engine.config());
  store->putFile("waiting", "content");
  sqlite3* other = nullptr;
  ASSERT_EQ(sqlite3_open(engine.config().sqlite_path.c_str(), &other), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(other, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);
  std::thread flush([&] { store->flushUploads(); });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the flush is waiting by now
  auto read = std::async(std::launch::async, [&] { return store->getFile("waiting"); });
  auto has = std::async(std::launch::async, [&] { return store->missingFiles({"waiting", "other"}); });
  EXPECT_EQ(read.wait_for(std::chrono::seconds(5)), std::future_status::ready);
  EXPECT_EQ(has.wait_for(std::chrono::seconds(5)), std::future_status::ready);
  EXPECT_EQ(engine.rawCount("SELECT count(*) FROM file"), 0);
  sqlite3_exec(other, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(other);
  flush.join();
  EXPECT_EQ(read.get(), "content");
  EXPECT_EQ(has.get(), std::vector<std::string>{"other"});
  EXPECT_EQ(engine.rawCount("SELECT count(*) FROM file"), 1);
}

// What the next open reads of a log: the whole records; a record cut short by a crash or damaged
// ends it, and the file is cut back to the last whole record, after which new records go.
TEST(UploadLog, ReadsTheWholeRecordsAndCutsBackTheRest) {
  SqliteEngine engine;  // (for its temporary folder)
  std::filesystem::create_directories(std::filesystem::path(engine.config().sqlite_path).parent_path());
  const std::string path = engine.config().sqlite_path + "-uploads";
  const std::string nul("x\0y", 3);
  std::uint64_t whole = 0;
  {
    UploadLog log(path);
    EXPECT_TRUE(log.takeRecovered().empty());
    log.append("h1", "one");
    log.append("h2", nul);
    log.append("h3", "");
    whole = log.size();
    log.append("h4", "four");
  }
  EXPECT_EQ(std::filesystem::file_size(path), whole + 24 + 2 + 4);
  std::filesystem::resize_file(path, whole + 24 + 2 + 2);  // the last record cut short
  {
    UploadLog log(path);
    auto records = log.takeRecovered();
    ASSERT_EQ(records.size(), 3u);
    EXPECT_EQ(records[0], (UploadLog::Record{"h1", "one"}));
    EXPECT_EQ(records[1], (UploadLog::Record{"h2", nul}));
    EXPECT_EQ(records[2], (UploadLog::Record{"h3", ""}));
    EXPECT_EQ(std::filesystem::file_size(path), whole);
    log.append("h5", "five");
  }
  {
    // a damaged byte in the second record's content: only the first is read
    std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(static_cast<std::streamoff>(24 + 2 + 3 + 24 + 2 + 1));
    file.put('Y');
  }
  {
    UploadLog log(path);
    auto records = log.takeRecovered();
    ASSERT_EQ(records.size(), 1u);
    EXPECT_EQ(records[0], (UploadLog::Record{"h1", "one"}));
    log.clear();
    EXPECT_EQ(std::filesystem::file_size(path), 0u);
  }
  std::ofstream(path, std::ios::binary) << "not a log at all";
  UploadLog log(path);
  EXPECT_TRUE(log.takeRecovered().empty());
  EXPECT_EQ(std::filesystem::file_size(path), 0u);
}

// Checkpoints run beside the writers (sqlite_store.cpp, Checkpointer): a long run of commits still
// keeps the WAL bounded. 160 MB of files in 160 commits, where no checkpoint would leave a WAL of
// 160 MB; with them it stays near the size at which a writer checkpoints itself (16,000 pages of
// 4 KiB, 66 MB), past it only by the commits made while another checkpoint was running.
TEST(SqliteStore, CheckpointsKeepTheWalBounded) {
  SqliteEngine engine;
  {
    auto store = Store::open(engine.config());
    const std::string content(1 << 20, 'x');
    for (int i = 0; i < 160; ++i) store->putFile("file-" + std::to_string(i), content + std::to_string(i));
    EXPECT_EQ(store->getFile("file-159"), content + "159");
    std::uintmax_t wal = std::filesystem::file_size(engine.config().sqlite_path + "-wal");
    EXPECT_LT(wal, std::uintmax_t{110} << 20) << "WAL of " << wal << " bytes";
  }
  // the commits are all in the database after a reopen
  auto again = Store::open(engine.config());
  EXPECT_EQ(again->getFile("file-0"), std::string(1 << 20, 'x') + "0");
}

// One transaction larger than the WAL's size limit (a version of 80 MB) grows the WAL past it;
// once the log starts over, the file is cut back to the limit instead of staying that large.
TEST(SqliteStore, TheWalIsCutBackAfterALargeTransaction) {
  SqliteEngine engine;
  auto store = Store::open(engine.config());
  std::string env = store->createEnvironment({std::nullopt, store->createProject("p").id, "e", "", "", "", ""}).id;
  NewVersion v;
  v.environment = env;
  v.version = store->reserveVersion(env);
  const std::string filler(40 << 10, 'f');
  for (int i = 0; i < 2000; ++i) {
    Resource r;
    r.resource_id = "std::File[localhost,path=/big/" + std::to_string(i) + "]";
    r.resource_type = "std::File";
    r.agent = "localhost";
    r.id_attribute = "path";
    r.resource_id_value = "/big/" + std::to_string(i);
    r.attributes = {{"path", r.resource_id_value},
                    {"requires", json::array()},
                    {"content", filler + std::to_string(i)}};
    r.attribute_hash = "hash-" + std::to_string(i);
    v.resources.push_back(std::move(r));
  }
  store->putVersion(v);
  const std::string wal = engine.config().sqlite_path + "-wal";
  EXPECT_GT(std::filesystem::file_size(wal), std::uintmax_t(kSqliteWalSizeLimit));
  // small commits, while the checkpoints copy the log into the database, until one starts it over
  std::uintmax_t size = 0;
  for (int i = 0; i < 200; ++i) {
    store->reserveVersion(env);
    size = std::filesystem::file_size(wal);
    if (size <= std::uintmax_t(kSqliteWalSizeLimit)) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_LE(size, std::uintmax_t(kSqliteWalSizeLimit));
  EXPECT_EQ(store->versionResources(env, v.version).size(), 2000u);
}

TEST(Timestamps, FormatAndParse) {
  auto t = fromMicros(1700000000123456);
  EXPECT_EQ(formatTimestamp(t), "2023-11-14T22:13:20.123456+00:00");
  EXPECT_EQ(parseTimestamp("2023-11-14T22:13:20.123456+00:00"), t);
  EXPECT_EQ(parseTimestamp("2023-11-14T23:13:20.123456+01:00"), t);
  EXPECT_EQ(parseTimestamp("2023-11-14 22:13:20.123456"), t);
  EXPECT_EQ(parseTimestamp("2023-11-14T22:13:20Z"), fromMicros(1700000000000000));
  EXPECT_EQ(parseTimestamp("2023-13-14T22:13:20"), std::nullopt);
  EXPECT_EQ(parseTimestamp("yesterday"), std::nullopt);
}

TEST(Uuids, CanonicalForm) {
  auto id = newUuid();
  EXPECT_EQ(canonicalUuid(id), id);
  EXPECT_EQ(id[14], '4');
  EXPECT_NE(newUuid(), id);
  EXPECT_EQ(canonicalUuid("{0F3E1C4A-1111-4222-8333-444455556666}"), "0f3e1c4a-1111-4222-8333-444455556666");
  EXPECT_EQ(canonicalUuid("0f3e1c4a111142228333444455556666"), "0f3e1c4a-1111-4222-8333-444455556666");
  EXPECT_EQ(canonicalUuid("not-a-uuid"), std::nullopt);
}

TEST(Uuids, TimeOrdered) {
  // version 7: the time in milliseconds and its 1/4096 fraction lead (the first 18 hex digits with
  // the version digit), so ids made one after the other never sort backwards by that prefix
  auto timePart = [](const std::string& id) { return id.substr(0, 18); };
  std::string previous = newTimeOrderedUuid();
  for (int i = 0; i < 2000; ++i) {
    std::string id = newTimeOrderedUuid();
    ASSERT_EQ(canonicalUuid(id), id);
    ASSERT_EQ(id[14], '7');
    ASSERT_TRUE(id[19] == '8' || id[19] == '9' || id[19] == 'a' || id[19] == 'b') << id;  // RFC variant
    ASSERT_LE(timePart(previous), timePart(id));
    ASSERT_NE(previous, id);
    previous = id;
  }
  // the leading 48 bits are the Unix time in milliseconds
  auto millis =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count();
  long long encoded = std::stoll(previous.substr(0, 8) + previous.substr(9, 4), nullptr, 16);
  EXPECT_LE(encoded, millis);
  EXPECT_GT(encoded, millis - 60000);
}

}  // namespace
}  // namespace inmanta::store
