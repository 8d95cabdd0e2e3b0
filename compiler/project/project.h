// A project: its folder, its project.yml settings, and its v1 modules' module.yml
// (spec/export.md 4.3-4.4). Every field is validated; errors name the file, line, column and
// field; unknown project.yml keys are warnings.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "compiler/project/pep440.h"

namespace inmanta::compiler {

struct RepoEntry {
  std::string url;
  std::string type = "git";  // git or package (package is ignored, with a warning)
};

// A `requires` entry with where it was written.
struct RequirementEntry {
  Requirement requirement;
  std::string text;  // as written
  int line = 0;      // 1-based line in the file
};

struct ProjectConfig {
  std::string dir;                   // absolute
  std::string configFile;            // project.yml or project.yaml
  std::string mainFile = "main.cf";  // relative to dir (`inmanta deploy -f`)
  std::string name;
  std::string description, author, authorEmail, license, copyright;
  std::vector<std::string> modulepath;  // absolute folders, in order
  std::string downloadpath;             // absolute; the first modulepath entry when not set
  bool downloadpathSet = false;
  std::vector<RepoEntry> repos;  // git entries only, in order
  std::vector<RequirementEntry> requires_;
  std::string installMode = "release";  // release, prerelease or master (deprecated)
  bool freezeRecursive = false;
  std::string freezeOperator = "~=";
  std::vector<std::string> relationPrecedencePolicy;
  bool agentInstallDependencyModules = true;
  struct Pip {
    std::string indexUrl;
    std::vector<std::string> extraIndexUrl;
    std::optional<bool> pre;
    bool useSystemConfig = false;
  } pip;
  bool hasEnvironmentSettings = false;
  // ProjectConfigurationWarning texts (unknown keys, ignored settings), with file:line
  std::vector<std::string> warnings;

  // pre-releases were asked for: install_mode prerelease or pip.pre
  bool allowPrereleases() const { return installMode == "prerelease" || pip.pre.value_or(false); }
};

struct ModuleConfig {
  std::string dir;   // the module's folder
  std::string file;  // its module.yml
  std::string name;  // from module.yml (the folder name is what imports use)
  Version version;
  std::string license, description;
  std::optional<Version> compilerVersion;
  std::vector<RequirementEntry> requires_;
  bool freezeRecursive = false;
  std::string freezeOperator = "~=";
  bool deprecated = false;
};

// The nearest folder at or above `start` holding project.yml (or project.yaml).
std::optional<std::string> findProjectDir(const std::string& start);

// Reads and checks project.yml; throws CompileError (ProjectException) naming file, line, field.
ProjectConfig loadProjectConfig(const std::string& dir);

// Reads and checks `moduleDir`/module.yml; throws CompileError (InvalidModuleException: "The
// module found at DIR is not a valid V1 module", caused by the located problem).
ModuleConfig loadModuleConfig(const std::string& moduleDir);
// The same from the text of a module.yml (e.g. read from a git tag); `file` names it in errors.
ModuleConfig parseModuleConfig(const std::string& text, const std::string& file, const std::string& moduleDir);

// InvalidModuleException when the module needs a newer compiler than kCompilerVersion.
void checkCompilerVersion(const ModuleConfig& module);

// The bundled std module's folder: $INMANTA_STD_PATH, beside the installed binary, or the source
// tree this binary was built from.
std::string bundledStdDir();

// The folder of module `name`: the first modulepath entry holding `name/module.yml` or
// `name/model`, then the bundled std for `std`; empty when there is none.
std::string findModuleDir(const ProjectConfig& project, const std::string& name);

// One rule of project.yml's relation_precedence_policy: `<type>.<relation> before <type>.<relation>`
// (the types' full names; spaces around the words allowed, as the reference's pattern takes them).
struct PrecedenceRule {
  std::string firstType, firstRelation, thenType, thenRelation;
};
// The rule `text` writes, or nothing when it is not one.
std::optional<PrecedenceRule> parsePrecedenceRule(const std::string& text);

}  // namespace inmanta::compiler
