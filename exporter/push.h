// The REST side of `inmanta export` (export spec 3): reserve a version, push the project's
// environment settings, upload missing file contents, put the version (or a partial one), and
// release it with -d.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "compiler/driver.h"
#include "exporter/resources.h"
#include "exporter/rest_client.h"

namespace inmanta::exporter {

struct PushOptions {
  bool deploy = false;   // -d
  bool full = false;     // --full: release as a full deploy
  bool partial = false;  // --partial
  bool allowHandlerCodeUpdate = false;
  bool softDelete = false;
  std::vector<std::string> removedSets;  // --delete-resource-set and INMANTA_REMOVED_RESOURCE_SET_ID
  std::string metadata;                  // --metadata (JSON object or a message)
  std::string message;                   // -m/--message
  int verbosity = 0;
  // The server is this binary's own (`inmanta deploy`), which runs std's handlers itself: no
  // warning that a reference orchestrator could not deploy them.
  bool ownServer = false;
};

// The version_info.export_metadata object (3.8), without the compile state.
nlohmann::json exportMetadata(const std::string& metadata, const std::string& message);

// `std >= 5.0` -> `inmanta-module-std>=5.0`, sorted, joined with newlines (3.5).
std::string projectConstraints(const std::vector<std::string>& constraints);

std::string base64(const std::string& bytes);

// Steps 2-8 of 3.3 (or 3.6 for a partial export) once the resources are built. `version` is
// the reserved version (ignored for a partial export). Returns an error message on failure.
std::optional<std::string> pushResources(RestClient& client, const PushOptions& options,
                                         const compiler::ProjectConfig& project, const ResourceSet& set,
                                         long long version, std::ostream& err);

}  // namespace inmanta::exporter
