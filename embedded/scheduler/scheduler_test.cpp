// The scheduler over a real SQLite store in a temporary folder, with the real HandlerExecutor and
// a test handler whose results the test scripts, and a ManualClock for the timers (no sleeps:
// workers are awaited with waitIdle, concurrency with a rendezvous).
#include "embedded/scheduler/scheduler.h"

#include <gtest/gtest.h>

#include <sched.h>

#include <condition_variable>
#include <filesystem>
#include <future>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "util/resource_id.h"

namespace inmanta::scheduler {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// `test::Thing[agent,name=x]`: fails when its `fail` attribute is true; sets `created` on its first
// successful run and `updated` when `value` changed since; can wait on a gate (concurrency tests).
struct World {
  std::mutex mutex;
  std::condition_variable cv;
  std::vector<std::string> calls;                         // resource ids, in call order
  std::vector<std::pair<std::string, std::string>> runs;  // (resource id, value) of each call
  std::map<std::string, std::string> applied;             // what the "machine" holds
  std::set<std::string> reloaded;
  std::set<std::string> running;
  int maxRunning = 0;
  std::map<std::string, int> maxRunningPerAgent;
  std::map<std::string, int> runningPerAgent;
  std::set<std::string> gates;          // resource ids whose call waits until the gate opens
  std::map<std::string, int> policies;  // resource id → the scheduling policy of its last call's thread
};

class ThingHandler : public handlers::Handler {
 public:
  explicit ThingHandler(World& world) : world_(world) {}
  void execute(handlers::Context& ctx, const handlers::ResourceIntent& r) override {
    std::string value = r.text("value");
    {
      std::unique_lock<std::mutex> lock(world_.mutex);
      world_.calls.push_back(r.resource_id);
      world_.runs.emplace_back(r.resource_id, value);
      world_.policies[r.resource_id] = sched_getscheduler(0);
      world_.running.insert(r.resource_id);
      world_.maxRunning = std::max<int>(world_.maxRunning, int(world_.running.size()));
      int& perAgent = world_.runningPerAgent[r.agent];
      ++perAgent;
      world_.maxRunningPerAgent[r.agent] = std::max(world_.maxRunningPerAgent[r.agent], perAgent);
      world_.cv.notify_all();
      // a gated call waits until the test opens the gate
      world_.cv.wait_for(lock, std::chrono::seconds(5), [&] { return !world_.gates.count(r.resource_id); });
      world_.running.erase(r.resource_id);
      --world_.runningPerAgent[r.agent];
    }
    if (r.flag("fail")) {
      ctx.error("An error occurred during deployment of " + r.resource_id + " (exception: Exception('told to fail'))");
      ctx.setStatus(handlers::ResultState::failed);
      return;
    }
    std::lock_guard<std::mutex> lock(world_.mutex);
    auto current = world_.applied.find(r.resource_id);
    if (current == world_.applied.end()) {
      ctx.addChange("purged", true, false);
      if (!ctx.dryRun()) ctx.setCreated();
    } else if (current->second != value) {
      ctx.addChange("value", current->second, value);
      if (!ctx.dryRun()) ctx.setUpdated();
    }
    if (!ctx.dryRun()) world_.applied[r.resource_id] = value;
    ctx.setStatus(ctx.dryRun() ? handlers::ResultState::dry : handlers::ResultState::deployed);
  }
  bool canReload() const override { return true; }
  void reload(handlers::Context& ctx, const handlers::ResourceIntent& r) override {
    ctx.info("reloading");
    std::lock_guard<std::mutex> lock(world_.mutex);
    world_.reloaded.insert(r.resource_id);
  }

 private:
  World& world_;
};

struct Thing {
  explicit Thing(std::string theName, std::string theAgent = "a1")
      : name(std::move(theName)), agent(std::move(theAgent)) {}
  std::string name;
  std::string agent;
  std::string value = "v";
  std::vector<std::string> dependencies;
  bool fail = false;
  bool sendEvent = false;
  bool undefined = false;
  std::optional<bool> receiveEvents;
  json extra = json::object();  // attributes set as they are (over the ones above)

