// The agent side of a deploy (orchestrator spec §6.5 step 2, §7.3): an Executor runs one handler
// call for one resource — the dependency check, the handler's execute, the reload — and returns
// what the scheduler records. The scheduler talks only to this interface (in-process now; another
// process could implement it later); HandlerExecutor runs the handlers of a HandlerRegistry in the
// calling thread.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "embedded/handlers/handler.h"

namespace inmanta::agent {

struct RunRequest {
  // shared with the scheduler, which keeps it while the version is managed: never copied per run
  std::shared_ptr<const handlers::ResourceIntent> intent;
  bool dryRun = false;
  std::string reason;    // `a new version was released`, … (the DEBUG line that opens the run)
  std::string deployId;  // a UUID naming this run in its log lines
  // Deploys: the state of each direct dependency as users see it (§6.5 step 1).
  std::map<std::string, std::string> dependencies;
  // Deploys: a dependency made a real change since this resource's last success (§6.5, §7.5).
  bool reloadRequired = false;
};

struct RunResult {
  // deployed | failed | skipped | unavailable | non_compliant | dry (dry-runs)
  std::string status;
  bool skippedForDependency = false;  // `skipped` because of a dependency (§6.5 step 3)
  handlers::Change change = handlers::Change::nochange;
  nlohmann::json changes = nlohmann::json::object();  // attribute → {current, desired}
  std::vector<handlers::LogLine> logs;
  std::map<std::string, std::string> facts;
  // The first ERROR line's message, for reports, with where a Python handler failed (the end of
  // its traceback) when the line carries one.
  std::string firstError() const;
};

class Executor {
 public:
  virtual ~Executor() = default;
  // Never throws: every failure is a result.
  virtual RunResult run(const RunRequest& request) = 0;
};

class HandlerExecutor : public Executor {
 public:
  // `clock` formats the timestamps of log lines (empty = the system clock).
  HandlerExecutor(const handlers::HandlerRegistry& registry, handlers::HandlerServices services,
                  std::function<std::string()> clock = {});
  RunResult run(const RunRequest& request) override;
  // Where the handler of a type the registry does not know comes from (the server's executors of
  // the modules' Python code, python_executors.h): the handler, or nullptr with `why` set.
  using Fallback = std::function<std::unique_ptr<handlers::Handler>(const handlers::ResourceIntent&, std::string& why)>;
  void setFallback(Fallback fallback) { fallback_ = std::move(fallback); }

 private:
  // §6.5 step 2: the reason to skip this run, if a dependency is not deployed.
  bool dependenciesAllow(handlers::Context& ctx, const RunRequest& request);

  const handlers::HandlerRegistry& registry_;
  handlers::HandlerServices services_;
  std::function<std::string()> clock_;
  Fallback fallback_;
  // INMANTA_TEST_HANDLER_DELAY_MS: a pause before every handler call, for the ordering and
  // concurrency tests of the real binary (O-30, O-36, O-40); unset in normal use.
  std::chrono::milliseconds testDelay_{0};
};

}  // namespace inmanta::agent
