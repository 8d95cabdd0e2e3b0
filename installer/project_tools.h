// `inmanta module list`, `inmanta project freeze` and `inmanta project init`.
#pragma once

#include <optional>
#include <ostream>
#include <string>

namespace inmanta::installer {

struct ListOptions {
  std::string projectDir;  // empty: search upwards from the current folder
  bool json = false;
};
// One row per module the project uses: name, version, path, constraints, whether they hold.
// Looks only: no git access. Throws ProjectError.
void listModules(const ListOptions& options, std::ostream& out, std::ostream& err);

struct FreezeOptions {
  std::string projectDir;
  std::optional<bool> recursive;  // default: project.yml's freeze_recursive
  std::optional<std::string> op;  // ==, ~= or >=; default: project.yml's freeze_operator
  std::string outFile;            // empty: project.yml itself; "-": `out`
};
// Writes `requires` with the installed version of every module main.cf imports (all modules
// when recursive), keeping the rest of project.yml as written. Throws ProjectError.
void freezeProject(const FreezeOptions& options, std::ostream& out, std::ostream& err);

// Creates `outputDir`/`name` with project.yml, main.cf and a .gitignore; returns its path.
std::string initProject(const std::string& name, const std::string& outputDir);

}  // namespace inmanta::installer