  std::string id() const { return "test::Thing[" + agent + ",name=" + name + "]"; }
};

class SchedulerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("inmanta-scheduler-" + store::newUuid());
    fs::create_directories(dir_);
    store::StoreConfig config;
    config.sqlite_path = (dir_ / "inmanta.db").string();
    store_ = store::Store::open(config);
    store::NewEnvironment env;
    env.project_id = store_->createProject("p").id;
    env.name = "e";
    env_ = store_->createEnvironment(env).id;
    registry_.add(
        "test::Thing", "thing", [](const handlers::HandlerServices&) { return true; },
        [this](const handlers::HandlerServices&) { return std::make_unique<ThingHandler>(world_); });
    executor_ = std::make_unique<agent::HandlerExecutor>(registry_, handlers::HandlerServices{});
  }
  void TearDown() override {
    scheduler_.reset();
    store_.reset();
    fs::remove_all(dir_);
  }

  Scheduler& start(Intervals intervals = {0, 0, std::nullopt, std::nullopt}, unsigned workers = 4) {
    SchedulerOptions options;
    options.startMode = startMode_;
    options.workers = workers;
    options.timers = true;
    options.timerThread = false;
    options.intervals = [intervals] { return intervals; };
    options.onRun = [this](const RunReport& report) {
      std::lock_guard<std::mutex> lock(world_.mutex);
      reports_.push_back(report);
    };
    scheduler_ = std::make_unique<Scheduler>(*store_, env_, *executor_, clock_, options);
    scheduler_->start();
    return *scheduler_;
  }

  // stores and releases a version of these things, and tells the scheduler
  std::int64_t release(const std::vector<Thing>& things, bool tell = true) {
    clock_.advance(std::chrono::seconds(1));  // runs of this version start after those before
    store::NewVersion version;
    version.environment = env_;
    version.version = store_->reserveVersion(env_);
    for (const Thing& thing : things) {
      store::Resource r;
      r.resource_id = thing.id();
      r.resource_type = "test::Thing";
      r.agent = thing.agent;
      r.id_attribute = "name";
      r.resource_id_value = thing.name;
      r.attributes = {{"name", thing.name},        {"value", thing.value},          {"fail", thing.fail},
                      {"requires", json::array()}, {"send_event", thing.sendEvent}, {"purged", false}};
      if (thing.receiveEvents) r.attributes["receive_events"] = *thing.receiveEvents;
      for (const auto& [key, value] : thing.extra.items()) r.attributes[key] = value;
      for (const std::string& dependency : thing.dependencies) r.attributes["requires"].push_back(dependency);
      r.attribute_hash = std::to_string(std::hash<std::string>()(r.attributes.dump()));
      r.is_undefined = thing.undefined;
      if (thing.undefined) version.undeployable.push_back(r.resource_id);
      version.resources.push_back(std::move(r));
    }
    std::int64_t number = store_->putVersion(version);
    store_->releaseVersion(env_, number);
    if (tell && scheduler_) scheduler_->versionReleased(number);
    return number;
  }

  void settle() { ASSERT_TRUE(scheduler_->waitIdle(std::chrono::steady_clock::now() + std::chrono::seconds(10))); }

  std::string status(const Thing& thing) {
    std::optional<store::ResourceState> state = store_->getResourceState(env_, thing.id());
    return state ? store::displayedStatus(&*state) : "none";
  }

  std::vector<store::ResourceAction> deploys(const Thing& thing) {
    store::ActionQuery query;
    query.resource_id = thing.id();
    query.actions = {"deploy"};
    query.oldest_first = true;
    return store_->queryResourceActions(env_, query);
  }

  int callsOf(const Thing& thing) {
    std::lock_guard<std::mutex> lock(world_.mutex);
    return int(std::count(world_.calls.begin(), world_.calls.end(), thing.id()));
  }

  // Whether a run of `thing` started for `reason`.
  bool ranBecause(const Thing& thing, const std::string& reason) const {
    return std::any_of(reports_.begin(), reports_.end(), [&](const RunReport& report) {
      return report.resource_id == thing.id() && report.reason == reason;
    });
  }

  fs::path dir_;
  std::unique_ptr<store::Store> store_;
  std::string env_;
  World world_;
  handlers::HandlerRegistry registry_;
  std::unique_ptr<agent::HandlerExecutor> executor_;
  ManualClock clock_;
  StartMode startMode_ = StartMode::resume;
  std::unique_ptr<Scheduler> scheduler_;
  std::vector<RunReport> reports_;
};

