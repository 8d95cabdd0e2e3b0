#include "embedded/server/services/dryruns.h"

#include <algorithm>

#include "embedded/server/errors.h"
#include "util/resource_id.h"

namespace inmanta::server {

store::DryRun DryRunService::create(const store::Environment& env, std::int64_t version) {
  if (env.halted) throw conflict("Can not request dry run on a halted environment");
  store::ModelVersion model = store_.getVersion(env.id, version);
  store::DryRun dryrun = store_.createDryRun(env.id, version, model.total);
  trigger_.dryRunRequested(env.id, dryrun.id, version);
  return dryrun;
}

std::vector<store::DryRun> DryRunService::list(const std::string& env, const std::optional<std::int64_t>& version) {
  if (version) store_.getVersion(env, *version);
  return store_.listDryRuns(env, version);
}

store::DryRun DryRunService::get(const std::string& env, const std::string& id) {
  std::optional<store::DryRun> dryrun = store_.getDryRun(env, id);
  if (!dryrun) throw notFound("The given dryrun does not exist!");
  return *dryrun;
}

std::vector<ResourceDiff> DryRunService::diff(const store::DryRun& dryrun) {
  std::vector<ResourceDiff> out;
  for (const auto& [rvid, entry] : dryrun.resources.items()) {
    ResourceDiff diff;
    diff.resource_id = util::stripVersion(rvid).value_or(rvid);
    nlohmann::json changes = entry.value("changes", nlohmann::json::object());
    if (!changes.is_object()) changes = nlohmann::json::object();
    // purged true → false: the handler would create it; false → true: delete it
    bool added = false;
    bool deleted = false;
    if (changes.contains("purged") && changes["purged"].is_object()) {
      const nlohmann::json& purged = changes["purged"];
      added = purged.value("current", nlohmann::json()) == true && purged.value("desired", nlohmann::json()) == false;
      deleted = purged.value("current", nlohmann::json()) == false && purged.value("desired", nlohmann::json()) == true;
    }
    for (const auto& [name, change] : changes.items()) {
      nlohmann::json from = added || !change.is_object() ? nlohmann::json() : change.value("current", nlohmann::json());
      nlohmann::json to = deleted || !change.is_object() ? nlohmann::json() : change.value("desired", nlohmann::json());
      diff.attributes[name] = {{"from_value", from},
                               {"to_value", to},
                               {"from_value_compare", compareText(from)},
                               {"to_value_compare", compareText(to)}};
    }
    if (entry.contains("diff_status") && entry["diff_status"].is_string())
      diff.status = entry["diff_status"].get<std::string>();
    else diff.status = added ? "added" : deleted ? "deleted" : changes.empty() ? "unmodified" : "modified";
    out.push_back(std::move(diff));
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.resource_id < b.resource_id; });
  return out;
}

}  // namespace inmanta::server
