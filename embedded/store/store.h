// The orchestrator's store (spec §10): one interface whose methods are domain operations —
// projects, environments, versions, resource states, resource actions, agents, parameters,
// dry-runs — and two engines behind it, SQLite (the default, one file) and PostgreSQL (for a team's
// server). No SQL leaves the engines.
//
// Conventions of every method:
//  * each call is one transaction: it happens completely or not at all, and once it returns, the
//    write survives a kill -9 of the process;
//  * every method may be called from many threads at once;
//  * ids are canonical lowercase UUID text (ids.h); environments are named by id;
//  * errors are the classes of errors.h; a method that names an environment throws
//    NotFound("The environment with given id does not exist.") when it is not there, unless its
//    comment says otherwise. The comments give the messages the spec asks for; the server maps
//    the class to the status code of the endpoint (and may word a message its own way).
//  * JSON values are nlohmann::json; timestamps are store::Timestamp (timestamp.h).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "embedded/store/errors.h"
#include "embedded/store/ids.h"
#include "embedded/store/timestamp.h"

namespace inmanta::store {

// ---------------------------------------------------------------------------------------------
// Opening a store

enum class Engine { sqlite, postgresql };

// `[database]` of the server's configuration.
struct StoreConfig {
  Engine engine = Engine::sqlite;
  // SQLite: the database file, e.g. `<state_dir>/server/inmanta.db`; its folder is created.
  std::string sqlite_path;
  // PostgreSQL: the reference's `host`, `port`, `name`, `username`, `password`,
  // `connection_pool_min_size`, `connection_pool_max_size`.
  std::string host = "localhost";
  int port = 5432;
  std::string name = "inmanta";
  std::string username = "postgres";
  std::string password;
  int pool_min = 1;
  int pool_max = 10;
};

// ---------------------------------------------------------------------------------------------
// Records

struct Project {
  std::string id;
  std::string name;
  std::vector<std::string> environment_ids;  // its environments, sorted by name
};

// One stored setting value (the settings map of an environment, spec §4.5).
struct SettingValue {
  nlohmann::json value;
  bool is_protected = false;
  std::string protected_by;  // e.g. "project.yml"; empty when not protected
};
using Settings = std::map<std::string, SettingValue>;

struct Environment {
  std::string id;
  std::string project_id;
  std::string name;
  std::string repo_url;
  std::string repo_branch;
  std::string description;
  std::string icon;
  bool halted = false;
  bool is_marked_for_deletion = false;
  std::int64_t last_version = 0;  // the reservation counter
  Settings settings;
};

struct NewEnvironment {
  std::optional<std::string> id;  // a fresh UUID when absent
  std::string project_id;
  std::string name;
  std::string repo_url;
  std::string repo_branch;
  std::string description;
  std::string icon;
};

// Absent fields stay unchanged.
struct EnvironmentUpdate {
  std::optional<std::string> name;
  std::optional<std::string> project_id;
  std::optional<std::string> repo_url;
  std::optional<std::string> repo_branch;
  std::optional<std::string> description;
  std::optional<std::string> icon;
};

struct ModelVersion {
  std::string environment;
  std::int64_t version = 0;
  Timestamp date{};
  bool released = false;
  nlohmann::json version_info = nlohmann::json::object();
  std::int64_t total = 0;                             // number of resources
  std::vector<std::string> undeployable;              // resource ids marked undefined
  std::vector<std::string> skipped_for_undeployable;  // resource ids requiring one of those
  std::optional<std::int64_t> partial_base;           // the version a partial export built on
  bool is_suitable_for_partial_compiles = true;
  nlohmann::json pip_config;           // null when absent
  nlohmann::json project_constraints;  // null when absent
};

// One resource of one version (the desired state).
struct Resource {
  std::string resource_id;        // without version: `std::File[localhost,path=/a]`
  std::string resource_type;      // `std::File`
  std::string agent;              // `localhost`
  std::string id_attribute;       // `path`
  std::string resource_id_value;  // `/a`
  // every exported attribute except `id`; `requires` holds resource ids without version
  nlohmann::json attributes = nlohmann::json::object();
  std::string attribute_hash;  // computed by the caller (spec §2)
  bool is_undefined = false;
  std::optional<std::string> resource_set;  // nullopt = the shared set
};

// An unknown value a version's compile met (`unknowns` of put_version).
struct UnknownParameter {
  std::string name;         // the parameter
  std::string source;       // e.g. "fact"
  std::string resource_id;  // empty when not tied to a resource
  nlohmann::json metadata = nlohmann::json::object();
};

// Everything put_version stores, in one transaction.
struct NewVersion {
  std::string environment;
  // The reserved number, > 0 and ≤ the environment's counter. 0 = take the next number in the same
  // transaction (partial exports, which reserve nothing beforehand).
  std::int64_t version = 0;
  std::vector<Resource> resources;  // unique resource ids
  std::vector<UnknownParameter> unknowns;
  nlohmann::json version_info = nlohmann::json::object();
  std::vector<std::string> undeployable;
  std::vector<std::string> skipped_for_undeployable;
  std::optional<std::int64_t> partial_base;
  bool is_suitable_for_partial_compiles = true;
  nlohmann::json pip_config;
  nlohmann::json project_constraints;
  // The modules' Python code of the version (put_version's module_version_info): {module:
  // {"name", "version", "files_in_module": [{"name", "hash_value", "is_byte_code"}],
  // "requirements", "for_agents"}}; null when the export sent none. Read back with moduleCode().
  nlohmann::json module_version_info;
};

// The persistent state of one resource of an environment (spec §6.2), across versions.
struct ResourceState {
  std::string resource_id;
  std::string resource_type;
  std::string agent;
  std::string resource_id_value;
  Timestamp created{};
  std::string current_intent_attribute_hash;
  std::optional<std::string> last_deployed_attribute_hash;
  std::optional<std::int64_t> last_deployed_version;
  std::optional<Timestamp> last_handler_run_at;
  std::optional<Timestamp> last_success;
  std::optional<Timestamp> last_produced_events;
  bool is_undefined = false;
  std::optional<std::int64_t> orphaned_after;  // set = not in the active version since this one
  bool is_deploying = false;
  std::string last_handler_run = "NEW";  // NEW | SUCCESSFUL | FAILED | SKIPPED
  std::optional<bool> last_handler_run_compliant;
  std::string blocked = "NOT_BLOCKED";                  // NOT_BLOCKED | BLOCKED
  std::string last_non_deploying_status = "available";  // a §6.1 state
};

// A log record of one operation on resources (spec §4.8).
struct ResourceAction {
  std::string action_id;  // a fresh UUID when empty on insert
  std::string environment;
  std::int64_t version = 0;
  std::vector<std::string> resource_version_ids;  // `…,v=N`
  std::string action;                             // store | deploy | dryrun | getfact | pull | push | other
  Timestamp started{};
  std::optional<Timestamp> finished;
  std::optional<std::string> status;                  // a §6.1 state
  std::optional<std::string> change;                  // nochange | created | purged | updated
  nlohmann::json changes = nlohmann::json::object();  // {rvid: {attr: {current, desired}}}
  nlohmann::json messages = nlohmann::json::array();  // [LogLine]
  std::optional<bool> send_event;
};

// How an action ends (finishResourceAction). Absent fields stay unchanged; messages are appended.
struct ActionResult {
  std::optional<Timestamp> finished;
  std::optional<std::string> status;
  std::optional<std::string> change;
  std::optional<nlohmann::json> changes;
  nlohmann::json messages = nlohmann::json::array();
  std::optional<bool> send_event;
};

// Which actions to list (GET /api/v2/resource_actions, a resource's logs). Every set field must
// match. Ordered by (started, action_id), newest first unless `oldest_first`.
struct ActionQuery {
  std::optional<std::string> resource_id;  // actions touching this resource (any version)
  std::optional<std::string> resource_type;
  std::optional<std::string> agent;
  std::optional<std::string> resource_id_value;  // the id attribute's value
  std::vector<std::string> actions;              // any of these action names; empty = all
  std::optional<std::int64_t> version;
  // paging: strictly after / before this (started, action_id) position; action_id may be empty
  std::optional<Timestamp> after;
  std::string after_action_id;
  std::optional<Timestamp> before;
  std::string before_action_id;
  bool oldest_first = false;
  std::int64_t limit = 1000;
};

// One write of the scheduler's journal (Store::writeJournal): the scheduler queues its records and
// a writer thread stores them in batches, one transaction per batch.
struct JournalWrite {
  enum class Kind { insertAction, finishAction, saveStates, dryRunResource };
  Kind kind = Kind::saveStates;
  ResourceAction action;  // insertAction (action_id set by the caller)
  // The action's `messages` and `changes` already written as JSON text by the caller (the
  // scheduler does it on its worker, off the writer thread), which the store then takes in place
  // of those two fields of `action` (insertAction) or as the finished action's whole messages and
  // changes (finishAction: `result.messages` and `result.changes` are then left out); empty: the
  // store writes them from `action` or `result`.
  std::string messages_text;
  std::string changes_text;
  std::string action_id;              // finishAction
  ActionResult result;                // finishAction
  std::vector<ResourceState> states;  // saved in the same step, for every kind
  std::string dryrun_id;              // dryRunResource, as recordDryRunResource
  std::string resource_version_id;
  nlohmann::json entry;
};

struct Agent {
  std::string environment;
  std::string name;
  bool paused = false;
  std::optional<bool> unpause_on_resume;  // set while the environment is halted
};

// A parameter or fact (`/api/v1/parameter*`).
struct Parameter {
  std::string environment;
  std::string name;
  std::string value;
  std::string source;       // fact | plugin | user | report
  std::string resource_id;  // empty = not a fact of a resource
  nlohmann::json metadata = nlohmann::json::object();
  Timestamp updated{};
};

struct DryRun {
  std::string id;
  std::string environment;
  std::int64_t version = 0;
  Timestamp date{};
  std::int64_t total = 0;
  std::int64_t todo = 0;
  // {rvid: {"id", "id_fields", "changes", "diff_status"?}} as recorded; empty in listings
  nlohmann::json resources = nlohmann::json::object();
};

struct VersionPage {
  std::vector<ModelVersion> versions;  // newest first
  std::int64_t count = 0;              // all versions of the environment
};

// ---------------------------------------------------------------------------------------------
// The store

class Store {
 public:
  virtual ~Store() = default;

