// The store's domain operations, written once in the SQL both engines accept (database.h).
#include "embedded/store/sql_store.h"

#include <algorithm>
#include <deque>
#include <mutex>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "embedded/store/upload_log.h"
#include "util/json_text.h"

namespace inmanta::store::sql {
namespace {

using nlohmann::json;

const char* const kNoEnvironment = "The environment with given id does not exist.";

// The tables of one row per resource of a version or an action: no foreign key (a check per row
// was too slow, migration 002), so the store deletes their rows of an environment itself.
const char* const kRowsWithoutCascade[] = {"resource_action_resource", "resource"};

std::string dump(const json& value) { return util::compactJson(value); }

json parse(const std::string& text) {
  if (text.empty()) return nullptr;
  return json::parse(text, nullptr, false);
}

std::vector<std::string> stringList(const std::string& text) {
  std::vector<std::string> out;
  json list = parse(text);
  if (list.is_array())
    for (const auto& item : list)
      if (item.is_string()) out.push_back(item.get<std::string>());
  return out;
}

Param time(Timestamp t) { return Param(toMicros(t)); }
Param optionalTime(const std::optional<Timestamp>& t) { return t ? time(*t) : Param(); }
std::optional<Timestamp> optionalTimeOf(const Row& row, std::size_t i) {
  if (row.isNull(i)) return std::nullopt;
  return fromMicros(row.integer(i));
}

// The parts of a resource (version) id, `TYPE[AGENT,ATTR=VALUE]` with an optional `,v=N` (spec §2).
struct ResourceIdParts {
  std::string resource_id, type, agent, value;
};

ResourceIdParts splitResourceId(const std::string& id) {
  std::string rid = id;
  auto close = rid.rfind(']');
  if (close != std::string::npos && close + 1 < rid.size()) rid = rid.substr(0, close + 1);  // drop ",v=N"
  auto open = rid.find('[');
  auto comma = open == std::string::npos ? std::string::npos : rid.find(',', open);
  auto equals = comma == std::string::npos ? std::string::npos : rid.find('=', comma);
  if (open == std::string::npos || comma == std::string::npos || equals == std::string::npos || rid.back() != ']')
    throw Invalid("Invalid resource id " + id);
  return {rid, rid.substr(0, open), rid.substr(open + 1, comma - open - 1),
          rid.substr(equals + 1, rid.size() - equals - 2)};
}

// The text of one chunk's statement: `head` VALUES ($1,…),(…) `tail`. Made once per thread and
// shape (a chunk of 256 state rows has 4,864 placeholders: building it for every chunk the
// journal wrote cost its writer a tenth of its time).
const std::string& insertText(const std::string& head, std::size_t columns, std::size_t chunk,
                              const std::string& tail) {
  thread_local std::unordered_map<std::string, std::string> texts;
  std::string key = head;
  key += '\0';
  key += tail;
  key += '\0';
  key += std::to_string(columns) + "," + std::to_string(chunk);
  std::string& text = texts[key];
  if (text.empty()) {
    text = head + " VALUES ";
    for (std::size_t r = 0; r < chunk; ++r) {
      text += r ? ",(" : "(";
      for (std::size_t col = 0; col < columns; ++col)
        text += (col ? ",$" : "$") + std::to_string(r * columns + col + 1);
      text += ")";
    }
    text += tail;
  }
  return text;
}

// Calls `each(start, chunk)` for consecutive chunks of `count` items in a few fixed sizes, so that
// each engine caches a handful of statements however many items come.
template <class Each>
void forEachChunk(std::size_t count, Each each) {
  static constexpr std::size_t kChunks[] = {256, 64, 16, 4, 1};
  std::size_t done = 0;
  for (std::size_t chunk : kChunks)
    for (; count - done >= chunk; done += chunk) each(done, chunk);
}

// Inserts many rows with few statements: multi-row VALUES in chunks of forEachChunk's sizes.
// The rows' values move into the statements' parameters (a version's rows are tens of thousands).
void insertMany(Connection& c, const std::string& head, std::size_t columns, std::vector<Params> rows,
                const std::string& tail = "") {
  forEachChunk(rows.size(), [&](std::size_t start, std::size_t chunk) {
    Params params;
    params.reserve(chunk * columns);
    for (std::size_t r = 0; r < chunk; ++r) {
      Params& row = rows[start + r];
      params.insert(params.end(), std::make_move_iterator(row.begin()), std::make_move_iterator(row.end()));
    }
    c.exec(insertText(head, columns, chunk, tail), params);
  });
}

const char* const kEnvironmentColumns =
    "id, project_id, name, repo_url, repo_branch, description, icon, halted, is_marked_for_deletion, last_version";

Environment environmentOf(const Row& row) {
  Environment e;
  e.id = row.text(0);
  e.project_id = row.text(1);
  e.name = row.text(2);
  e.repo_url = row.text(3);
  e.repo_branch = row.text(4);
  e.description = row.text(5);
  e.icon = row.text(6);
  e.halted = row.boolean(7);
  e.is_marked_for_deletion = row.boolean(8);
  e.last_version = row.integer(9);
  return e;
}

const char* const kVersionColumns =
    "environment, version, date, released, version_info, total, undeployable, skipped_for_undeployable, "
    "partial_base, is_suitable_for_partial_compiles, pip_config, project_constraints";

ModelVersion versionOf(const Row& row) {
  ModelVersion v;
  v.environment = row.text(0);
  v.version = row.integer(1);
  v.date = fromMicros(row.integer(2));
  v.released = row.boolean(3);
  v.version_info = parse(row.text(4));
  v.total = row.integer(5);
  v.undeployable = stringList(row.text(6));
  v.skipped_for_undeployable = stringList(row.text(7));
  v.partial_base = row.optionalInteger(8);
  v.is_suitable_for_partial_compiles = row.boolean(9);
  v.pip_config = parse(row.text(10));
  v.project_constraints = parse(row.text(11));
  return v;
}

const char* const kResourceColumns =
    "resource_id, resource_type, agent, id_attribute, resource_id_value, attributes, attribute_hash, is_undefined, "
    "resource_set";

Resource resourceOf(const Row& row) {
  Resource r;
  r.resource_id = row.text(0);
  r.resource_type = row.text(1);
  r.agent = row.text(2);
  r.id_attribute = row.text(3);
  r.resource_id_value = row.text(4);
  r.attributes = parse(row.text(5));
  r.attribute_hash = row.text(6);
  r.is_undefined = row.boolean(7);
  r.resource_set = row.optionalText(8);
  return r;
}

const char* const kStateColumns =
    "resource_id, resource_type, agent, resource_id_value, created, current_intent_attribute_hash, "
    "last_deployed_attribute_hash, last_deployed_version, last_handler_run_at, last_success, last_produced_events, "
    "is_undefined, orphaned_after, is_deploying, last_handler_run, last_handler_run_compliant, blocked, "
    "last_non_deploying_status";

ResourceState stateOf(const Row& row) {
  ResourceState s;
  s.resource_id = row.text(0);
  s.resource_type = row.text(1);
  s.agent = row.text(2);
  s.resource_id_value = row.text(3);
  s.created = fromMicros(row.integer(4));
  s.current_intent_attribute_hash = row.text(5);
  s.last_deployed_attribute_hash = row.optionalText(6);
  s.last_deployed_version = row.optionalInteger(7);
  s.last_handler_run_at = optionalTimeOf(row, 8);
  s.last_success = optionalTimeOf(row, 9);
  s.last_produced_events = optionalTimeOf(row, 10);
  s.is_undefined = row.boolean(11);
  s.orphaned_after = row.optionalInteger(12);
  s.is_deploying = row.boolean(13);
  s.last_handler_run = row.text(14);
  if (!row.isNull(15)) s.last_handler_run_compliant = row.boolean(15);
  s.blocked = row.text(16);
  s.last_non_deploying_status = row.text(17);
  return s;
}

// (the row borrows the texts of `env` and `s`: both must outlive its statement)
Params stateParams(const std::string& env, const ResourceState& s) {
  return {Param::borrow(env),
          Param::borrow(s.resource_id),
          Param::borrow(s.resource_type),
          Param::borrow(s.agent),
          Param::borrow(s.resource_id_value),
          time(s.created),
          Param::borrow(s.current_intent_attribute_hash),
          Param::borrowOptional(s.last_deployed_attribute_hash),
          Param::optional(s.last_deployed_version),
          optionalTime(s.last_handler_run_at),
          optionalTime(s.last_success),
          optionalTime(s.last_produced_events),
          s.is_undefined,
          Param::optional(s.orphaned_after),
          s.is_deploying,
          Param::borrow(s.last_handler_run),
          Param::optional(s.last_handler_run_compliant),
          Param::borrow(s.blocked),
          Param::borrow(s.last_non_deploying_status)};
}

const char* const kActionColumns =
    "action_id, environment, version, action, started, finished, status, change, changes, messages, send_event";
// the resource of a run, in its action's row (migration 005; NULL for other actions)
const char* const kActionRunColumns = "resource_id, resource_type, agent, resource_id_value";
constexpr std::size_t kActionInsertCount = 15;

ResourceAction actionOf(const Row& row) {
  ResourceAction a;
  a.action_id = row.text(0);
  a.environment = row.text(1);
  a.version = row.integer(2);
  a.action = row.text(3);
  a.started = fromMicros(row.integer(4));
  a.finished = optionalTimeOf(row, 5);
  a.status = row.optionalText(6);
  a.change = row.optionalText(7);
  a.changes = parse(row.text(8));
  a.messages = parse(row.text(9));
  if (!row.isNull(10)) a.send_event = row.boolean(10);
  return a;
}

const char* const kParameterColumns = "environment, name, value, source, resource_id, metadata, updated";

Parameter parameterOf(const Row& row) {
  return {
      row.text(0), row.text(1), row.text(2), row.text(3), row.text(4), parse(row.text(5)), fromMicros(row.integer(6))};
}

const char* const kDryRunColumns = "id, environment, version, date, total, todo";

DryRun dryRunOf(const Row& row) {
  DryRun d;
  d.id = row.text(0);
  d.environment = row.text(1);
  d.version = row.integer(2);
  d.date = fromMicros(row.integer(3));
  d.total = row.integer(4);
  d.todo = row.integer(5);
  return d;
}

Agent agentOf(const Row& row) {
  Agent a{row.text(0), row.text(1), row.boolean(2), std::nullopt};
  if (!row.isNull(3)) a.unpause_on_resume = row.boolean(3);
  return a;
}

// Recently stored or read file contents, by hash. A content is addressed by its hash and a file is
// never changed or removed, so what is kept here is never stale, on either engine and with other
// servers on the same database. A deploy's handlers read the contents its export uploaded a moment
// before (10,000 reads of one row each: a tenth of a first deploy's runs).
class FileCache {
 public:
  static constexpr std::size_t kBudget = std::size_t{32} << 20;  // bytes of contents kept at most
  static constexpr std::size_t kLargest = std::size_t{1} << 20;  // a larger content is not kept

