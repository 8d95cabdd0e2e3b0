// The handler contract (orchestrator spec §7.1): what enforces one resource type on the machine.
// A handler gets a resource (its desired attributes) and a Context in which it records log lines,
// attribute changes, the change kind and the result state. The agent (embedded/agent) calls
// Handler::execute; the dependency check and the reload decision of §6.5 are the agent's.
//
// Handlers touch the machine only through a Host (host.h) and the server's file store only through
// a FileStore, so tests run them on an in-memory host.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace inmanta::handlers {

class Host;

// --- what a run reports -------------------------------------------------------------------------

enum class Change { nochange, created, updated, purged };
const char* changeName(Change change);

// The result of one execute (§7.1); the agent maps it onto the resource states of §6.1.
enum class ResultState { deployed, failed, skipped, skipped_for_dependency, unavailable, non_compliant, dry };
const char* resultName(ResultState state);

// The desired state handed to a handler.
struct ResourceIntent {
  std::string resource_id;   // `std::File[localhost,path=/a]`
  std::string type;          // `std::File`
  std::string agent;         // `localhost`
  std::string id_attribute;  // `path`
  std::string id_value;      // `/a`
  std::int64_t version = 0;
  // every exported attribute (requires, purged, send_event, report_only, …) except `id`
  nlohmann::json attributes = nlohmann::json::object();

  std::string versionedId() const { return resource_id + ",v=" + std::to_string(version); }
  // {"entity_type", "agent_name", "attribute", "attribute_value", "version"}: how the reference's
  // log lines and dry-run records name a resource
  nlohmann::json idFields() const;
  // attributes.value(name, fallback) for the common cases
  bool flag(const std::string& name, bool fallback = false) const;
  std::string text(const std::string& name, const std::string& fallback = "") const;
};

// One log line of a run. As JSON (a resource action's messages) it has the shape of the
// reference's LogLine: {"args": [], "kwargs": {…}, "level": "INFO", "msg": "…", "timestamp": "…"}.
// (A struct rather than that JSON object: a run logs a few lines, and building, writing out and
// freeing them as JSON objects was a third of the scheduler's work per run with the null handler.)
struct LogLine {
  std::string level;
  std::string msg;
  nlohmann::json kwargs = nlohmann::json::object();
  std::string timestamp;
  // The kwargs already written out as compact JSON text (an object), in place of `kwargs`: the
  // executor's two lines of every run. kwargsJson() reads either form.
  std::string kwargsText;

  nlohmann::json kwargsJson() const { return kwargsText.empty() ? kwargs : nlohmann::json::parse(kwargsText); }
  nlohmann::json toJson() const;
  bool operator==(const LogLine&) const = default;
};
LogLine makeLogLine(const std::string& level, const std::string& msg, nlohmann::json kwargs, std::string timestamp);
// Appends the line, or the lines, as JSON text (toJson()'s, keys in the same order); the lines
// each after a `,` unless `text` is empty or ends in the `[` that opens the list (the caller
// closes it).
void appendLogLineText(std::string& text, const LogLine& line);
void appendLogLinesText(std::string& text, const std::vector<LogLine>& lines);

// Python's repr() of a str: 'text', or "text" when it holds a ' and no " (exception texts quote
// their arguments so).
std::string pythonRepr(const std::string& text);

// Raised by a handler's read when the item does not exist (CRUD handlers).
struct ResourcePurged : std::exception {
  const char* what() const noexcept override { return "ResourcePurged"; }
};
// SkipResource(reason) → `skipped`; SkipResourceForDependencies(reason) → `skipped_for_dependency`.
struct SkipResource : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct SkipResourceForDependencies : SkipResource {
  using SkipResource::SkipResource;
};
// Any failure of a handler step. `kind` is the exception class the reference's Python code would
// raise (`FileNotFoundError`, `Exception`, `InvalidOperation`, …) so that the ERROR line reads
// `An error occurred during deployment of <rid> (exception: <kind>('<message>'))` as the reference's.
struct HandlerError : std::runtime_error {
  HandlerError(std::string errorKind, const std::string& message)
      : std::runtime_error(message), kind(std::move(errorKind)) {}
  std::string kind;
};

// Where a run's records go. Not thread-safe: one run, one context.
class Context {
 public:
  // `clock` gives the timestamps of log lines (ISO 8601 with microseconds, like the store's);
  // empty = the system clock.
  explicit Context(bool dryRun, std::function<std::string()> clock = {});

  bool dryRun() const { return dryRun_; }

