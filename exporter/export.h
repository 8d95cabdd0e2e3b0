// `inmanta export` (export spec 2, 3, 5.3): compile, build the resource set, then write it to a
// file (`-j`, offline: decision X2) or push it to the server over REST.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "driver.h"
#include "resource_types.h"
#include "push.h"
#include "resources.h"

namespace inmanta::exporter {

struct ExportOptions {
  compiler::CompileOptions compile;
  const compiler::ResourceTypeRegistry* types = nullptr;
  std::string jsonFile;    // -j: write the resources here, no server
  bool dependencyGraph = false;  // -g: dependencies.dot in the current folder
  // settings (4.1): files, then INMANTA_* variables, then these flags (decision X4)
  std::string configFile;  // -c
  std::string configDir = "/etc/inmanta/inmanta.d";
  std::optional<std::string> environment, host, token, caFile;
  std::optional<int> port;
  std::optional<bool> ssl;
  PushOptions push;
};

// Runs the export; diagnostics and the summary go to `err`. Returns the exit status.
int runExport(const ExportOptions& options, std::ostream& out, std::ostream& err);

// `NAME(15)LEVEL(8)message`, the reference's console log line
std::string logLine(const std::string& logger, const std::string& level, const std::string& message);

// The dependencies.dot text of `-g`.
std::string dependencyGraph(const std::vector<Resource>& resources);

}  // namespace inmanta::exporter