TEST_F(SchedulerTest, DeploysInRequiresOrderAndRecordsEveryRun) {
  Thing a{"a"}, b{"b"}, c{"c"};
  b.dependencies = {a.id()};
  c.dependencies = {b.id()};
  start();
  release({c, b, a});
  settle();
  EXPECT_EQ(world_.calls, (std::vector<std::string>{a.id(), b.id(), c.id()}));
  for (const Thing& t : {a, b, c}) {
    EXPECT_EQ(status(t), "deployed");
    std::vector<store::ResourceAction> actions = deploys(t);
    ASSERT_EQ(actions.size(), 1u);
    EXPECT_EQ(actions[0].status, "deployed");
    EXPECT_EQ(actions[0].change, "created");
    EXPECT_TRUE(actions[0].finished.has_value());
    EXPECT_EQ(actions[0].messages.front()["msg"], "Resource deploy started on agent a1, setting status to deploying");
    // the executor's first and last lines, whose kwargs it writes out as text (executor.cpp)
    const json& begin = actions[0].messages.at(1);
    EXPECT_EQ(begin["msg"].get<std::string>().rfind("Start run because a new version was released (deploy_id: ", 0), 0u)
        << begin;
    EXPECT_EQ(begin["args"], json::array());
    EXPECT_EQ(begin["kwargs"]["reason"], "a new version was released");
    EXPECT_TRUE(begin["kwargs"]["deploy_id"].is_string());
    EXPECT_EQ(begin["kwargs"]["resource"], json({{"agent_name", "a1"},
                                                 {"attribute", "name"},
                                                 {"attribute_value", t.name},
                                                 {"entity_type", "test::Thing"},
                                                 {"version", 1}}));
    EXPECT_EQ(begin["kwargs"].size(), 3u);
    const json& end = actions[0].messages.back();
    EXPECT_EQ(end["kwargs"]["r_id"], t.id() + ",v=1");
    EXPECT_EQ(end["kwargs"]["deploy_id"], begin["kwargs"]["deploy_id"]);
    std::string duration = end["kwargs"]["duration"];
    EXPECT_EQ(duration.size() - duration.find('.'), 4u) << duration;
    EXPECT_EQ(end["msg"], "End run for resource " + t.id() + ",v=1. (deploy_id: " +
                              begin["kwargs"]["deploy_id"].get<std::string>() + ") - duration: " + duration + " s");
  }
  EXPECT_EQ(store_->lastProcessedVersion(env_), 1);
}

TEST_F(SchedulerTest, WorkersRunWithTheBatchPolicyWhileSeveralAgentsHaveWork) {
  // then a worker that wakes does not preempt the journal's writer (util/thread_policy.h); a lone
  // agent's worker, which the runs wait for, keeps the normal policy
  Thing x1{"x1", "a1"}, x2{"x2", "a2"}, y2{"y2", "a2"};
  {
    std::lock_guard<std::mutex> lock(world_.mutex);
    world_.gates = {x1.id()};  // x1 runs until a2's two calls have started
  }
  start();
  release({x1, x2, y2});
  {
    std::unique_lock<std::mutex> lock(world_.mutex);
    EXPECT_TRUE(world_.cv.wait_for(lock, std::chrono::seconds(5), [&] { return world_.policies.count(y2.id()) != 0; }));
    world_.gates.clear();
    world_.cv.notify_all();
  }
  settle();
  EXPECT_EQ(world_.policies,
            (std::map<std::string, int>{{x1.id(), SCHED_BATCH}, {x2.id(), SCHED_BATCH}, {y2.id(), SCHED_BATCH}}));
  // a version that changes one agent's resource only
  Thing z1{"z1", "a1"};
  release({x1, x2, y2, z1});
  settle();
  EXPECT_EQ(world_.policies[z1.id()], SCHED_OTHER);
  EXPECT_EQ(sched_getscheduler(0), SCHED_OTHER);  // the test's own thread is as it was
}