  // Log lines: `msg` is already formatted; `kwargs` are the named values the reference attaches.
  void log(const std::string& level, const std::string& msg, nlohmann::json kwargs = nlohmann::json::object());
  void debug(const std::string& msg, nlohmann::json kwargs = nlohmann::json::object()) {
    log("DEBUG", msg, std::move(kwargs));
  }
  void info(const std::string& msg, nlohmann::json kwargs = nlohmann::json::object()) {
    log("INFO", msg, std::move(kwargs));
  }
  void warning(const std::string& msg, nlohmann::json kwargs = nlohmann::json::object()) {
    log("WARNING", msg, std::move(kwargs));
  }
  void error(const std::string& msg, nlohmann::json kwargs = nlohmann::json::object()) {
    log("ERROR", msg, std::move(kwargs));
  }
  // A line whose kwargs are JSON text already (an object, compact: LogLine::kwargsText).
  void logWritten(const std::string& level, const std::string& msg, std::string kwargsText);

  // Attribute changes: name → {"current": …, "desired": …}.
  void addChange(const std::string& attribute, nlohmann::json current, nlohmann::json desired);
  void addChanges(const nlohmann::json& changes);  // an object of name → {current, desired}
  const nlohmann::json& changes() const { return changes_; }

  // The change kind, set at most once (a second set throws HandlerError("InvalidOperation", …)).
  void setCreated() { setChange(Change::created); }
  void setUpdated() { setChange(Change::updated); }
  void setPurged() { setChange(Change::purged); }
  Change change() const { return change_; }

  void setStatus(ResultState state) { status_ = state; }
  std::optional<ResultState> status() const { return status_; }

  const std::vector<LogLine>& logs() const { return logs_; }
  std::vector<LogLine> takeLogs() { return std::move(logs_); }

  // Facts a handler found (name → value), stored as parameters by the agent.
  void setFact(const std::string& name, const std::string& value) { facts_[name] = value; }
  const std::map<std::string, std::string>& facts() const { return facts_; }

 private:
  void setChange(Change change);

  bool dryRun_;
  std::function<std::string()> clock_;
  nlohmann::json changes_ = nlohmann::json::object();
  Change change_ = Change::nochange;
  bool changeSet_ = false;
  std::optional<ResultState> status_;
  std::vector<LogLine> logs_;
  std::map<std::string, std::string> facts_;
};

// The server's content-addressed file store as handlers see it (std::File's content by hash).
class FileStore {
 public:
  virtual ~FileStore() = default;
  virtual std::optional<std::string> get(const std::string& hash) = 0;
  virtual bool has(const std::string& hash) = 0;
  virtual void put(const std::string& hash, const std::string& content) = 0;
};

// The environment's settings as std::AgentConfig sees them (autostart_agent_map).
class SettingsAccess {
 public:
  virtual ~SettingsAccess() = default;
  virtual nlohmann::json get(const std::string& name) = 0;
  virtual void set(const std::string& name, const nlohmann::json& value) = 0;
};

// What a handler may use besides the resource and the context.
struct HandlerServices {
  Host* host = nullptr;
  FileStore* files = nullptr;
  SettingsAccess* settings = nullptr;
};

class Handler {
 public:
  virtual ~Handler() = default;
  // Reads the actual state, records the changes and — unless ctx.dryRun() or report_only — makes
  // the machine match; sets the status (deployed, dry, non_compliant, failed, skipped, …). Never
  // throws: every exception of a step becomes a result and a log line as §7.1 says.
  virtual void execute(Context& ctx, const ResourceIntent& resource) = 0;
  // Whether the type reacts to events of its dependencies (std::Service), and the reaction.
  virtual bool canReload() const { return false; }
  virtual void reload(Context& ctx, const ResourceIntent& resource) { (void)ctx, (void)resource; }
};

// The handlers of resource types, with the v10 selection of §7.3: each registered handler says
// whether it is available on this machine; exactly one available handler per type is chosen.
class HandlerRegistry {
 public:
  using Factory = std::function<std::unique_ptr<Handler>(const HandlerServices&)>;
  using Available = std::function<bool(const HandlerServices&)>;

  void add(const std::string& type, const std::string& name, Available available, Factory factory);
  // The handler for the type, or nullptr with `why` set: none registered, none available or more
  // than one available. A new handler per call (handlers keep no state between runs).
  std::unique_ptr<Handler> find(const std::string& type, const HandlerServices& services, std::string& why) const;
  bool knows(const std::string& type) const { return entries_.count(type) != 0; }

 private:
  struct Entry {
    std::string name;
    Available available;
    Factory factory;
  };
  std::map<std::string, std::vector<Entry>> entries_;
};

// Registers the std 5.2.8 handlers of §7.4 (File, Directory, Symlink, Service, Package,
// AgentConfig, testing::NullResource).
void registerStdHandlers(HandlerRegistry& registry);

}  // namespace inmanta::handlers