  // Opens (creating when absent) the store `config` names and brings its schema up to date.
  // Throws StoreError naming the file or server when it cannot be opened, when another server holds
  // it ("… is in use by another inmanta server (lock on <file>)"), or when its schema is newer than
  // this program knows.
  static std::unique_ptr<Store> open(const StoreConfig& config);

  // The schema version the store is at (= the newest migration this program carries).
  virtual int schemaVersion() = 0;

  // --- projects -------------------------------------------------------------------------------
  // Conflict("A project with name X already exists."), Conflict when `id` is taken.
  virtual Project createProject(const std::string& name, const std::optional<std::string>& id = std::nullopt) = 0;
  virtual std::vector<Project> listProjects() = 0;  // sorted by name
  // NotFound("The project with given id does not exist.")
  virtual Project getProject(const std::string& id) = 0;
  virtual Project renameProject(const std::string& id, const std::string& name) = 0;
  // Conflict("Cannot remove the project `<id>` because it still contains some environments: …")
  virtual void deleteProject(const std::string& id) = 0;

  // --- environments ---------------------------------------------------------------------------
  // NotFound("The project id for the environment does not exist."); Conflict("Project with
  // id=<p> already has an environment with name <n>") (the spec answers 400 there).
  virtual Environment createEnvironment(const NewEnvironment& env) = 0;
  virtual Environment getEnvironment(const std::string& id) = 0;
  virtual std::vector<Environment> listEnvironments() = 0;  // sorted by (project id, name, id)
  // NotFound for an unknown project (the spec answers 400), Conflict for a name clash.
  virtual Environment updateEnvironment(const std::string& id, const EnvironmentUpdate& update) = 0;
  // Removes the environment and everything belonging to it.
  virtual void deleteEnvironment(const std::string& id) = 0;
  virtual void setMarkedForDeletion(const std::string& id, bool marked) = 0;
  // Removes versions, resources, resource states, actions, agents, dry-runs, parameters and the
  // scheduler's record; keeps the row (and its reservation counter) and its settings.
  virtual void decommissionEnvironment(const std::string& id) = 0;
  // Halt: halted = true and every agent paused, remembering in unpause_on_resume which were
  // running. A no-op on a halted environment.
  virtual void haltEnvironment(const std::string& id) = 0;
  // Resume: halted = false; agents whose unpause_on_resume is true are unpaused; the flags are
  // cleared. A no-op when not halted.
  virtual void resumeEnvironment(const std::string& id) = 0;