  std::optional<std::string> get(const std::string& hash) const {
    std::lock_guard<std::mutex> lock(mutex_);
    auto found = contents_.find(hash);
    if (found == contents_.end()) return std::nullopt;
    return found->second;
  }

  bool has(const std::string& hash) const {
    std::lock_guard<std::mutex> lock(mutex_);
    return contents_.count(hash) != 0;
  }

  void put(const std::string& hash, const std::string& content) {
    if (content.size() > kLargest) return;
    std::lock_guard<std::mutex> lock(mutex_);
    if (!contents_.emplace(hash, content).second) return;
    order_.push_back(hash);
    bytes_ += content.size();
    while (bytes_ > kBudget) {  // the oldest go first
      auto oldest = contents_.find(order_.front());
      bytes_ -= oldest->second.size();
      contents_.erase(oldest);
      order_.pop_front();
    }
  }

 private:
  mutable std::mutex mutex_;
  std::unordered_map<std::string, std::string> contents_;
  std::deque<std::string> order_;  // the hashes in the order they came
  std::size_t bytes_ = 0;
};

class SqlStore : public Store {
 public:
  SqlStore(std::unique_ptr<Database> db, std::shared_ptr<void> guard, int schema, const std::string& uploadLog)
      : db_(std::move(db)), guard_(std::move(guard)), schema_(schema) {
    if (uploadLog.empty()) return;
    uploads_ = std::make_unique<UploadLog>(uploadLog);
    // what a process that ended without moving its uploads into the database left
    std::vector<UploadLog::Record> recovered = uploads_->takeRecovered();
    if (recovered.empty()) return;
    insertFiles(recovered);
    uploads_->clear();
  }

  // The uploads kept in the log go into the database; then the pool goes, its connections closed
  // before the single-server lock is let go.
  ~SqlStore() override {
    try {
      flushUploads();
    } catch (const std::exception&) {
      // they stay in the log, which the next open reads
    }
    db_.reset();
  }

  int schemaVersion() override { return schema_; }

  // --- projects ---------------------------------------------------------------------------------

  Project createProject(const std::string& name, const std::optional<std::string>& id) override {
    return db_->write([&](Connection& c) {
      if (c.scalar("SELECT 1 FROM project WHERE name = $1", {name}))
        throw Conflict("A project with name " + name + " already exists.");
      std::string project_id = id ? *id : newUuid();
      if (c.scalar("SELECT 1 FROM project WHERE id = $1", {project_id}))
        throw Conflict("A project with id " + project_id + " already exists.");
      c.exec("INSERT INTO project (id, name) VALUES ($1, $2)", {project_id, name});
      return Project{project_id, name, {}};
    });
  }

  std::vector<Project> listProjects() override {
    return db_->read([&](Connection& c) {
      std::vector<Project> projects;
      for (const Row& row : c.query("SELECT id, name FROM project ORDER BY name")) {
        projects.push_back({row.text(0), row.text(1), {}});
      }
      for (const Row& row : c.query("SELECT project_id, id FROM environment ORDER BY name, id")) {
        for (auto& p : projects)
          if (p.id == row.text(0)) p.environment_ids.push_back(row.text(1));
      }
      return projects;
    });
  }

  Project getProject(const std::string& id) override {
    return db_->read([&](Connection& c) { return loadProject(c, id); });
  }

  Project renameProject(const std::string& id, const std::string& name) override {
    return db_->write([&](Connection& c) {
      loadProject(c, id);
      if (c.scalar("SELECT 1 FROM project WHERE name = $1 AND id <> $2", {name, id}))
        throw Conflict("A project with name " + name + " already exists.");
      c.exec("UPDATE project SET name = $2 WHERE id = $1", {id, name});
      return loadProject(c, id);
    });
  }

  void deleteProject(const std::string& id) override {
    db_->write([&](Connection& c) {
      Project project = loadProject(c, id);
      if (!project.environment_ids.empty()) {
        std::string names;
        for (const Row& row : c.query("SELECT name FROM environment WHERE project_id = $1 ORDER BY name", {id}))
          names += (names.empty() ? "" : ", ") + row.text(0);
        throw Conflict("Cannot remove the project `" + id + "` because it still contains some environments: " + names);
      }
      c.exec("DELETE FROM project WHERE id = $1", {id});
    });
  }

  // --- environments -----------------------------------------------------------------------------

  Environment createEnvironment(const NewEnvironment& env) override {
    return db_->write([&](Connection& c) {
      if (!c.scalar("SELECT 1 FROM project WHERE id = $1", {env.project_id}))
        throw NotFound("The project id for the environment does not exist.");
      requireFreeName(c, env.project_id, env.name, "");
      std::string id = env.id ? *env.id : newUuid();
      if (c.scalar("SELECT 1 FROM environment WHERE id = $1", {id}))
        throw Conflict("An environment with id " + id + " already exists.");
      c.exec(
          "INSERT INTO environment (id, project_id, name, repo_url, repo_branch, description, icon) "
          "VALUES ($1, $2, $3, $4, $5, $6, $7)",
          {id, env.project_id, env.name, env.repo_url, env.repo_branch, env.description, env.icon});
      return loadEnvironment(c, id);
    });
  }

  Environment getEnvironment(const std::string& id) override {
    return db_->read([&](Connection& c) { return loadEnvironment(c, id); });
  }

  std::vector<Environment> listEnvironments() override {
    return db_->read([&](Connection& c) {
      std::vector<Environment> out;
      for (const Row& row :
           c.query(std::string("SELECT ") + kEnvironmentColumns + " FROM environment ORDER BY project_id, name, id"))
        out.push_back(environmentOf(row));
      for (const Row& row : c.query("SELECT environment, name, value, protected, protected_by FROM setting")) {
        for (auto& e : out)
          if (e.id == row.text(0)) e.settings[row.text(1)] = {parse(row.text(2)), row.boolean(3), row.text(4)};
      }
      return out;
    });
  }

  Environment updateEnvironment(const std::string& id, const EnvironmentUpdate& update) override {
    return db_->write([&](Connection& c) {
      Environment current = loadEnvironment(c, id);
      std::string project = update.project_id.value_or(current.project_id);
      std::string name = update.name.value_or(current.name);
      if (project != current.project_id && !c.scalar("SELECT 1 FROM project WHERE id = $1", {project}))
        throw NotFound("The project with id " + project + " does not exist.");
      requireFreeName(c, project, name, id);
      c.exec(
          "UPDATE environment SET project_id = $2, name = $3, repo_url = $4, repo_branch = $5, description = $6, "
          "icon = $7 WHERE id = $1",
          {id, project, name, update.repo_url.value_or(current.repo_url),
           update.repo_branch.value_or(current.repo_branch), update.description.value_or(current.description),
           update.icon.value_or(current.icon)});
      return loadEnvironment(c, id);
    });
  }

  void deleteEnvironment(const std::string& id) override {
    db_->write([&](Connection& c) {
      requireEnvironment(c, id);
      // the cascades remove settings, versions, states, actions, agents, …; the per-resource rows
      // have no foreign key (migration 002)
      for (const char* table : kRowsWithoutCascade)
        c.exec(std::string("DELETE FROM ") + table + " WHERE environment = $1", {id});
      c.exec("DELETE FROM environment WHERE id = $1", {id});
    });
  }

  void setMarkedForDeletion(const std::string& id, bool marked) override {
    db_->write([&](Connection& c) {
      requireEnvironment(c, id);
      c.exec("UPDATE environment SET is_marked_for_deletion = $2 WHERE id = $1", {id, marked});
    });
  }

