// The handler contract of spec §7.1 without any std handler: Context, the registry's selection
// (§7.3) and the CRUD and plain execute flows, driven by handlers whose steps a test scripts.
#include <gtest/gtest.h>

#include <sched.h>

#include <functional>
#include <thread>
#include <tuple>

#include "embedded/handlers/crud.h"
#include "embedded/handlers/diff.h"
#include "embedded/handlers/foreign.h"
#include "util/thread_policy.h"

namespace inmanta::handlers {
namespace {

using nlohmann::json;

std::string fixedClock() { return "2026-11-22T10:04:05.123456+00:00"; }

ResourceIntent intent(json attributes) {
  ResourceIntent r;
  r.resource_id = "test::Thing[agent1,name=a]";
  r.type = "test::Thing";
  r.agent = "agent1";
  r.id_attribute = "name";
  r.id_value = "a";
  r.version = 7;
  r.attributes = std::move(attributes);
  return r;
}

// A CRUD handler whose steps are lambdas; it records which steps ran.
class ScriptedCrud final : public CrudHandler {
 public:
  ScriptedCrud() : CrudHandler("scripted") {}
  std::function<void(const ResourceIntent&, json&)> read = [](const ResourceIntent&, json&) {};
  std::function<void(Context&)> create = [](Context& ctx) { ctx.setCreated(); };
  std::function<void(Context&, const json&)> update = [](Context& ctx, const json&) { ctx.setUpdated(); };
  std::function<void(Context&)> remove = [](Context& ctx) { ctx.setPurged(); };
  std::function<void()> postStep = [] {};
  std::vector<std::string> steps;