  // --- settings (values only; the table of definitions and validation live in the server) ----
  virtual Settings getSettings(const std::string& env) = 0;
  virtual void setSetting(const std::string& env, const std::string& name, const SettingValue& value) = 0;
  // false when the setting was not stored
  virtual bool deleteSetting(const std::string& env, const std::string& name) = 0;
  // Stores `values` protected by `protected_by` and un-protects (keeping their values) the
  // settings protected by the same `protected_by` that are not in `values`.
  virtual void setProtectedSettings(const std::string& env, const std::map<std::string, nlohmann::json>& values,
                                    const std::string& protected_by) = 0;

  // --- files (global, content-addressed by lowercase hex SHA-1; the caller checks the hash) ---
  virtual void putFile(const std::string& hash, const std::string& content) = 0;  // idempotent
  virtual bool hasFile(const std::string& hash) = 0;
  virtual std::optional<std::string> getFile(const std::string& hash) = 0;
  // the hashes of `hashes` not stored, in the given order
  virtual std::vector<std::string> missingFiles(const std::vector<std::string>& hashes) = 0;
  // The uploads an engine keeps aside (SQLite's upload log) go into the database now, as they do
  // before a version is stored and when the store closes: for a process that ends without closing
  // it. (They are kept either way: the next open moves what it finds in the log.)
  virtual void flushUploads() {}

