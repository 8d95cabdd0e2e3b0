// The services without HTTP, on SQLite and on PostgreSQL: the version rules (undefined resources
// and what they block, partial exports), the resource list's cache and its statuses, resource
// action filters, the diff's compare texts, parameters and agents.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "embedded/server/errors.h"
#include "embedded/server/services/agents.h"
#include "embedded/server/services/parameters.h"
#include "embedded/server/services/resources.h"
#include "embedded/server/services/versions.h"
#include "embedded/store/ids.h"
#include "embedded/store/test_engines.h"
#include "util/attribute_hash.h"

namespace inmanta::server {
namespace {

using nlohmann::json;
using store::test_engines::EngineNames;
using store::test_engines::Engines;

// Records what the services ask of the scheduler.
class RecordingTrigger : public DeployTrigger {
 public:
  void versionReleased(const std::string&, std::int64_t version) override { released.push_back(version); }
  void deploy(const std::string&, bool repair, const std::vector<std::string>& agents) override {
    deploys.push_back({repair, agents});
  }
  std::vector<std::int64_t> released;
  std::vector<std::pair<bool, std::vector<std::string>>> deploys;
};

template <class E>
class ServicesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!store::test_engines::ready(engine_)) return;
    store_ = store::Store::open(engine_.config());
    resources_ = std::make_unique<ResourceService>(*store_);
    versions_ = std::make_unique<VersionService>(*store_, trigger_, *resources_);
  }

  store::Environment environment(bool autoDeploy) {
    auto project = store_->createProject("p-" + store::newUuid());
    std::string id = store_->createEnvironment({std::nullopt, project.id, "dev", "", "", "", ""}).id;
    store::SettingValue value;
    value.value = autoDeploy;
    store_->setSetting(id, "auto_deploy", value);
    return store_->getEnvironment(id);
  }

  static json file(const std::string& path, std::vector<std::string> requires_ = {}) {
    return {{"id", "std::File[localhost,path=" + path + "],v=0"}, {"path", path}, {"requires", requires_}};
  }

  std::int64_t put(const store::Environment& env, json resources, json resourceState = nullptr) {
    VersionUpload upload;
    upload.version = versions_->reserve(env.id);
    upload.resources = std::move(resources);
    upload.resource_state = std::move(resourceState);
    versions_->put(env, upload);
    return upload.version;
  }

  E engine_;
  std::unique_ptr<store::Store> store_;
  RecordingTrigger trigger_;
  std::unique_ptr<ResourceService> resources_;
  std::unique_ptr<VersionService> versions_;
};
TYPED_TEST_SUITE(ServicesTest, Engines, EngineNames);

TYPED_TEST(ServicesTest, UndefinedResourcesBlockTheirDependents) {
  store::Environment env = this->environment(false);
  std::int64_t v = this->put(env,
                             {this->file("/u"), this->file("/d", {"std::File[localhost,path=/u]"}),
                              this->file("/dd", {"std::File[localhost,path=/d]"}), this->file("/free")},
                             {{"std::File[localhost,path=/u]", "undefined"}});
  store::ModelVersion model = this->versions_->get(env.id, v);
  EXPECT_EQ(model.undeployable, std::vector<std::string>{"std::File[localhost,path=/u]"});
  EXPECT_EQ(model.skipped_for_undeployable,
            (std::vector<std::string>{"std::File[localhost,path=/d]", "std::File[localhost,path=/dd]"}));
  EXPECT_TRUE(this->trigger_.released.empty());  // auto_deploy off
  this->versions_->release(env, v);
  EXPECT_EQ(this->trigger_.released, std::vector<std::int64_t>{v});
  EXPECT_THROW(this->versions_->release(env, v), HttpError);  // released already: 409
}

