// The executor processes of the modules' Python handlers (python_executors.h), with shell scripts in
// the place of `inmanta executor`: they speak the same JSON lines, so the process handling — the code
// written out, the handshake, calls, a load error, a hung call stopped, a new process after it — is
// tested with real processes and without Python. The real executor is tested end to end
// (tests/e2e/server_deploy_test.py).
#include "embedded/agent/python_executors.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <thread>

namespace inmanta::agent {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

TEST(CodeFilePath, EveryPythonModuleIsAPackageUnderItsModulesPlugins) {
  EXPECT_EQ(codeFilePath("runner", "inmanta_plugins.runner", false), "runner/plugins/__init__.py");
  EXPECT_EQ(codeFilePath("runner", "inmanta_plugins.runner.sub.deep", false), "runner/plugins/sub/deep/__init__.py");
  EXPECT_EQ(codeFilePath("runner", "inmanta_plugins.runner.x", true), "runner/plugins/x/__init__.pyc");
}

TEST(CodeFilePath, NamesThatLeaveTheirModuleAreRefused) {
  EXPECT_FALSE(codeFilePath("runner", "inmanta_plugins.other", false));
  EXPECT_FALSE(codeFilePath("runner", "runner", false));
  EXPECT_FALSE(codeFilePath("runner", "inmanta_plugins.runner..x", false));
  EXPECT_FALSE(codeFilePath("runner", "inmanta_plugins.runner.a/b", false));
  EXPECT_FALSE(codeFilePath("runner", "inmanta_plugins.runner.1x", false));
  EXPECT_FALSE(codeFilePath("../x", "inmanta_plugins.../x", false));
}

class PythonExecutorsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("inmanta-executors-test-" + std::to_string(getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "code");
  }
  void TearDown() override { fs::remove_all(dir_); }

  // A stand-in for `inmanta executor`: `body` runs in sh with the code folder as $3.
  std::string script(const std::string& body) {
    fs::path path = dir_ / ("executor-" + std::to_string(++scripts_) + ".sh");
    std::ofstream(path) << "#!/bin/sh\n" << body;
    fs::permissions(path, fs::perms::owner_all);
    return path.string();
  }

  PythonExecutorsConfig config(const std::string& executable) {
    PythonExecutorsConfig c;
    c.codeRoot = (dir_ / "code").string();
    c.executable = executable;
    c.callTimeout = std::chrono::milliseconds(500);
    c.startTimeout = std::chrono::seconds(10);
    return c;
  }

  FileSource files() {
    return [this](const std::string& hash) -> std::optional<std::string> {
      ++fileReads_;
      if (hash == "aaaa") return std::string("print('plugin')\n");
      return std::nullopt;
    };
  }

  static json info(const std::string& hash = "aaaa") {
    return {{"std", {{"name", "std"}, {"version", "s"}, {"files_in_module", json::array()}}},
            {"runner",
             {{"name", "runner"},
              {"version", "v1"},
              {"for_agents", {"internal"}},
              {"files_in_module",
               {{{"name", "inmanta_plugins.runner.sub"}, {"hash_value", hash}, {"is_byte_code", false}}}}}}};
  }

  static handlers::ResourceIntent intent() {
    handlers::ResourceIntent r;
    r.resource_id = "runner::Run[internal,name=x]";
    r.type = "runner::Run";
    r.agent = "internal";
    r.version = 1;
    return r;
  }

  fs::path dir_;
  int scripts_ = 0;
  int fileReads_ = 0;
};

const char* const kAnswering =
    "[ -d \"$3/slowmod\" ] && sleep 2\n"
    "echo '{\"handlers\": [\"runner::Run\"]}'\n"
    "echo \"started\" >> \"$3/../starts\"\n"
    "while read line; do\n"
    "  case \"$line\" in\n"
    "    *hang*) sleep 30 ;;\n"
    "    *crash*) exit 3 ;;\n"
    "    *) echo '{\"status\": \"deployed\", \"change\": \"created\", \"changes\": {}, \"logs\": [{\"level\": "
    "\"INFO\", \"msg\": \"ran\", \"kwargs\": {}}]}' ;;\n"
    "  esac\n"
    "done\n";

