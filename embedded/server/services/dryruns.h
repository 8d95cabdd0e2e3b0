// Dry-runs (spec §4.10): created for a stored version with todo = total = its resource count; the
// scheduler (issue 31) fills in each resource's result through the store. The v2 view turns the
// recorded changes into ResourceDiffs.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "embedded/server/services/agents.h"
#include "embedded/server/services/versions.h"
#include "embedded/store/store.h"

namespace inmanta::server {

class DryRunService {
 public:
  DryRunService(store::Store& store, DeployTrigger& trigger) : store_(store), trigger_(trigger) {}

  // 409 when the environment is halted; 404 (NotFound, the caller words it) for a missing version.
  store::DryRun create(const store::Environment& env, std::int64_t version);
  std::vector<store::DryRun> list(const std::string& env, const std::optional<std::int64_t>& version);
  // 404 "The given dryrun does not exist!"
  store::DryRun get(const std::string& env, const std::string& id);
  // The recorded resources as ResourceDiffs sorted by resource id.
  static std::vector<ResourceDiff> diff(const store::DryRun& dryrun);

 private:
  store::Store& store_;
  DeployTrigger& trigger_;
};

}  // namespace inmanta::server