  void decommissionEnvironment(const std::string& id) override {
    db_->write([&](Connection& c) {
      requireEnvironment(c, id);
      for (const char* table : kRowsWithoutCascade)
        c.exec(std::string("DELETE FROM ") + table + " WHERE environment = $1", {id});
      for (const char* table :
           {"resource_action", "model_version", "resource_state", "agent", "parameter", "scheduler"})
        c.exec(std::string("DELETE FROM ") + table + " WHERE environment = $1", {id});
    });
  }

  void haltEnvironment(const std::string& id) override {
    db_->write([&](Connection& c) {
      if (requireEnvironment(c, id)) return;
      c.exec("UPDATE environment SET halted = TRUE WHERE id = $1", {id});
      c.exec(
          "UPDATE agent SET unpause_on_resume = CASE WHEN paused THEN FALSE ELSE TRUE END, paused = TRUE "
          "WHERE environment = $1",
          {id});
    });
  }

  void resumeEnvironment(const std::string& id) override {
    db_->write([&](Connection& c) {
      if (!requireEnvironment(c, id)) return;
      c.exec("UPDATE environment SET halted = FALSE WHERE id = $1", {id});
      c.exec(
          "UPDATE agent SET paused = CASE WHEN unpause_on_resume THEN FALSE ELSE paused END, "
          "unpause_on_resume = NULL WHERE environment = $1",
          {id});
    });
  }

  // --- settings ---------------------------------------------------------------------------------

  Settings getSettings(const std::string& env) override {
    return db_->read([&](Connection& c) {
      requireEnvironment(c, env);
      return loadSettings(c, env);
    });
  }

  void setSetting(const std::string& env, const std::string& name, const SettingValue& value) override {
    db_->write([&](Connection& c) {
      requireEnvironment(c, env);
      upsertSetting(c, env, name, value);
    });
  }

  bool deleteSetting(const std::string& env, const std::string& name) override {
    return db_->write([&](Connection& c) {
      requireEnvironment(c, env);
      return !c.query("DELETE FROM setting WHERE environment = $1 AND name = $2 RETURNING name", {env, name}).empty();
    });
  }

  void setProtectedSettings(const std::string& env, const std::map<std::string, json>& values,
                            const std::string& protected_by) override {
    db_->write([&](Connection& c) {
      requireEnvironment(c, env);
      for (const Row& row :
           c.query("SELECT name FROM setting WHERE environment = $1 AND protected AND protected_by = $2",
                   {env, protected_by})) {
        if (!values.count(row.text(0)))
          c.exec("UPDATE setting SET protected = FALSE, protected_by = '' WHERE environment = $1 AND name = $2",
                 {env, row.text(0)});
      }
      for (const auto& [name, value] : values) upsertSetting(c, env, name, {value, true, protected_by});
    });
  }

  // --- files ------------------------------------------------------------------------------------

  void putFile(const std::string& hash, const std::string& content) override {
    if (uploads_ && content.size() <= kLogged) {
      std::lock_guard<std::mutex> log(logMutex_);
      if (isPending(hash) || files_.has(hash)) return;
      uploads_->append(hash, content);  // the upload is kept from here on
      bool full = false;
      {
        std::lock_guard<std::mutex> lock(pendingMutex_);
        pendingBytes_ += content.size();
        pending_.emplace(hash, content);
        full = pending_.size() >= kPendingFiles || pendingBytes_ >= kPendingBytes;
      }
      if (full) flushPending();
      return;
    }
    db_->write([&](Connection& c) {
      c.exec("INSERT INTO file (content_hash, content) VALUES ($1, $2) ON CONFLICT (content_hash) DO NOTHING",
             {hash, Param::blob(content)});
    });
    files_.put(hash, content);  // (once committed)
  }

  bool hasFile(const std::string& hash) override {
    if (files_.has(hash) || isPending(hash)) return true;
    return db_->read(
        [&](Connection& c) { return c.scalar("SELECT 1 FROM file WHERE content_hash = $1", {hash}).has_value(); });
  }

  std::optional<std::string> getFile(const std::string& hash) override {
    if (std::optional<std::string> cached = files_.get(hash)) return cached;
    if (std::optional<std::string> pending = pendingFile(hash)) return pending;
    std::optional<std::string> content = db_->read([&](Connection& c) -> std::optional<std::string> {
      Rows rows = c.query("SELECT content FROM file WHERE content_hash = $1", {hash});
      if (rows.empty()) return std::nullopt;
      return rows[0].text(0);
    });
    if (content) files_.put(hash, *content);
    return content;
  }

  std::vector<std::string> missingFiles(const std::vector<std::string>& hashes) override {
    // the hashes asked for many per statement, in forEachChunk's sizes (an export asks for all of
    // its files at once: 10,000 statements of one row each took 20 ms)
    std::vector<const std::string*> unknown;  // not among the contents kept in memory
    {
      std::lock_guard<std::mutex> lock(pendingMutex_);
      for (const auto& hash : hashes)
        if (pending_.count(hash) == 0 && !files_.has(hash)) unknown.push_back(&hash);
    }
    std::unordered_set<std::string> stored;
    db_->read([&](Connection& c) {
      forEachChunk(unknown.size(), [&](std::size_t start, std::size_t chunk) {
        Params params;
        params.reserve(chunk);
        for (std::size_t i = 0; i < chunk; ++i) params.emplace_back(*unknown[start + i]);
        c.forEach(insertText("SELECT content_hash FROM file WHERE content_hash IN (", 1, chunk, ")"), params,
                  [&](const Row& row) { stored.insert(row.text(0)); });
      });
    });
    std::vector<std::string> missing;
    for (const std::string* hash : unknown)
      if (!stored.count(*hash)) missing.push_back(*hash);
    return missing;
  }

  void flushUploads() override {
    std::lock_guard<std::mutex> log(logMutex_);
    flushPending();
  }

  // --- versions ---------------------------------------------------------------------------------

  std::int64_t reserveVersion(const std::string& env) override {
    return db_->write([&](Connection& c) {
      // one UPDATE … RETURNING: the row lock makes concurrent reservations take turns
      auto number =
          c.scalar("UPDATE environment SET last_version = last_version + 1 WHERE id = $1 RETURNING last_version",
                   {env});
      if (!number) throw NotFound(kNoEnvironment);
      return *number;
    });
  }

  std::int64_t putVersion(NewVersion&& v) override {
    // sorted by id first: the rows go into the table's key in order, and the version's first read
    // (which wants them by id, as the rows are read) takes them as they are
    std::vector<std::size_t> byId(v.resources.size());
    for (std::size_t i = 0; i < byId.size(); ++i) byId[i] = i;
    std::sort(byId.begin(), byId.end(),
              [&v](std::size_t a, std::size_t b) { return v.resources[a].resource_id < v.resources[b].resource_id; });
    std::vector<Resource> sorted;
    sorted.reserve(byId.size());
    for (std::size_t i : byId) sorted.push_back(std::move(v.resources[i]));
    v.resources = std::move(sorted);
    std::int64_t number = putVersion(static_cast<const NewVersion&>(v));
    std::lock_guard<std::mutex> lock(lastPutMutex_);
    lastPut_ = LastPut{v.environment, number, std::move(v.resources)};
    return number;
  }

  std::int64_t putVersion(const NewVersion& v) override {
    if (v.version < 0) throw Invalid("The version number used (" + std::to_string(v.version) + ") is not positive");
    // the uploads that came before the version go into the database before it (they would
    // otherwise wait for the next thousands of uploads, or the next open)
    flushUploads();
    return db_->write([&](Connection& c) {
      std::int64_t number = v.version;
      auto last = lockEnvironment(c, v.environment, number == 0);
      if (number == 0) {
        number = last;
      } else if (number > last) {
        throw Invalid("The version number used is " + std::to_string(number) +
                      " which is higher than the last outstanding reservation " + std::to_string(last));
      }
      if (c.scalar("SELECT 1 FROM model_version WHERE environment = $1 AND version = $2", {v.environment, number}))
        throw Conflict("The given version is already defined. Versions should be unique.");
      const Timestamp stamp = now();
      c.exec(std::string("INSERT INTO model_version (") + kVersionColumns +
                 ", module_version_info) VALUES ($1, $2, $3, FALSE, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
             {v.environment, number, time(stamp), dump(v.version_info), static_cast<std::int64_t>(v.resources.size()),
              dump(v.undeployable), dump(v.skipped_for_undeployable), Param::optional(v.partial_base),
              v.is_suitable_for_partial_compiles, dump(v.pip_config), dump(v.project_constraints),
              v.module_version_info.is_null() ? Param() : Param(dump(v.module_version_info))});

      std::vector<Params> resources;
      std::set<std::string> agents;
      resources.reserve(v.resources.size());
      for (const Resource& r : v.resources) {
        // the row borrows the resource's texts (`v` outlives the statements) and holds its
        // attributes' text
        Params row;
        row.reserve(11);
        row.push_back(Param::borrow(v.environment));
        row.emplace_back(number);
        row.push_back(Param::borrow(r.resource_id));
        row.push_back(Param::borrow(r.resource_type));
        row.push_back(Param::borrow(r.agent));
        row.push_back(Param::borrow(r.id_attribute));
        row.push_back(Param::borrow(r.resource_id_value));
        row.emplace_back(dump(r.attributes));
        row.push_back(Param::borrow(r.attribute_hash));
        row.emplace_back(r.is_undefined);
        row.push_back(Param::borrowOptional(r.resource_set));
        resources.push_back(std::move(row));
        agents.insert(r.agent);
      }
      insertMany(c, std::string("INSERT INTO resource (environment, version, ") + kResourceColumns + ")", 11,
                 std::move(resources));

      std::vector<Params> unknowns;
      for (const UnknownParameter& u : v.unknowns)
        unknowns.push_back({v.environment, number, u.resource_id, u.name, u.source, dump(u.metadata)});
      insertMany(c, "INSERT INTO unknown_parameter (environment, version, resource_id, name, source, metadata)", 6,
                 std::move(unknowns), " ON CONFLICT (environment, version, resource_id, name) DO NOTHING");

      addAgents(c, v.environment, {agents.begin(), agents.end()});

      json line = {{"level", "INFO"},
                   {"msg", "Successfully stored version " + std::to_string(number)},
                   {"args", json::array()},
                   {"kwargs", {{"version", number}}},
                   {"timestamp", formatTimestamp(stamp)}};
      // the store action is about every resource of the version: it names them by its flag
      // resources_of_version instead of a copy of the version's rows (migration 003)
      c.exec(std::string("INSERT INTO resource_action (") + kActionColumns +
                 ", resources_of_version) VALUES ($1, $2, $3, 'store', $4, $4, NULL, NULL, '{}', $5, NULL, TRUE)",
             {newTimeOrderedUuid(), v.environment, number, time(stamp), dump(json::array({line}))});
      return number;
    });
  }

