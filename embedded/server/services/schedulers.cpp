#include "embedded/server/services/schedulers.h"

#include <spdlog/spdlog.h>

#include "embedded/server/services/context.h"

namespace inmanta::server {

std::int64_t intervalSeconds(const nlohmann::json& value) {
  if (value.is_number_integer()) return std::max<std::int64_t>(value.get<std::int64_t>(), 0);
  if (!value.is_string()) return 0;
  const std::string& text = value.get_ref<const std::string&>();
  if (text.empty() || text.size() > 15 || text.find_first_not_of("0123456789") != std::string::npos) return 0;
  return std::stoll(text);
}

std::optional<scheduler::Cron> intervalCron(const nlohmann::json& value) {
  if (!value.is_string()) return std::nullopt;
  const std::string& text = value.get_ref<const std::string&>();
  if (text.find_first_not_of(" 0123456789") == std::string::npos) return std::nullopt;  // seconds
  try {
    return scheduler::Cron::parse(text);
  } catch (const std::invalid_argument& e) {
    // the settings service refuses such values; one stored by an older release is left off
    spdlog::warn("the interval '{}' is not a cron expression ({}); it is ignored", text, e.what());
    return std::nullopt;
  }
}

namespace {

// The server's file store as the handlers see it.
class StoreFiles : public handlers::FileStore {
 public:
  explicit StoreFiles(store::Store& store) : store_(store) {}
  std::optional<std::string> get(const std::string& hash) override { return store_.getFile(hash); }
  bool has(const std::string& hash) override { return store_.hasFile(hash); }
  void put(const std::string& hash, const std::string& content) override { store_.putFile(hash, content); }

 private:
  store::Store& store_;
};

// One environment's settings as std::AgentConfig sees them.
class EnvironmentSettings : public handlers::SettingsAccess {
 public:
  EnvironmentSettings(SettingsService& settings, std::string env) : settings_(settings), env_(std::move(env)) {}
  nlohmann::json get(const std::string& name) override { return settings_.value(env_, name); }
  void set(const std::string& name, const nlohmann::json& value) override { settings_.set(env_, name, value); }

 private:
  SettingsService& settings_;
  std::string env_;
};

// The module code of an environment's recent versions (a store read per version, not per run).
class ModuleCodeCache {
 public:
  ModuleCodeCache(store::Store& store, std::string env) : store_(store), env_(std::move(env)) {}
  agent::VersionCode of(std::int64_t version) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto found = versions_.find(version); found != versions_.end()) return found->second;
    agent::VersionCode code;
    try {
      code.modules = store_.moduleCode(env_, version);
      code.pipConfig = store_.getVersion(env_, version).pip_config;
    } catch (const store::NotFound&) {
      // the version was deleted meanwhile: no code
    }
    if (versions_.size() >= 4) versions_.erase(versions_.begin());  // the oldest
    return versions_[version] = code;
  }

 private:
  store::Store& store_;
  std::string env_;
  std::mutex mutex_;
  std::map<std::int64_t, agent::VersionCode> versions_;
};

}  // namespace

// What one environment's scheduler needs, kept together.
struct Schedulers::Lane {
  StoreFiles files;
  EnvironmentSettings settings;
  ModuleCodeCache moduleCode;
  agent::HandlerExecutor executor;
  scheduler::Scheduler scheduler;

  Lane(Services& services, const std::string& env, const handlers::HandlerRegistry& registry, handlers::Host& host,
       scheduler::Clock& clock, scheduler::SchedulerOptions options)
      : files(services.store),
        settings(services.settings, env),
        moduleCode(services.store, env),
        executor(registry, handlers::HandlerServices{&host, &files, &settings}),
        scheduler(services.store, env, executor, clock, std::move(options)) {}
};

Schedulers::Schedulers(Services& services, SchedulersConfig config)
    : services_(services), config_(std::move(config)), host_(handlers::makeLocalHost()) {
  handlers::registerStdHandlers(registry_);
  if (config_.registerHandlers) config_.registerHandlers(registry_);
  if (!config_.executors.codeRoot.empty()) {
    store::Store& store = services_.store;
    executors_ = std::make_unique<agent::PythonExecutors>(config_.executors, [&store](const std::string& hash) {
      return store.getFile(hash);
    });
  }
}

Schedulers::~Schedulers() { stopAll(); }