TEST_F(PythonExecutorsTest, TheCodeIsWrittenOnceAndTheHandlersRunInTheProcess) {
  PythonExecutors executors(config(script(kAnswering)), files());
  std::string why;
  auto handler = executors.handlerFor({info(), {}}, "runner::Run", nullptr, why);
  ASSERT_TRUE(handler) << why;
  handlers::Context ctx(false);
  handler->execute(ctx, intent());
  ASSERT_TRUE(ctx.status());
  EXPECT_EQ(*ctx.status(), handlers::ResultState::deployed);
  EXPECT_EQ(ctx.change(), handlers::Change::created);

  // one folder per code set: the file, and the packages above it made
  std::vector<fs::path> sets;
  for (const auto& entry : fs::directory_iterator(dir_ / "code"))
    if (entry.is_directory()) sets.push_back(entry.path());
  ASSERT_EQ(sets.size(), 1u);
  std::ifstream in(sets[0] / "runner/plugins/sub/__init__.py");
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "print('plugin')\n");
  EXPECT_TRUE(fs::exists(sets[0] / "runner/plugins/__init__.py"));
  EXPECT_FALSE(fs::exists(sets[0] / "std")) << "std's code is never loaded";

  // the same code again: the same process, nothing written again
  auto again = executors.handlerFor({info(), {}}, "runner::Run", nullptr, why);
  ASSERT_TRUE(again) << why;
  handlers::Context ctx2(false);
  again->execute(ctx2, intent());
  EXPECT_EQ(*ctx2.status(), handlers::ResultState::deployed);
  EXPECT_EQ(fileReads_, 1);
  std::ifstream starts(dir_ / "code/starts");
  EXPECT_EQ(std::count(std::istreambuf_iterator<char>(starts), {}, '\n'), 1);

  // a type the code has no handler for
  EXPECT_FALSE(executors.handlerFor({info(), {}}, "runner::Other", nullptr, why));
  EXPECT_NE(why.find("no handler for runner::Other"), std::string::npos) << why;
}