  // --- versions -------------------------------------------------------------------------------
  // The environment's counter + 1, persisted; concurrent callers get distinct increasing numbers.
  virtual std::int64_t reserveVersion(const std::string& env) = 0;
  // Stores the version, its resources, unknowns and resource sets, registers (unpaused) every
  // agent its resources name, and writes one `store` resource action over all resources with the
  // INFO line "Successfully stored version N". Returns the version number.
  // Invalid("The version number used (N) is not positive"); Invalid("The version number used is N
  // which is higher than the last outstanding reservation M"); Conflict("The given version is
  // already defined. Versions should be unique.").
  virtual std::int64_t putVersion(const NewVersion& version) = 0;
  // The same, and the store keeps the resources (of one version at a time, the last stored this
  // way) for the first versionResources of that version, which takes them instead of reading and
  // parsing its rows again: the scheduler reads a version right after its release.
  virtual std::int64_t putVersion(NewVersion&& version) = 0;
  // Marks the version released and brings the resource states in line with it: a missing state
  // row is created (available, NEW); every resource of the version gets its intent hash, undefined
  // flag and blocked flag (skipped_for_undeployable) and stops being orphaned; state rows of
  // resources not in it become orphaned after the previously newest released version.
  // NotFound("The request version does not exist."); Conflict("The version N on environment
  // <id> is already released."); Conflict("The version N on environment <id> is older then the
  // latest released version M.").
  virtual ModelVersion releaseVersion(const std::string& env, std::int64_t version) = 0;
  // NotFound("The given configuration model does not exist yet.")
  virtual ModelVersion getVersion(const std::string& env, std::int64_t version) = 0;
  // The module_version_info the version was stored with (null when none). NotFound as getVersion.
  // Apart from getVersion, as only the executors need it and it can be large.
  virtual nlohmann::json moduleCode(const std::string& env, std::int64_t version) = 0;
  // `limit` versions newest first, skipping the `offset` newest.
  virtual VersionPage listVersions(const std::string& env, std::int64_t offset, std::int64_t limit) = 0;
  // Deletes the version, its resources, unknowns, dry-runs and resource actions, and the state
  // rows of resources no longer in any version. NotFound as getVersion;
  // Invalid("Cannot delete the active version") for the newest released version.
  virtual void deleteVersion(const std::string& env, std::int64_t version) = 0;
  // The newest released version (the one the API calls active), if any.
  virtual std::optional<std::int64_t> latestReleasedVersion(const std::string& env) = 0;
  // The newest stored version, released or not, if any.
  virtual std::optional<std::int64_t> latestVersion(const std::string& env) = 0;