  ModelVersion releaseVersion(const std::string& env, std::int64_t version) override {
    return db_->write([&](Connection& c) {
      lockEnvironment(c, env, false);
      Rows rows = c.query("SELECT released FROM model_version WHERE environment = $1 AND version = $2", {env, version});
      if (rows.empty()) throw NotFound("The request version does not exist.");
      const std::string which = "The version " + std::to_string(version) + " on environment " + env;
      if (rows[0].boolean(0)) throw Conflict(which + " is already released.");
      auto previous = c.scalar("SELECT MAX(version) FROM model_version WHERE environment = $1 AND released", {env});
      if (previous && *previous > version)
        throw Conflict(which + " is older then the latest released version " + std::to_string(*previous) + ".");
      c.exec("UPDATE model_version SET released = TRUE WHERE environment = $1 AND version = $2", {env, version});

      // every resource of the version gets a state row (new ones: available, NEW) carrying its intent
      c.exec(
          "INSERT INTO resource_state (environment, resource_id, resource_type, agent, resource_id_value, created, "
          "current_intent_attribute_hash, is_undefined, is_deploying, last_handler_run, blocked, "
          "last_non_deploying_status) "
          "SELECT environment, resource_id, resource_type, agent, resource_id_value, CAST($3 AS BIGINT), "
          "attribute_hash, is_undefined, FALSE, 'NEW', CASE WHEN is_undefined THEN 'BLOCKED' ELSE 'NOT_BLOCKED' END, "
          "'available' FROM resource WHERE environment = $1 AND version = $2 "
          "ON CONFLICT (environment, resource_id) DO UPDATE SET resource_type = excluded.resource_type, "
          "agent = excluded.agent, resource_id_value = excluded.resource_id_value, "
          "current_intent_attribute_hash = excluded.current_intent_attribute_hash, "
          "is_undefined = excluded.is_undefined, blocked = excluded.blocked, orphaned_after = NULL "
          // a row that already says all that is left as it is: a release of an unchanged model
          // rewrote 10,000 rows for nothing
          "WHERE resource_state.resource_type IS DISTINCT FROM excluded.resource_type "
          "OR resource_state.agent IS DISTINCT FROM excluded.agent "
          "OR resource_state.resource_id_value IS DISTINCT FROM excluded.resource_id_value "
          "OR resource_state.current_intent_attribute_hash IS DISTINCT FROM excluded.current_intent_attribute_hash "
          "OR resource_state.is_undefined IS DISTINCT FROM excluded.is_undefined "
          "OR resource_state.blocked IS DISTINCT FROM excluded.blocked OR resource_state.orphaned_after IS NOT NULL",
          {env, version, time(now())});
      ModelVersion released = loadVersion(c, env, version);
      for (const std::string& rid : released.skipped_for_undeployable)
        c.exec("UPDATE resource_state SET blocked = 'BLOCKED' WHERE environment = $1 AND resource_id = $2", {env, rid});
      if (previous) {
        c.exec(
            "UPDATE resource_state SET orphaned_after = $3 WHERE environment = $1 AND orphaned_after IS NULL "
            "AND NOT EXISTS (SELECT 1 FROM resource r WHERE r.environment = $1 AND r.version = $2 "
            "AND r.resource_id = resource_state.resource_id)",
            {env, version, *previous});
      }
      return released;
    });
  }

  ModelVersion getVersion(const std::string& env, std::int64_t version) override {
    return db_->read([&](Connection& c) { return loadVersion(c, env, version); });
  }

  nlohmann::json moduleCode(const std::string& env, std::int64_t version) override {
    return db_->read([&](Connection& c) {
      requireEnvironment(c, env);
      Rows rows = c.query("SELECT module_version_info FROM model_version WHERE environment = $1 AND version = $2",
                          {env, version});
      if (rows.empty()) throw NotFound("The given configuration model does not exist yet.");
      std::optional<std::string> text = rows[0].optionalText(0);
      return text ? parse(*text) : nlohmann::json();
    });
  }

  VersionPage listVersions(const std::string& env, std::int64_t offset, std::int64_t limit) override {
    return db_->read([&](Connection& c) {
      requireEnvironment(c, env);
      VersionPage page;
      for (const Row& row : c.query(std::string("SELECT ") + kVersionColumns +
                                        " FROM model_version WHERE environment = $1 ORDER BY version DESC "
                                        "LIMIT $2 OFFSET $3",
                                    {env, limit, offset}))
        page.versions.push_back(versionOf(row));
      page.count = c.scalar("SELECT COUNT(*) FROM model_version WHERE environment = $1", {env}).value_or(0);
      return page;
    });
  }

  void deleteVersion(const std::string& env, std::int64_t version) override {
    db_->write([&](Connection& c) {
      loadVersion(c, env, version);
      if (c.scalar("SELECT MAX(version) FROM model_version WHERE environment = $1 AND released", {env}) == version)
        throw Invalid("Cannot delete the active version");
      removeVersion(c, env, version);
    });
  }

  std::optional<std::int64_t> latestReleasedVersion(const std::string& env) override {
    return db_->read([&](Connection& c) {
      requireEnvironment(c, env);
      return c.scalar("SELECT MAX(version) FROM model_version WHERE environment = $1 AND released", {env});
    });
  }

  std::optional<std::int64_t> latestVersion(const std::string& env) override {
    return db_->read([&](Connection& c) {
      requireEnvironment(c, env);
      return c.scalar("SELECT MAX(version) FROM model_version WHERE environment = $1", {env});
    });
  }

  // --- resources and states ---------------------------------------------------------------------

  std::vector<Resource> versionResources(const std::string& env, std::int64_t version) override {
    return db_->read([&](Connection& c) {
      loadVersion(c, env, version);  // NotFound for a version that went since it was put
      if (std::optional<LastPut> put = takeLastPut(env, version)) return std::move(put->resources);  // sorted
      std::vector<Resource> out;
      c.forEach(std::string("SELECT ") + kResourceColumns +
                    " FROM resource WHERE environment = $1 AND version = $2 ORDER BY resource_id",
                {env, version}, [&out](const Row& row) { out.push_back(resourceOf(row)); });
      return out;
    });
  }

  std::optional<Resource> getResource(const std::string& env, std::int64_t version,
                                      const std::string& resource_id) override {
    return db_->read([&](Connection& c) -> std::optional<Resource> {
      requireEnvironment(c, env);
      Rows rows = c.query(std::string("SELECT ") + kResourceColumns +
                              " FROM resource WHERE environment = $1 AND version = $2 AND resource_id = $3",
                          {env, version, resource_id});
      if (rows.empty()) return std::nullopt;
      return resourceOf(rows[0]);
    });
  }

  std::vector<UnknownParameter> versionUnknowns(const std::string& env, std::int64_t version) override {
    return db_->read([&](Connection& c) {
      loadVersion(c, env, version);
      std::vector<UnknownParameter> out;
      for (const Row& row : c.query("SELECT name, source, resource_id, metadata FROM unknown_parameter "
                                    "WHERE environment = $1 AND version = $2 ORDER BY resource_id, name",
                                    {env, version}))
        out.push_back({row.text(0), row.text(1), row.text(2), parse(row.text(3))});
      return out;
    });
  }

  std::vector<ResourceState> resourceStates(const std::string& env) override {
    return db_->read([&](Connection& c) {
      requireEnvironment(c, env);
      std::vector<ResourceState> out;
      c.forEach(std::string("SELECT ") + kStateColumns +
                    " FROM resource_state WHERE environment = $1 ORDER BY resource_id",
                {env}, [&out](const Row& row) { out.push_back(stateOf(row)); });
      return out;
    });
  }

  std::optional<ResourceState> getResourceState(const std::string& env, const std::string& resource_id) override {
    return db_->read([&](Connection& c) -> std::optional<ResourceState> {
      requireEnvironment(c, env);
      Rows rows = c.query(std::string("SELECT ") + kStateColumns +
                              " FROM resource_state WHERE environment = $1 AND resource_id = $2",
                          {env, resource_id});
      if (rows.empty()) return std::nullopt;
      return stateOf(rows[0]);
    });
  }