TEST_F(SchedulerTest, FailureSkipsDependentsAndRecoveryRunsThem) {
  Thing a{"a"}, b{"b"}, c{"c"}, other{"other"};
  a.fail = true;
  b.dependencies = {a.id()};
  c.dependencies = {b.id()};
  start();
  release({a, b, c, other});
  settle();
  EXPECT_EQ(status(a), "failed");
  EXPECT_EQ(status(b), "skipped");
  EXPECT_EQ(status(c), "skipped");
  EXPECT_EQ(status(other), "deployed");
  EXPECT_EQ(callsOf(b), 0) << "a skipped resource is never handed to its handler";
  bool skipLine = false;
  std::vector<store::ResourceAction> actionsOfB = deploys(b);
  ASSERT_FALSE(actionsOfB.empty());
  for (const json& line : actionsOfB.back().messages)
    if (line["msg"] == "Resource " + b.id() + ",v=1 skipped due to failed dependencies: ['" + a.id() + "']")
      skipLine = true;
  EXPECT_TRUE(skipLine);

  // only A changes; B and C are waiting (temporarily blocked) and run on A's recovery event
  a.fail = false;
  release({a, b, c, other});
  settle();
  EXPECT_EQ(status(a), "deployed");
  EXPECT_EQ(status(b), "deployed");
  EXPECT_EQ(status(c), "deployed");
  EXPECT_EQ(deploys(other).size(), 1u) << "an unchanged compliant resource is not redeployed";
  EXPECT_EQ(deploys(b).size(), 2u);
  EXPECT_EQ(reports_.back().reason, "a recovery event was received from " + b.id());
}

TEST_F(SchedulerTest, IncrementalReleaseDeploysOnlyWhatChanged) {
  Thing a{"a"}, b{"b"};
  start();
  release({a, b});
  settle();
  b.value = "changed";
  release({a, b});
  settle();
  EXPECT_EQ(deploys(a).size(), 1u);
  EXPECT_EQ(deploys(b).size(), 2u);
  EXPECT_EQ(deploys(b).back().change, "updated");
  EXPECT_EQ(world_.applied[b.id()], "changed");
}

TEST_F(SchedulerTest, AgentsRunInParallelAndOneAgentRunsOneAtATime) {
  Thing x1{"x1", "a1"}, y1{"y1", "a1"}, x2{"x2", "a2"};
  // x1 and x2 wait at their gates until both run at once: the lanes of a1 and a2 overlap, while
  // y1 (the same agent as x1) waits for x1
  {
    std::lock_guard<std::mutex> lock(world_.mutex);
    world_.gates = {x1.id(), x2.id()};
  }
  start();
  release({x1, y1, x2});
  {
    std::unique_lock<std::mutex> lock(world_.mutex);
    EXPECT_TRUE(world_.cv.wait_for(lock, std::chrono::seconds(5),
                                   [&] { return world_.running.count(x1.id()) && world_.running.count(x2.id()); }));
    EXPECT_EQ(world_.running.count(y1.id()), 0u);
    world_.gates.clear();
    world_.cv.notify_all();
  }
  settle();
  EXPECT_EQ(world_.maxRunningPerAgent["a1"], 1);
  for (const Thing& t : {x1, y1, x2}) EXPECT_EQ(status(t), "deployed");
}

TEST_F(SchedulerTest, WorkersBoundTheHandlerCallsRunningAtOnce) {
  std::vector<Thing> things;
  for (int i = 0; i < 6; ++i) things.push_back(Thing{"t" + std::to_string(i), "agent" + std::to_string(i)});
  start({0, 0, {}, {}}, 2);
  release(things);
  settle();
  EXPECT_LE(world_.maxRunning, 2);
  EXPECT_EQ(world_.calls.size(), 6u);
}

TEST_F(SchedulerTest, FailedResourceIsRetriedOnTheDeployTimerAndCompliantOnesRepaired) {
  Thing a{"a"}, b{"b"};
  a.fail = true;
  start({600, 86400, {}, {}});
  release({a, b});
  settle();
  EXPECT_EQ(callsOf(a), 1);
  clock_.advance(std::chrono::seconds(599));
  scheduler_->fireDueTimers();
  settle();
  EXPECT_EQ(callsOf(a), 1);
  clock_.advance(std::chrono::seconds(2));
  scheduler_->fireDueTimers();
  settle();
  EXPECT_EQ(callsOf(a), 2);
  EXPECT_EQ(callsOf(b), 1) << "the compliant one waits for its repair";
  EXPECT_EQ(reports_.back().reason, "previous deploy happened more than 600s ago");
  clock_.advance(std::chrono::seconds(86400));
  scheduler_->fireDueTimers();
  settle();
  EXPECT_EQ(callsOf(b), 2);
  EXPECT_TRUE(ranBecause(b, "previous repair happened more than 86400s ago"));
}

