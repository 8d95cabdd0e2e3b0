// The modules' Python dependencies: what the requirements.txt of the project and of the modules
// the model imports name, installed with pip into the project's virtual environment `.env` (made
// with --system-site-packages, so Debian's python3-* packages count and are not installed again).
// The compile's embedded Python puts that environment's site-packages on its path.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/project/project.h"
#include "installer/installer.h"

namespace inmanta::installer {

// A requirement of a requirements.txt, as pip gets it, with where it was written.
struct PythonRequirement {
  std::string text;   // the line(s) without comment and line continuations: `netaddr>=0.8; python_version>"3"`
  std::string name;   // the package name, canonical (PEP 503: lower case, runs of `-_.` as one `-`)
  std::string file;   // as messages show it: `libs/net/requirements.txt`
  int line = 0;       // 1-based line it starts on
  std::string owner;  // `module net`, `the project`
};

// PEP 503's normal form of a package name.
std::string canonicalPackageName(std::string_view name);

// The requirements of a requirements.txt text, read as the reference's RequirementsTxtParser does
// (blank lines and `#` lines dropped, ` #` comments cut, `\` continuations joined). Throws
// ProjectError (file:line) for an entry that does not start with a package name, such as a pip
// option (`-r`, `--index-url`), which the reference does not accept either.
std::vector<PythonRequirement> parseRequirementsTxt(const std::string& text, const std::string& file,
                                                    const std::string& owner);

// Why a requirement on the canonical package `name` is not given to pip, or empty: inmanta-core and
// the products that contain it are inmanta-cpp itself (the reference pins them to what is
// installed), and `inmanta-module-*` packages are v2 modules, not Python libraries (the reference
// keeps them out of its strict Python requirements).
std::string notInstalledReason(const std::string& name);

struct PythonRequirements {
  // for pip: the project's requirements.txt first, then the modules' by module name; each text once
  std::vector<PythonRequirement> install;
  std::vector<std::pair<PythonRequirement, std::string>> skipped;  // with notInstalledReason()
};

// The requirements.txt of the project and of every module the model imports (transitively), except
// std, whose plugins are built into inmanta-cpp. Throws ProjectError for a malformed file.
PythonRequirements collectPythonRequirements(const ResolveResult& resolved);

struct PipOptions {
  bool noIndex = false;                // pip --no-index
  std::vector<std::string> findLinks;  // pip --find-links, in order
  bool pre = false;                    // pre-releases (also when project.yml's pip.pre is true)
  bool upgrade = false;                // `project update`: --upgrade --upgrade-strategy eager
};

// A process to run: its arguments (argv[0] is a path) and the changes to this process's environment
// it gets (a value sets the variable, nullopt removes it).
struct ProcessSpec {
  std::vector<std::string> argv;
  std::map<std::string, std::optional<std::string>> env;
};

struct ProcessResult {
  int exitCode = -1;   // -1: it could not start or was killed
  std::string output;  // standard output and error, interleaved
};

using ProcessRunner = std::function<ProcessResult(const ProcessSpec&)>;

// Runs `spec` with standard input from /dev/null and waits for it.
ProcessResult runProcess(const ProcessSpec& spec);

// `python -m pip install` for `requirements` with project.yml's pip settings, as the reference's
// PipConfig makes it: --index-url, else --no-index unless pip.use-system-config; --extra-index-url;
// --pre; without use-system-config pip's own configuration files and PIP_INDEX_URL,
// PIP_EXTRA_INDEX_URL, PIP_PRE and PIP_NO_INDEX are ignored (PIP_CONFIG_FILE=/dev/null); a set
// pip.pre is forced through PIP_PRE.
ProcessSpec pipInstallCommand(const std::string& python, const compiler::ProjectConfig::Pip& pip,
                              const PipOptions& options, const std::vector<PythonRequirement>& requirements);

// The interpreter the compile embeds (`/usr/bin/python3.11`), which makes `.env`.
std::string embeddedPythonInterpreter();

// Makes `env` a Python environment of the embedded interpreter unless it is one (with the system's
// site-packages, without a pip of its own: the system's pip, Debian's python3-pip, runs in it, as the
// reference's environments use their parent's); returns its python. `label` names it in messages.
// Throws ProjectError.
std::string ensurePythonEnvironment(const std::filesystem::path& env, const std::string& label, std::ostream& progress,
                                    const ProcessRunner& run = runProcess);

// `pip install` of `requirements` into the environment whose interpreter is `python` (pipInstallCommand);
// a failure throws ProjectError naming the requirements, who set them and pip's last lines.
void pipInstallInto(const std::string& python, const std::string& label, const compiler::ProjectConfig::Pip& pip,
                    const PipOptions& options, const std::vector<PythonRequirement>& requirements,
                    std::ostream& progress, const ProcessRunner& run = runProcess);

// Installs what collectPythonRequirements() finds into `<project>/.env`, creating it first (with
// the system's site-packages, without a pip of its own: the system's pip, Debian's python3-pip,
// runs in it, as the reference's environments use their parent's). Does nothing when nothing is
// required. Progress goes to `progress`; a failure throws ProjectError naming the requirements,
// who set them and pip's last lines.
void installPythonRequirements(const ResolveResult& resolved, const PipOptions& options, std::ostream& progress,
                               const ProcessRunner& run = runProcess);

}  // namespace inmanta::installer
