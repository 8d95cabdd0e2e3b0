#include "embedded/scheduler/scheduler.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <future>
#include <iterator>
#include <unordered_map>

#include <pthread.h>

#include "embedded/store/ids.h"
#include "util/json_text.h"
#include "util/resource_id.h"
#include "util/thread_policy.h"

namespace inmanta::scheduler {

using nlohmann::json;

namespace {

enum class Compliance { hasUpdate, compliant, nonCompliant, undefined };
enum class Blocked { no, blocked, temporarily };
enum class TaskKind { deploy, dryRun };
enum class TimerKind { deploy, repair };

std::vector<std::string> requiresOf(const store::Resource& resource) {
  std::vector<std::string> out;
  auto found = resource.attributes.find("requires");
  if (found == resource.attributes.end() || !found->is_array()) return out;
  for (const json& item : *found) {
    if (!item.is_string()) continue;
    // requires may name versioned ids (`…,v=N`); the scheduler keys resources without version
    const std::string& text = item.get_ref<const std::string&>();
    out.push_back(util::stripVersion(text).value_or(text));
  }
  return out;
}

}  // namespace

// What the scheduler keeps of a resource of a version: the handler's view (its attributes moved in,
// shared with the runs, never copied) and the hash and undefined flag of the intent.
struct Scheduler::Intent {
  handlers::ResourceIntent resource;
  std::string hash;
  bool undefined = false;
  // the flags every run reads, read once from the attributes (a look-up in a cold map each time
  // was a twentieth of a run); an attribute that is not a boolean counts as its default
  bool sendEvent = false, receiveEvents = true, reportOnly = false;
};

namespace {

// the records the journal's writer waits for before it commits without waiting its 5 ms
constexpr std::size_t kJournalBatch = 1024;

std::shared_ptr<const Scheduler::Intent> makeIntent(store::Resource&& resource, std::int64_t version) {
  auto intent = std::make_shared<Scheduler::Intent>();
  handlers::ResourceIntent& r = intent->resource;
  r.resource_id = std::move(resource.resource_id);
  r.type = std::move(resource.resource_type);
  r.agent = std::move(resource.agent);
  r.id_attribute = std::move(resource.id_attribute);
  r.id_value = std::move(resource.resource_id_value);
  r.version = version;
  r.attributes = std::move(resource.attributes);
  intent->hash = std::move(resource.attribute_hash);
  intent->undefined = resource.is_undefined;
  intent->sendEvent = r.flag("send_event", false);
  intent->receiveEvents = r.flag("receive_events", true);
  intent->reportOnly = r.flag("report_only", false);
  return intent;
}

// The handler's view of an intent, sharing its owner.
std::shared_ptr<const handlers::ResourceIntent> viewOf(const std::shared_ptr<const Scheduler::Intent>& intent) {
  return {intent, &intent->resource};
}

json logLine(const std::string& level, const std::string& msg, json kwargs, Timestamp at) {
  return handlers::makeLogLine(level, msg, std::move(kwargs), store::formatTimestamp(at)).toJson();
}

// An action's `changes` as JSON text: {"<resource version id>": <the run's changes>}.
std::string changesText(const std::string& rvid, const json& changes) {
  std::string text = "{";
  util::appendJsonString(text, rvid);
  text += ':';
  util::appendCompactJson(text, changes);
  text += '}';
  return text;
}

const char* lastResultOf(const std::string& status) {
  if (status == "deployed" || status == "non_compliant") return "SUCCESSFUL";
  if (status == "skipped") return "SKIPPED";
  return "FAILED";
}

}  // namespace

struct Scheduler::Pending {
  Priority priority;
  std::string reason;
  bool forced = false;
  std::uint64_t sequence = 0;
};

struct Scheduler::Entry {
  std::shared_ptr<const Intent> intent;
  std::int64_t version = 0;
  std::vector<std::string> dependencies;  // the direct requires
  std::vector<std::string> provides;
  Compliance compliance = Compliance::hasUpdate;
  Blocked blocked = Blocked::no;
  bool dirty = true;
  // the last completed run
  std::string lastResult = "NEW";
  std::string lastStatus = "available";
  std::optional<std::string> lastHash;
  std::optional<std::int64_t> lastVersion;
  std::optional<bool> lastCompliant;
  std::optional<Timestamp> lastDeployed, lastSuccess, lastProducedEvents, lastRealChange;
  Timestamp created{};
  // work
  bool running = false;
  std::string runningHash;
  std::optional<Pending> pending;
  bool queued = false;  // the pending task is in its lane's queue (ready)
  std::optional<Timestamp> timerAt;
  TimerKind timerKind = TimerKind::repair;