  // --- resources of a version and resource states ---------------------------------------------
  // Sorted by resource id. NotFound as getVersion.
  virtual std::vector<Resource> versionResources(const std::string& env, std::int64_t version) = 0;
  virtual std::optional<Resource> getResource(const std::string& env, std::int64_t version,
                                              const std::string& resource_id) = 0;
  virtual std::vector<UnknownParameter> versionUnknowns(const std::string& env, std::int64_t version) = 0;
  // Sorted by resource id.
  virtual std::vector<ResourceState> resourceStates(const std::string& env) = 0;
  virtual std::optional<ResourceState> getResourceState(const std::string& env, const std::string& resource_id) = 0;
  // Inserts or replaces these state rows (the scheduler persisting its view).
  virtual void saveResourceStates(const std::string& env, const std::vector<ResourceState>& states) = 0;

  // --- resource actions -----------------------------------------------------------------------
  // Inserts the action (a fresh id when action_id is empty) and, in the same transaction, saves
  // `states` (a deploy start). Returns the action id. Conflict when the id is taken.
  virtual std::string insertResourceAction(const ResourceAction& action,
                                           const std::vector<ResourceState>& states = {}) = 0;
  // Completes an action and saves `states` in one transaction (a deploy end).
  // NotFound("The resource action <id> does not exist.")
  virtual void finishResourceAction(const std::string& env, const std::string& action_id, const ActionResult& result,
                                    const std::vector<ResourceState>& states = {}) = 0;
  // Appends LogLines (a JSON array) to an action. NotFound as finishResourceAction.
  virtual void appendActionMessages(const std::string& env, const std::string& action_id,
                                    const nlohmann::json& messages) = 0;
  // Applies the writes in order in one transaction (insertResourceAction, finishResourceAction,
  // saveResourceStates, recordDryRunResource each as its method does); all or nothing. The
  // exceptions: the entries of a dry-run that no longer exists (deleted with its version while its
  // tasks ran) are left out rather than failing the batch and the deploy records in it; and a
  // state row that exists keeps its intent (resource_type, agent, resource_id_value,
  // current_intent_attribute_hash, is_undefined, orphaned_after), which releaseVersion writes: a
  // record the scheduler made before a release but stored after it must not bring the old intent
  // back.
  virtual void writeJournal(const std::string& env, const std::vector<JournalWrite>& writes) = 0;
  virtual std::optional<ResourceAction> getResourceAction(const std::string& env, const std::string& action_id) = 0;
  virtual std::vector<ResourceAction> queryResourceActions(const std::string& env, const ActionQuery& query) = 0;

