// `inmanta export` (export spec 2, 3, 5.3): compile, build the resource set, then write it to a
// file (`-j`, offline: decision X2) or push it to the server over REST.
#pragma once

#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "compiler/driver.h"
#include "compiler/resource_types.h"
#include "exporter/push.h"
#include "exporter/resources.h"
#include "exporter/settings.h"

namespace inmanta::exporter {

struct ExportOptions {
  compiler::CompileOptions compile;
  const compiler::ResourceTypeRegistry* types = nullptr;
  std::string jsonFile;          // -j: write the resources here, no server
  bool dependencyGraph = false;  // -g: dependencies.dot in the current folder
  // settings (4.1): files, then INMANTA_* variables, then these flags (decision X4)
  SettingsFlags settings;
  PushOptions push;
  // --export-plugin, else the settings' config.export list: run after the resources are made
  // (no module of this toolchain defines export plugins: a name is an export failure)
  std::string exportPlugin;
};

// `inmanta compile` with the run's settings: plugins read them (std::environment) and reach
// the server they name (std::getfact). Returns the exit status.
int runCompileWithSettings(const compiler::CompileOptions& options, const SettingsFlags& flags, std::ostream& out,
                           std::ostream& err);

// The steps of an export between the compile and the push: the resource set of the compiled model
// (buildResources), the export plugins, the warnings, -g. Returns the export failure's message.
std::optional<std::string> makeResourceSet(const compiler::CompiledModel& model,
                                           const compiler::ResourceTypeRegistry& types, const Settings& settings,
                                           const ExportOptions& options, ResourceSet& set, std::ostream& err);

// Compiles with the run's settings and hands the resource set to `ready` (what `inmanta deploy`
// does instead of pushing); its message is reported as an export failure. Returns 0 or 1.
using ResourcesReady = std::function<std::optional<std::string>(const compiler::CompiledModel& model,
                                                                const ResourceSet& set, const Settings& settings)>;
int runCompileToResources(const ExportOptions& options, const ResourcesReady& ready, std::ostream& out,
                          std::ostream& err);

// Reserves a version on the client's server and pushes the set as that version (steps 1-8 of
// export spec 3.3); `version` is set once reserved. Returns the failure's message.
std::optional<std::string> reserveAndPush(RestClient& client, const PushOptions& options,
                                          const compiler::ProjectConfig& project, const ResourceSet& set,
                                          long long& version, std::ostream& err);

// Runs the export; diagnostics and the summary go to `err`. Returns the exit status.
int runExport(const ExportOptions& options, std::ostream& out, std::ostream& err);

using compiler::logLine;

// The dependencies.dot text of `-g`.
std::string dependencyGraph(const std::vector<Resource>& resources);

}  // namespace inmanta::exporter