 private:
  void readResource(Context&, const ResourceIntent& desired, json& current) override {
    steps.push_back("read");
    read(desired, current);
  }
  void createResource(Context& ctx, const ResourceIntent&) override {
    steps.push_back("create");
    create(ctx);
  }
  void updateResource(Context& ctx, const json& changes, const ResourceIntent&) override {
    steps.push_back("update");
    update(ctx, changes);
  }
  void deleteResource(Context& ctx, const ResourceIntent&) override {
    steps.push_back("delete");
    remove(ctx);
  }
  void post(Context&, const ResourceIntent&) override {
    steps.push_back("post");
    postStep();
  }
};

std::vector<std::string> messages(const Context& ctx) {
  std::vector<std::string> out;
  for (const auto& line : ctx.logs()) out.push_back(line.level + " " + line.msg);
  return out;
}

// --- Context ------------------------------------------------------------------------------------

TEST(Context, LogLinesHaveTheReferenceShape) {
  Context ctx(false, fixedClock);
  ctx.info("hello", {{"x", 1}});
  ASSERT_EQ(ctx.logs().size(), 1u);
  EXPECT_EQ(ctx.logs()[0].toJson(), json::parse(R"({"level": "INFO", "msg": "hello", "args": [], "kwargs": {"x": 1},
                                           "timestamp": "2026-11-22T10:04:05.123456+00:00"})"));
}

// A line's text (what a resource action's messages hold) is its JSON form written compactly, byte
// for byte: quotes, control characters and UTF-8 in the texts, kwargs of every kind.
TEST(Context, ALineAsTextIsItsJsonForm) {
  std::vector<LogLine> lines = {
      makeLogLine("INFO", "plain", json::object(), "2026-11-22T10:04:05.123456+00:00"),
      makeLogLine("ERROR", "a \"quoted\"\tline\n\x01 \xc3\xa9\xe2\x82\xac \\ end",
                  {{"resource", {{"agent_name", "a"}, {"version", 3}}}, {"list", {1, 2.5, nullptr, true}}}, "t"),
      makeLogLine("DEBUG", "", json::array({"not", "an", "object"}), ""),
      makeLogLine("WARNING", "null kwargs", nullptr, "t2"),
      LogLine{"DEBUG", "written", nullptr, "t3", R"({"a":"x\"y","b":{"c":1}})"},
  };
  std::string text = "[";
  appendLogLinesText(text, lines);
  text += ']';
  json expected = json::array();
  for (const LogLine& line : lines) expected.push_back(line.toJson());
  EXPECT_EQ(text, expected.dump());
  for (const LogLine& line : lines) {
    std::string one;
    appendLogLineText(one, line);
    EXPECT_EQ(one, line.toJson().dump());
    EXPECT_EQ(json::parse(one)["msg"], line.msg);
  }
  EXPECT_EQ(lines.back().kwargsJson(), json::parse(R"({"a": "x\"y", "b": {"c": 1}})"));
  Context ctx(false, fixedClock);
  ctx.logWritten("DEBUG", "m", R"({"k":[1,2]})");
  EXPECT_EQ(ctx.logs()[0].toJson(), json::parse(R"({"level": "DEBUG", "msg": "m", "args": [], "kwargs": {"k": [1, 2]},
                                                   "timestamp": "2026-11-22T10:04:05.123456+00:00"})"));
}

TEST(Context, SystemClockTimestampsAreIsoUtcWithMicroseconds) {
  Context ctx(false);
  ctx.debug("x");
  std::string stamp = ctx.logs()[0].timestamp;
  ASSERT_EQ(stamp.size(), 32u) << stamp;
  EXPECT_EQ(stamp[10], 'T');
  EXPECT_EQ(stamp[19], '.');
  EXPECT_EQ(stamp.substr(26), "+00:00");
}

TEST(Context, ChangeKindIsSetOnce) {
  Context ctx(false);
  EXPECT_EQ(ctx.change(), Change::nochange);
  ctx.setCreated();
  EXPECT_EQ(ctx.change(), Change::created);
  try {
    ctx.setUpdated();
    FAIL() << "a second change kind was accepted";
  } catch (const HandlerError& e) {
    EXPECT_EQ(e.kind, "InvalidOperation");
    EXPECT_STREQ(e.what(), "Unable to set updated operation, created already set.");
  }
  EXPECT_EQ(ctx.change(), Change::created);
}

TEST(Context, NamesOfChangesAndResults) {
  EXPECT_STREQ(changeName(Change::purged), "purged");
  EXPECT_STREQ(resultName(ResultState::skipped_for_dependency), "skipped_for_dependency");
  EXPECT_STREQ(resultName(ResultState::non_compliant), "non_compliant");
}

TEST(PythonRepr, QuotesAsPython) {
  EXPECT_EQ(pythonRepr("abc"), "'abc'");
  EXPECT_EQ(pythonRepr("it's"), "\"it's\"");
  EXPECT_EQ(pythonRepr("it's \"x\""), "'it\\'s \"x\"'");
  EXPECT_EQ(pythonRepr("a\nb\\"), "'a\\nb\\\\'");
}

TEST(ResourceIntent, FlagAndTextFallBackOnNullAndOtherTypes) {
  ResourceIntent r = intent({{"purged", true}, {"owner", nullptr}, {"name", "a"}, {"n", 3}});
  EXPECT_TRUE(r.flag("purged"));
  EXPECT_FALSE(r.flag("missing"));
  EXPECT_TRUE(r.flag("n", true));
  EXPECT_EQ(r.text("owner", "x"), "x");
  EXPECT_EQ(r.text("name"), "a");
  EXPECT_EQ(r.versionedId(), "test::Thing[agent1,name=a],v=7");
}

// --- registry -----------------------------------------------------------------------------------

HandlerRegistry::Factory scriptedFactory() {
  return [](const HandlerServices&) { return std::make_unique<ScriptedCrud>(); };
}

TEST(Registry, PicksTheSingleAvailableHandler) {
  HandlerRegistry registry;
  registry.add(
      "test::Thing", "never", [](const HandlerServices&) { return false; }, scriptedFactory());
  registry.add(
      "test::Thing", "always", [](const HandlerServices&) { return true; }, scriptedFactory());
  std::string why;
  EXPECT_NE(registry.find("test::Thing", {}, why), nullptr);
  EXPECT_TRUE(registry.knows("test::Thing"));
  EXPECT_FALSE(registry.knows("test::Other"));
}

TEST(Registry, NoneRegisteredNoneAvailableOrTwoAvailableGiveNoHandlerAndAReason) {
  HandlerRegistry registry;
  std::string why;
  EXPECT_EQ(registry.find("test::Thing", {}, why), nullptr);
  EXPECT_EQ(why, "no handler is registered for test::Thing");

  registry.add(
      "test::Thing", "a", [](const HandlerServices&) { return false; }, scriptedFactory());
  EXPECT_EQ(registry.find("test::Thing", {}, why), nullptr);
  EXPECT_EQ(why, "no handler for test::Thing is available on this machine (tried: a)");

  registry.add(
      "test::Thing", "b", [](const HandlerServices&) { return true; }, scriptedFactory());
  registry.add(
      "test::Thing", "c", [](const HandlerServices&) { return true; }, scriptedFactory());
  EXPECT_EQ(registry.find("test::Thing", {}, why), nullptr);
  EXPECT_EQ(why, "more than one handler is available for test::Thing: b, c");
}

// --- the CRUD flow ------------------------------------------------------------------------------

TEST(ForeignFlow, TheModulesCodeRunsWithTheNormalSchedulingPolicy) {
  // a scheduler's worker runs with SCHED_BATCH (util/thread_policy.h); the thread of the call, and
  // so what the module's Python code starts, does not keep it
  int policyOfCall = -1;
  ForeignHandler handler(
      [&policyOfCall](const std::string&) {
        policyOfCall = sched_getscheduler(0);
        return std::string(R"({"status": "deployed", "change": "nochange"})");
      },
      std::chrono::seconds(10));
  Context ctx(false, fixedClock);
  std::thread worker([&] {
    ASSERT_TRUE(util::useBatchScheduling());
    handler.execute(ctx, intent({{"purged", false}}));
    EXPECT_TRUE(util::batchScheduling());
  });
  worker.join();
  EXPECT_EQ(policyOfCall, SCHED_OTHER);
  EXPECT_EQ(ctx.status(), ResultState::deployed);
}

TEST(CrudFlow, MissingItemIsCreated) {
  ScriptedCrud handler;
  handler.read = [](const ResourceIntent&, json&) { throw ResourcePurged(); };
  Context ctx(false, fixedClock);
  handler.execute(ctx, intent({{"purged", false}}));
  EXPECT_EQ(ctx.changes(), json::parse(R"({"purged": {"current": true, "desired": false}})"));
  EXPECT_EQ(ctx.change(), Change::created);
  EXPECT_EQ(ctx.status(), ResultState::deployed);
  EXPECT_EQ(handler.steps, (std::vector<std::string>{"read", "create", "post"}));
  EXPECT_EQ(messages(ctx), (std::vector<std::string>{"DEBUG Calling read_resource", "DEBUG Calling create_resource"}));
}

TEST(CrudFlow, MissingItemThatShouldBeGoneIsCompliant) {
  ScriptedCrud handler;
  handler.read = [](const ResourceIntent&, json&) { throw ResourcePurged(); };
  Context ctx(false);
  handler.execute(ctx, intent({{"purged", true}}));
  EXPECT_EQ(ctx.changes(), json::object());
  EXPECT_EQ(ctx.change(), Change::nochange);
  EXPECT_EQ(ctx.status(), ResultState::deployed);
  EXPECT_EQ(handler.steps, (std::vector<std::string>{"read", "post"}));
}

TEST(CrudFlow, AReadThatSetsPurgedIsAReadThatThrowsResourcePurged) {
  // the std handlers' way (no exception to unwind): the same changes, steps and lines, both ways
  auto run = [](bool throws, bool desiredPurged) {
    ScriptedCrud handler;
    handler.read = [throws](const ResourceIntent&, json& current) {
      current["mode"] = 600;  // seen before it found the item gone: no diff is made of it
      if (throws) throw ResourcePurged();
      current["purged"] = true;
    };
    Context ctx(false, fixedClock);
    handler.execute(ctx, intent({{"purged", desiredPurged}, {"mode", 644}}));
    return std::make_tuple(ctx.changes(), ctx.change(), ctx.status(), handler.steps, messages(ctx));
  };
  for (bool desiredPurged : {false, true}) {
    auto thrown = run(true, desiredPurged);
    EXPECT_EQ(run(false, desiredPurged), thrown);
    EXPECT_EQ(std::get<0>(thrown),
              desiredPurged ? json::object() : json::parse(R"({"purged": {"current": true, "desired": false}})"));
    EXPECT_EQ(std::get<3>(thrown), desiredPurged ? (std::vector<std::string>{"read", "post"})
                                                 : (std::vector<std::string>{"read", "create", "post"}));
  }
}

TEST(CrudFlow, ExistingItemThatShouldBeGoneIsDeletedWithItsOtherDifferences) {
  ScriptedCrud handler;
  handler.read = [](const ResourceIntent&, json& current) { current["mode"] = 600; };
  Context ctx(false);
  handler.execute(ctx, intent({{"purged", true}, {"mode", 644}}));
  EXPECT_EQ(ctx.changes(), json::parse(R"({"purged": {"current": false, "desired": true},
                                           "mode": {"current": 600, "desired": 644}})"));
  EXPECT_EQ(ctx.change(), Change::purged);
  EXPECT_EQ(handler.steps, (std::vector<std::string>{"read", "delete", "post"}));
}

TEST(CrudFlow, GenericDiffSkipsNullAndEqualDesiredValues) {
  ScriptedCrud handler;
  handler.read = [](const ResourceIntent&, json& current) {
    current["same"] = "x";
    current["unset"] = "observed";
    current["differs"] = 1;
    current["number"] = 644;
  };
  json seen;
  handler.update = [&](Context& ctx, const json& changes) {
    seen = changes;
    ctx.setUpdated();
  };
  Context ctx(false, fixedClock);
  handler.execute(ctx,
                  intent({{"purged", false}, {"same", "x"}, {"unset", nullptr}, {"differs", 2}, {"number", 644.0}}));
  json expected = json::parse(R"({"differs": {"current": 1, "desired": 2}})");
  EXPECT_EQ(ctx.changes(), expected);
  EXPECT_EQ(seen, expected);
  EXPECT_EQ(ctx.change(), Change::updated);
  ASSERT_EQ(ctx.logs().size(), 2u);
  EXPECT_EQ(ctx.logs()[1].msg, "Calling update_resource");
  EXPECT_EQ(ctx.logs()[1].kwargs, json({{"changes", expected}}));
}

TEST(CrudFlow, NoChangeCallsNothing) {
  ScriptedCrud handler;
  handler.read = [](const ResourceIntent&, json& current) { current["v"] = 1; };
  Context ctx(false);
  handler.execute(ctx, intent({{"purged", false}, {"v", 1}}));
  EXPECT_EQ(ctx.changes(), json::object());
  EXPECT_EQ(ctx.change(), Change::nochange);
  EXPECT_EQ(ctx.status(), ResultState::deployed);
  EXPECT_EQ(handler.steps, (std::vector<std::string>{"read", "post"}));
}

TEST(CrudFlow, DryRunRecordsChangesAndCallsNoWriteStep) {
  ScriptedCrud handler;
  handler.read = [](const ResourceIntent&, json&) { throw ResourcePurged(); };
  Context ctx(true);
  handler.execute(ctx, intent({{"purged", false}}));
  EXPECT_EQ(ctx.changes(), json::parse(R"({"purged": {"current": true, "desired": false}})"));
  EXPECT_EQ(ctx.status(), ResultState::dry);
  EXPECT_EQ(ctx.change(), Change::nochange);
  EXPECT_EQ(handler.steps, (std::vector<std::string>{"read", "post"}));
}

TEST(CrudFlow, ReportOnlyWithChangesIsNonCompliantAndChangesNothing) {
  ScriptedCrud handler;
  handler.read = [](const ResourceIntent&, json& current) { current["v"] = 1; };
  Context ctx(false);
  handler.execute(ctx, intent({{"purged", false}, {"v", 2}, {"report_only", true}}));
  EXPECT_EQ(ctx.status(), ResultState::non_compliant);
  EXPECT_EQ(ctx.changes(), json::parse(R"({"v": {"current": 1, "desired": 2}})"));
  EXPECT_EQ(handler.steps, (std::vector<std::string>{"read", "post"}));
  EXPECT_EQ(messages(ctx).back(), "INFO Resource test::Thing[agent1,name=a] was marked as non-compliant.");
}

TEST(CrudFlow, ReportOnlyWithoutChangesIsDeployed) {
  ScriptedCrud handler;
  Context ctx(false);
  handler.execute(ctx, intent({{"purged", false}, {"report_only", true}}));
  EXPECT_EQ(ctx.status(), ResultState::deployed);
  EXPECT_EQ(messages(ctx).size(), 1u);
}

TEST(CrudFlow, ErrorFailsTheRunWithTheReferenceLineAndKeepsEarlierChanges) {
  ScriptedCrud handler;
  handler.read = [](const ResourceIntent&, json&) { throw ResourcePurged(); };
  handler.create = [](Context&) {
    throw HandlerError("FileNotFoundError", "[Errno 2] No such file or directory: '/x/y'");
  };
  Context ctx(false, fixedClock);
  handler.execute(ctx, intent({{"purged", false}}));
  EXPECT_EQ(ctx.status(), ResultState::failed);
  EXPECT_EQ(ctx.changes(), json::parse(R"({"purged": {"current": true, "desired": false}})"));
  const LogLine& error = ctx.logs().back();
  EXPECT_EQ(error.level, "ERROR");
  EXPECT_EQ(error.msg,
            "An error occurred during deployment of test::Thing[agent1,name=a] (exception: "
            "FileNotFoundError('[Errno 2] No such file or directory: '/x/y''))");
  EXPECT_EQ(error.kwargs["exception"], "FileNotFoundError('[Errno 2] No such file or directory: '/x/y'')");
  EXPECT_EQ(error.kwargs["resource_id"], "test::Thing[agent1,name=a]");
  std::string traceback = error.kwargs["traceback"];
  EXPECT_NE(traceback.find("in create_resource"), std::string::npos) << traceback;
  EXPECT_NE(traceback.find("FileNotFoundError: [Errno 2]"), std::string::npos) << traceback;
  EXPECT_EQ(handler.steps.back(), "post");
}

TEST(CrudFlow, AnyStdExceptionFailsAsException) {
  ScriptedCrud handler;
  handler.read = [](const ResourceIntent&, json&) { throw std::runtime_error("boom"); };
  Context ctx(false);
  handler.execute(ctx, intent({{"purged", false}}));
  EXPECT_EQ(ctx.status(), ResultState::failed);
  EXPECT_EQ(ctx.logs().back().kwargs["exception"], "Exception('boom')");
}

TEST(CrudFlow, SettingTheChangeKindTwiceFailsAsInvalidOperation) {
  ScriptedCrud handler;
  handler.read = [](const ResourceIntent&, json&) { throw ResourcePurged(); };
  handler.create = [](Context& ctx) {
    ctx.setCreated();
    ctx.setUpdated();
  };
  Context ctx(false);
  handler.execute(ctx, intent({{"purged", false}}));
  EXPECT_EQ(ctx.status(), ResultState::failed);
  EXPECT_EQ(ctx.change(), Change::created);
  EXPECT_EQ(ctx.logs().back().kwargs["exception"],
            "InvalidOperation('Unable to set updated operation, created already set.')");
}

TEST(CrudFlow, SkipResourceAndSkipForDependencies) {
  ScriptedCrud handler;
  handler.read = [](const ResourceIntent&, json&) { throw SkipResource("not now"); };
  Context ctx(false);
  handler.execute(ctx, intent({{"purged", false}}));
  EXPECT_EQ(ctx.status(), ResultState::skipped);
  EXPECT_EQ(messages(ctx).back(), "WARNING Resource test::Thing[agent1,name=a] was skipped: ('not now',)");

  ScriptedCrud other;
  other.read = [](const ResourceIntent&, json&) { throw SkipResourceForDependencies("waiting"); };
  Context ctx2(false);
  other.execute(ctx2, intent({{"purged", false}}));
  EXPECT_EQ(ctx2.status(), ResultState::skipped_for_dependency);
  EXPECT_EQ(messages(ctx2).back(), "WARNING Resource test::Thing[agent1,name=a] was skipped: ('waiting',)");
}

TEST(CrudFlow, AFailingPostIsLoggedAndKeepsTheResult) {
  ScriptedCrud handler;
  handler.postStep = [] { throw HandlerError("Exception", "cleanup"); };
  Context ctx(false);
  handler.execute(ctx, intent({{"purged", false}}));
  EXPECT_EQ(ctx.status(), ResultState::deployed);
  EXPECT_EQ(messages(ctx).back(),
            "ERROR An error occurred after deployment of test::Thing[agent1,name=a] (exception: Exception('cleanup'))");
}

// --- the plain flow -----------------------------------------------------------------------------

class ScriptedPlain final : public PlainHandler {
 public:
  ScriptedPlain() : PlainHandler("plain") {}
  json observed = json::object();
  std::vector<json> applied;