void Schedulers::startAll() {
  for (const store::Environment& env : services_.store.listEnvironments())
    if (!env.halted) get(env.id);
}

namespace {

// Stops a lane's scheduler and takes the lane apart; one whose handler calls outlive the grace
// period is left to the process's exit (its threads still use it), with a warning, as is every
// lane when the process ends next.
template <class Lane>
bool stopLane(const std::string& env, std::unique_ptr<Lane> lane, std::chrono::milliseconds grace, bool processEnds) {
  bool stopped = lane->scheduler.stop(grace);
  if (!stopped) spdlog::warn("the scheduler of environment {} stopped with handler calls still running", env);
  if (!stopped || processEnds) (void)lane.release();
  return stopped;
}

}  // namespace

bool Schedulers::stopAll(std::chrono::milliseconds grace) {
  std::map<std::string, std::unique_ptr<Lane>> lanes;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    lanes.swap(lanes_);
  }
  bool finished = true;
  for (auto& [env, lane] : lanes)
    finished = stopLane(env, std::move(lane), grace, config_.processEndsAfterStop) && finished;
  return finished;
}

scheduler::Scheduler* Schedulers::get(const std::string& env) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = lanes_.find(env);
  if (found != lanes_.end()) return &found->second->scheduler;
  store::Environment environment;
  try {
    environment = services_.store.getEnvironment(env);
  } catch (const store::NotFound&) {
    return nullptr;
  }
  if (environment.halted) return nullptr;
  scheduler::SchedulerOptions options;
  options.workers = config_.workers;
  options.timers = config_.timers;
  options.startMode = config_.startMode;
  SettingsService& settings = services_.settings;
  options.intervals = [&settings, env] {
    nlohmann::json deploy = settings.value(env, "autostart_agent_deploy_interval");
    nlohmann::json repair = settings.value(env, "autostart_agent_repair_interval");
    return scheduler::Intervals{intervalSeconds(deploy), intervalSeconds(repair), intervalCron(deploy),
                                intervalCron(repair)};
  };
  if (config_.onRun) {
    auto onRun = config_.onRun;
    options.onRun = [onRun, env](scheduler::RunReport&& report) { onRun(env, std::move(report)); };
  }
  ResourceService& resources = services_.resources;
  options.onStateChange = [&resources, env] { resources.invalidate(env); };
  auto lane = std::make_unique<Lane>(services_, env, registry_, *host_, clock_, std::move(options));
  if (executors_) {
    agent::PythonExecutors& executors = *executors_;
    ModuleCodeCache& moduleCode = lane->moduleCode;
    StoreFiles& files = lane->files;
    lane->executor.setFallback(
        [&executors, &moduleCode, &files](const handlers::ResourceIntent& intent, std::string& why) {
          return executors.handlerFor(moduleCode.of(intent.version), intent.type, &files, why);
        });
  }
  lane->scheduler.start();
  return &lanes_.emplace(env, std::move(lane)).first->second->scheduler;
}

void Schedulers::versionReleased(const std::string& env, std::int64_t version) {
  if (scheduler::Scheduler* s = get(env)) s->versionReleased(version);
}

void Schedulers::deploy(const std::string& env, bool repair, const std::vector<std::string>& agents) {
  if (scheduler::Scheduler* s = get(env)) s->deploy(repair, agents);
}

void Schedulers::dryRunRequested(const std::string& env, const std::string& dryrun_id, std::int64_t version) {
  if (scheduler::Scheduler* s = get(env)) s->dryRun(dryrun_id, version);
}

void Schedulers::agentsChanged(const std::string& env) {
  if (scheduler::Scheduler* s = get(env)) s->agentsChanged();
}

bool Schedulers::schedulerRunning(const std::string& env) {
  std::lock_guard<std::mutex> lock(mutex_);
  return lanes_.count(env) != 0;
}

void Schedulers::settingsChanged(const std::string& env) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = lanes_.find(env);
  if (found != lanes_.end()) found->second->scheduler.settingsChanged();
}

void Schedulers::environmentStopped(const std::string& env) {
  std::unique_ptr<Lane> lane;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto found = lanes_.find(env);
    if (found == lanes_.end()) return;
    lane = std::move(found->second);
    lanes_.erase(found);
  }
  stopLane(env, std::move(lane), std::chrono::seconds(10), false);  // the process goes on
}

void Schedulers::environmentResumed(const std::string& env) { get(env); }

}  // namespace inmanta::server
