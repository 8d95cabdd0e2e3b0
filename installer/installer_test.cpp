// The installer against real git repositories made on the fly (git CLI): bare repositories
// with tags, served through file:// URLs.
#include "installer/installer.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "installer/project_tools.h"

namespace fs = std::filesystem;

// Sanitizer builds: libgit2 1.5.1 leaks a PCRE2 match block per remote it creates or looks up
// (tests/support/lsan_libgit2.supp says more); libgit2 has no frame pointers, so LSan needs the
// full unwind to see the leak comes through it.
extern "C" const char* __lsan_default_suppressions() {
  return "leak:git_remote_create_with_opts\nleak:git_remote_lookup\n";
}
extern "C" const char* __asan_default_options() { return "detect_container_overflow=0:fast_unwind_on_malloc=0"; }

namespace inmanta::installer {
namespace {

struct ModuleVersion {
  std::string tag;
  std::string requires_;   // module.yml `requires:` lines, e.g. "  - c >= 2.0\n"
  std::string model = "";  // model/_init.cf
  std::string compilerVersion = "";
};

class InstallerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("inmanta-installer-test-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_ / "repos");
    fs::create_directories(root_ / "work");
    fs::create_directories(project_());
  }
  void TearDown() override { fs::remove_all(root_); }

  fs::path project_() const { return root_ / "proj"; }
  std::string repoTemplate() const { return "file://" + (root_ / "repos").string() + "/{}"; }

  static void write(const fs::path& path, const std::string& text) {
    fs::create_directories(path.parent_path());
    std::ofstream(path) << text;
  }
  static std::string read(const fs::path& path) {
    std::ifstream in(path);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
  }
  static void sh(const std::string& command) {
    std::string full = "set -e; export GIT_CONFIG_NOSYSTEM=1 HOME=/nonexistent; " + command + " >/dev/null 2>&1";
    ASSERT_EQ(std::system(full.c_str()), 0) << command;
  }

  // Adds versions (commit + tag each) to module `name`'s bare repository repos/<name>.
  void publish(const std::string& name, const std::vector<ModuleVersion>& versions) {
    fs::path work = root_ / "work" / name;
    fs::path bare = root_ / "repos" / name;
    std::string git = "git -c user.name=t -c user.email=t@example.com -c init.defaultBranch=main -C " + work.string();
    if (!fs::exists(work)) {
      fs::create_directories(work);
      sh(git + " init -q");
    }
    for (const ModuleVersion& v : versions) {
      std::string yml = "name: " + name + "\nlicense: ASL\nversion: " + v.tag + "\n";
      if (!v.compilerVersion.empty()) yml += "compiler_version: " + v.compilerVersion + "\n";
      if (!v.requires_.empty()) yml += "requires:\n" + v.requires_;
      write(work / "module.yml", yml);
      write(work / "model/_init.cf",
            v.model.empty() ? "entity Thing:\n  string v = \"" + v.tag + "\"\nend\n" : v.model);
      sh(git + " add -A && " + git + " commit -qm v" + v.tag + " && " + git + " tag " + v.tag);
    }
    if (!fs::exists(bare)) sh("git clone -q --bare " + work.string() + " " + bare.string());
    else sh(git + " push -q --tags " + bare.string() + " HEAD:refs/heads/main");
  }

  void project(const std::string& requires_, const std::string& main, const std::string& extra = "") {
    write(project_() / "project.yml",
          "name: p\n# a comment that freeze keeps\nmodulepath: libs\ndownloadpath: libs\nrepo:\n  - " + repoTemplate() +
              "\n" + requires_ + extra);
    write(project_() / "main.cf", main);
  }

  ResolveResult run(ResolveMode mode = ResolveMode::Install) {
    InstallOptions o;
    o.projectDir = project_().string();
    o.mode = mode;
    progress_.str("");
    return resolveProject(o, progress_);
  }
  std::string failure(ResolveMode mode = ResolveMode::Install) {
    try {
      run(mode);
    } catch (const ProjectError& e) {
      return e.what();
    }
    return "no error";
  }
  std::string installedVersion(const std::string& name) {
    std::string yml = read(project_() / "libs" / name / "module.yml");
    size_t pos = yml.find("version: ");
    return yml.substr(pos + 9, yml.find('\n', pos) - pos - 9);
  }

