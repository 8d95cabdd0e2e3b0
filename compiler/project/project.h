// A project: its folder, its project.yml settings, and where its modules are found
// (spec/export.md 4.3-4.4; issue 6 completes validation and installation).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace inmanta::compiler {

struct ProjectConfig {
  std::string dir;                      // absolute
  std::string configFile;               // project.yml or project.yaml
  std::string name;
  std::string description;
  std::vector<std::string> modulepath;  // absolute folders, in order
  std::string downloadpath;             // absolute
  std::vector<std::string> requires_;
};

// The nearest folder at or above `start` holding project.yml (or project.yaml).
std::optional<std::string> findProjectDir(const std::string& start);

// Reads and checks project.yml; throws CompileError (ProjectException) naming file, line, field.
ProjectConfig loadProjectConfig(const std::string& dir);

// The bundled std module's folder: $INMANTA_STD_PATH, beside the installed binary, or the source
// tree this binary was built from.
std::string bundledStdDir();

}  // namespace inmanta::compiler