TEST_F(PythonExecutorsTest, ACodeSetThatStartsSlowlyDoesNotHoldUpAnother) {
  PythonExecutors executors(config(script(kAnswering)), files());
  json slow = info();
  slow["slowmod"] = slow["runner"];
  slow["slowmod"]["files_in_module"][0]["name"] = "inmanta_plugins.slowmod";
  std::thread starter([&] {
    std::string why;
    EXPECT_TRUE(executors.handlerFor({slow, {}}, "runner::Run", nullptr, why)) << why;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  auto asked = std::chrono::steady_clock::now();
  std::string why;
  EXPECT_TRUE(executors.handlerFor({info(), {}}, "runner::Run", nullptr, why)) << why;
  EXPECT_LT(std::chrono::steady_clock::now() - asked, std::chrono::milliseconds(1500));
  starter.join();
}

TEST_F(PythonExecutorsTest, AHungCallStopsItsProcessAndTheNextCallStartsANewOne) {
  PythonExecutors executors(config(script(kAnswering)), files());
  std::string why;
  auto handler = executors.handlerFor({info(), {}}, "runner::Run", nullptr, why);
  ASSERT_TRUE(handler) << why;
  handlers::ResourceIntent hung = intent();
  hung.attributes["command"] = "hang";
  handlers::Context ctx(false);
  auto started = std::chrono::steady_clock::now();
  handler->execute(ctx, hung);
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(10));
  EXPECT_EQ(*ctx.status(), handlers::ResultState::failed);
  bool told = false;
  for (const handlers::LogLine& line : ctx.takeLogs())
    told = told || line.msg.find("did not finish within") != std::string::npos;
  EXPECT_TRUE(told);

  auto next = executors.handlerFor({info(), {}}, "runner::Run", nullptr, why);
  ASSERT_TRUE(next) << why;
  handlers::Context ctx2(false);
  next->execute(ctx2, intent());
  EXPECT_EQ(*ctx2.status(), handlers::ResultState::deployed);
  std::ifstream starts(dir_ / "code/starts");
  EXPECT_EQ(std::count(std::istreambuf_iterator<char>(starts), {}, '\n'), 2);
}

TEST_F(PythonExecutorsTest, AProcessThatEndsDuringACallFailsThatCallOnly) {
  PythonExecutors executors(config(script(kAnswering)), files());
  std::string why;
  auto handler = executors.handlerFor({info(), {}}, "runner::Run", nullptr, why);
  ASSERT_TRUE(handler) << why;
  handlers::ResourceIntent crash = intent();
  crash.attributes["command"] = "crash";
  handlers::Context ctx(false);
  handler->execute(ctx, crash);
  EXPECT_EQ(*ctx.status(), handlers::ResultState::failed);
  std::string messages;
  for (const handlers::LogLine& line : ctx.takeLogs()) messages += line.msg + "\n";
  EXPECT_NE(messages.find("the executor process ended during the handler call"), std::string::npos) << messages;

  auto next = executors.handlerFor({info(), {}}, "runner::Run", nullptr, why);
  ASSERT_TRUE(next) << why;
  handlers::Context ctx2(false);
  next->execute(ctx2, intent());
  EXPECT_EQ(*ctx2.status(), handlers::ResultState::deployed);
}

TEST_F(PythonExecutorsTest, CodeThatCannotLoadGivesItsReasonWithoutStartingAgain) {
  std::string executable = script(
      "echo x >> \"$3/../starts\"\n"
      "echo '{\"error\": \"Unable to load all plug-ins for module runner\"}'\n"
      "exit 1\n");
  PythonExecutors executors(config(executable), files());
  std::string why;
  EXPECT_FALSE(executors.handlerFor({info(), {}}, "runner::Run", nullptr, why));
  EXPECT_NE(why.find("Unable to load all plug-ins for module runner"), std::string::npos) << why;
  why.clear();
  EXPECT_FALSE(executors.handlerFor({info(), {}}, "runner::Run", nullptr, why));
  EXPECT_NE(why.find("Unable to load"), std::string::npos) << why;
  std::ifstream starts(dir_ / "code/starts");
  EXPECT_EQ(std::count(std::istreambuf_iterator<char>(starts), {}, '\n'), 1);
}

TEST_F(PythonExecutorsTest, CodeThatCouldNotLoadIsTriedAgainLater) {
  std::string executable = script(
      "echo x >> \"$3/../starts\"\n"
      "echo '{\"error\": \"pip could not install the Python requirements\"}'\n"
      "exit 1\n");
  PythonExecutorsConfig c = config(executable);
  c.retryFailedAfter = std::chrono::milliseconds(0);
  PythonExecutors executors(c, files());
  std::string why;
  EXPECT_FALSE(executors.handlerFor({info(), {}}, "runner::Run", nullptr, why));
  EXPECT_FALSE(executors.handlerFor({info(), {}}, "runner::Run", nullptr, why));
  std::ifstream starts(dir_ / "code/starts");
  EXPECT_EQ(std::count(std::istreambuf_iterator<char>(starts), {}, '\n'), 2);
}

TEST_F(PythonExecutorsTest, AFileMissingFromTheStoreIsNamed) {
  PythonExecutors executors(config(script(kAnswering)), files());
  std::string why;
  EXPECT_FALSE(executors.handlerFor({info("bbbb"), {}}, "runner::Run", nullptr, why));
  EXPECT_NE(why.find("inmanta_plugins.runner.sub of module runner (bbbb) is not in the file store"), std::string::npos)
      << why;
  // nothing half-written is left
  for (const auto& entry : fs::directory_iterator(dir_ / "code")) ADD_FAILURE() << entry.path();
}

TEST_F(PythonExecutorsTest, WithoutModuleCodeBesidesStdThereIsNoHandler) {
  PythonExecutors executors(config(script(kAnswering)), files());
  std::string why;
  EXPECT_FALSE(executors.handlerFor({}, "runner::Run", nullptr, why));
  EXPECT_NE(why.find("no module code"), std::string::npos) << why;
  json onlyStd = info();
  onlyStd.erase("runner");
  EXPECT_FALSE(executors.handlerFor({onlyStd, {}}, "runner::Run", nullptr, why));
}

}  // namespace
}  // namespace inmanta::agent