  fs::path root_;
  std::ostringstream progress_;
};

TEST_F(InstallerTest, PicksTheNewestTagThatSatisfiesTheConstraint) {
  publish("mod", {{"1.0.0", ""}, {"1.1.0", ""}, {"2.0.0", ""}});
  project("requires:\n  - mod ~= 1.0\n", "import mod\n");
  ResolveResult r = run();
  EXPECT_EQ(installedVersion("mod"), "1.1.0");
  EXPECT_NE(read(project_() / "libs/mod/model/_init.cf").find("1.1.0"), std::string::npos);
  EXPECT_NE(progress_.str().find("mod 1.1.0 installed from file://"), std::string::npos) << progress_.str();
  EXPECT_NE(progress_.str().find("std 5.2.8 bundled"), std::string::npos) << progress_.str();
  ASSERT_EQ(r.modules.size(), 2u);
}

TEST_F(InstallerTest, UnconstrainedImportTakesTheNewestReleaseNotPrereleases) {
  publish("mod", {{"1.0.0", ""}, {"1.1.0rc1", ""}});
  project("", "import mod\n");
  run();
  EXPECT_EQ(installedVersion("mod"), "1.0.0");
  fs::remove_all(project_() / "libs");
  project("", "import mod\n", "install_mode: prerelease\n");
  run();
  EXPECT_EQ(installedVersion("mod"), "1.1.0rc1");
}

TEST_F(InstallerTest, InstallModeMasterTakesTheMasterBranchNotTheNewestTag) {
  publish("mod", {{"1.0.0", ""}, {"2.0.0", ""}});
  // a master branch that is behind the tags: master mode must take it anyway
  fs::path work = root_ / "work" / "mod";
  std::string git = "git -c user.name=t -c user.email=t@example.com -C " + work.string();
  sh(git + " checkout -q -b master 1.0.0");
  write(work / "module.yml", "name: mod\nlicense: ASL\nversion: 1.0.1.dev0\n");
  sh(git + " commit -qam dev && " + git + " push -q " + (root_ / "repos" / "mod").string() + " master");
  project("", "import mod\n", "install_mode: master\n");
  run();
  EXPECT_EQ(installedVersion("mod"), "1.0.1.dev0");
  // without a master branch: the default branch
  publish("other", {{"3.0.0", ""}});
  project("", "import other\n", "install_mode: master\n");
  run();
  EXPECT_EQ(installedVersion("other"), "3.0.0");
}

TEST_F(InstallerTest, InstallsTransitiveImportsAndRequires) {
  publish("c", {{"1.0.0", ""}, {"2.0.0", ""}, {"2.1.0", ""}, {"3.0.0", ""}});
  publish("b", {{"0.1.0", ""}});
  publish("a", {{"1.0.0", "  - c >= 2.0,< 3\n", "import b\nimport c\n"}});
  project("", "import a\n");
  ResolveResult r = run();
  EXPECT_EQ(installedVersion("a"), "1.0.0");
  EXPECT_EQ(installedVersion("b"), "0.1.0");
  EXPECT_EQ(installedVersion("c"), "2.1.0");
  ASSERT_EQ(r.modules.size(), 4u);  // a, b, c, std
  EXPECT_EQ(r.modules[2].constraints.at(0).setBy, "module a 1.0.0 (libs/a/module.yml:5)");
}

TEST_F(InstallerTest, ALaterConstraintMovesAModuleChosenEarlier) {
  // main imports c first (newest: 3.0.0), then a, whose requires pin c below 3
  publish("c", {{"2.0.0", ""}, {"3.0.0", ""}});
  publish("a", {{"1.0.0", "  - c < 3\n"}});
  project("", "import c\nimport a\n");
  run();
  EXPECT_EQ(installedVersion("c"), "2.0.0");
}

TEST_F(InstallerTest, ConflictNamesBothConstraintsAndWhoSetThem) {
  publish("c", {{"1.0.0", ""}, {"2.0.0", ""}});
  publish("a", {{"1.0.0", "  - c >= 2.0\n", "import c\n"}});
  project("requires:\n  - c ~= 1.0\n", "import a\n");
  std::string e = failure();
  EXPECT_NE(e.find("conflicting requirements on c: `c ~= 1.0` (set by project.yml:8) and `c >= 2.0` (set by module a "
                   "1.0.0 (libs/a/module.yml:5))"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("versions 1.0.0, 2.0.0"), std::string::npos) << e;
  EXPECT_FALSE(fs::exists(project_() / "libs/a"));  // nothing half-installed
  EXPECT_FALSE(fs::exists(project_() / "libs/c"));
}

TEST_F(InstallerTest, NoMatchingVersionListsWhatExists) {
  publish("mod", {{"1.0.0", ""}});
  project("requires:\n  - mod >= 5\n", "import mod\n");
  std::string e = failure();
  EXPECT_NE(e.find("no version of mod satisfies `mod >= 5` (set by project.yml:8)"), std::string::npos) << e;
  EXPECT_NE(e.find("has versions 1.0.0"), std::string::npos) << e;
}

TEST_F(InstallerTest, OfflineRerunTouchesNoRepository) {
  publish("mod", {{"1.0.0", ""}, {"1.1.0", ""}});
  project("requires:\n  - mod ~= 1.0\n", "import mod\n");
  run();
  fs::remove_all(root_ / "repos");  // any git access would now fail
  EXPECT_NO_THROW(run());
  EXPECT_NE(progress_.str().find("mod 1.1.0 present at libs/mod"), std::string::npos) << progress_.str();
}

TEST_F(InstallerTest, UpdateMovesInstalledModulesInstallOnlyChecks) {
  publish("mod", {{"1.0.0", ""}, {"1.1.0", ""}});
  project("requires:\n  - mod ~= 1.0\n", "import mod\n");
  run();
  publish("mod", {{"1.2.0", ""}, {"2.0.0", ""}});
  run();
  EXPECT_EQ(installedVersion("mod"), "1.1.0");  // install does not fetch
  run(ResolveMode::Update);
  EXPECT_EQ(installedVersion("mod"), "1.2.0");
  EXPECT_NE(progress_.str().find("mod 1.2.0 updated from 1.1.0"), std::string::npos) << progress_.str();
  // a constraint the installed version breaks: install says so, update fixes it
  project("requires:\n  - mod >= 2.0\n", "import mod\n");
  std::string e = failure();
  EXPECT_NE(e.find("module mod 1.2.0 at libs/mod does not satisfy `mod >= 2.0` (set by project.yml:8)"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("inmanta project update"), std::string::npos) << e;
  run(ResolveMode::Update);
  EXPECT_EQ(installedVersion("mod"), "2.0.0");
}

TEST_F(InstallerTest, UpdateKeepsLocalChanges) {
  publish("mod", {{"1.0.0", ""}});
  project("", "import mod\n");
  run();
  write(project_() / "libs/mod/model/_init.cf", "# my local edit\n");
  publish("mod", {{"1.1.0", ""}});
  std::string e = failure(ResolveMode::Update);
  EXPECT_NE(e.find("local changes would be overwritten"), std::string::npos) << e;
  EXPECT_EQ(read(project_() / "libs/mod/model/_init.cf"), "# my local edit\n");
}

TEST_F(InstallerTest, BundledStdIsCheckedNotFetched) {
  project("requires:\n  - std ~= 5.2\n", "");
  ResolveResult r = run();
  ASSERT_EQ(r.modules.size(), 1u);
  EXPECT_EQ(r.modules[0].state, ModuleStatus::State::Bundled);
  project("requires:\n  - std >= 6\n", "");
  EXPECT_NE(failure().find("std is bundled with inmanta-cpp"), std::string::npos);
}

TEST_F(InstallerTest, UnreachableRepositoryNamesTheUrlAndTheGitError) {
  project("", "import ghost\n");
  std::string e = failure();
  EXPECT_NE(e.find("cannot install module ghost (imported at main.cf:1): cannot clone file://" +
                   (root_ / "repos/ghost").string() + ": "),
            std::string::npos)
      << e;
  EXPECT_FALSE(fs::exists(project_() / "libs/ghost"));
}

TEST_F(InstallerTest, MalformedRepositoryIsReported) {
  fs::path work = root_ / "work/bad";
  fs::create_directories(work);
  write(work / "README", "not a module\n");
  std::string git = "git -c user.name=t -c user.email=t@example.com -C " + work.string();
  sh(git + " init -q && " + git + " add -A && " + git + " commit -qm x && " + git + " tag 1.0.0");
  sh("git clone -q --bare " + work.string() + " " + (root_ / "repos/bad").string());
  project("", "import bad\n");
  std::string e = failure();
  EXPECT_NE(e.find("1.0.0 has no module.yml"), std::string::npos) << e;
}

TEST_F(InstallerTest, AnnotatedAndPrefixedTags) {
  publish("mod", {{"1.0.0", ""}});
  fs::path work = root_ / "work/mod";
  write(work / "module.yml", "name: mod\nlicense: ASL\nversion: 1.3.0\n");
  std::string git = "git -c user.name=t -c user.email=t@example.com -C " + work.string();
  sh(git + " commit -qam next && " + git + " tag -a -m release v1.3.0 && " + git + " tag not-a-version && " + git +
     " push -q --tags " + (root_ / "repos/mod").string() + " HEAD:refs/heads/main");
  project("", "import mod\n");
  run();
  EXPECT_EQ(installedVersion("mod"), "1.3.0");
}

TEST_F(InstallerTest, NewerCompilerVersionsAreSkipped) {
  publish("mod", {{"1.0.0", ""}, {"1.1.0", "", "", "2099.1"}});
  project("", "import mod\n");
  run();
  EXPECT_EQ(installedVersion("mod"), "1.0.0");
}

TEST_F(InstallerTest, RepoUrlTemplates) {
  EXPECT_EQ(repoUrlFor("https://github.com/inmanta/{}.git", "std", "/p"), "https://github.com/inmanta/std.git");
  EXPECT_EQ(repoUrlFor("https://github.com/inmanta/{0}", "std", "/p"), "https://github.com/inmanta/std");
  EXPECT_EQ(repoUrlFor("https://github.com/inmanta/", "std", "/p"), "https://github.com/inmanta/std");
  EXPECT_EQ(repoUrlFor("git@github.com:inmanta/", "std", "/p"), "git@github.com:inmanta/std");
  EXPECT_EQ(repoUrlFor("../repos", "m", "/p/q"), "/p/repos/m");
  EXPECT_EQ(repoUrlFor("file:///srv/{}.git", "m", "/p"), "file:///srv/m.git");
}

TEST_F(InstallerTest, LocalPathRepositories) {
  publish("mod", {{"1.0.0", ""}});
  write(project_() / "project.yml", "name: p\nmodulepath: libs\nrepo: [../repos]\n");
  write(project_() / "main.cf", "import mod\n");
  run();
  EXPECT_EQ(installedVersion("mod"), "1.0.0");
}

TEST_F(InstallerTest, ListAndFreeze) {
  publish("mod", {{"1.0.0", ""}, {"1.1.0", ""}});
  publish("dep", {{"0.3.0", ""}});
  publish("top", {{"1.0.0", "", "import dep\n"}});
  project("requires:\n  - mod ~= 1.0\n", "import mod\nimport top\n", "freeze_operator: '=='\n");
  std::ostringstream out, err;
  listModules({project_().string(), false}, out, err);
  EXPECT_NE(out.str().find("mod   -"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("(not installed)"), std::string::npos) << out.str();
  run();
  out.str("");
  listModules({project_().string(), true}, out, err);
  EXPECT_NE(out.str().find("\"constraint\": \"~= 1.0\""), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("\"version\": \"1.1.0\""), std::string::npos) << out.str();
  EXPECT_EQ(out.str().find("\"satisfied\": false"), std::string::npos) << out.str();

  freezeProject({project_().string(), std::nullopt, std::nullopt, ""}, out, err);
  std::string yml = read(project_() / "project.yml");
  EXPECT_NE(yml.find("requires:\n  - mod == 1.1.0\n  - std == 5.2.8\n  - top == 1.0.0\nfreeze_operator"),
            std::string::npos)
      << yml;
  EXPECT_NE(yml.find("# a comment that freeze keeps"), std::string::npos) << yml;
  out.str("");
  freezeProject({project_().string(), true, std::string(">="), "-"}, out, err);
  EXPECT_NE(out.str().find("  - dep >= 0.3.0\n  - mod >= 1.1.0\n"), std::string::npos) << out.str();
  // the frozen project still installs (offline) and its constraints hold
  fs::remove_all(root_ / "repos");
  EXPECT_NO_THROW(run());
}

TEST_F(InstallerTest, FreezeNeedsInstalledModules) {
  project("", "import mod\n");
  std::ostringstream out, err;
  EXPECT_THROW(freezeProject({project_().string(), std::nullopt, std::nullopt, ""}, out, err), ProjectError);
}

TEST_F(InstallerTest, InitCreatesAProject) {
  std::string dir = initProject("demo", root_.string());
  EXPECT_TRUE(fs::exists(fs::path(dir) / "main.cf"));
  EXPECT_EQ(read(fs::path(dir) / ".gitignore"), ".inmanta\nlibs/\ndata/\n.env/\n");
  auto config = compiler::loadProjectConfig(dir);
  EXPECT_EQ(config.name, "demo");
  EXPECT_TRUE(config.warnings.empty());
  EXPECT_THROW(initProject("demo", root_.string()), ProjectError);
  EXPECT_THROW(initProject("a/b", root_.string()), ProjectError);
}

}  // namespace
}  // namespace inmanta::installer