  void saveResourceStates(const std::string& env, const std::vector<ResourceState>& states) override {
    db_->write([&](Connection& c) {
      requireEnvironment(c, env);
      saveStates(c, env, states);
    });
  }

  // --- resource actions -------------------------------------------------------------------------

  std::string insertResourceAction(const ResourceAction& action, const std::vector<ResourceState>& states) override {
    ResourceAction named = action;
    if (named.action_id.empty()) named.action_id = newTimeOrderedUuid();
    db_->write([&](Connection& c) {
      requireEnvironment(c, named.environment);
      if (c.scalar("SELECT 1 FROM resource_action WHERE action_id = $1", {named.action_id}))
        throw Conflict("A resource action with id " + named.action_id + " already exists.");
      insertAction(c, named, states);
    });
    return named.action_id;
  }

  void finishResourceAction(const std::string& env, const std::string& action_id, const ActionResult& result,
                            const std::vector<ResourceState>& states) override {
    db_->write([&](Connection& c) { finishAction(c, env, action_id, result, states); });
  }

  void writeJournal(const std::string& env, const std::vector<JournalWrite>& writes) override {
    if (writes.empty()) return;
    db_->write([&](Connection& c) {
      requireEnvironment(c, env);
      // New actions are inserted many rows per statement, and each resource's state row once, with
      // its last value: the transaction makes the batch one step, so only the end result shows.
      std::vector<Params> actions, actionResources;
      std::map<std::string, std::vector<std::pair<std::string, std::string>>> dryRunEntries;
      std::unordered_map<std::string, const ResourceState*> states;
      std::vector<const ResourceState*> stateOrder;
      auto keep = [&](const std::vector<ResourceState>& rows) {
        for (const ResourceState& state : rows) {
          auto [at, added] = states.emplace(state.resource_id, &state);
          if (added) stateOrder.push_back(&state);
          else at->second = &state;
        }
      };
      auto flushActions = [&] { insertActionRows(c, actions, actionResources); };
      for (const JournalWrite& w : writes) {
        switch (w.kind) {
          case JournalWrite::Kind::insertAction:
            actionRows(w.action, actions, actionResources, w.messages_text, w.changes_text);
            break;
          case JournalWrite::Kind::finishAction:
            flushActions();  // the action may be one of this batch
            finishAction(c, env, w.action_id, w.result, {}, w.messages_text, w.changes_text);
            break;
          case JournalWrite::Kind::saveStates: break;
          case JournalWrite::Kind::dryRunResource:
            dryRunEntries[w.dryrun_id].emplace_back(w.resource_version_id, dump(w.entry));
            break;
        }
        keep(w.states);
      }
      flushActions();
      // a dry-run's entries are rows of their own tables: they go in one step each at the end
      for (const auto& [dryrun_id, entries] : dryRunEntries) recordDryRuns(c, env, dryrun_id, entries, true);
      std::vector<const ResourceState*> last;
      last.reserve(stateOrder.size());
      for (const ResourceState* first : stateOrder) last.push_back(states[first->resource_id]);
      saveStates(c, env, last, true);
    });
  }

  void appendActionMessages(const std::string& env, const std::string& action_id, const json& messages) override {
    db_->write([&](Connection& c) {
      ResourceAction action = loadAction(c, env, action_id);
      appendMessages(action, messages);
      c.exec("UPDATE resource_action SET messages = $2 WHERE action_id = $1", {action_id, dump(action.messages)});
    });
  }

  std::optional<ResourceAction> getResourceAction(const std::string& env, const std::string& action_id) override {
    return db_->read([&](Connection& c) -> std::optional<ResourceAction> {
      requireEnvironment(c, env);
      Rows rows = c.query(std::string("SELECT ") + kActionColumns +
                              " FROM resource_action WHERE environment = $1 AND action_id = $2",
                          {env, action_id});
      if (rows.empty()) return std::nullopt;
      ResourceAction action = actionOf(rows[0]);
      loadActionResources(c, action);
      return action;
    });
  }

  std::vector<ResourceAction> queryResourceActions(const std::string& env, const ActionQuery& q) override {
    Params params{env};
    auto placeholder = [&params](Param p) {
      params.push_back(std::move(p));
      return "$" + std::to_string(params.size());
    };
    std::string where = "a.environment = $1";
    // an action touches a resource by its own columns (a run, migration 005), by its rows in
    // resource_action_resource, or as the store action of the resource's version (migration 003)
    std::string touching, touchingRun, byId;
    auto touch = [&](const char* column, const std::string& value) {
      std::string p = placeholder(value);
      touching += std::string(" AND r.") + column + " = " + p;
      touchingRun += std::string(" AND a.") + column + " = " + p;
      return p;
    };
    if (q.resource_id) byId = touch("resource_id", *q.resource_id);
    if (q.resource_type) touch("resource_type", *q.resource_type);
    if (q.agent) touch("agent", *q.agent);
    if (q.resource_id_value) touch("resource_id_value", *q.resource_id_value);
    if (!touching.empty())
      where += " AND ((a.resource_id IS NOT NULL" + touchingRun +
               ") OR EXISTS (SELECT 1 FROM resource_action_resource r WHERE r.action_id = a.action_id" + touching +
               ") OR (a.resources_of_version AND EXISTS (SELECT 1 FROM resource r WHERE r.environment = a.environment "
               "AND r.version = a.version" +
               touching + ")))";
    if (!q.actions.empty()) {
      where += " AND a.action IN (";
      for (std::size_t i = 0; i < q.actions.size(); ++i) where += (i ? ", " : "") + placeholder(q.actions[i]);
      where += ")";
    }
    if (q.version) where += " AND a.version = " + placeholder(*q.version);
    if (q.after) {
      std::string t = placeholder(time(*q.after));
      where += " AND (a.started > " + t + " OR (a.started = " + t + " AND a.action_id > " +
               placeholder(q.after_action_id) + "))";
    }
    if (q.before) {
      std::string t = placeholder(time(*q.before));
      where += " AND (a.started < " + t + " OR (a.started = " + t + " AND a.action_id < " +
               placeholder(q.before_action_id.empty() ? std::string("~") : q.before_action_id) + "))";
    }
    std::string from = "resource_action a";
    if (q.resource_id) {
      // The actions of one resource are looked up, not scanned for: its runs in each version by
      // resource_action_by_version (migration 007), its actions with rows, and every version's
      // store action; the conditions above then keep those that touch it. CROSS JOIN keeps
      // SQLite's loop over these outside, and over the versions before their actions.
      from =
          "(SELECT x.action_id FROM model_version mv CROSS JOIN resource_action x WHERE mv.environment = $1 "
          "AND x.environment = $1 AND x.version = mv.version AND x.resource_id = " +
          byId + " UNION SELECT r.action_id FROM resource_action_resource r WHERE r.resource_id = " + byId +
          " UNION SELECT x.action_id FROM model_version mv CROSS JOIN resource_action x WHERE mv.environment = $1 "
          "AND x.environment = $1 AND x.version = mv.version AND x.resource_id IS NULL AND x.resources_of_version) "
          "c CROSS JOIN resource_action a";
      where = "a.action_id = c.action_id AND " + where;
    }
    const char* order = q.oldest_first ? "ASC" : "DESC";
    std::string text =
        "SELECT a.action_id, a.environment, a.version, a.action, a.started, a.finished, a.status, "
        "a.change, a.changes, a.messages, a.send_event FROM " +
        from + " WHERE " + where + " ORDER BY a.started " + order + ", a.action_id " + order + " LIMIT " +
        placeholder(q.limit);
    return db_->read([&](Connection& c) {
      requireEnvironment(c, env);
      std::vector<ResourceAction> out;
      for (const Row& row : c.query(text, params)) out.push_back(actionOf(row));
      for (auto& action : out) loadActionResources(c, action);
      return out;
    });
  }

  // --- agents -----------------------------------------------------------------------------------

  void registerAgents(const std::string& env, const std::vector<std::string>& names) override {
    db_->write([&](Connection& c) {
      requireEnvironment(c, env);
      addAgents(c, env, names);
    });
  }

  std::vector<Agent> listAgents(const std::string& env) override {
    return db_->read([&](Connection& c) {
      requireEnvironment(c, env);
      std::vector<Agent> out;
      for (const Row& row : c.query("SELECT environment, name, paused, unpause_on_resume FROM agent "
                                    "WHERE environment = $1 ORDER BY name",
                                    {env}))
        out.push_back(agentOf(row));
      return out;
    });
  }

  std::optional<Agent> getAgent(const std::string& env, const std::string& name) override {
    return db_->read([&](Connection& c) -> std::optional<Agent> {
      requireEnvironment(c, env);
      Rows rows = c.query(
          "SELECT environment, name, paused, unpause_on_resume FROM agent "
          "WHERE environment = $1 AND name = $2",
          {env, name});
      if (rows.empty()) return std::nullopt;
      return agentOf(rows[0]);
    });
  }

  void setAgentPaused(const std::string& env, const std::string& name, bool paused) override {
    updateAgents(env, "paused", paused, name);
  }
  void setAllAgentsPaused(const std::string& env, bool paused) override {
    updateAgents(env, "paused", paused, std::nullopt);
  }
  void setUnpauseOnResume(const std::string& env, const std::string& name, bool unpause) override {
    updateAgents(env, "unpause_on_resume", unpause, name);
  }
  void setAllUnpauseOnResume(const std::string& env, bool unpause) override {
    updateAgents(env, "unpause_on_resume", unpause, std::nullopt);
  }

