// `inmanta project install/update`, and the module view `module list` and `project freeze` use:
// resolves every module the project needs (imported by the model, transitively, or named in
// `requires`), installs missing ones from the project's git repositories into `downloadpath`
// at the newest tag that satisfies every constraint, and checks installed ones against them.
#pragma once

#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "compiler/project/pep440.h"
#include "compiler/project/project.h"

namespace inmanta::installer {

// Any failure of a project command; the message is complete (file, URL, git error, hint).
class ProjectError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class ResolveMode {
  Inspect,  // look only: no git access at all; missing modules are reported, not fetched
  Install,  // fetch missing modules; installed ones must already satisfy their constraints
  Update,   // also fetch the installed git clones and move them to the newest allowed tag
};

// A version constraint on a module and who set it.
struct Constraint {
  compiler::Requirement requirement;
  std::string setBy;  // `project.yml:4`, `module web 1.2.0 (libs/web/module.yml:6)`
};

struct ModuleStatus {
  enum class State { Present, Installed, Updated, Bundled, Missing };
  std::string name;
  State state = State::Missing;
  std::string version;          // empty when missing
  std::string previousVersion;  // for Updated
  std::string dir;              // absolute; empty when missing
  std::string source;           // the URL it was cloned from, or its origin; empty otherwise
  std::vector<Constraint> constraints;
  bool satisfied = true;  // every constraint holds for `version`
  bool imported = false;  // main.cf imports it, or a module main.cf imports does (transitively)
};

struct ResolveResult {
  compiler::ProjectConfig project;
  std::vector<ModuleStatus> modules;     // sorted by name
  std::vector<std::string> mainImports;  // modules main.cf imports (std first), for freeze
};

struct InstallOptions {
  std::string projectDir;  // empty: the nearest project upwards from the current folder
  ResolveMode mode = ResolveMode::Install;
  bool allowPrereleases = false;  // on top of install_mode: prerelease / pip.pre
};

// The project folder for `start` (or the current folder); throws ProjectError without one.
std::string locateProject(const std::string& start);

// Resolves (and, per mode, installs or updates) the project's modules. In Install and Update
// mode one line per module goes to `progress` (name, version, source). Throws ProjectError.
ResolveResult resolveProject(const InstallOptions& options, std::ostream& progress);

// The URL of module `name` for a repo entry: `{}`/`{0}` replaced, else the name appended; local
// paths are made absolute against the project folder.
std::string repoUrlFor(const std::string& repoUrl, const std::string& name, const std::string& projectDir);

}  // namespace inmanta::installer
