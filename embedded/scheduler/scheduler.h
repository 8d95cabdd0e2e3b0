// The resource scheduler of one environment (orchestrator spec §6): it keeps the intent and the
// deploy state of every resource of the active version, decides what to deploy and in which order,
// runs handler calls on per-agent lanes through an Executor, records every run in the store, and
// fires retries and repairs on their timers.
//
// Threads: the public methods may be called from any thread. Handler calls run on a pool of worker
// threads, at most one per agent at a time. Time comes from a Clock, so tests drive the timers by
// hand (ManualClock + fireDueTimers) without sleeping.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "embedded/agent/executor.h"
#include "embedded/scheduler/cron.h"
#include "embedded/store/store.h"

namespace inmanta::scheduler {

using store::Timestamp;

class Clock {
 public:
  virtual ~Clock() = default;
  virtual Timestamp now() = 0;
};

class SystemClock : public Clock {
 public:
  Timestamp now() override { return store::now(); }
};

// A clock that moves only when told (tests).
class ManualClock : public Clock {
 public:
  explicit ManualClock(Timestamp start = store::fromMicros(1'700'000'000'000'000)) : now_(store::toMicros(start)) {}
  Timestamp now() override { return store::fromMicros(now_.load()); }
  void advance(std::chrono::microseconds by) { now_ += by.count(); }

 private:
  std::atomic<std::int64_t> now_;
};

// §6.4: lower runs first.
enum class Priority : int {
  userDeploy = 0,
  newVersion = 1,
  userRepair = 2,
  dryRun = 3,
  periodicDeploy = 4,
  factRefresh = 5,
  periodicRepair = 6,
};

// The two intervals of §6.7, in seconds; 0 = off. A cron expression in place of a number turns
// that interval's per-resource timers off and installs one global deploy (of every resource not
// known to be compliant) or repair (of every resource) at the times it names.
struct Intervals {
  std::int64_t deploy = 600;
  std::int64_t repair = 86400;
  std::optional<Cron> deployCron;
  std::optional<Cron> repairCron;
};

// One finished handler call, for progress reports (inmanta deploy) and tests.
struct RunReport {
  std::string resource_id;
  std::int64_t version = 0;
  bool dryRun = false;
  std::string dryRunId;
  std::string reason;
  agent::RunResult result;
  bool stale = false;  // the intent changed (or the resource left) while it ran
};

// What start() schedules after restoring the persisted state.
enum class StartMode {
  resume,      // §6.8: a newer released version, else every dirty resource (the server)
  newVersion,  // only the dirty resources of a newer released version, if there is one
  repair,      // as newVersion, and every resource not BLOCKED as a repair, in one step (inmanta deploy)
  // nothing read, nothing scheduled: the state is restored (as newVersion) only when a version is
  // released or a deploy asked, so a process that only dry-runs (inmanta deploy --dry-run) does
  // not read the version it manages
  dryRunsOnly,
};

struct SchedulerOptions {
  StartMode startMode = StartMode::resume;
  // The most handler calls running at once (across agents); 0 = the number of CPUs.
  unsigned workers = 0;
  // Whether retries and repairs are timed (off in `inmanta deploy`, which ends when the work is).
  bool timers = true;
  // Whether a thread fires the timers on the clock's time (off with a ManualClock: call
  // fireDueTimers).
  bool timerThread = true;
  // The intervals, read at start and on settingsChanged().
  std::function<Intervals()> intervals;
  // Called after a run is recorded (from a worker thread; keep it short). The report is the
  // callee's: it may keep it by moving from it.
  std::function<void(RunReport&&)> onRun;
  // Called after the scheduler wrote resource states (the server drops its cached resource list).
  std::function<void()> onStateChange;
};

class Scheduler {
 public:
  Scheduler(store::Store& store, std::string environment, agent::Executor& executor, Clock& clock,
            SchedulerOptions options = {});
  ~Scheduler();
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  // §6.8 at start: restores the persisted state (clearing `deploying` flags left by a crash),
  // reads a newer released version if there is one, otherwise schedules every dirty resource
  // (`the resource scheduler was started`), arms the timers and starts the workers.
  void start();
  // Stops taking work, lets running handler calls finish (up to `grace`), joins the threads.
  // Returns false when calls were still running after the grace period (they are abandoned).
  bool stop(std::chrono::milliseconds grace = std::chrono::seconds(10));

  // §6.3: a version was released.
  void versionReleased(std::int64_t version);
  // §6.8 4 and 5: a user deploy (incremental) or repair (every resource not BLOCKED); `agents`
  // empty = every agent.
  void deploy(bool repair, const std::vector<std::string>& agents = {});
  // §6.8 dry-run of a stored version into the dry-run record `dryrunId` (created by the caller).
  void dryRun(const std::string& dryrunId, std::int64_t version);
  // An agent was paused or unpaused: re-read the agents.
  void agentsChanged();
  // The intervals changed: reload every timer.
  void settingsChanged();
  // Fires the timers that are due on the clock (the timer thread calls it too).
  void fireDueTimers();

  // Whether no task is waiting, queued or running (deploys and dry-runs).
  bool idle();
  // Waits until idle() or the deadline; false on time-out.
  bool waitIdle(std::optional<std::chrono::steady_clock::time_point> deadline = std::nullopt);
  // Whether a dry-run still has work.
  bool dryRunPending(const std::string& dryrunId);

  const std::string& environment() const { return env_; }
  std::optional<std::int64_t> activeVersion();

 public:
  struct Intent;

 private:
  struct Entry;
  struct Task;
  struct Lane;
  struct Pending;
  using Lock = std::unique_lock<std::mutex>;

  // reading versions
  // Loads `version`'s resources with their persisted state rows (none: nothing is managed).
  void restore(Lock& lock, std::optional<std::int64_t> version);
  // §6.8 at start (or, for dryRunsOnly, at the first release or deploy): restores the persisted
  // state and adopts a newer released version, once.
  void restoreOnce(Lock& lock, StartMode mode);
  void readNewVersions(Lock& lock);
  // §6.3: folds a newer version into the managed intent, then adoptVersion.
  void applyVersion(Lock& lock, std::int64_t version);
  // The version is now the managed one: its dirty resources are scheduled, its state persisted.
  void adoptVersion(Lock& lock, std::int64_t version);
  void updateBlocked(Lock& lock);
  // scheduling
  void schedule(Lock& lock, const std::string& rid, Priority priority, const std::string& reason, bool forced);
  void schedule(Lock& lock, Entry& entry, Priority priority, const std::string& reason, bool forced);
  void scheduleDirty(Lock& lock, Priority priority, const std::string& reason, const std::vector<std::string>& agents);
  void repairAll(Lock& lock, const std::vector<std::string>& agents, Priority priority = Priority::userRepair,
                 const std::string& reason = "user requested a repair");
  // the next times of the cron intervals, from now (on start and settings changes)
  void armCrons(Lock& lock);
  // the first time a timer or a cron interval is due
  std::optional<Timestamp> nextDue() const;
  bool hasDeployWork(const Entry& entry) const;
  bool ready(const Entry& entry) const;
  void enqueue(Lock& lock, Entry& entry);
  // The agent's lane, made on first use.
  Lane& laneOf(const std::string& agent);
  // Takes a queued (ready) task back out of its lane: it waits again.
  void unqueue(Entry& entry);
  // The provides edges, from every entry's requires, and sorted_ (from `order`, every entry in
  // the version's order, sorted by id when it is not yet).
  void linkDependents(std::vector<Entry*> order);
  void recheckDependents(Lock& lock, const std::string& rid);
  // (`byWorker`: the worker that just ran the lane's task, and takes the next one itself)
  void makeRunnable(Lock& lock, Lane& lane, bool byWorker = false);
  // workers
  void workerLoop();
  void runDeploy(Lock& lock, Lane& lane, Task task);
  void runDryRun(Lock& lock, Lane& lane, Task task);
  void finishDeploy(Lock& lock, const std::string& rid, Priority priority, const std::string& hash, Timestamp started,
                    agent::RunResult& result, store::ResourceState& persisted);
  std::string dependencyState(const Entry& entry) const;
  // timers
  void armTimer(Lock& lock, Entry& entry);
  void stopTimer(Entry& entry);
  void timerLoop();
  // persistence: records go to a write-behind journal that one thread stores in batches (one
  // transaction per batch), in the order they were made
  void journal(store::JournalWrite write);
  void journalLoop();
  // Destroys the records the writer has stored, on the calling worker (see written_).
  void releaseWritten();
  bool journalIdle();
  store::ResourceState persisted(const Entry& entry) const;
  void stateChanged();
  void recordRecoveredActions(const std::vector<std::string>& resourceIds);

  store::Store& store_;
  std::string env_;
  agent::Executor& executor_;
  Clock& clock_;
  SchedulerOptions options_;
  Intervals intervals_;

  std::mutex mutex_;
  std::condition_variable workAvailable_;  // workers wait on it
  std::condition_variable changed_;        // idle waiters and the timer thread wait on it
  bool running_ = false;
  bool stopping_ = false;
  bool restored_ = false;
  std::optional<std::int64_t> version_;  // the active version the scheduler manages
  std::unordered_map<std::string, std::unique_ptr<Entry>> entries_;
  // The entries by resource id. Work is scheduled in this order (and a resource's dependents
  // are listed in it), so runs come in the order of the store's state rows and indexes: a batch of
  // the journal then changes neighbouring rows, not a few on every page of the tables.
  std::vector<Entry*> sorted_;
  std::map<std::string, std::unique_ptr<Lane>> lanes_;  // by agent name
  std::deque<Lane*> runnable_;                          // lanes with ready work, not busy, not paused
  std::set<std::string> paused_;
  std::multimap<Timestamp, std::string> timers_;
  std::optional<Timestamp> deployCronAt_, repairCronAt_;  // the global jobs of cron intervals
  std::map<std::string, std::int64_t> dryRunsLeft_;       // dry-run id → tasks not finished
  std::uint64_t sequence_ = 0;
  std::size_t pendingCount_ = 0;  // entries with a pending deploy task (idle() asks often)
  int busy_ = 0;                  // handler calls running
  std::vector<std::thread> workers_;
  std::thread timerThread_;

  std::mutex journalMutex_;  // taken after mutex_ when both are held
  std::condition_variable journalChanged_;
  std::vector<store::JournalWrite> journal_;
  std::unordered_map<std::string, std::size_t> journalStarts_;  // action id → its queued insert
  bool journalWriting_ = false;
  bool journalStop_ = false;
  // The batches the writer has stored, whose memory a worker gives back (releaseWritten) before
  // its next handler call: the workers made the records, and memory freed by another thread goes
  // back to its maker through a list that the maker's next allocations walk, a cache miss a block
  // (7% of the workers' samples in the scheduler bench with 4 agents). The writer frees them
  // itself when no record came while it wrote (the runs are over for now), and all but the last
  // two batches otherwise.
  std::vector<std::vector<store::JournalWrite>> written_;
  std::thread journalThread_;
};

}  // namespace inmanta::scheduler
