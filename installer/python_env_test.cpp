// The modules' Python requirements: reading requirements.txt, what is left out, the pip command
// the project's pip settings make, and the install against a fake process runner (the real pip
// runs in tests/e2e/python_deps_test.py).
#include "installer/python_env.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;

namespace inmanta::installer {
namespace {

std::vector<std::string> texts(const std::vector<PythonRequirement>& reqs) {
  std::vector<std::string> out;
  for (const PythonRequirement& r : reqs) out.push_back(r.text);
  return out;
}

bool has(const std::vector<std::string>& argv, const std::vector<std::string>& run) {
  return std::search(argv.begin(), argv.end(), run.begin(), run.end()) != argv.end();
}

TEST(PythonRequirementsTxt, ReadAsTheReferenceDoes) {
  std::vector<PythonRequirement> reqs = parseRequirementsTxt(
      "# a comment\n"
      "\n"
      "netaddr>=0.8  # inline comment\r\n"
      "  PyYAML\n"
      "Jinja2 >= 3, \\\n"
      "  < 4\n"
      "dataclasses; python_version < \"3.7\"\n"
      "requests[socks]==2.31\n"
      "pkg @ https://example.com/pkg-1.0.tar.gz\n",
      "libs/a/requirements.txt", "module a");
  EXPECT_EQ(texts(reqs), (std::vector<std::string>{"netaddr>=0.8", "PyYAML", "Jinja2 >= 3, < 4",
                                                   "dataclasses; python_version < \"3.7\"", "requests[socks]==2.31",
                                                   "pkg @ https://example.com/pkg-1.0.tar.gz"}));
  ASSERT_EQ(reqs.size(), 6u);
  EXPECT_EQ(reqs[0].line, 3);
  EXPECT_EQ(reqs[1].name, "pyyaml");
  EXPECT_EQ(reqs[2].name, "jinja2");
  EXPECT_EQ(reqs[2].line, 5);  // where the continued entry starts
  EXPECT_EQ(reqs[3].name, "dataclasses");
  EXPECT_EQ(reqs[4].name, "requests");
  EXPECT_EQ(reqs[5].owner, "module a");
}

TEST(PythonRequirementsTxt, PipOptionsAndNonsenseAreLocatedErrors) {
  try {
    parseRequirementsTxt("netaddr\n\n-r other.txt\n", "libs/a/requirements.txt", "module a");
    FAIL() << "no error";
  } catch (const ProjectError& e) {
    EXPECT_NE(std::string(e.what()).find("libs/a/requirements.txt:3: invalid requirement '-r other.txt'"),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("pip options"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parseRequirementsTxt("two words\n", "r.txt", "the project"), ProjectError);
  EXPECT_THROW(parseRequirementsTxt(">=1.0\n", "r.txt", "the project"), ProjectError);
}

TEST(PythonRequirementsTxt, CanonicalNames) {
  EXPECT_EQ(canonicalPackageName("Foo.Bar__baz"), "foo-bar-baz");
  EXPECT_EQ(canonicalPackageName("inmanta_core"), "inmanta-core");
  EXPECT_EQ(canonicalPackageName("PyYAML"), "pyyaml");
}

TEST(PythonRequirementsTxt, InmantaItselfAndV2ModulesAreNotForPip) {
  EXPECT_NE(notInstalledReason("inmanta-core"), "");
  EXPECT_NE(notInstalledReason("inmanta"), "");
  EXPECT_NE(notInstalledReason("inmanta-service-orchestrator"), "");
  EXPECT_NE(notInstalledReason("inmanta-module-std"), "");
  EXPECT_EQ(notInstalledReason("inmanta-modules"), "");  // not the module prefix
  EXPECT_EQ(notInstalledReason("netaddr"), "");
}

class PythonEnvTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("inmanta-python-env-test-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
    resolved_.project.dir = root_.string();
  }
  void TearDown() override { fs::remove_all(root_); }

  static void write(const fs::path& path, const std::string& text) {
    fs::create_directories(path.parent_path());
    std::ofstream(path) << text;
  }
  // a module at libs/NAME with `requirements` as its requirements.txt (none when empty)
  void module(const std::string& name, bool imported, const std::string& requirements) {
    ModuleStatus s;
    s.name = name;
    s.state = ModuleStatus::State::Present;
    s.dir = (root_ / "libs" / name).string();
    s.imported = imported;
    fs::create_directories(s.dir);
    if (!requirements.empty()) write(fs::path(s.dir) / "requirements.txt", requirements);
    resolved_.modules.push_back(s);
  }
  // A process runner that records what it is asked to run; `venv` makes the environment's files,
  // pip answers with `pipResult_`.
  ProcessRunner fakeRunner() {
    return [this](const ProcessSpec& spec) {
      calls_.push_back(spec);
      if (has(spec.argv, {"-m", "venv"})) {
        fs::path env = spec.argv.back();
        write(env / "bin" / "python", "");
        fs::create_directories(env / "lib" / fs::path(embeddedPythonInterpreter()).filename());
        return ProcessResult{0, ""};
      }
      return pipResult_;
    };
  }

  fs::path root_;
  ResolveResult resolved_;
  std::vector<ProcessSpec> calls_;
  ProcessResult pipResult_{0, "Processing ./wheels/a-1.0-py3-none-any.whl\nSuccessfully installed a-1.0\n"};
  std::ostringstream progress_;
};

TEST_F(PythonEnvTest, CollectsTheProjectAndTheImportedModulesButNotStd) {
  write(root_ / "requirements.txt", "projreq\n");
  module("a", true, "netaddr>=0.8\ninmanta-core>=8\ninmanta-module-net\nshared\n");
  module("b", false, "onlyrequired\n");  // named in requires, never imported: the compile does not load it
  module("c", true, "shared\nPyYAML\n");
  module("d", true, "");
  module("std", true, "Jinja2\npydantic\n");  // its plugins are built in
  PythonRequirements reqs = collectPythonRequirements(resolved_);
  EXPECT_EQ(texts(reqs.install), (std::vector<std::string>{"projreq", "netaddr>=0.8", "shared", "PyYAML"}));
  ASSERT_EQ(reqs.skipped.size(), 2u);
  EXPECT_EQ(reqs.skipped[0].first.text, "inmanta-core>=8");
  EXPECT_EQ(reqs.skipped[1].first.text, "inmanta-module-net");
  EXPECT_EQ(reqs.install[1].file, "libs/a/requirements.txt");
  EXPECT_EQ(reqs.install[1].line, 1);
  EXPECT_EQ(reqs.install[0].owner, "the project");
}

TEST_F(PythonEnvTest, PipCommandWithoutPipSettingsUsesNoIndexAndNoConfiguration) {
  compiler::ProjectConfig::Pip pip;
  PythonRequirement req{"netaddr>=0.8", "netaddr", "r.txt", 1, "the project"};
  ProcessSpec spec = pipInstallCommand("/p/.env/bin/python", pip, {}, {req});
  EXPECT_TRUE(has(spec.argv, {"/p/.env/bin/python", "-m", "pip", "install"}));
  EXPECT_TRUE(has(spec.argv, {"netaddr>=0.8"}));
  EXPECT_TRUE(has(spec.argv, {"--no-index"}));
  EXPECT_FALSE(has(spec.argv, {"--pre"}));
  EXPECT_FALSE(has(spec.argv, {"--upgrade"}));
  EXPECT_EQ(spec.env.at("PIP_CONFIG_FILE"), "/dev/null");
  for (const char* unset : {"PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_PRE", "PIP_NO_INDEX"})
    EXPECT_EQ(spec.env.at(unset), std::nullopt) << unset;
}

TEST_F(PythonEnvTest, PipCommandFollowsProjectPipSettingsAndFlags) {
  compiler::ProjectConfig::Pip pip;
  pip.indexUrl = "https://pypi.example.com/simple";
  pip.extraIndexUrl = {"https://extra1/simple", "https://extra2/simple"};
  pip.pre = true;
  pip.useSystemConfig = true;
  PipOptions options;
  options.findLinks = {"/wheels", "/more"};
  options.upgrade = true;
  ProcessSpec spec = pipInstallCommand("py", pip, options, {});
  EXPECT_TRUE(has(spec.argv, {"--index-url", "https://pypi.example.com/simple"}));
  EXPECT_TRUE(
      has(spec.argv, {"--extra-index-url", "https://extra1/simple", "--extra-index-url", "https://extra2/simple"}));
  EXPECT_TRUE(has(spec.argv, {"--find-links", "/wheels", "--find-links", "/more"}));
  EXPECT_TRUE(has(spec.argv, {"--upgrade", "--upgrade-strategy", "eager"}));
  EXPECT_TRUE(has(spec.argv, {"--pre"}));
  EXPECT_FALSE(has(spec.argv, {"--no-index"}));
  EXPECT_EQ(spec.env.count("PIP_CONFIG_FILE"), 0u);  // the system's pip configuration counts
  EXPECT_EQ(spec.env.at("PIP_PRE"), "True");

  pip.pre = false;  // forced off through the environment, as the reference does
  pip.useSystemConfig = false;
  options = {};
  options.noIndex = true;
  spec = pipInstallCommand("py", pip, options, {});
  EXPECT_TRUE(has(spec.argv, {"--no-index"}));
  EXPECT_FALSE(has(spec.argv, {"--pre"}));
  EXPECT_EQ(spec.env.at("PIP_PRE"), "False");
  EXPECT_EQ(spec.env.at("PIP_CONFIG_FILE"), "/dev/null");
}

TEST_F(PythonEnvTest, NothingRequiredMakesNoEnvironment) {
  module("a", true, "# nothing\ninmanta-core\n");
  installPythonRequirements(resolved_, {}, progress_, fakeRunner());
  EXPECT_TRUE(calls_.empty());
  EXPECT_FALSE(fs::exists(root_ / ".env"));
  EXPECT_NE(progress_.str().find("`inmanta-core` (module a, libs/a/requirements.txt:2) is not installed"),
            std::string::npos)
      << progress_.str();
}

TEST_F(PythonEnvTest, MakesTheEnvironmentOnceThenRunsPip) {
  module("a", true, "a>=1\n");
  PipOptions options;
  options.findLinks = {"wheels"};
  installPythonRequirements(resolved_, options, progress_, fakeRunner());
  ASSERT_EQ(calls_.size(), 2u);
  EXPECT_EQ(calls_[0].argv,
            (std::vector<std::string>{embeddedPythonInterpreter(), "-m", "venv", "--system-site-packages",
                                      "--without-pip", (root_ / ".env").string()}));
  EXPECT_EQ(calls_[1].argv[0], (root_ / ".env" / "bin" / "python").string());
  EXPECT_TRUE(has(calls_[1].argv, {"a>=1"}));
  EXPECT_TRUE(has(calls_[1].argv, {"--find-links", "wheels"}));
  EXPECT_TRUE(fs::exists(root_ / ".env" / "bin" / "pip"));
  EXPECT_NE(progress_.str().find("created the project's Python environment .env"), std::string::npos);
  EXPECT_NE(progress_.str().find("  Successfully installed a-1.0"), std::string::npos) << progress_.str();

  calls_.clear();
  installPythonRequirements(resolved_, options, progress_, fakeRunner());
  ASSERT_EQ(calls_.size(), 1u);  // the environment is there
  EXPECT_TRUE(has(calls_[0].argv, {"-m", "pip", "install"}));
}

TEST_F(PythonEnvTest, PipFailureNamesTheRequirementWhoSetItAndPipsLastLines) {
  module("a", true, "ok\nha-pkg>=3\n");
  pipResult_ = {1,
                "Looking in links: wheels\n"
                "ERROR: Could not find a version that satisfies the requirement ha-pkg>=3 (from versions: 1.2.0)\n"
                "ERROR: No matching distribution found for ha-pkg>=3\n"};
  try {
    installPythonRequirements(resolved_, {}, progress_, fakeRunner());
    FAIL() << "no error";
  } catch (const ProjectError& e) {
    std::string message = e.what();
    EXPECT_NE(message.find("pip could not install the Python requirements into .env (exit status 1)"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("Packages ha-pkg>=3 were not found. No indexes were used"), std::string::npos) << message;
    EXPECT_NE(message.find("`ha-pkg>=3` (module a, libs/a/requirements.txt:2)"), std::string::npos) << message;
    EXPECT_NE(message.find("pip's last lines:\n  Looking in links: wheels\n  ERROR: Could not find"), std::string::npos)
        << message;
  }
}

TEST_F(PythonEnvTest, AnEnvironmentForAnotherPythonIsRefused) {
  module("a", true, "a\n");
  write(root_ / ".env" / "bin" / "python", "");
  fs::create_directories(root_ / ".env" / "lib" / "python3.1");
  EXPECT_THROW(installPythonRequirements(resolved_, {}, progress_, fakeRunner()), ProjectError);
  EXPECT_TRUE(calls_.empty());
}

TEST_F(PythonEnvTest, RealProcessOutputAndExitStatus) {
  ProcessResult r = runProcess(ProcessSpec{{"/bin/sh", "-c", "echo out; echo err >&2; echo \"$X$Y\"; exit 3"},
                                           {{"X", "set"}, {"Y", std::nullopt}}});
  EXPECT_EQ(r.exitCode, 3);
  EXPECT_EQ(r.output, "out\nerr\nset\n");
  r = runProcess(ProcessSpec{{"/nonexistent/program"}, {}});
  EXPECT_EQ(r.exitCode, -1);
  EXPECT_NE(r.output.find("cannot run /nonexistent/program"), std::string::npos);
}

}  // namespace
}  // namespace inmanta::installer
