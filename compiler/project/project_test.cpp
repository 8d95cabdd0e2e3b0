#include "compiler/project/project.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "compiler/diag/diagnostic.h"

namespace fs = std::filesystem;

namespace inmanta::compiler {
namespace {

class ProjectConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("inmanta-project-test-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  void write(const std::string& rel, const std::string& text) {
    fs::create_directories((dir_ / rel).parent_path());
    std::ofstream(dir_ / rel) << text;
  }
  // the message of the ProjectException loading project.yml throws
  std::string projectError(const std::string& yml) {
    write("project.yml", yml);
    try {
      loadProjectConfig(dir_.string());
    } catch (const CompileError& e) {
      EXPECT_EQ(e.diagnostic().kind, ErrorKind::ProjectException);
      return e.diagnostic().message;
    }
    return "no error";
  }
  std::string moduleError(const std::string& yml) {
    write("m/module.yml", yml);
    try {
      loadModuleConfig((dir_ / "m").string());
    } catch (const CompileError& e) {
      EXPECT_EQ(e.diagnostic().kind, ErrorKind::InvalidModuleException);
      std::string out = e.diagnostic().message;
      for (const auto& c : e.diagnostic().causes) out += " | " + c.message;
      return out;
    }
    return "no error";
  }
  fs::path dir_;
};

TEST_F(ProjectConfigTest, ReadsEveryField) {
  write("project.yml",
        "name: demo\ndescription: d\nauthor: me\nauthor_email: me@example.com\nlicense: ASL\ncopyright: 2026\n"
        "modulepath: [libs, more]\ndownloadpath: libs\n"
        "repo:\n  - https://example.com/{}.git\n  - url: file:///srv/{0}\n    type: git\n  - url: https://pypi\n    "
        "type: package\n"
        "requires:\n  - mod ~= 1.0\n  - other\ninstall_mode: prerelease\nfreeze_recursive: true\nfreeze_operator: "
        "'=='\n"
        "relation_precedence_policy: ['A.b before C.d']\nagent_install_dependency_modules: false\n"
        "pip: {index-url: 'https://x', extra_index_url: ['https://y'], pre: true, use-system-config: false}\n"
        "environment_settings: {auto_deploy: true, n: 3}\n");
  ProjectConfig c = loadProjectConfig(dir_.string());
  EXPECT_EQ(c.name, "demo");
  EXPECT_EQ(c.authorEmail, "me@example.com");
  ASSERT_EQ(c.modulepath.size(), 2u);
  EXPECT_EQ(c.modulepath[1], (dir_ / "more").string());
  EXPECT_EQ(c.downloadpath, (dir_ / "libs").string());
  ASSERT_EQ(c.repos.size(), 2u);  // the package entry is ignored, with a warning
  EXPECT_EQ(c.repos[1].url, "file:///srv/{0}");
  ASSERT_EQ(c.requires_.size(), 2u);
  EXPECT_EQ(c.requires_[0].requirement.str(), "mod ~= 1.0");
  EXPECT_EQ(c.requires_[0].line, 16);
  EXPECT_TRUE(c.allowPrereleases());
  EXPECT_TRUE(c.freezeRecursive);
  EXPECT_EQ(c.freezeOperator, "==");
  EXPECT_FALSE(c.agentInstallDependencyModules);
  EXPECT_EQ(c.pip.extraIndexUrl.size(), 1u);
  EXPECT_TRUE(c.hasEnvironmentSettings);
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_NE(c.warnings[0].find("package"), std::string::npos);
}

TEST_F(ProjectConfigTest, SingleStringsAndDefaults) {
  write("project.yaml", "name: 1.0\nmodulepath: libs\nrequires: std\n");
  ProjectConfig c = loadProjectConfig(dir_.string());
  EXPECT_EQ(c.name, "1.0");  // numbers are coerced to text
  EXPECT_EQ(c.downloadpath, (dir_ / "libs").string());
  EXPECT_EQ(c.freezeOperator, "~=");
  EXPECT_EQ(c.requires_.size(), 1u);
}

TEST_F(ProjectConfigTest, UnknownKeysWarnWithTheLine) {
  write("project.yml", "name: x\nmodulpath: libs\npip: {bogus: 1}\n");
  ProjectConfig c = loadProjectConfig(dir_.string());
  ASSERT_EQ(c.warnings.size(), 2u);
  EXPECT_NE(c.warnings[0].find("project.yml:2:1: unknown key 'modulpath'"), std::string::npos) << c.warnings[0];
  EXPECT_NE(c.warnings[1].find("pip.bogus"), std::string::npos);
}

TEST_F(ProjectConfigTest, ErrorsNameFileLineAndField) {
  EXPECT_NE(projectError("description: x\n")
                .find("project.yml: Metadata defined in project.yml is invalid: field 'name': Field required"),
            std::string::npos);
  EXPECT_NE(projectError("name: x\nmodulepath: {a: 1}\n")
                .find("project.yml:2:13: Metadata defined in project.yml is invalid: field 'modulepath': expected a "
                      "string or a list"),
            std::string::npos);
  EXPECT_NE(projectError("name: x\nrequires:\n  - mod ~= 1\n")
                .find("project.yml:3:5: Metadata defined in project.yml is invalid: field 'requires[0]': invalid "
                      "module requirement"),
            std::string::npos);
  EXPECT_NE(projectError("name: x\nfreeze_operator: '<'\n").find("field 'freeze_operator'"), std::string::npos);
  EXPECT_NE(projectError("name: x\nfreeze_recursive: maybe\n")
                .find("project.yml:2:19: Metadata defined in project.yml is invalid: field 'freeze_recursive': "
                      "expected a boolean"),
            std::string::npos);
  EXPECT_NE(projectError("name: x\nrepo:\n  - type: git\n").find("field 'repo[0].url': Field required"),
            std::string::npos);
  EXPECT_NE(projectError("name: x\nrepo: ['http://{}/{}']\n").find("more than one {}"), std::string::npos);
  EXPECT_NE(projectError("name: x\nrepo: [{url: u, type: svn}]\n").find("field 'repo[0].type'"), std::string::npos);
  EXPECT_NE(projectError("name: x\ninstall_mode: latest\n").find("field 'install_mode'"), std::string::npos);
  EXPECT_NE(projectError("name: x\nrelation_precedence_policy: ['A.b after C.d']\n").find("invalid rule"),
            std::string::npos);
  EXPECT_NE(projectError("name: x\nauthor_email: nobody\n").find("field 'author_email'"), std::string::npos);
  EXPECT_NE(projectError("name: x\nenvironment_settings: [1]\n").find("field 'environment_settings'"),
            std::string::npos);
  EXPECT_NE(projectError("name: [x\n").find("invalid YAML"), std::string::npos);
  EXPECT_NE(projectError("- a\n").find("expected a mapping"), std::string::npos);
}

TEST_F(ProjectConfigTest, ModuleYml) {
  write("m/module.yml", "name: m\nversion: 1.2.0\nlicense: ASL\ncompiler_version: 2019.3\nrequires: [other >= 1.0]\n");
  ModuleConfig m = loadModuleConfig((dir_ / "m").string());
  EXPECT_EQ(m.version.str(), "1.2.0");
  ASSERT_TRUE(m.compilerVersion);
  EXPECT_NO_THROW(checkCompilerVersion(m));
  EXPECT_EQ(m.requires_.at(0).requirement.name, "other");
  EXPECT_NE(moduleError("name: m\nlicense: x\n").find("is not a valid V1 module | "), std::string::npos);
  EXPECT_NE(moduleError("name: m\nlicense: x\n").find("field 'version': Field required"), std::string::npos);
  EXPECT_NE(moduleError("name: m\nversion: 1.x\nlicense: x\n")
                .find("module.yml:2:10: field 'version': Version 1.x is not PEP440 compliant"),
            std::string::npos);
  write("n/module.yml", "name: n\nversion: 1.0\nlicense: x\ncompiler_version: 2099.1\n");
  ModuleConfig n = loadModuleConfig((dir_ / "n").string());
  EXPECT_THROW(checkCompilerVersion(n), CompileError);
  EXPECT_THROW(loadModuleConfig((dir_ / "none").string()), CompileError);
}

// Seeded mutations of valid files: every outcome is a config or a CompileError, never a crash.
TEST_F(ProjectConfigTest, MutatedFilesFailCleanly) {
  const std::string project =
      "name: demo\nmodulepath: [libs]\nrepo:\n  - url: file:///r/{}\n    type: git\nrequires:\n  - mod ~= 1.0,!=1.0.3\n"
      "pip: {pre: true}\nenvironment_settings: {a: 1}\nrelation_precedence_policy: ['A.b before C.d']\n";
  const std::string module = "name: m\nversion: 1.2.0rc1\nlicense: x\ncompiler_version: 2019.3\nrequires: [a >= 1.0]\n";
  const char alphabet[] = ":-[]{},'\"#&*!|>%@ \n\t~=<.*0a";
  uint64_t state = 20261123;
  auto next = [&state] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<size_t>(state >> 33);
  };
  for (int i = 0; i < 3000; ++i) {
    std::string text = (i % 2 == 0) ? project : module;
    for (size_t n = 1 + next() % 4; n > 0; --n) {
      size_t pos = next() % text.size();
      switch (next() % 3) {
        case 0: text.erase(pos, 1 + next() % 3); break;
        case 1: text.insert(pos, 1, alphabet[next() % (sizeof alphabet - 1)]); break;
        default: text[pos] = alphabet[next() % (sizeof alphabet - 1)]; break;
      }
      if (text.empty()) text = "x";
    }
    try {
      if (i % 2 == 0) {
        write("project.yml", text);
        loadProjectConfig(dir_.string());
      } else {
        parseModuleConfig(text, "module.yml", "m");
      }
    } catch (const CompileError& e) {
      EXPECT_FALSE(e.diagnostic().message.empty());
    }
  }
}

}  // namespace
}  // namespace inmanta::compiler