  // --- parameters -------------------------------------------------------------------------------

  Parameter setParameter(const Parameter& parameter) override {
    Parameter stored = parameter;
    if (stored.updated == Timestamp{}) stored.updated = now();
    db_->write([&](Connection& c) {
      requireEnvironment(c, stored.environment);
      c.exec(std::string("INSERT INTO parameter (") + kParameterColumns +
                 ") VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (environment, name, resource_id) DO UPDATE SET "
                 "value = excluded.value, source = excluded.source, metadata = excluded.metadata, "
                 "updated = excluded.updated",
             {stored.environment, stored.name, stored.value, stored.source, stored.resource_id,
              dump(stored.metadata.is_null() ? json::object() : stored.metadata), time(stored.updated)});
    });
    return stored;
  }

  std::optional<Parameter> getParameter(const std::string& env, const std::string& name,
                                        const std::string& resource_id) override {
    return db_->read([&](Connection& c) -> std::optional<Parameter> {
      requireEnvironment(c, env);
      Rows rows = c.query(std::string("SELECT ") + kParameterColumns +
                              " FROM parameter WHERE environment = $1 AND name = $2 AND resource_id = $3",
                          {env, name, resource_id});
      if (rows.empty()) return std::nullopt;
      return parameterOf(rows[0]);
    });
  }

  std::vector<Parameter> listParameters(const std::string& env,
                                        const std::optional<std::string>& resource_id) override {
    return db_->read([&](Connection& c) {
      requireEnvironment(c, env);
      std::vector<Parameter> out;
      Rows rows = resource_id ? c.query(std::string("SELECT ") + kParameterColumns +
                                            " FROM parameter WHERE environment = $1 AND resource_id = $2 "
                                            "ORDER BY resource_id, name",
                                        {env, *resource_id})
                              : c.query(std::string("SELECT ") + kParameterColumns +
                                            " FROM parameter WHERE environment = $1 ORDER BY resource_id, name",
                                        {env});
      for (const Row& row : rows) out.push_back(parameterOf(row));
      return out;
    });
  }

  bool deleteParameter(const std::string& env, const std::string& name, const std::string& resource_id) override {
    return db_->write([&](Connection& c) {
      requireEnvironment(c, env);
      return !c.query("DELETE FROM parameter WHERE environment = $1 AND name = $2 AND resource_id = $3 RETURNING name",
                      {env, name, resource_id})
                  .empty();
    });
  }

  // --- dry-runs ---------------------------------------------------------------------------------

  DryRun createDryRun(const std::string& env, std::int64_t version, std::int64_t total,
                      const std::optional<std::string>& id) override {
    return db_->write([&](Connection& c) {
      requireEnvironment(c, env);
      if (!c.scalar("SELECT 1 FROM model_version WHERE environment = $1 AND version = $2", {env, version}))
        throw NotFound("The request version does not exist.");
      DryRun d;
      d.id = id ? *id : newUuid();
      d.environment = env;
      d.version = version;
      d.date = now();
      d.total = d.todo = total;
      c.exec(std::string("INSERT INTO dryrun (") + kDryRunColumns + ") VALUES ($1, $2, $3, $4, $5, $5)",
             {d.id, env, version, time(d.date), total});
      return d;
    });
  }

  void recordDryRunResource(const std::string& env, const std::string& dryrun_id,
                            const std::string& resource_version_id, const json& entry) override {
    db_->write([&](Connection& c) { recordDryRuns(c, env, dryrun_id, {{resource_version_id, dump(entry)}}); });
  }

  std::optional<DryRun> getDryRun(const std::string& env, const std::string& dryrun_id) override {
    return db_->read([&](Connection& c) -> std::optional<DryRun> {
      requireEnvironment(c, env);
      Rows rows = c.query(std::string("SELECT ") + kDryRunColumns + " FROM dryrun WHERE id = $1 AND environment = $2",
                          {dryrun_id, env});
      if (rows.empty()) return std::nullopt;
      DryRun d = dryRunOf(rows[0]);
      // the rows come in key order: each goes at the end of the object
      json::object_t& entries = d.resources.get_ref<json::object_t&>();
      c.forEach(
          "SELECT resource_version_id, entry FROM dryrun_resource WHERE dryrun_id = $1 "
          "ORDER BY resource_version_id",
          {dryrun_id},
          [&entries](const Row& row) { entries.emplace_hint(entries.end(), row.text(0), parse(row.text(1))); });
      return d;
    });
  }

  std::vector<DryRun> listDryRuns(const std::string& env, const std::optional<std::int64_t>& version) override {
    return db_->read([&](Connection& c) {
      requireEnvironment(c, env);
      std::vector<DryRun> out;
      std::string base = std::string("SELECT ") + kDryRunColumns + " FROM dryrun WHERE environment = $1";
      Rows rows = version ? c.query(base + " AND version = $2 ORDER BY date DESC, id", {env, *version})
                          : c.query(base + " ORDER BY date DESC, id", {env});
      for (const Row& row : rows) out.push_back(dryRunOf(row));
      return out;
    });
  }

  // --- scheduler --------------------------------------------------------------------------------

  std::optional<std::int64_t> lastProcessedVersion(const std::string& env) override {
    return db_->read([&](Connection& c) {
      requireEnvironment(c, env);
      return c.scalar("SELECT last_processed_model_version FROM scheduler WHERE environment = $1", {env});
    });
  }

  void setLastProcessedVersion(const std::string& env, std::int64_t version) override {
    db_->write([&](Connection& c) {
      requireEnvironment(c, env);
      c.exec(
          "INSERT INTO scheduler (environment, last_processed_model_version) VALUES ($1, $2) "
          "ON CONFLICT (environment) DO UPDATE SET last_processed_model_version = "
          "excluded.last_processed_model_version",
          {env, version});
    });
  }

  // --- pruning ----------------------------------------------------------------------------------

  std::int64_t pruneVersions(const std::string& env, std::int64_t keep) override {
    return db_->write([&](Connection& c) {
      std::vector<std::int64_t> versions = prunable(c, env, keep);
      for (std::int64_t version : versions) removeVersion(c, env, version);
      return static_cast<std::int64_t>(versions.size());
    });
  }

  std::int64_t readAheadPrune(const std::string& env, std::int64_t keep) override {
    return db_->read([&](Connection& c) {
      std::vector<std::int64_t> versions = prunable(c, env, keep);
      for (std::int64_t version : versions) {
        // the pages removeVersion changes: the actions' rows (by the index by version) and, by
        // their span, their entries in the index by time and the primary key's; the resources'
        // rows by the primary key
        Rows span = c.query(
            "SELECT MIN(started), MAX(started), MIN(action_id), MAX(action_id), "
            "SUM(LENGTH(changes) + LENGTH(messages)) FROM resource_action WHERE environment = $1 AND version = $2",
            {env, version});
        if (!span.empty() && !span[0].isNull(0)) {
          c.query("SELECT COUNT(*) FROM resource_action WHERE environment = $1 AND started BETWEEN $2 AND $3",
                  {env, span[0].integer(0), span[0].integer(1)});
          c.query("SELECT COUNT(*) FROM resource_action WHERE action_id BETWEEN $1 AND $2",
                  {span[0].text(2), span[0].text(3)});
        }
        c.query("SELECT SUM(LENGTH(attributes)) FROM resource WHERE environment = $1 AND version = $2", {env, version});
      }
      return static_cast<std::int64_t>(versions.size());
    });
  }

  std::int64_t pruneResourceActions(Timestamp before) override {
    return db_->write([&](Connection& c) {
      // per environment, so that the actions' index by environment and time finds them
      return deleteActions(c, "environment IN (SELECT id FROM environment) AND started < $1", {time(before)});
    });
  }

 private:
  // Whether the environment is halted; NotFound when it does not exist.
  static bool requireEnvironment(Connection& c, const std::string& env) {
    Rows rows = c.query("SELECT halted FROM environment WHERE id = $1", {env});
    if (rows.empty()) throw NotFound(kNoEnvironment);
    return rows[0].boolean(0);
  }

  // Locks the environment's row for the rest of the transaction (so that writers of one
  // environment's versions take turns on PostgreSQL too) and returns its reservation counter,
  // bumped first when `bump`.
  static std::int64_t lockEnvironment(Connection& c, const std::string& env, bool bump) {
    auto last =
        c.scalar(bump ? "UPDATE environment SET last_version = last_version + 1 WHERE id = $1 RETURNING last_version"
                      : "UPDATE environment SET last_version = last_version WHERE id = $1 RETURNING last_version",
                 {env});
    if (!last) throw NotFound(kNoEnvironment);
    return *last;
  }

  static Project loadProject(Connection& c, const std::string& id) {
    Rows rows = c.query("SELECT id, name FROM project WHERE id = $1", {id});
    if (rows.empty()) throw NotFound("The project with given id does not exist.");
    Project p{rows[0].text(0), rows[0].text(1), {}};
    for (const Row& row : c.query("SELECT id FROM environment WHERE project_id = $1 ORDER BY name, id", {id}))
      p.environment_ids.push_back(row.text(0));
    return p;
  }

