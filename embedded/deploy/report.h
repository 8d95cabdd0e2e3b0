// What `inmanta deploy` prints (spec §9.2 steps 5-7): the progress while handler calls finish, and
// at the end the report — the changed, failed and skipped resources with their changes and first
// error line, the orphaned resources and the summary line — as text or as one JSON document.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <ostream>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <nlohmann/json.hpp>

#include "embedded/scheduler/scheduler.h"

namespace inmanta::deploy {

// The final view of one resource.
struct ResourceOutcome {
  std::string resource_id;
  std::string status;  // a §6.1 state
  std::string change = "nochange";
  nlohmann::json changes = nlohmann::json::object();
  std::string error;  // the first ERROR line of a failed run
};

struct DeployReport {
  std::int64_t version = 0;
  std::vector<ResourceOutcome> resources;  // sorted by resource id
  std::vector<std::string> orphaned;       // resource ids
  double seconds = 0;
  bool timedOut = false;
  bool interrupted = false;

  // 0 when every resource is deployed, else 3 (decision D3)
  int exitCode() const;
  nlohmann::json toJson() const;
  void printText(std::ostream& out, bool color) const;
  std::string summaryLine() const;
};

struct DryRunOutcome {
  std::string resource_id;
  std::string status;  // changed | unchanged | failed | undefined | skipped_for_undefined | agent_down
  nlohmann::json changes = nlohmann::json::object();
  std::vector<std::string> diff;  // unified diff of the content when `hash` changed
};

struct DryRunReport {
  std::int64_t version = 0;
  std::vector<DryRunOutcome> resources;
  double seconds = 0;
  bool timedOut = false;
  bool interrupted = false;

  int exitCode() const;  // 0, or 3 when a handler failed or the dry-run did not finish
  nlohmann::json toJson() const;
  void printText(std::ostream& out, bool color) const;
};

// What the report keeps of a resource's last run.
struct LastRun {
  handlers::Change change = handlers::Change::nochange;
  nlohmann::json changes;
  std::string error;  // the first ERROR line, else the INFO line that says why it was skipped
};

// The progress of the runs as they finish: one line per run (`[3/6] <rid> deployed (updated)` and
// the error of a failure indented below), or one live line of counts on a terminal.
// The workers only hand over what is kept of each run (onRun: moved out of the report, the first
// error line found); the deploy's own thread, which otherwise waits, takes the runs in (flush,
// every few milliseconds), records them and writes the lines: that work, a tenth of a run's on the
// one worker of an agent, is off the runs' way.
class Progress {
 public:
  Progress(std::ostream& out, bool bar, bool color) : out_(out), bar_(bar), color_(color) {}
  // The calls other than onRun come from one thread, the deploy's.
  void setTotal(std::size_t total);
  // (any thread)
  void onRun(scheduler::RunReport&& report);
  // Takes in the reports handed over so far and writes out their lines.
  void flush();
  // ends the live line
  void finish();
  // The last deploy run of each resource seen (not stale, not dry-runs); taken out once.
  std::unordered_map<std::string, LastRun> takeResults();

 private:
  // What the deploy's thread keeps of a run. onRun takes it out of the report on the worker,
  // which then gives the rest (the run's log lines above all) back itself: memory freed by another
  // thread goes back to the one that made it through a list that its next allocations walk, one
  // cache miss a block (with the scheduler's records, Scheduler::written_, a seventh of the
  // worker's samples in a re-run of 10,000 files).
  struct Finished {
    std::string resource_id;
    std::string status;
    handlers::Change change = handlers::Change::nochange;
    bool stale = false;
    nlohmann::json changes;  // (not kept for a stale run)
    std::string error;       // as LastRun's
  };
  void takeIn();
  void record(Finished& run);
  void drawBar();

  std::mutex mutex_;  // guards handedOver_
  std::vector<Finished> handedOver_;
  std::ostream& out_;
  bool bar_;
  bool color_;
  std::size_t total_ = 0;
  // (hashed: each of 10,000 runs looked its long resource id up in ordered trees)
  std::unordered_set<std::string> done_;
  std::map<std::string, std::size_t> counts_;
  std::unordered_map<std::string, LastRun> results_;
  std::chrono::steady_clock::time_point lastDraw_{};
};

}  // namespace inmanta::deploy