// Cron intervals (§6.7): one global deploy of what is not known to be compliant, one global repair
// of everything, at the times the expressions name, and no per-resource timers.
TEST_F(SchedulerTest, CronIntervalsRunAGlobalDeployAndAGlobalRepair) {
  Thing a{"a"}, b{"b"};
  a.fail = true;
  start({0, 0, Cron::parse("*/30 * * * *"), Cron::parse("0 0 * * *")});
  release({a, b});
  settle();
  EXPECT_EQ(callsOf(a), 1);
  EXPECT_EQ(callsOf(b), 1);
  clock_.advance(std::chrono::minutes(31));  // past a :00 or :30 mark, before the next
  scheduler_->fireDueTimers();
  settle();
  EXPECT_EQ(callsOf(a), 2) << "the failed one is deployed again";
  EXPECT_EQ(callsOf(b), 1) << "the compliant one waits for the repair";
  EXPECT_EQ(reports_.back().reason, "a global deploy was triggered by a cron expression");
  scheduler_->fireDueTimers();  // nothing more is due at the same time
  settle();
  EXPECT_EQ(callsOf(a), 2);
  clock_.advance(std::chrono::hours(24));  // past midnight
  scheduler_->fireDueTimers();
  settle();
  EXPECT_EQ(callsOf(b), 2);
  EXPECT_TRUE(ranBecause(b, "a global repair was triggered by a cron expression"));
}

TEST_F(SchedulerTest, ZeroIntervalsArmNoTimers) {
  Thing a{"a"};
  a.fail = true;
  start({0, 0, {}, {}});
  release({a});
  settle();
  clock_.advance(std::chrono::hours(24 * 30));
  scheduler_->fireDueTimers();
  settle();
  EXPECT_EQ(callsOf(a), 1);
}

TEST_F(SchedulerTest, EventsRunDependentsAndReloadFollowsARealChange) {
  Thing file{"file"}, service{"service"}, deaf{"deaf"};
  file.sendEvent = true;
  service.dependencies = {file.id()};
  deaf.dependencies = {file.id()};
  deaf.receiveEvents = false;
  start();
  release({file, service, deaf});
  settle();
  EXPECT_TRUE(world_.reloaded.count(service.id())) << "the file was created after the service's last success";
  world_.reloaded.clear();

  // a repair: the file runs without change, the event runs the service, which does not reload
  scheduler_->deploy(true);
  settle();
  EXPECT_EQ(callsOf(service), 2);
  EXPECT_FALSE(world_.reloaded.count(service.id()));

  file.value = "new content";
  release({file, service, deaf});
  settle();
  EXPECT_EQ(callsOf(service), 3) << "an event-triggered run";
  EXPECT_TRUE(world_.reloaded.count(service.id()));
  EXPECT_EQ(callsOf(deaf), 2) << "receive_events=false: only the repair ran it again";
}

// The event flags read as the handlers read them: an attribute that is not a boolean (a module
// that leaves it null) counts as its default instead of failing the run's bookkeeping.
TEST_F(SchedulerTest, EventFlagsThatAreNotBooleansCountAsTheirDefaults) {
  Thing file{"file"}, service{"service"};
  file.extra = {{"send_event", nullptr}};
  service.dependencies = {file.id()};
  service.extra = {{"receive_events", "yes"}};
  start();
  release({file, service});
  settle();
  EXPECT_EQ(status(file), "deployed");
  EXPECT_EQ(status(service), "deployed");
  ASSERT_EQ(deploys(file).size(), 1u);
  EXPECT_EQ(deploys(file)[0].send_event, false);
  scheduler_->deploy(true);  // a repair: no event from the file runs the service a third time
  settle();
  EXPECT_EQ(callsOf(service), 2);
}

TEST_F(SchedulerTest, UserDeployRunsDirtyResourcesAndUserRepairRunsAll) {
  Thing a{"a"}, b{"b"};
  start();
  release({a, b});
  settle();
  scheduler_->deploy(false);
  settle();
  EXPECT_EQ(callsOf(a), 1);
  clock_.advance(std::chrono::seconds(1));
  scheduler_->deploy(true);
  settle();
  EXPECT_EQ(callsOf(a), 2);
  EXPECT_EQ(callsOf(b), 2);
  EXPECT_EQ(deploys(a).back().change, "nochange");
}