  static void requireFreeName(Connection& c, const std::string& project, const std::string& name,
                              const std::string& except) {
    if (c.scalar("SELECT 1 FROM environment WHERE project_id = $1 AND name = $2 AND id <> $3", {project, name, except}))
      throw Conflict("Project with id=" + project + " already has an environment with name " + name);
  }

  static Settings loadSettings(Connection& c, const std::string& env) {
    Settings settings;
    for (const Row& row :
         c.query("SELECT name, value, protected, protected_by FROM setting WHERE environment = $1", {env}))
      settings[row.text(0)] = {parse(row.text(1)), row.boolean(2), row.text(3)};
    return settings;
  }

  static void upsertSetting(Connection& c, const std::string& env, const std::string& name, const SettingValue& value) {
    c.exec(
        "INSERT INTO setting (environment, name, value, protected, protected_by) VALUES ($1, $2, $3, $4, $5) "
        "ON CONFLICT (environment, name) DO UPDATE SET value = excluded.value, protected = excluded.protected, "
        "protected_by = excluded.protected_by",
        {env, name, dump(value.value), value.is_protected, value.is_protected ? value.protected_by : ""});
  }

  static Environment loadEnvironment(Connection& c, const std::string& id) {
    Rows rows = c.query(std::string("SELECT ") + kEnvironmentColumns + " FROM environment WHERE id = $1", {id});
    if (rows.empty()) throw NotFound(kNoEnvironment);
    Environment e = environmentOf(rows[0]);
    e.settings = loadSettings(c, id);
    return e;
  }

  static ModelVersion loadVersion(Connection& c, const std::string& env, std::int64_t version) {
    requireEnvironment(c, env);
    Rows rows = c.query(std::string("SELECT ") + kVersionColumns +
                            " FROM model_version WHERE environment = $1 AND version = $2",
                        {env, version});
    if (rows.empty()) throw NotFound("The given configuration model does not exist yet.");
    return versionOf(rows[0]);
  }

  // The versions pruneVersions(env, keep) deletes: all but the `keep` newest, never the newest
  // released one.
  static std::vector<std::int64_t> prunable(Connection& c, const std::string& env, std::int64_t keep) {
    requireEnvironment(c, env);
    auto released = c.scalar("SELECT MAX(version) FROM model_version WHERE environment = $1 AND released", {env});
    std::vector<std::int64_t> versions;
    std::int64_t seen = 0;
    for (const Row& row :
         c.query("SELECT version FROM model_version WHERE environment = $1 ORDER BY version DESC", {env}))
      if (++seen > keep && released != row.integer(0)) versions.push_back(row.integer(0));
    return versions;
  }

  // Deletes a version with its resources, its actions, its rows the cascades take (unknowns and
  // dry-runs), and the state rows of resources no other version has.
  static void removeVersion(Connection& c, const std::string& env, std::int64_t version) {
    deleteActions(c, "environment = $1 AND version = $2", {env, version});
    // The state rows of the resources that only this version has go with it. Only its own
    // resources can lose their last version here; each is looked up in the other versions by the
    // primary key, version by version (CROSS JOIN keeps SQLite's loop over the versions outside),
    // as resources are not indexed by id alone (migration 006).
    c.exec(
        "DELETE FROM resource_state WHERE environment = $1 AND resource_id IN "
        "(SELECT resource_id FROM resource WHERE environment = $1 AND version = $2) "
        "AND NOT EXISTS (SELECT 1 FROM model_version mv CROSS JOIN resource r WHERE mv.environment = $1 "
        "AND mv.version <> $2 AND r.environment = $1 AND r.version = mv.version "
        "AND r.resource_id = resource_state.resource_id)",
        {env, version});
    c.exec("DELETE FROM resource WHERE environment = $1 AND version = $2", {env, version});
    c.exec("DELETE FROM model_version WHERE environment = $1 AND version = $2", {env, version});
  }

  // Deletes the resource actions that match `where` (SQL over resource_action) with their resource
  // rows, which have no cascade (migration 002). Returns how many actions went.
  static std::int64_t deleteActions(Connection& c, const std::string& where, const Params& params) {
    // only actions without a resource of their own have rows there (a run names its resource in
    // its own row, migration 005): the index by version answers that for a version's thousands of
    // runs without reading them, and no row of the other table is looked up for them
    c.exec("DELETE FROM resource_action_resource WHERE action_id IN (SELECT action_id FROM resource_action WHERE (" +
               where + ") AND resource_id IS NULL)",
           params);
    return static_cast<std::int64_t>(
        c.query("DELETE FROM resource_action WHERE " + where + " RETURNING action_id", params).size());
  }

  static void addAgents(Connection& c, const std::string& env, const std::vector<std::string>& names) {
    // agents that appear while the environment is halted start paused, to be unpaused on resume
    bool halted = requireEnvironment(c, env);
    std::vector<Params> rows;
    for (const auto& name : names) rows.push_back({env, name, halted, halted ? Param(true) : Param()});
    insertMany(c, "INSERT INTO agent (environment, name, paused, unpause_on_resume)", 4, std::move(rows),
               " ON CONFLICT (environment, name) DO NOTHING");
  }

  void updateAgents(const std::string& env, const std::string& column, bool value,
                    const std::optional<std::string>& name) {
    db_->write([&](Connection& c) {
      requireEnvironment(c, env);
      if (!name) {
        c.exec("UPDATE agent SET " + column + " = $2 WHERE environment = $1", {env, value});
      } else if (c.query("UPDATE agent SET " + column + " = $2 WHERE environment = $1 AND name = $3 RETURNING name",
                         {env, value, *name})
                     .empty()) {
        throw NotFound("The agent with name " + *name + " does not exist.");
      }
    });
  }

  // The rows of a new action (its id set): its own row and, unless it is a run, the rows of the
  // resources it touches. A run (exactly one resource id, of the action's own version) names its
  // resource in columns of its row (migration 005). `messagesText` and `changesText`, when not
  // empty, are its messages and changes already as JSON text (JournalWrite).
  static void actionRows(const ResourceAction& action, std::vector<Params>& actions, std::vector<Params>& resources,
                         const std::string& messagesText = {}, const std::string& changesText = {}) {
    // the rows borrow the action's texts (and the two given ones): the callers write them before
    // `action` goes
    const std::string& id = action.action_id;
    std::optional<ResourceIdParts> run;
    if (action.resource_version_ids.size() == 1) {
      const std::string& rvid = action.resource_version_ids.front();
      std::string suffix = ",v=" + std::to_string(action.version);
      if (rvid.size() > suffix.size() && rvid.compare(rvid.size() - suffix.size(), suffix.size(), suffix) == 0)
        run = splitResourceId(rvid);
    }
    if (!run) {
      for (const std::string& rvid : action.resource_version_ids) {
        ResourceIdParts parts = splitResourceId(rvid);
        Params row;
        row.reserve(8);
        row.push_back(Param::borrow(id));
        row.push_back(Param::borrow(action.environment));
        row.emplace_back(std::move(parts.resource_id));
        row.push_back(Param::borrow(rvid));
        row.emplace_back(std::move(parts.type));
        row.emplace_back(std::move(parts.agent));
        row.emplace_back(std::move(parts.value));
        row.emplace_back(time(action.started));
        resources.push_back(std::move(row));
      }
    }
    Params row;
    row.reserve(kActionInsertCount);
    row.push_back(Param::borrow(id));
    row.push_back(Param::borrow(action.environment));
    row.emplace_back(action.version);
    row.push_back(Param::borrow(action.action));
    row.emplace_back(time(action.started));
    row.push_back(optionalTime(action.finished));
    row.push_back(Param::borrowOptional(action.status));
    row.push_back(Param::borrowOptional(action.change));
    row.push_back(changesText.empty() ? Param(dump(action.changes)) : Param::borrow(changesText));
    row.push_back(!messagesText.empty()        ? Param::borrow(messagesText)
                  : action.messages.is_array() ? Param(dump(action.messages))
                                               : Param("[]"));
    row.push_back(Param::optional(action.send_event));
    if (run) {
      row.emplace_back(std::move(run->resource_id));
      row.emplace_back(std::move(run->type));
      row.emplace_back(std::move(run->agent));
      row.emplace_back(std::move(run->value));
    } else {
      row.insert(row.end(), 4, Param());
    }
    actions.push_back(std::move(row));
  }

  // Writes the rows actionRows made (and moves them out).
  static void insertActionRows(Connection& c, std::vector<Params>& actions, std::vector<Params>& resources) {
    insertMany(c, std::string("INSERT INTO resource_action (") + kActionColumns + ", " + kActionRunColumns + ")",
               kActionInsertCount, std::move(actions));
    insertMany(c,
               "INSERT INTO resource_action_resource (action_id, environment, resource_id, resource_version_id, "
               "resource_type, agent, resource_id_value, started)",
               8, std::move(resources), " ON CONFLICT (action_id, resource_version_id) DO NOTHING");
    actions.clear();
    resources.clear();
  }

  // An action (its id set and fresh) with its resources and, in the same step, `states` (a deploy
  // start).
  static void insertAction(Connection& c, const ResourceAction& action, const std::vector<ResourceState>& states) {
    std::vector<Params> actions, resources;
    actionRows(action, actions, resources);
    insertActionRows(c, actions, resources);
    saveStates(c, action.environment, states);
  }