  // --- agents ---------------------------------------------------------------------------------
  // Creates the named agents that do not exist yet (unpaused; paused when the environment is
  // halted, with unpause_on_resume = true).
  virtual void registerAgents(const std::string& env, const std::vector<std::string>& names) = 0;
  virtual std::vector<Agent> listAgents(const std::string& env) = 0;  // sorted by name
  virtual std::optional<Agent> getAgent(const std::string& env, const std::string& name) = 0;
  // NotFound("The agent with name <n> does not exist.") for an unknown name.
  virtual void setAgentPaused(const std::string& env, const std::string& name, bool paused) = 0;
  virtual void setAllAgentsPaused(const std::string& env, bool paused) = 0;
  virtual void setUnpauseOnResume(const std::string& env, const std::string& name, bool unpause) = 0;
  virtual void setAllUnpauseOnResume(const std::string& env, bool unpause) = 0;

  // --- parameters and facts (keyed by environment, name and resource id) ------------------------
  // Inserts or replaces; `updated` is set to now when left at the epoch. Returns the stored record.
  virtual Parameter setParameter(const Parameter& parameter) = 0;
  virtual std::optional<Parameter> getParameter(const std::string& env, const std::string& name,
                                                const std::string& resource_id = "") = 0;
  // Sorted by (resource id, name); filtered by resource id when given.
  virtual std::vector<Parameter> listParameters(const std::string& env,
                                                const std::optional<std::string>& resource_id = std::nullopt) = 0;
  // false when absent
  virtual bool deleteParameter(const std::string& env, const std::string& name,
                               const std::string& resource_id = "") = 0;

  // --- dry-runs -------------------------------------------------------------------------------
  // A dry-run of a stored version, todo = total = `total`. NotFound("The request version does not
  // exist.") for a missing version.
  virtual DryRun createDryRun(const std::string& env, std::int64_t version, std::int64_t total,
                              const std::optional<std::string>& id = std::nullopt) = 0;
  // Records one resource's result (`entry` = {"id", "id_fields", "changes", …}) and decrements
  // todo, atomically; recording the same rvid again replaces the entry without decrementing.
  // NotFound("The given dryrun does not exist!")
  virtual void recordDryRunResource(const std::string& env, const std::string& dryrun_id,
                                    const std::string& resource_version_id, const nlohmann::json& entry) = 0;
  virtual std::optional<DryRun> getDryRun(const std::string& env, const std::string& dryrun_id) = 0;
  // Without resources, ordered by date, newest first; every version when `version` is absent.
  virtual std::vector<DryRun> listDryRuns(const std::string& env,
                                          const std::optional<std::int64_t>& version = std::nullopt) = 0;

  // --- scheduler ------------------------------------------------------------------------------
  virtual std::optional<std::int64_t> lastProcessedVersion(const std::string& env) = 0;
  virtual void setLastProcessedVersion(const std::string& env, std::int64_t version) = 0;

  // --- pruning --------------------------------------------------------------------------------
  // Deletes all but the `keep` newest versions of the environment (as deleteVersion), never the
  // newest released one. Returns how many were deleted.
  virtual std::int64_t pruneVersions(const std::string& env, std::int64_t keep) = 0;
  // Reads, changing nothing, the rows pruneVersions(env, keep) would delete now, so that they are
  // in the system's cache when it runs; returns how many versions it read. A long-lived project's
  // oldest version was last touched a hundred deploys ago, and its prune at the end of
  // `inmanta deploy` waited ~0.8 s for the disk; the deploy reads it ahead beside its export.
  virtual std::int64_t readAheadPrune(const std::string& env, std::int64_t keep) = 0;
  // Deletes resource actions (of every environment) started before `before`; returns the count.
  virtual std::int64_t pruneResourceActions(Timestamp before) = 0;
};

// An action as finishing it with `result` leaves it: the set fields replace, the messages are
// appended (finishResourceAction; the scheduler merging a run's end into its queued start).
void applyActionResult(ResourceAction& action, const ActionResult& result);
// The same, taking the result's messages and changes instead of copying them.
void applyActionResult(ResourceAction& action, ActionResult&& result);

// The status a user sees (spec §6.1) of a resource with this state row; `available` without row.
std::string displayedStatus(const ResourceState* state);

// The same as Store::open.
inline std::unique_ptr<Store> openStore(const StoreConfig& config) { return Store::open(config); }

}  // namespace inmanta::store