  bool receivesEvents() const { return intent->receiveEvents; }
  bool sendsEvents() const { return intent->sendEvent; }
};

struct Scheduler::Task {
  TaskKind kind = TaskKind::deploy;
  std::string rid;
  std::uint64_t sequence = 0;
  // dry-runs carry their own intent (any stored version)
  std::shared_ptr<const Intent> intent;
  std::string dryRunId;
};

struct Scheduler::Lane {
  std::string agent;
  std::map<std::pair<int, std::uint64_t>, Task> queue;  // ready tasks by (priority, sequence)
  bool busy = false;
  bool listed = false;  // in runnable_
};

Scheduler::Scheduler(store::Store& store, std::string environment, agent::Executor& executor, Clock& clock,
                     SchedulerOptions options)
    : store_(store), env_(std::move(environment)), executor_(executor), clock_(clock), options_(std::move(options)) {
  if (options_.workers == 0) options_.workers = std::max(1u, std::thread::hardware_concurrency());
}

Scheduler::~Scheduler() { stop(); }

// ---------------------------------------------------------------------------------------------
// start and stop

void Scheduler::start() {
  Lock lock(mutex_);
  if (running_) return;
  if (options_.intervals) intervals_ = options_.intervals();
  for (const store::Agent& agent : store_.listAgents(env_))
    if (agent.paused) paused_.insert(agent.name);
  restored_ = false;
  if (options_.startMode != StartMode::dryRunsOnly) restoreOnce(lock, options_.startMode);
  armCrons(lock);
  running_ = true;
  stopping_ = false;
  {
    std::lock_guard<std::mutex> journalLock(journalMutex_);
    journalStop_ = false;
  }
  journalThread_ = std::thread([this] { journalLoop(); });
  for (unsigned i = 0; i < options_.workers; ++i) workers_.emplace_back([this] { workerLoop(); });
  if (options_.timers && options_.timerThread) timerThread_ = std::thread([this] { timerLoop(); });
}

bool Scheduler::stop(std::chrono::milliseconds grace) {
  Lock lock(mutex_);
  if (!running_) return true;
  stopping_ = true;
  workAvailable_.notify_all();
  changed_.notify_all();
  bool finished = changed_.wait_for(lock, grace, [this] { return busy_ == 0; });
  running_ = false;
  lock.unlock();
  if (timerThread_.joinable()) timerThread_.join();
  for (std::thread& worker : workers_) {
    if (finished) worker.join();
    else worker.detach();  // a handler call that does not end: the process is stopping anyway
  }
  workers_.clear();
  // what the finished runs recorded is stored before stop() returns
  {
    std::lock_guard<std::mutex> journalLock(journalMutex_);
    journalStop_ = true;
    journalChanged_.notify_all();
  }
  if (journalThread_.joinable()) journalThread_.join();
  return finished;
}

// ---------------------------------------------------------------------------------------------
// reading state and versions

void Scheduler::restoreOnce(Lock& lock, StartMode mode) {
  if (restored_) return;
  restored_ = true;
  // a released version newer than the one processed is read straight away (its state rows already
  // carry its intent): one read of the resources instead of two
  std::optional<std::int64_t> processed = store_.lastProcessedVersion(env_);
  std::optional<std::int64_t> released = store_.latestReleasedVersion(env_);
  bool newer = released && (!processed || *released > *processed);
  restore(lock, newer ? released : processed);
  if (newer) {
    adoptVersion(lock, *released);
  } else {
    if (mode == StartMode::resume)
      scheduleDirty(lock, Priority::periodicDeploy, "the resource scheduler was started", {});
    for (auto& [rid, entry] : entries_) armTimer(lock, *entry);
  }
  if (mode == StartMode::repair) repairAll(lock, {});
}

void Scheduler::restore(Lock& lock, std::optional<std::int64_t> version) {
  (void)lock;
  version_ = version;
  if (!version_) return;
  // the state rows read on a second connection while the entries are built from the version's
  // resources (of 10,000 resources each takes a few tens of milliseconds, and nothing else runs
  // before both are done); what the states say is applied after
  auto statesRead = std::async(std::launch::async, [this] { return store_.resourceStates(env_); });
  std::vector<store::Resource> resources = store_.versionResources(env_, *version_);
  std::vector<std::unique_ptr<Entry>> built;
  built.reserve(resources.size());
  for (store::Resource& resource : resources) {
    auto entry = std::make_unique<Entry>();
    entry->dependencies = requiresOf(resource);
    entry->version = *version_;
    entry->intent = makeIntent(std::move(resource), *version_);
    built.push_back(std::move(entry));
  }
  std::unordered_map<std::string, store::ResourceState> states;
  for (store::ResourceState& state : statesRead.get()) {
    std::string id = state.resource_id;
    states.emplace(std::move(id), std::move(state));
  }
  std::vector<store::ResourceState> recovered;
  std::vector<std::string> interrupted;
  std::vector<Entry*> order;
  order.reserve(built.size());
  for (std::unique_ptr<Entry>& entry : built) {
    const Intent& intent = *entry->intent;
    const std::string& rid = intent.resource.resource_id;
    auto state = states.find(rid);
    if (state != states.end()) {
      const store::ResourceState& s = state->second;
      entry->created = s.created;
      entry->lastHash = s.last_deployed_attribute_hash;
      entry->lastVersion = s.last_deployed_version;
      entry->lastDeployed = s.last_handler_run_at;
      entry->lastSuccess = s.last_success;
      entry->lastProducedEvents = s.last_produced_events;
      entry->lastResult = s.last_handler_run;
      entry->lastCompliant = s.last_handler_run_compliant;
      entry->lastStatus = s.last_non_deploying_status;
      entry->blocked = s.blocked == "BLOCKED" ? Blocked::blocked : Blocked::no;
      if (s.is_deploying) interrupted.push_back(rid);
    } else {
      entry->created = clock_.now();
    }
    if (intent.undefined) entry->compliance = Compliance::undefined;
    else if (!entry->lastHash || *entry->lastHash != intent.hash) entry->compliance = Compliance::hasUpdate;
    else entry->compliance = entry->lastStatus == "deployed" ? Compliance::compliant : Compliance::nonCompliant;
    entry->dirty = entry->compliance == Compliance::hasUpdate || entry->compliance == Compliance::nonCompliant;
    order.push_back(entry.get());
    entries_[rid] = std::move(entry);
  }
  linkDependents(std::move(order));
  updateBlocked(lock);
  if (!interrupted.empty()) {
    for (const std::string& rid : interrupted) recovered.push_back(persisted(*entries_[rid]));
    store_.saveResourceStates(env_, recovered);
    recordRecoveredActions(interrupted);
  }
}

void Scheduler::recordRecoveredActions(const std::vector<std::string>& resourceIds) {
  // the deploy actions the crashed process left open end here, so no action stays `deploying`
  for (const std::string& rid : resourceIds) {
    store::ActionQuery query;
    query.resource_id = rid;
    query.actions = {"deploy"};
    query.limit = 1;
    for (const store::ResourceAction& action : store_.queryResourceActions(env_, query)) {
      if (action.finished) continue;
      store::ActionResult result;
      result.finished = clock_.now();
      result.status = "failed";
      result.change = "nochange";
      result.messages.push_back(
          logLine("ERROR",
                  "The deploy of " + rid + " was interrupted: the process running it stopped before it finished",
                  json::object(), *result.finished));
      store_.finishResourceAction(env_, action.action_id, result);
    }
  }
}

void Scheduler::versionReleased(std::int64_t version) {
  Lock lock(mutex_);
  if (!running_) return;
  restoreOnce(lock, StartMode::newVersion);
  if (version_ && version <= *version_) return;
  applyVersion(lock, version);
}

std::optional<std::int64_t> Scheduler::activeVersion() {
  Lock lock(mutex_);
  return version_;
}

void Scheduler::readNewVersions(Lock& lock) {
  std::optional<std::int64_t> released = store_.latestReleasedVersion(env_);
  if (released && (!version_ || *released > *version_)) applyVersion(lock, *released);
}

void Scheduler::applyVersion(Lock& lock, std::int64_t version) {
  std::vector<store::Resource> resources = store_.versionResources(env_, version);
  // the entries of the version's resources, in its order; the others left the model. A version
  // applied is newer than every entry's (both callers check), so an entry whose version is this
  // one was named by it.
  std::vector<Entry*> order;
  order.reserve(resources.size());
  for (store::Resource& resource : resources) {
    std::unique_ptr<Entry>& slot = entries_[resource.resource_id];
    bool undefined = resource.is_undefined;
    if (!slot) {
      slot = std::make_unique<Entry>();
      slot->created = clock_.now();
      slot->compliance = undefined ? Compliance::undefined : Compliance::hasUpdate;
      slot->dirty = !undefined;
    } else if (slot->intent->hash != resource.attribute_hash || slot->intent->undefined != undefined) {
      slot->compliance = undefined ? Compliance::undefined : Compliance::hasUpdate;
      slot->dirty = !undefined;
      if (slot->blocked == Blocked::temporarily) slot->blocked = Blocked::no;
    }
    if (slot->version != version) order.push_back(slot.get());  // (a version names a resource once)
    slot->dependencies = requiresOf(resource);
    slot->version = version;
    slot->intent = makeIntent(std::move(resource), version);
  }
  // resources that left the model: forgotten (a run in progress ends as stale)
  for (auto it = entries_.begin(); it != entries_.end();) {
    if (it->second->version == version) {
      ++it;
      continue;
    }
    Entry& gone = *it->second;
    unqueue(gone);
    if (gone.pending) --pendingCount_;
    stopTimer(gone);
    it = entries_.erase(it);
  }
  linkDependents(std::move(order));
  // a queued task may now wait on a new dependency
  for (auto& [rid, entry] : entries_)
    if (!ready(*entry)) unqueue(*entry);
  updateBlocked(lock);
  adoptVersion(lock, version);
}

void Scheduler::adoptVersion(Lock& lock, std::int64_t version) {
  version_ = version;
  scheduleDirty(lock, Priority::newVersion, "a new version was released", {});
  for (auto& [rid, entry] : entries_)
    if (!entry->pending && !entry->running) armTimer(lock, *entry);
  // The release gave every resource of the version its state row with the version's intent
  // (which the journal's rows never overwrite), BLOCKED when it is undefined or behind an undefined
  // one: of the scheduler's view only a different blocked needs a write, and a BLOCKED one always
  // (a run of the previous intent may still store NOT_BLOCKED before it). Writing every row again
  // was 10,000 upserts for each deploy of 10,000 resources.
  std::set<std::string> blockedByRelease;
  bool releaseKnown = true;
  try {
    store::ModelVersion model = store_.getVersion(env_, version);
    blockedByRelease.insert(model.undeployable.begin(), model.undeployable.end());
    blockedByRelease.insert(model.skipped_for_undeployable.begin(), model.skipped_for_undeployable.end());
  } catch (const store::StoreError&) {
    releaseKnown = false;  // the version went meanwhile: every row is written, as it is
  }
  store::JournalWrite save;
  save.kind = store::JournalWrite::Kind::saveStates;
  for (const Entry* entry : sorted_) {
    bool blocked = entry->blocked == Blocked::blocked;
    bool releaseBlocked = entry->intent->undefined || blockedByRelease.count(entry->intent->resource.resource_id);
    if (!releaseKnown || blocked || blocked != releaseBlocked) save.states.push_back(persisted(*entry));
  }
  if (!save.states.empty()) journal(std::move(save));
  store_.setLastProcessedVersion(env_, version);
  stateChanged();
  changed_.notify_all();
}

void Scheduler::updateBlocked(Lock& lock) {
  (void)lock;
  // BLOCKED = undefined, or requires (transitively) an undefined resource: a walk up the provides
  // edges from every undefined resource
  std::set<std::string> blocked;
  std::vector<std::string> todo;
  for (auto& [rid, entry] : entries_)
    if (entry->compliance == Compliance::undefined) todo.push_back(rid);
  while (!todo.empty()) {
    std::string rid = std::move(todo.back());
    todo.pop_back();
    if (!blocked.insert(rid).second) continue;
    for (const std::string& dependent : entries_[rid]->provides) todo.push_back(dependent);
  }
  for (auto& [rid, entry] : entries_) {
    if (blocked.count(rid)) {
      entry->blocked = Blocked::blocked;
      entry->dirty = false;
      unqueue(*entry);
      if (entry->pending) --pendingCount_;
      entry->pending.reset();
      entry->queued = false;
      stopTimer(*entry);
    } else if (entry->blocked == Blocked::blocked) {
      entry->blocked = Blocked::no;
      entry->dirty = entry->compliance != Compliance::compliant;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// scheduling

bool Scheduler::hasDeployWork(const Entry& entry) const { return entry.running || entry.pending.has_value(); }

bool Scheduler::ready(const Entry& entry) const {
  // §6.4: only direct requires count
  for (const std::string& dependency : entry.dependencies) {
    auto found = entries_.find(dependency);
    if (found != entries_.end() && hasDeployWork(*found->second)) return false;
  }
  return true;
}

void Scheduler::schedule(Lock& lock, const std::string& rid, Priority priority, const std::string& reason,
                         bool forced) {
  auto found = entries_.find(rid);
  if (found != entries_.end()) schedule(lock, *found->second, priority, reason, forced);
}

void Scheduler::schedule(Lock& lock, Entry& entry, Priority priority, const std::string& reason, bool forced) {
  if (entry.blocked == Blocked::blocked) return;
  if (entry.pending) {
    if (int(priority) < int(entry.pending->priority)) {
      if (entry.queued) {
        Lane& lane = *lanes_[entry.intent->resource.agent];
        auto node = lane.queue.extract({int(entry.pending->priority), entry.pending->sequence});
        node.key().first = int(priority);
        lane.queue.insert(std::move(node));
      }
      entry.pending->priority = priority;
      entry.pending->reason = reason;
    }
    entry.pending->forced = entry.pending->forced || forced;
    return;
  }
  // the latest intent is being deployed already: only an event adds a run
  if (!forced && entry.running && entry.runningHash == entry.intent->hash) return;
  entry.pending = Pending{priority, reason, forced, ++sequence_};
  ++pendingCount_;
  stopTimer(entry);
  // a dependent that was ready must now wait for this one
  for (const std::string& dependent : entry.provides) unqueue(*entries_[dependent]);
  if (ready(entry)) enqueue(lock, entry);
}

void Scheduler::scheduleDirty(Lock& lock, Priority priority, const std::string& reason,
                              const std::vector<std::string>& agents) {
  for (Entry* entry : sorted_) {
    if (!entry->dirty || entry->blocked != Blocked::no) continue;
    if (!agents.empty() && std::find(agents.begin(), agents.end(), entry->intent->resource.agent) == agents.end())
      continue;
    schedule(lock, *entry, priority, reason, false);
  }
}

void Scheduler::enqueue(Lock& lock, Entry& entry) {
  Lane& lane = laneOf(entry.intent->resource.agent);
  Task task;
  task.kind = TaskKind::deploy;
  task.rid = entry.intent->resource.resource_id;
  task.sequence = entry.pending->sequence;
  lane.queue.emplace(std::make_pair(int(entry.pending->priority), entry.pending->sequence), std::move(task));
  entry.queued = true;
  makeRunnable(lock, lane);
}

Scheduler::Lane& Scheduler::laneOf(const std::string& agent) {
  std::unique_ptr<Lane>& lane = lanes_[agent];
  if (!lane) {
    lane = std::make_unique<Lane>();
    lane->agent = agent;
  }
  return *lane;
}

void Scheduler::unqueue(Entry& entry) {
  if (!entry.queued) return;
  lanes_[entry.intent->resource.agent]->queue.erase({int(entry.pending->priority), entry.pending->sequence});
  entry.queued = false;
}

void Scheduler::linkDependents(std::vector<Entry*> order) {
  // `order` is every entry in the order of the version's resources, which the store reads sorted
  // by id: sorting 100,000 ids again took a tenth of a release
  if (order.size() != entries_.size()) {
    order.clear();
    order.reserve(entries_.size());
    for (auto& [rid, entry] : entries_) order.push_back(entry.get());
  }
  auto byId = [](const Entry* a, const Entry* b) {
    return a->intent->resource.resource_id < b->intent->resource.resource_id;
  };
  if (!std::is_sorted(order.begin(), order.end(), byId)) std::sort(order.begin(), order.end(), byId);
  sorted_ = std::move(order);
  for (Entry* entry : sorted_) entry->provides.clear();
  for (Entry* entry : sorted_)
    for (const std::string& dependency : entry->dependencies) {
      auto found = entries_.find(dependency);
      if (found != entries_.end()) found->second->provides.push_back(entry->intent->resource.resource_id);
    }
}

void Scheduler::recheckDependents(Lock& lock, const std::string& rid) {
  auto found = entries_.find(rid);
  if (found == entries_.end()) return;
  for (const std::string& dependent : found->second->provides) {
    Entry& other = *entries_[dependent];
    if (other.pending && !other.queued && ready(other)) enqueue(lock, other);
  }
}

void Scheduler::makeRunnable(Lock& lock, Lane& lane, bool byWorker) {
  (void)lock;
  if (lane.busy || lane.listed || lane.queue.empty() || paused_.count(lane.agent)) return;
  lane.listed = true;
  runnable_.push_back(&lane);
  // A worker that lists its own lane after a run takes the next task itself: waking another
  // for it, which found nothing left, cost every run a wake-up, a context switch and a fight
  // for the lock. It wakes one when there is more than it can take.
  if (!byWorker || runnable_.size() > 1) workAvailable_.notify_one();
}

void Scheduler::deploy(bool repair, const std::vector<std::string>& agents) {
  Lock lock(mutex_);
  if (!running_) return;
  restoreOnce(lock, StartMode::newVersion);
  readNewVersions(lock);
  if (repair) {
    repairAll(lock, agents);
  } else {
    scheduleDirty(lock, Priority::userDeploy, "user requested a deploy", agents);
  }
  changed_.notify_all();
}

void Scheduler::dryRun(const std::string& dryrunId, std::int64_t version) {
  std::vector<store::Resource> resources = store_.versionResources(env_, version);
  store::ModelVersion model = store_.getVersion(env_, version);
  std::set<std::string> undefined(model.undeployable.begin(), model.undeployable.end());
  std::set<std::string> behindUndefined(model.skipped_for_undeployable.begin(), model.skipped_for_undeployable.end());
  Lock lock(mutex_);
  std::int64_t& left = dryRunsLeft_[dryrunId];
  for (store::Resource& resource : resources) {
    std::string diffStatus;
    if (resource.is_undefined || undefined.count(resource.resource_id)) diffStatus = "undefined";
    else if (behindUndefined.count(resource.resource_id)) diffStatus = "skipped_for_undefined";
    else if (paused_.count(resource.agent)) diffStatus = "agent_down";
    std::shared_ptr<const Intent> intent = makeIntent(std::move(resource), version);
    if (!diffStatus.empty()) {
      store::JournalWrite record;
      record.kind = store::JournalWrite::Kind::dryRunResource;
      record.dryrun_id = dryrunId;
      record.resource_version_id = intent->resource.versionedId();
      record.entry = {{"id", record.resource_version_id},
                      {"id_fields", intent->resource.idFields()},
                      {"changes", json::object()},
                      {"diff_status", diffStatus}};
      journal(std::move(record));
      continue;
    }
    Lane& lane = laneOf(intent->resource.agent);
    Task task;
    task.kind = TaskKind::dryRun;
    task.rid = intent->resource.resource_id;
    task.sequence = ++sequence_;
    task.dryRunId = dryrunId;
    task.intent = std::move(intent);
    lane.queue.emplace(std::make_pair(int(Priority::dryRun), task.sequence), std::move(task));
    ++left;
    makeRunnable(lock, lane);
  }
  if (left == 0) dryRunsLeft_.erase(dryrunId);
  changed_.notify_all();
}

void Scheduler::repairAll(Lock& lock, const std::vector<std::string>& agents, Priority priority,
                          const std::string& reason) {
  for (Entry* entry : sorted_) {
    if (entry->blocked == Blocked::blocked) continue;
    if (!agents.empty() && std::find(agents.begin(), agents.end(), entry->intent->resource.agent) == agents.end())
      continue;
    entry->dirty = true;
    if (entry->blocked == Blocked::temporarily) entry->blocked = Blocked::no;
    schedule(lock, *entry, priority, reason, false);
  }
}

void Scheduler::agentsChanged() {
  Lock lock(mutex_);
  paused_.clear();
  for (const store::Agent& agent : store_.listAgents(env_))
    if (agent.paused) paused_.insert(agent.name);
  for (auto& [name, lane] : lanes_) makeRunnable(lock, *lane);
  changed_.notify_all();
}

void Scheduler::settingsChanged() {
  Lock lock(mutex_);
  if (options_.intervals) intervals_ = options_.intervals();
  for (auto& [rid, entry] : entries_)
    if (!entry->pending && !entry->running) armTimer(lock, *entry);
  armCrons(lock);
  changed_.notify_all();
}

void Scheduler::armCrons(Lock& lock) {
  (void)lock;
  Timestamp now = clock_.now();
  deployCronAt_.reset();
  repairCronAt_.reset();
  if (!options_.timers) return;
  if (intervals_.deployCron) deployCronAt_ = intervals_.deployCron->next(now);
  if (intervals_.repairCron) repairCronAt_ = intervals_.repairCron->next(now);
}

std::optional<Timestamp> Scheduler::nextDue() const {
  std::optional<Timestamp> due;
  auto earlier = [&due](const std::optional<Timestamp>& t) {
    if (t && (!due || *t < *due)) due = t;
  };
  if (!timers_.empty()) earlier(timers_.begin()->first);
  earlier(deployCronAt_);
  earlier(repairCronAt_);
  return due;
}

bool Scheduler::idle() {
  Lock lock(mutex_);
  if (busy_ > 0 || !dryRunsLeft_.empty() || !journalIdle()) return false;
  for (auto& [name, lane] : lanes_)
    if (!lane->queue.empty()) return false;
  return pendingCount_ == 0;
}

bool Scheduler::waitIdle(std::optional<std::chrono::steady_clock::time_point> deadline) {
  // polled on every change: cheap enough for the callers (inmanta deploy, tests), which wait once
  while (!idle()) {
    Lock lock(mutex_);
    if (deadline) {
      if (std::chrono::steady_clock::now() >= *deadline) return false;
      changed_.wait_until(lock, std::min(*deadline, std::chrono::steady_clock::now() + std::chrono::milliseconds(50)));
    } else {
      changed_.wait_for(lock, std::chrono::milliseconds(50));
    }
  }
  return true;
}

bool Scheduler::dryRunPending(const std::string& dryrunId) {
  Lock lock(mutex_);
  return dryRunsLeft_.count(dryrunId) != 0;
}

// ---------------------------------------------------------------------------------------------
// workers

void Scheduler::workerLoop() {
  pthread_setname_np(pthread_self(), "inmanta-worker");
  // While more than one agent has work, a worker runs with SCHED_BATCH: one that wakes does not
  // preempt the journal's writer (whose records of every run the workers then make faster than it
  // stores them) or the server's threads. A lone agent's worker is the one the runs wait for, and
  // keeps the normal policy. The handler calls' commands and threads have the normal policy
  // (thread_policy.h).
  bool batch = false;
  Lock lock(mutex_);
  while (true) {
    workAvailable_.wait(lock, [this] { return stopping_ || !runnable_.empty(); });
    if (stopping_) return;
    Lane& lane = *runnable_.front();
    runnable_.pop_front();
    lane.listed = false;
    if (lane.busy || lane.queue.empty() || paused_.count(lane.agent)) continue;
    Task task = std::move(lane.queue.begin()->second);
    lane.queue.erase(lane.queue.begin());
    lane.busy = true;
    ++busy_;
    if (bool crowded = busy_ > 1 || !runnable_.empty(); crowded != batch) {
      batch = crowded;
      if (batch) util::useBatchScheduling();
      else util::useNormalScheduling();
    }
    if (task.kind == TaskKind::deploy) runDeploy(lock, lane, std::move(task));
    else runDryRun(lock, lane, std::move(task));
    lane.busy = false;
    --busy_;
    makeRunnable(lock, lane, true);
    // the waiters on changed_ (idle, and stop for the last running call) care for a worker that
    // finds nothing left to run or stops: waking them after every run had them fight the workers
    // for the lock
    if (busy_ == 0 && (runnable_.empty() || stopping_)) changed_.notify_all();
  }
}

std::string Scheduler::dependencyState(const Entry& entry) const {
  if (entry.compliance == Compliance::undefined) return "undefined";
  if (entry.blocked == Blocked::blocked) return "skipped_for_undefined";
  if (entry.compliance == Compliance::hasUpdate) return "available";
  if (entry.lastStatus == "unavailable") return "failed";
  return entry.lastStatus;
}

void Scheduler::runDeploy(Lock& lock, Lane& lane, Task task) {
  (void)lane;
  auto found = entries_.find(task.rid);
  if (found == entries_.end() || !found->second->pending || found->second->pending->sequence != task.sequence) return;
  Entry& entry = *found->second;
  Pending pending = std::move(*entry.pending);
  entry.pending.reset();
  --pendingCount_;
  entry.queued = false;
  entry.running = true;
  entry.runningHash = entry.intent->hash;
  stopTimer(entry);

  agent::RunRequest request;
  request.intent = viewOf(entry.intent);
  request.reason = pending.reason;
  request.deployId = store::newUuid();
  for (const std::string& dependency : entry.dependencies) {
    auto other = entries_.find(dependency);
    if (other == entries_.end()) continue;
    request.dependencies[dependency] = dependencyState(*other->second);
    const std::optional<Timestamp>& changed = other->second->lastRealChange;
    if (changed && (!entry.lastSuccess || *changed > *entry.lastSuccess)) request.reloadRequired = true;
  }
  std::string hash = entry.intent->hash;
  std::int64_t version = entry.version;
  const bool sendEvent = entry.intent->sendEvent;  // (the entry may be gone when the run ends)
  Timestamp started = clock_.now();

  store::ResourceState state = persisted(entry);
  state.is_deploying = true;
  store::ResourceAction action;
  action.environment = env_;
  action.version = version;
  action.resource_version_ids = {request.intent->versionedId()};
  action.action = "deploy";
  action.started = started;
  action.status = "deploying";
  handlers::LogLine startLine = handlers::makeLogLine(
      "INFO", "Resource deploy started on agent " + entry.intent->resource.agent + ", setting status to deploying",
      {{"agent", entry.intent->resource.agent}}, store::formatTimestamp(started));
  std::string actionId = store::newTimeOrderedUuid();
  action.action_id = actionId;
  store::JournalWrite start;
  start.kind = store::JournalWrite::Kind::insertAction;
  start.action = std::move(action);
  start.states.push_back(std::move(state));  // (a braced list would copy it)
  // the finished action's messages are this line and the run's: its text is kept for them
  std::string messagesText;
  messagesText.reserve(2048);  // a run's lines take about 1 KB
  messagesText += '[';
  handlers::appendLogLineText(messagesText, startLine);
  start.messages_text = messagesText + ']';  // (what the action holds until it finishes)
  journal(std::move(start));

  lock.unlock();
  releaseWritten();
  agent::RunResult result = executor_.run(request);
  // The finished action's texts, made here, outside both locks, from the run's own log lines and
  // changes (which the report below still reads): no copy of them as one JSON value to append
  // and write out, as the store would, under the locks.
  store::JournalWrite end;
  end.kind = store::JournalWrite::Kind::finishAction;
  end.action_id = actionId;
  handlers::appendLogLinesText(messagesText, result.logs);
  messagesText += ']';
  end.messages_text = std::move(messagesText);
  end.changes_text = changesText(request.intent->versionedId(), result.changes);
  lock.lock();

  store::ResourceState after;
  finishDeploy(lock, task.rid, pending.priority, hash, started, result, after);
  store::ActionResult& finished = end.result;
  finished.finished = clock_.now();
  finished.status = result.status;
  finished.change = handlers::changeName(result.change);
  finished.send_event = sendEvent;
  const bool stale = after.resource_id.empty() || after.current_intent_attribute_hash != hash;
  if (!after.resource_id.empty()) end.states.push_back(std::move(after));
  journal(std::move(end));
  if (options_.onRun) {
    RunReport report;
    report.resource_id = task.rid;
    report.version = version;
    report.reason = pending.reason;
    report.stale = stale;
    report.result = std::move(result);
    lock.unlock();
    options_.onRun(std::move(report));
    lock.lock();
  }
}

void Scheduler::finishDeploy(Lock& lock, const std::string& rid, Priority priority, const std::string& hash,
                             Timestamp started, agent::RunResult& result, store::ResourceState& persistedState) {
  auto found = entries_.find(rid);
  if (found == entries_.end()) return;  // left the model while it ran
  Entry& entry = *found->second;
  Timestamp finished = clock_.now();
  bool stale = entry.intent->hash != hash;
  bool previouslyCompliant = entry.lastCompliant.value_or(false);
  bool deployed = result.status == "deployed";

  entry.running = false;
  entry.lastHash = hash;
  entry.lastVersion = entry.version;
  entry.lastStatus = result.status;
  entry.lastDeployed = finished;
  entry.lastProducedEvents = finished;
  entry.lastResult = lastResultOf(result.status);
  entry.lastCompliant = deployed;
  if (deployed) entry.lastSuccess = started;
  if (result.change != handlers::Change::nochange) entry.lastRealChange = started;

  if (!stale) {
    entry.compliance = deployed ? Compliance::compliant : Compliance::nonCompliant;
    bool success = deployed || (result.status == "non_compliant" && entry.intent->reportOnly);
    entry.dirty = !success;
    if (result.skippedForDependency) {
      for (const std::string& dependency : entry.dependencies) {
        auto other = entries_.find(dependency);
        if (other != entries_.end() && other->second->lastCompliant == false) {
          entry.blocked = Blocked::temporarily;
          entry.dirty = false;
          break;
        }
      }
    }
    if (entry.sendsEvents())
      for (const std::string& dependent : entry.provides) {
        Entry& other = *entries_[dependent];
        if (other.blocked == Blocked::no && other.receivesEvents())
          schedule(lock, other, priority, "an event was received from " + rid, true);
      }
    if (deployed && !previouslyCompliant)
      for (const std::string& dependent : entry.provides) {
        Entry& other = *entries_[dependent];
        if (other.blocked != Blocked::temporarily) continue;
        other.blocked = Blocked::no;
        other.dirty = true;
        schedule(lock, other, priority, "a recovery event was received from " + rid, false);
      }
  }
  if (!entry.pending) armTimer(lock, entry);
  recheckDependents(lock, rid);
  persistedState = persisted(entry);
}

void Scheduler::runDryRun(Lock& lock, Lane& lane, Task task) {
  (void)lane;
  agent::RunRequest request;
  request.intent = viewOf(task.intent);
  request.dryRun = true;
  request.reason = "a dry-run was requested";
  request.deployId = store::newUuid();
  Timestamp started = clock_.now();
  lock.unlock();
  releaseWritten();
  agent::RunResult result = executor_.run(request);
  json changes = result.changes;
  if (result.status == "unavailable") {
    changes["handler"] = {{"current", "FAILED"}, {"desired", "Unable to find a handler"}};
  } else if (result.status != "dry" && result.status != "deployed") {
    changes["handler"] = {{"current", "FAILED"}, {"desired", "Handler failed"}};
  }
  std::string rvid = request.intent->versionedId();
  store::JournalWrite action;
  action.kind = store::JournalWrite::Kind::insertAction;
  action.action.action_id = store::newTimeOrderedUuid();
  action.action.environment = env_;
  action.action.version = task.intent->resource.version;
  action.action.resource_version_ids = {rvid};
  action.action.action = "dryrun";
  action.action.started = started;
  action.action.finished = clock_.now();
  action.action.status = result.status;
  // the action's texts, made here rather than on the journal's writer (as runDeploy's)
  action.messages_text = "[";
  handlers::appendLogLinesText(action.messages_text, result.logs);
  action.messages_text += ']';
  action.changes_text = changesText(rvid, changes);
  store::JournalWrite record;
  record.kind = store::JournalWrite::Kind::dryRunResource;
  record.dryrun_id = task.dryRunId;
  record.resource_version_id = rvid;
  record.entry = {{"id", rvid}, {"id_fields", task.intent->resource.idFields()}, {"changes", changes}};
  journal(std::move(action));
  journal(std::move(record));
  if (options_.onRun) {
    RunReport report;
    report.resource_id = task.rid;
    report.version = task.intent->resource.version;
    report.dryRun = true;
    report.dryRunId = task.dryRunId;
    report.reason = request.reason;
    report.result = std::move(result);
    report.result.changes = std::move(changes);
    options_.onRun(std::move(report));
  }
  lock.lock();
  auto left = dryRunsLeft_.find(task.dryRunId);
  if (left != dryRunsLeft_.end() && --left->second <= 0) dryRunsLeft_.erase(left);
}

// ---------------------------------------------------------------------------------------------
// timers

void Scheduler::armTimer(Lock& lock, Entry& entry) {
  (void)lock;
  stopTimer(entry);
  if (!options_.timers || entry.blocked == Blocked::blocked || entry.pending || entry.running) return;
  std::int64_t deploy = intervals_.deploy, repair = intervals_.repair;
  std::int64_t seconds = 0;
  TimerKind kind = TimerKind::repair;
  bool compliant = entry.compliance == Compliance::compliant || entry.blocked == Blocked::temporarily ||
                   (!entry.dirty && entry.compliance != Compliance::hasUpdate);
  if (compliant) {
    seconds = repair;
  } else if (deploy > 0 && (repair <= 0 || deploy < repair)) {
    seconds = deploy;
    kind = TimerKind::deploy;
  } else {
    seconds = repair;
  }
  if (seconds <= 0) return;
  Timestamp base = entry.lastDeployed.value_or(clock_.now());
  entry.timerAt = base + std::chrono::seconds(seconds);
  entry.timerKind = kind;
  // the timer thread sleeps until the first timer: only a new first one wakes it
  bool first = timers_.empty() || *entry.timerAt < timers_.begin()->first;
  timers_.emplace(*entry.timerAt, entry.intent->resource.resource_id);
  if (first) changed_.notify_all();
}

void Scheduler::stopTimer(Entry& entry) {
  if (!entry.timerAt) return;
  auto [first, last] = timers_.equal_range(*entry.timerAt);
  for (auto it = first; it != last; ++it)
    if (it->second == entry.intent->resource.resource_id) {
      timers_.erase(it);
      break;
    }
  entry.timerAt.reset();
}

void Scheduler::fireDueTimers() {
  Lock lock(mutex_);
  Timestamp now = clock_.now();
  while (!timers_.empty() && timers_.begin()->first <= now) {
    std::string rid = timers_.begin()->second;
    timers_.erase(timers_.begin());
    auto found = entries_.find(rid);
    if (found == entries_.end()) continue;
    Entry& entry = *found->second;
    entry.timerAt.reset();
    if (entry.timerKind == TimerKind::deploy)
      schedule(lock, rid, Priority::periodicDeploy,
               "previous deploy happened more than " + std::to_string(intervals_.deploy) + "s ago", false);
    else
      schedule(lock, rid, Priority::periodicRepair,
               "previous repair happened more than " + std::to_string(intervals_.repair) + "s ago", false);
  }
  // the global jobs of cron intervals (§6.7), each then set to its next time
  bool deployDue = deployCronAt_ && *deployCronAt_ <= now, repairDue = repairCronAt_ && *repairCronAt_ <= now;
  if (deployDue || repairDue) {
    restoreOnce(lock, StartMode::newVersion);
    readNewVersions(lock);
  }
  if (deployDue) {
    deployCronAt_ = intervals_.deployCron->next(now);
    scheduleDirty(lock, Priority::periodicDeploy, "a global deploy was triggered by a cron expression", {});
  }
  if (repairDue) {
    repairCronAt_ = intervals_.repairCron->next(now);
    repairAll(lock, {}, Priority::periodicRepair, "a global repair was triggered by a cron expression");
  }
  changed_.notify_all();
}

void Scheduler::timerLoop() {
  pthread_setname_np(pthread_self(), "inmanta-timer");
  Lock lock(mutex_);
  while (!stopping_) {
    std::optional<Timestamp> due = nextDue();
    if (!due) {
      changed_.wait_for(lock, std::chrono::seconds(1));
      continue;
    }
    auto wait = *due - clock_.now();
    if (wait > std::chrono::microseconds(0)) {
      changed_.wait_for(lock, std::min<std::chrono::microseconds>(wait, std::chrono::seconds(1)));
      continue;
    }
    lock.unlock();
    fireDueTimers();
    lock.lock();
  }
}

// ---------------------------------------------------------------------------------------------
// persistence

store::ResourceState Scheduler::persisted(const Entry& entry) const {
  store::ResourceState state;
  const handlers::ResourceIntent& intent = entry.intent->resource;
  state.resource_id = intent.resource_id;
  state.resource_type = intent.type;
  state.agent = intent.agent;
  state.resource_id_value = intent.id_value;
  state.created = entry.created;
  state.current_intent_attribute_hash = entry.intent->hash;
  state.last_deployed_attribute_hash = entry.lastHash;
  state.last_deployed_version = entry.lastVersion;
  state.last_handler_run_at = entry.lastDeployed;
  state.last_success = entry.lastSuccess;
  state.last_produced_events = entry.lastProducedEvents;
  state.is_undefined = entry.intent->undefined;
  state.is_deploying = entry.running;
  state.last_handler_run = entry.lastResult;
  state.last_handler_run_compliant = entry.lastCompliant;
  // TEMPORARILY_BLOCKED is persisted as NOT_BLOCKED (§6.2)
  state.blocked = entry.blocked == Blocked::blocked ? "BLOCKED" : "NOT_BLOCKED";
  state.last_non_deploying_status = entry.lastStatus;
  return state;
}

void Scheduler::stateChanged() {
  if (options_.onStateChange) options_.onStateChange();
}

void Scheduler::journal(store::JournalWrite write) {
  std::unique_lock<std::mutex> lock(journalMutex_);
  if (write.kind == store::JournalWrite::Kind::finishAction) {
    // the action's insert is still queued: the finished action is written once, its messages and
    // changes as text made here, on the worker, rather than on the writer thread (the writer takes
    // the batch only under this lock, so the record is not written meanwhile). (Tried the other
    // way round: the deploy of 10,000 files, whose worker is the busier thread, did not measurably
    // gain, and the scheduler bench's writer-bound null handler lost 10%.)
    auto queued = journalStarts_.find(write.action_id);
    if (queued != journalStarts_.end()) {
      store::JournalWrite& start = journal_[queued->second];
      store::applyActionResult(start.action, std::move(write.result));
      if (!write.states.empty()) start.states = std::move(write.states);
      journalStarts_.erase(queued);
      // the texts of the whole finished action (runDeploy) stand for its messages and changes
      start.messages_text = write.messages_text.empty() ? util::compactJson(start.action.messages)
                                                        : std::move(write.messages_text);
      start.changes_text = write.changes_text.empty() ? util::compactJson(start.action.changes)
                                                      : std::move(write.changes_text);
      nlohmann::json written;
      written.swap(start.action.messages);
      lock.unlock();  // the messages' memory is given back outside the lock
      return;
    }
  }
  if (write.kind == store::JournalWrite::Kind::insertAction) journalStarts_[write.action.action_id] = journal_.size();
  journal_.push_back(std::move(write));
  // the writer waits for a first record, then for a full batch (or 5 ms): waking it for every
  // record cost a system call per run and the writer as many pointless wake-ups
  if (journal_.size() == 1 || journal_.size() == kJournalBatch) journalChanged_.notify_all();
}

void Scheduler::journalLoop() {
  pthread_setname_np(pthread_self(), "inmanta-journal");
  std::unique_lock<std::mutex> lock(journalMutex_);
  while (true) {
    journalChanged_.wait(lock, [this] { return journalStop_ || !journal_.empty(); });
    if (journal_.empty()) return;  // stopping, and everything is written
    // a moment for more records: one commit for many runs is what makes 10,000 runs cheap
    if (!journalStop_ && journal_.size() < kJournalBatch)
      journalChanged_.wait_for(lock, std::chrono::milliseconds(5),
                               [this] { return journalStop_ || journal_.size() >= kJournalBatch; });
    std::vector<store::JournalWrite> batch;
    batch.swap(journal_);
    // room for the next batch at once: growing it a record at a time moved every record (a deploy's
    // action with its texts and state) ten times over
    journal_.reserve(std::min(kJournalBatch, 2 * batch.size()));
    journalStarts_.clear();
    journalWriting_ = true;
    lock.unlock();
    try {
      store_.writeJournal(env_, batch);
    } catch (const std::exception& error) {
      // an environment deleted meanwhile, a store that went away: the records cannot be kept
      spdlog::error("the scheduler of environment {} could not store {} records: {}", env_, batch.size(), error.what());
    }
    stateChanged();
    lock.lock();
    written_.push_back(std::move(batch));
    // the batches no worker comes for soon are freed here: all of them when no record came while
    // this one was written (the runs are over for now), else all but the last two
    std::size_t waiting = journal_.empty() ? 0 : 2;
    std::vector<std::vector<store::JournalWrite>> unclaimed;
    if (written_.size() > waiting) {
      auto end = written_.end() - static_cast<std::ptrdiff_t>(waiting);
      unclaimed.assign(std::make_move_iterator(written_.begin()), std::make_move_iterator(end));
      written_.erase(written_.begin(), end);
    }
    journalWriting_ = false;
    journalChanged_.notify_all();
    changed_.notify_all();
    if (!unclaimed.empty()) {
      lock.unlock();
      unclaimed.clear();
      lock.lock();
    }
  }
}

void Scheduler::releaseWritten() {
  std::vector<std::vector<store::JournalWrite>> done;
  {
    std::lock_guard<std::mutex> lock(journalMutex_);
    done.swap(written_);
  }
  // (`done` goes here, outside the lock)
}

bool Scheduler::journalIdle() {
  std::lock_guard<std::mutex> lock(journalMutex_);
  return journal_.empty() && !journalWriting_;
}

}  // namespace inmanta::scheduler