// A large upload is converted in two halves at once (versions.cpp: fromPayloads): the resources
// keep their order and content, and of several bad ones the first is the one reported.
TYPED_TEST(ServicesTest, ALargeUploadIsWholeAndReportsItsFirstError) {
  store::Environment env = this->environment(false);
  const int count = 3001;
  json resources = json::array();
  for (int i = 0; i < count; ++i)
    resources.push_back(
        this->file("/f" + std::to_string(i),
                   i ? std::vector<std::string>{"std::File[localhost,path=/f0],v=0"} : std::vector<std::string>{}));
  std::int64_t v = this->put(env, resources);
  std::vector<store::Resource> stored = this->store_->versionResources(env.id, v);
  ASSERT_EQ(stored.size(), std::size_t(count));
  for (const store::Resource& resource : stored) {
    EXPECT_EQ(resource.resource_id, "std::File[localhost,path=" + resource.attributes["path"].get<std::string>() + "]");
    EXPECT_EQ(resource.attribute_hash, util::attributeHash(resource.resource_id, resource.attributes));
    json requires_ = resource.resource_id == "std::File[localhost,path=/f0]"
                         ? json::array()
                         : json::array({"std::File[localhost,path=/f0]"});
    EXPECT_EQ(resource.attributes["requires"], requires_);
  }
  auto errorOf = [&](json upload) {
    try {
      this->put(env, std::move(upload));
    } catch (const HttpError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  json bad = resources;
  bad[2500]["id"] = "not an id in the second half";
  EXPECT_EQ(errorOf(bad), "Invalid request: Invalid resource id: not an id in the second half");
  bad[700]["id"] = "not an id in the first half";
  EXPECT_EQ(errorOf(bad), "Invalid request: Invalid resource id: not an id in the first half");
  json twice = resources;
  twice[2999] = twice[1];
  EXPECT_EQ(errorOf(twice),
            "Invalid request: The resource std::File[localhost,path=/f1] occurs more than once in this version");
}

TYPED_TEST(ServicesTest, AutoDeployReleasesRightAway) {
  store::Environment env = this->environment(true);
  std::int64_t v = this->put(env, json::array({this->file("/a")}));
  EXPECT_TRUE(this->versions_->get(env.id, v).released);
  EXPECT_EQ(this->trigger_.released, std::vector<std::int64_t>{v});
}

TYPED_TEST(ServicesTest, ResourceListIsCachedAndInvalidated) {
  store::Environment env = this->environment(false);
  EXPECT_TRUE(this->resources_->snapshot(env.id)->rows.empty());
  std::int64_t v1 = this->put(env, {this->file("/a"), this->file("/b")});
  this->versions_->release(env, v1);
  auto first = this->resources_->snapshot(env.id);
  ASSERT_EQ(first->rows.size(), 2u);
  EXPECT_EQ(this->resources_->snapshot(env.id), first);  // the same snapshot until something changes
  EXPECT_EQ(first->deploySummary["by_state"]["available"], 2);

  // a state written by whatever deploys (issue 31): seen after invalidate()
  store::ResourceState state = *this->store_->getResourceState(env.id, "std::File[localhost,path=/a]");
  state.last_deployed_attribute_hash = state.current_intent_attribute_hash;
  state.last_non_deploying_status = "deployed";
  state.last_handler_run = "SUCCESSFUL";
  this->store_->saveResourceStates(env.id, {state});
  this->resources_->invalidate(env.id);
  auto second = this->resources_->snapshot(env.id);
  EXPECT_NE(second, first);
  EXPECT_EQ(second->deploySummary["by_state"]["deployed"], 1);
  ResourceFilter deployedOnly;
  deployedOnly.status = {"deployed"};
  std::vector<const ResourceRow*> deployed =
      ResourceService::select(*second, deployedOnly, ResourceColumn::status, true);
  ASSERT_EQ(deployed.size(), 1u);
  EXPECT_EQ(deployed[0]->resource->resource_id_value, "/a");

  // descending order by value
  std::vector<const ResourceRow*> all = ResourceService::select(*second, {}, ResourceColumn::resource_id_value, false);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0]->resource->resource_id_value, "/b");

  // a new active version replaces the snapshot; /b is no longer in it
  std::int64_t v2 = this->put(env, json::array({this->file("/a")}));
  this->versions_->release(env, v2);
  auto third = this->resources_->snapshot(env.id);
  EXPECT_EQ(third->active, v2);
  EXPECT_EQ(third->byId.count("std::File[localhost,path=/a]"), 1u);
}

TYPED_TEST(ServicesTest, SerialisedItemsAreMadeOncePerRowAndSnapshot) {
  store::Environment env = this->environment(false);
  json resources = json::array();
  for (int i = 0; i < 50; ++i) resources.push_back(this->file("/f" + std::to_string(i)));
  std::int64_t v = this->put(env, resources);
  this->versions_->release(env, v);
  std::shared_ptr<const ResourceSnapshot> snapshot = this->resources_->snapshot(env.id);
  ASSERT_EQ(snapshot->rows.size(), 50u);
  std::atomic<int> made{0};
  auto serialise = [&](const ResourceRow& row) {
    ++made;
    return "\"" + row.resource->resource_id + "\"";
  };
  // concurrent requests of the same page: every row's text is made once and read by all
  std::vector<std::thread> readers;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 4; ++t)
    readers.emplace_back([&] {
      for (const ResourceRow& row : snapshot->rows)
        if (snapshot->serialisedItem(row, serialise) != "\"" + row.resource->resource_id + "\"") ++wrong;
    });
  for (std::thread& reader : readers) reader.join();
  EXPECT_EQ(made.load(), 50);
  EXPECT_EQ(wrong.load(), 0);
  // a snapshot made after a write makes its texts anew (a status may have changed)
  this->resources_->invalidate(env.id);
  std::shared_ptr<const ResourceSnapshot> next = this->resources_->snapshot(env.id);
  ASSERT_NE(next, snapshot);
  next->serialisedItem(next->rows[0], serialise);
  EXPECT_EQ(made.load(), 51);
}

