// `inmanta export` (export spec 2, 3, 5.3): compile, build the resource set, then write it to a
// file (`-j`, offline: decision X2) or push it to the server over REST.
#pragma once

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

// Runs the export; diagnostics and the summary go to `err`. Returns the exit status.
int runExport(const ExportOptions& options, std::ostream& out, std::ostream& err);

using compiler::logLine;

// The dependencies.dot text of `-g`.
std::string dependencyGraph(const std::vector<Resource>& resources);

}  // namespace inmanta::exporter