TEST_F(SchedulerTest, UndefinedResourcesAndTheirDependentsAreNeverRun) {
  Thing u{"u"}, d{"d"}, free{"free"};
  u.undefined = true;
  d.dependencies = {u.id()};
  start({600, 600, {}, {}});
  release({u, d, free});
  settle();
  EXPECT_EQ(status(u), "undefined");
  EXPECT_EQ(status(d), "skipped_for_undefined");
  EXPECT_EQ(callsOf(u) + callsOf(d), 0);
  scheduler_->deploy(true);
  clock_.advance(std::chrono::seconds(3600));
  scheduler_->fireDueTimers();
  settle();
  EXPECT_EQ(callsOf(u) + callsOf(d), 0);
  // known in the next version: they deploy
  u.undefined = false;
  release({u, d, free});
  settle();
  EXPECT_EQ(status(u), "deployed");
  EXPECT_EQ(status(d), "deployed");
}

TEST_F(SchedulerTest, StaleRunDoesNotMarkTheNewIntentDeployed) {
  Thing r{"r"};
  {
    std::lock_guard<std::mutex> lock(world_.mutex);
    world_.gates = {r.id()};
  }
  start();
  release({r});
  {
    std::unique_lock<std::mutex> lock(world_.mutex);
    ASSERT_TRUE(world_.cv.wait_for(lock, std::chrono::seconds(5), [&] { return world_.running.count(r.id()) != 0; }));
  }
  r.value = "second";
  release({r});
  {
    std::lock_guard<std::mutex> lock(world_.mutex);
    world_.gates.clear();
    world_.cv.notify_all();
  }
  settle();
  ASSERT_EQ(world_.runs.size(), 2u);
  EXPECT_EQ(world_.runs[0].second, "v");
  EXPECT_EQ(world_.runs[1].second, "second");
  EXPECT_EQ(status(r), "deployed");
  EXPECT_EQ(store_->getResourceState(env_, r.id())->last_deployed_version, 2);
  EXPECT_TRUE(reports_.front().stale);
  EXPECT_FALSE(reports_.back().stale);
}

TEST_F(SchedulerTest, RestartClearsDeployingAndRedeploysWhatDidNotFinish) {
  Thing done{"done"}, interrupted{"interrupted"};
  start();
  release({done, interrupted});
  settle();
  scheduler_.reset();
  // as if the process died while `interrupted` ran a new intent: flag set, action open
  interrupted.value = "new";
  std::int64_t v2 = release({done, interrupted}, false);
  store_->setLastProcessedVersion(env_, v2);
  store::ResourceState state = *store_->getResourceState(env_, interrupted.id());
  state.is_deploying = true;
  store::ResourceAction open;
  open.environment = env_;
  open.version = v2;
  open.resource_version_ids = {util::versionedId(interrupted.id(), v2)};
  open.action = "deploy";
  open.started = clock_.now();
  open.status = "deploying";
  store_->insertResourceAction(open, {state});
  EXPECT_EQ(status(interrupted), "deploying");

  start();
  settle();
  EXPECT_EQ(status(interrupted), "deployed");
  EXPECT_EQ(world_.applied[interrupted.id()], "new");
  EXPECT_EQ(callsOf(done), 1) << "a compliant resource is not redeployed at start";
  for (const store::ResourceAction& action : deploys(interrupted)) EXPECT_TRUE(action.finished.has_value());
}

TEST_F(SchedulerTest, DryRunRecordsChangesAndChangesNothing) {
  Thing a{"a"}, u{"u"};
  start();
  release({a});
  settle();
  a.value = "other";
  u.undefined = true;
  store::NewVersion candidate;  // stored, not released
  std::int64_t v2 = release({a, u}, false);
  (void)candidate;
  store::DryRun dryrun = store_->createDryRun(env_, v2, 2);
  scheduler_->dryRun(dryrun.id, v2);
  settle();
  EXPECT_FALSE(scheduler_->dryRunPending(dryrun.id));
  store::DryRun recorded = *store_->getDryRun(env_, dryrun.id);
  EXPECT_EQ(recorded.todo, 0);
  json changes = recorded.resources[util::versionedId(a.id(), v2)]["changes"];
  EXPECT_EQ(changes, (json{{"value", {{"current", "v"}, {"desired", "other"}}}}));
  EXPECT_EQ(recorded.resources[util::versionedId(u.id(), v2)]["diff_status"], "undefined");
  EXPECT_EQ(world_.applied[a.id()], "v") << "a dry-run changes nothing";
  EXPECT_EQ(deploys(a).size(), 1u);
}