TYPED_TEST(ServicesTest, ResourceActionFilters) {
  store::Environment env = this->environment(false);
  std::int64_t v1 = this->put(env, {this->file("/a"), this->file("/b")});
  store::ResourceAction deploy;
  deploy.environment = env.id;
  deploy.version = v1;
  deploy.action = "deploy";
  deploy.started = store::now();
  deploy.change = "created";
  deploy.messages = json::array({{{"level", "ERROR"},
                                  {"msg", "boom"},
                                  {"args", json::array()},
                                  {"kwargs", json::object()},
                                  {"timestamp", store::formatTimestamp(deploy.started)}}});
  deploy.resource_version_ids = {"std::File[localhost,path=/b],v=" + std::to_string(v1)};
  this->store_->insertResourceAction(deploy);

  ActionFilter all;
  EXPECT_EQ(this->resources_->queryActions(env.id, all).size(), 2u);
  ActionFilter errors;
  errors.log_severity = "error";
  ASSERT_EQ(this->resources_->queryActions(env.id, errors).size(), 1u);
  ActionFilter byAttribute;
  byAttribute.attribute = "path";
  byAttribute.attribute_value = "/a";
  std::vector<store::ResourceAction> touchingA = this->resources_->queryActions(env.id, byAttribute);
  ASSERT_EQ(touchingA.size(), 1u);
  EXPECT_EQ(touchingA[0].action, "store");
  ActionFilter notCreated;
  notCreated.exclude_changes = {"created"};
  EXPECT_EQ(this->resources_->queryActions(env.id, notCreated).size(), 0u);  // the store action has no change
  ActionFilter half;
  half.attribute = "path";
  EXPECT_THROW(this->resources_->queryActions(env.id, half), HttpError);
}

TEST(CompareText, AsPythonWritesIt) {
  EXPECT_EQ(compareText(nullptr), "");
  EXPECT_EQ(compareText(true), "True");
  EXPECT_EQ(compareText(644), "644");
  EXPECT_EQ(compareText(1.0), "1.0");
  EXPECT_EQ(compareText("text"), "text");
  EXPECT_EQ(compareText(json::array()), "[]");
  EXPECT_EQ(compareText(json::object()), "{}");
  EXPECT_EQ(compareText(json({{"b", {1, 2.5}}, {"a", "\u00e9"}})),
            "{\n    \"a\": \"\\u00e9\",\n    \"b\": [\n        1,\n        2.5\n    ]\n}");
}

TYPED_TEST(ServicesTest, Parameters) {
  store::Environment env = this->environment(false);
  ParameterService parameters(*this->store_);
  parameters.set(env.id, "n", json(3), "user", "", json::object());
  EXPECT_EQ(parameters.get(env.id, "n", "").value, "3");
  EXPECT_THROW(parameters.set(env.id, "n", json("x"), "elsewhere", "", json::object()), HttpError);
  EXPECT_THROW(parameters.get(env.id, "missing", ""), HttpError);
  parameters.set(env.id, "f", json("v"), "fact", "std::File[localhost,path=/a]", json::object());
  EXPECT_EQ(parameters.facts(env.id, std::nullopt).size(), 1u);
  parameters.remove(env.id, "n", "");
  EXPECT_THROW(parameters.remove(env.id, "n", ""), HttpError);
}

TYPED_TEST(ServicesTest, AgentsPauseAndDeploy) {
  store::Environment env = this->environment(false);
  AgentService agents(*this->store_, this->trigger_);
  std::vector<std::string> warnings;
  EXPECT_THROW(agents.deploy(env, "push_full_deploy", std::nullopt, warnings), HttpError);  // no version
  std::int64_t v = this->put(env, json::array({this->file("/a")}));
  this->versions_->release(env, v);
  agents.act(env, "localhost", "pause");
  std::vector<AgentView> listed = agents.list(env);
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].status, "paused");
  EXPECT_THROW(agents.act(env, kSchedulerAgent, "pause"), HttpError);
  agents.act(env, "", "unpause");
  EXPECT_EQ(agents.list(env)[0].status, "down");
  EXPECT_EQ(agents.deploy(env, "push_full_deploy", std::nullopt, warnings), std::vector<std::string>{"localhost"});
  ASSERT_EQ(this->trigger_.deploys.size(), 1u);
  EXPECT_TRUE(this->trigger_.deploys[0].first);  // push_full_deploy = repair
}

}  // namespace
}  // namespace inmanta::server