 private:
  json checkResource(Context&, const ResourceIntent&) override { return observed; }
  void doChanges(Context& ctx, const ResourceIntent&, const json& changes) override {
    applied.push_back(changes);
    if (!changes.empty()) ctx.setUpdated();
  }
};

TEST(PlainFlow, ChangesAreDiffedAndApplied) {
  ScriptedPlain handler;
  handler.observed = {{"state", "stopped"}, {"onboot", true}};
  Context ctx(false);
  handler.execute(ctx, intent({{"state", "running"}, {"onboot", true}}));
  EXPECT_EQ(ctx.changes(), json::parse(R"({"state": {"current": "stopped", "desired": "running"}})"));
  EXPECT_EQ(ctx.status(), ResultState::deployed);
  EXPECT_EQ(ctx.change(), Change::updated);
  ASSERT_EQ(handler.applied.size(), 1u);
}

TEST(PlainFlow, DoChangesRunsAlsoWithoutChanges) {
  ScriptedPlain handler;
  handler.observed = {{"state", "running"}};
  Context ctx(false);
  handler.execute(ctx, intent({{"state", "running"}}));
  EXPECT_EQ(ctx.status(), ResultState::deployed);
  EXPECT_EQ(ctx.change(), Change::nochange);
  EXPECT_EQ(handler.applied, (std::vector<json>{json::object()}));
}

TEST(PlainFlow, DryRunAndReportOnlyApplyNothing) {
  ScriptedPlain handler;
  handler.observed = {{"state", "stopped"}};
  Context dry(true);
  handler.execute(dry, intent({{"state", "running"}}));
  EXPECT_EQ(dry.status(), ResultState::dry);
  Context report(false);
  handler.execute(report, intent({{"state", "running"}, {"report_only", true}}));
  EXPECT_EQ(report.status(), ResultState::non_compliant);
  EXPECT_TRUE(handler.applied.empty());
}

// --- diffs --------------------------------------------------------------------------------------

TEST(UnifiedDiff, ShowsTheChangedLinesWithContext) {
  EXPECT_EQ(unifiedDiff("same\n", "same\n", "a", "b"), "");
  EXPECT_EQ(unifiedDiff("one\ntwo\nthree\n", "one\n2\nthree\n", "current", "desired"),
            "--- current\n+++ desired\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n");
  EXPECT_EQ(unifiedDiff("x", "x\n", "a", "b"), "--- a\n+++ b\n@@ -1,1 +1,1 @@\n-x\n\\ No newline at end of file\n+x\n");
}

}  // namespace
}  // namespace inmanta::handlers