TEST_F(SchedulerTest, ADryRunsOnlySchedulerReadsTheManagedStateOnlyWhenAVersionIsReleased) {
  Thing a{"a"}, b{"b"};
  start();
  release({a});
  settle();
  EXPECT_EQ(callsOf(a), 1);
  scheduler_->stop();
  // a new version, stored and released while no scheduler ran (the resume mode would deploy it)
  a.value = "other";
  std::int64_t candidate = release({a, b}, false);
  startMode_ = StartMode::dryRunsOnly;
  start();
  EXPECT_FALSE(scheduler_->activeVersion().has_value()) << "nothing is read at start";
  store::DryRun dryrun = store_->createDryRun(env_, candidate, 2);
  scheduler_->dryRun(dryrun.id, candidate);
  settle();
  store::DryRun recorded = *store_->getDryRun(env_, dryrun.id);
  EXPECT_EQ(recorded.todo, 0);
  EXPECT_EQ(recorded.resources[util::versionedId(a.id(), candidate)]["changes"],
            (json{{"value", {{"current", "v"}, {"desired", "other"}}}}));
  EXPECT_EQ(callsOf(a), 2);  // the first deploy and the dry-run
  EXPECT_EQ(world_.applied[a.id()], "v");
  EXPECT_EQ(deploys(a).size(), 1u);
  // told of the release, it reads the state then, and deploys the newer version
  scheduler_->versionReleased(candidate);
  settle();
  EXPECT_EQ(scheduler_->activeVersion(), candidate);
  EXPECT_EQ(world_.applied[a.id()], "other");
  EXPECT_EQ(status(b), "deployed");
  EXPECT_EQ(deploys(a).size(), 2u);
}

TEST_F(SchedulerTest, StopEndsWhenTheRunningCallEndsWhileWorkIsQueued) {
  // x runs (held at its gate) with y and z queued on the same agent; stop() waits for x only, and
  // returns when x ends, not at the end of its grace period
  Thing x{"x"}, y{"y"}, z{"z"};
  {
    std::lock_guard<std::mutex> lock(world_.mutex);
    world_.gates = {x.id()};
  }
  start();
  release({x, y, z});
  {
    std::unique_lock<std::mutex> lock(world_.mutex);
    ASSERT_TRUE(world_.cv.wait_for(lock, std::chrono::seconds(5), [&] { return world_.running.count(x.id()) > 0; }));
  }
  auto stopping = std::async(std::launch::async, [this] {
    auto begun = std::chrono::steady_clock::now();
    bool finished = scheduler_->stop(std::chrono::seconds(60));
    return std::make_pair(finished, std::chrono::steady_clock::now() - begun);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // stop() is waiting for x
  {
    std::lock_guard<std::mutex> lock(world_.mutex);
    world_.gates.clear();
    world_.cv.notify_all();
  }
  auto [finished, took] = stopping.get();
  EXPECT_TRUE(finished);
  EXPECT_LT(took, std::chrono::seconds(30)) << "stop() waited for its grace period";
  EXPECT_EQ(callsOf(x), 1);
}

TEST_F(SchedulerTest, PausedAgentWaitsUntilUnpaused) {
  Thing x{"x", "a1"}, y{"y", "a2"};
  store_->registerAgents(env_, {"a1", "a2"});
  store_->setAgentPaused(env_, "a1", true);
  start();
  release({x, y});
  ASSERT_FALSE(scheduler_->waitIdle(std::chrono::steady_clock::now() + std::chrono::milliseconds(300)));
  EXPECT_EQ(status(y), "deployed");
  EXPECT_EQ(callsOf(x), 0);
  store_->setAgentPaused(env_, "a1", false);
  scheduler_->agentsChanged();
  settle();
  EXPECT_EQ(status(x), "deployed");
}

TEST_F(SchedulerTest, RemovedResourcesAreForgotten) {
  Thing a{"a"}, g{"g"};
  start({600, 600, {}, {}});
  release({a, g});
  settle();
  release({a});
  settle();
  scheduler_->deploy(true);
  clock_.advance(std::chrono::seconds(700));
  scheduler_->fireDueTimers();
  settle();
  EXPECT_EQ(callsOf(g), 1);
  EXPECT_TRUE(store_->getResourceState(env_, g.id())->orphaned_after.has_value());
}

}  // namespace
}  // namespace inmanta::scheduler
