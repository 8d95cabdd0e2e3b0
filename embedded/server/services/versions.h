// Model versions (spec §4.7): reserving numbers, storing a version with all its checks (closed
// dependency graph, unique resource ids, resource sets, undefined resources and what they block),
// partial exports that build on the newest version, release (and auto_deploy), listing, deleting,
// the desired-state views and the diff of two versions.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "embedded/server/services/agents.h"
#include "embedded/server/services/resources.h"
#include "embedded/store/store.h"

namespace inmanta::server {

// The arguments of PUT /api/v1/version and of the partial export, as the client sent them (JSON
// values; null when absent).
struct VersionUpload {
  std::int64_t version = 0;  // ignored by putPartial
  nlohmann::json resources = nlohmann::json::array();
  nlohmann::json resource_state;
  nlohmann::json unknowns;
  nlohmann::json version_info;
  nlohmann::json resource_sets;
  nlohmann::json removed_resource_sets;  // partial only
  nlohmann::json pip_config;
  nlohmann::json project_constraints;
  nlohmann::json module_version_info;
  bool allow_handler_code_update = false;  // partial only
};

// A version with the status the desired-state list shows.
struct VersionSummary {
  store::ModelVersion version;
  std::string status;  // active | candidate | retired | skipped_candidate
};

// One resource's difference between two versions (ResourceDiff of spec §4.7).
struct ResourceDiff {
  std::string resource_id;
  std::string status;                                    // added | modified | deleted | unmodified
  nlohmann::json attributes = nlohmann::json::object();  // {name: {from_value, to_value, *_compare}}
};

class VersionService {
 public:
  // `resources`: its cached lists are invalidated by every write here.
  VersionService(store::Store& store, DeployTrigger& trigger, ResourceService& resources)
      : store_(store), trigger_(trigger), resources_(resources) {}

  std::int64_t reserve(const std::string& env);
  // Stores the version (400/409 with the spec's messages) and releases it when the environment's
  // auto_deploy is on.
  void put(const store::Environment& env, VersionUpload upload);
  // A partial export: the newest version's resources outside the updated and removed resource
  // sets, plus `upload`'s, stored under a fresh number. Returns the number.
  std::int64_t putPartial(const store::Environment& env, VersionUpload upload);
  // 404 bare "The request version does not exist."; 409 when released or older than the newest
  // released version.
  store::ModelVersion release(const store::Environment& env, std::int64_t version);
  // 404 bare "The given configuration model does not exist yet."
  store::ModelVersion get(const std::string& env, std::int64_t version);
  // 404 bare; 400 for the active version.
  void remove(const std::string& env, std::int64_t version);
  // Every version, newest first, with its desired-state status.
  std::vector<VersionSummary> summaries(const std::string& env);
  // The resources of a version; 404 "Version N not found" when missing (desiredstate form).
  std::vector<store::Resource> resources(const std::string& env, std::int64_t version);
  // B relative to A (A < B), unchanged resources left out, sorted by resource id.
  std::vector<ResourceDiff> diff(const std::string& env, std::int64_t from, std::int64_t to);

  // Whether `env`'s auto_deploy setting is on (its default is); stores the default when the
  // setting was never stored, as the reference's read does.
  bool autoDeploy(const store::Environment& env);

 private:
  // Checks and converts an upload to the store's form (without number); takes the payloads out of
  // `upload.resources`.
  store::NewVersion prepare(const store::Environment& env, VersionUpload& upload,
                            const std::vector<store::Resource>& inherited);
  void releaseIfAutoDeploy(const store::Environment& env, std::int64_t version);

  store::Store& store_;
  DeployTrigger& trigger_;
  ResourceService& resources_;
};

// ResourceDiff's `*_compare` text of a value: "" for null, 4-space indented JSON with sorted keys
// for lists and dicts, Python's str() otherwise (True, 644, text as is).
std::string compareText(const nlohmann::json& value);
// The attribute differences of two attribute sets (absent = null; `requires` compared as sorted
// ids; `version` ignored), and the status they add up to.
ResourceDiff diffAttributes(const std::string& resource_id, const nlohmann::json* from, const nlohmann::json* to);

}  // namespace inmanta::server