  // (`messagesText` and `changesText`, when not empty, are the finished action's whole messages
  // and changes as JSON text: JournalWrite)
  static void finishAction(Connection& c, const std::string& env, const std::string& action_id,
                           const ActionResult& result, const std::vector<ResourceState>& states,
                           const std::string& messagesText = {}, const std::string& changesText = {}) {
    ResourceAction action = loadAction(c, env, action_id);
    applyActionResult(action, result);
    c.exec(
        "UPDATE resource_action SET finished = $2, status = $3, change = $4, changes = $5, messages = $6, "
        "send_event = $7 WHERE action_id = $1",
        {action_id, optionalTime(action.finished), Param::optional(action.status), Param::optional(action.change),
         changesText.empty() ? Param(dump(action.changes)) : Param::borrow(changesText),
         messagesText.empty() ? Param(dump(action.messages)) : Param::borrow(messagesText),
         Param::optional(action.send_event)});
    saveStates(c, env, states);
  }

  // The entries of one dry-run, {resource version id, entry as JSON text} in the order they came
  // (a later entry of a resource replaces an earlier one): many rows per statement, and the count
  // of resources still to do set once from the rows, as one entry at a time would leave it.
  // A dry-run that does not exist is NotFound, or with `skipMissing` (the journal: the dry-run was
  // deleted with its version while its tasks ran) leaves its entries out.
  static void recordDryRuns(Connection& c, const std::string& env, const std::string& dryrun_id,
                            const std::vector<std::pair<std::string, std::string>>& entries, bool skipMissing = false) {
    if (!c.scalar("SELECT 1 FROM dryrun WHERE id = $1 AND environment = $2", {dryrun_id, env})) {
      if (skipMissing) return;
      throw NotFound("The given dryrun does not exist!");
    }
    std::unordered_map<std::string, std::size_t> rowOf;
    std::vector<Params> rows;
    for (const auto& [rvid, entry] : entries) {
      auto [at, added] = rowOf.emplace(rvid, rows.size());
      if (added) rows.push_back({dryrun_id, rvid, entry});
      else rows[at->second][2] = Param(entry);
    }
    insertMany(c, "INSERT INTO dryrun_resource (dryrun_id, resource_version_id, entry)", 3, std::move(rows),
               " ON CONFLICT (dryrun_id, resource_version_id) DO UPDATE SET entry = excluded.entry");
    c.exec(
        "UPDATE dryrun SET todo = CASE WHEN total > (SELECT COUNT(*) FROM dryrun_resource WHERE dryrun_id = $1) "
        "THEN total - (SELECT COUNT(*) FROM dryrun_resource WHERE dryrun_id = $1) ELSE 0 END WHERE id = $1",
        {dryrun_id});
  }

  static void saveStates(Connection& c, const std::string& env, const std::vector<ResourceState>& states) {
    std::vector<const ResourceState*> rows;
    rows.reserve(states.size());
    for (const ResourceState& state : states) rows.push_back(&state);
    saveStates(c, env, rows);
  }

  // (`keepIntent`: an existing row keeps the columns of its intent, which the release writes)
  static void saveStates(Connection& c, const std::string& env, const std::vector<const ResourceState*>& states,
                         bool keepIntent = false) {
    static const std::set<std::string> intentColumns = {"resource_type",     "agent",
                                                        "resource_id_value", "current_intent_attribute_hash",
                                                        "is_undefined",      "orphaned_after"};
    std::vector<Params> rows;
    rows.reserve(states.size());
    for (const ResourceState* s : states) rows.push_back(stateParams(env, *s));
    std::string columns = kStateColumns;
    std::string updates;
    for (std::size_t start = 0; start < columns.size();) {
      std::size_t end = columns.find(',', start);
      std::string column = columns.substr(start, end == std::string::npos ? std::string::npos : end - start);
      column.erase(0, column.find_first_not_of(' '));
      if (column != "resource_id" && column != "created" && !(keepIntent && intentColumns.count(column)))
        updates += (updates.empty() ? "" : ", ") + column + " = excluded." + column;
      start = end == std::string::npos ? columns.size() : end + 1;
    }
    insertMany(c, "INSERT INTO resource_state (environment, " + columns + ")", 19, std::move(rows),
               " ON CONFLICT (environment, resource_id) DO UPDATE SET " + updates);
  }

  static ResourceAction loadAction(Connection& c, const std::string& env, const std::string& action_id) {
    requireEnvironment(c, env);
    Rows rows = c.query(std::string("SELECT ") + kActionColumns +
                            " FROM resource_action WHERE environment = $1 AND action_id = $2",
                        {env, action_id});
    if (rows.empty()) throw NotFound("The resource action " + action_id + " does not exist.");
    return actionOf(rows[0]);
  }

  static void loadActionResources(Connection& c, ResourceAction& action) {
    // an action of every resource of its version (the store action) has no rows of its own (migration 003)
    // and a run names its resource in its own row (migration 005)
    for (const Row& row : c.query("SELECT resource_version_id FROM resource_action_resource WHERE action_id = $1 "
                                  "UNION ALL SELECT resource_id || ',v=' || CAST(version AS TEXT) FROM resource_action "
                                  "WHERE action_id = $1 AND resource_id IS NOT NULL "
                                  "UNION ALL SELECT r.resource_id || ',v=' || CAST(r.version AS TEXT) "
                                  "FROM resource_action a JOIN resource r ON r.environment = a.environment "
                                  "AND r.version = a.version WHERE a.action_id = $1 AND a.resources_of_version "
                                  "ORDER BY 1",
                                  {action.action_id}))
      action.resource_version_ids.push_back(row.text(0));
  }

  static void appendMessages(ResourceAction& action, const json& messages) {
    if (!action.messages.is_array()) action.messages = json::array();
    if (messages.is_array())
      for (const auto& line : messages) action.messages.push_back(line);
  }

  // The resources of the version last stored by putVersion(NewVersion&&), as they went into its
  // rows (which never change), until the first versionResources of that version takes them.
  struct LastPut {
    std::string environment;
    std::int64_t version = 0;
    std::vector<Resource> resources;
  };
  std::optional<LastPut> takeLastPut(const std::string& env, std::int64_t version) {
    std::lock_guard<std::mutex> lock(lastPutMutex_);
    if (!lastPut_ || lastPut_->environment != env || lastPut_->version != version) return std::nullopt;
    std::optional<LastPut> taken = std::move(lastPut_);
    lastPut_.reset();
    return taken;
  }

  // --- the upload log (upload_log.h) --------------------------------------------------------------

  // Contents up to this size go through the log; a larger one is written in a transaction of its
  // own, which it outweighs.
  static constexpr std::size_t kLogged = FileCache::kLargest;
  // The log's contents move into the database once there are this many (or at the next version).
  static constexpr std::size_t kPendingFiles = 4096;
  static constexpr std::size_t kPendingBytes = std::size_t{8} << 20;

  void insertFiles(const std::vector<UploadLog::Record>& files) {
    db_->write([&](Connection& c) {
      std::vector<Params> rows;
      rows.reserve(files.size());
      for (const auto& [hash, content] : files) rows.push_back({hash, Param::blob(content)});
      insertMany(c, "INSERT INTO file (content_hash, content)", 2, std::move(rows),
                 " ON CONFLICT (content_hash) DO NOTHING");
    });
  }

  // With logMutex_ held: the pending uploads into the database in one transaction, then the log
  // emptied. New uploads wait meanwhile (a few milliseconds per thousands of small contents, or as
  // long as another write holds the database); the reads find the contents in pending_ until they
  // are in the database and the memory cache.
  void flushPending() {
    std::vector<UploadLog::Record> files;
    {
      std::lock_guard<std::mutex> lock(pendingMutex_);
      files.assign(pending_.begin(), pending_.end());
    }
    if (files.empty()) return;
    insertFiles(files);
    for (const auto& [hash, content] : files) files_.put(hash, content);
    {
      std::lock_guard<std::mutex> lock(pendingMutex_);
      pending_.clear();  // (nothing came meanwhile: the uploads wait for logMutex_)
      pendingBytes_ = 0;
    }
    uploads_->clear();
  }

  bool isPending(const std::string& hash) {
    std::lock_guard<std::mutex> lock(pendingMutex_);
    return pending_.count(hash) != 0;
  }

  std::optional<std::string> pendingFile(const std::string& hash) {
    std::lock_guard<std::mutex> lock(pendingMutex_);
    auto found = pending_.find(hash);
    if (found == pending_.end()) return std::nullopt;
    return found->second;
  }

  std::unique_ptr<Database> db_;
  std::mutex lastPutMutex_;
  std::optional<LastPut> lastPut_;
  std::shared_ptr<void> guard_;
  int schema_;
  FileCache files_;
  std::unique_ptr<UploadLog> uploads_;                    // (SQLite's engine only)
  std::mutex logMutex_;                                   // held through an upload's append and through a flush
  std::mutex pendingMutex_;                               // held briefly, for pending_ and pendingBytes_
  std::unordered_map<std::string, std::string> pending_;  // logged, not in the database yet
  std::size_t pendingBytes_ = 0;
};

}  // namespace

std::unique_ptr<Store> makeSqlStore(std::unique_ptr<Database> db, std::shared_ptr<void> guard, int schema_version,
                                    const std::string& uploadLog) {
  return std::make_unique<SqlStore>(std::move(db), std::move(guard), schema_version, uploadLog);
}

}  // namespace inmanta::store::sql
