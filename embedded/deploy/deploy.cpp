#include "embedded/deploy/deploy.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <unistd.h>

#include <spdlog/spdlog.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <set>
#include <thread>

#include "embedded/deploy/report.h"
#include "embedded/handlers/foreign.h"
#include "embedded/server/auth.h"
#include "embedded/server/dispatcher.h"
#include "embedded/server/http_server.h"
#include "embedded/server/logging.h"
#include "embedded/server/routes/routes.h"
#include "embedded/server/services/context.h"
#include "embedded/server/services/dryruns.h"
#include "embedded/server/services/files.h"
#include "embedded/server/services/maintenance.h"
#include "embedded/server/services/schedulers.h"
#include "embedded/server/services/versions.h"
#include "util/config.h"
#include "util/resource_id.h"

namespace inmanta::deploy {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

// An error before deploying: exit 1 with the message (D3).
struct DeployError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// data/deploy/lock, held for the whole run: one deploy per project at a time.
class ProjectLock {
 public:
  explicit ProjectLock(const fs::path& file) {
    fd_ = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) throw DeployError("cannot open " + file.string() + ": " + std::strerror(errno));
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      ::close(fd_);
      throw DeployError("another inmanta deploy is running in this project (data/deploy/lock)");
    }
  }
  ~ProjectLock() { ::close(fd_); }
  ProjectLock(const ProjectLock&) = delete;
  ProjectLock& operator=(const ProjectLock&) = delete;

 private:
  int fd_ = -1;
};

// SIGINT/SIGTERM end the wait (not the process): running handler calls finish and the store
// stays consistent. The signals are blocked in every thread; one thread waits for them.
class Interrupts {
 public:
  Interrupts() {
    sigemptyset(&signals_);
    sigaddset(&signals_, SIGINT);
    sigaddset(&signals_, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &signals_, &previous_);
    watcher_ = std::thread([this] {
      while (!done_) {
        timespec tick{0, 100'000'000};
        int signal = sigtimedwait(&signals_, nullptr, &tick);
        if (signal == SIGINT || signal == SIGTERM) {
          spdlog::warn("Interrupted: letting the running handler calls finish");
          interrupted_ = true;
        }
      }
    });
  }
  ~Interrupts() {
    done_ = true;
    watcher_.join();
    pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
  }
  bool interrupted() const { return interrupted_; }

 private:
  sigset_t signals_{}, previous_{};
  std::atomic<bool> done_{false}, interrupted_{false};
  std::thread watcher_;
};

// Warnings on the console (-v info, -vv debug), everything in data/deploy/logs/deploy.log.
void setUpLogging(const fs::path& logDir, int verbosity) {
  server::installLogger(verbosity >= 2   ? spdlog::level::debug
                        : verbosity == 1 ? spdlog::level::info
                                         : spdlog::level::warn,
                        (logDir / "deploy.log").string(), spdlog::level::debug, spdlog::level::warn);
}

// `--listen [ADDR:]PORT`
void applyListen(const std::string& listen, server::ServerOptions& options) {
  options.bindAddresses = {"127.0.0.1"};
  options.bindPort = 0;
  if (listen.empty()) return;
  std::string port = listen;
  if (size_t colon = listen.rfind(':'); colon != std::string::npos) {
    options.bindAddresses = {listen.substr(0, colon)};
    port = listen.substr(colon + 1);
  }
  if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos ||
      std::stoi(port) > 65535)
    throw DeployError("--listen: '" + listen + "' is not [ADDR:]PORT");
  options.bindPort = std::stoi(port);
}

// The project and environment named by [deploy] (default deploy/deploy), created when missing.
store::Environment deployEnvironment(server::Services& services, const server::DeployLaunch& d) {
  std::optional<store::Project> project;
  for (store::Project& p : services.store.listProjects())
    if (p.name == d.projectName) project = std::move(p);
  if (!project) project = services.store.createProject(d.projectName);
  for (const std::string& id : project->environment_ids) {
    store::Environment env = services.store.getEnvironment(id);
    if (env.name != d.environmentName) continue;
    if (!d.environmentId.empty() && env.id != d.environmentId)
      spdlog::info("the deploy environment {} was made before its id came from its name (the compile saw {})", env.id,
                   d.environmentId);
    return env;
  }
  store::NewEnvironment env;
  env.project_id = project->id;
  env.name = d.environmentName;
  if (!d.environmentId.empty()) {
    env.id = d.environmentId;
    try {
      return services.environments.create(env);
    } catch (const std::exception& e) {
      // the id is taken by an environment of another name or project: a fresh one
      spdlog::warn("the deploy environment cannot have the id {} the compile saw: {}", d.environmentId, e.what());
      env.id.reset();
    }
  }
  return services.environments.create(env);
}

// Waits until the scheduler (none: nothing to wait for) is idle, writing out the progress lines
// every few milliseconds; false on an interrupt or at the deadline.
bool waitForIdle(scheduler::Scheduler* scheduler, Progress& progress, std::optional<Clock::time_point> deadline,
                 const Interrupts& signals) {
  while (true) {
    progress.flush();
    if (!scheduler || scheduler->idle()) return true;
    if (signals.interrupted()) return false;
    if (deadline && Clock::now() >= *deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

DeployReport deployReport(server::Services& services, const std::string& env, std::int64_t version,
                          std::unordered_map<std::string, LastRun> results) {
  DeployReport report;
  report.version = version;
  // the release gave every resource of the version a state row that is not orphaned; the other
  // rows are the resources that left the model (their attributes are not needed: no version read)
  for (const store::ResourceState& state : services.store.resourceStates(env)) {
    if (state.orphaned_after) {
      report.orphaned.push_back(state.resource_id);
      continue;
    }
    ResourceOutcome outcome;
    outcome.resource_id = state.resource_id;
    outcome.status = store::displayedStatus(&state);
    if (auto run = results.find(state.resource_id); run != results.end()) {
      outcome.change = handlers::changeName(run->second.change);
      outcome.changes = std::move(run->second.changes);
      if (outcome.status == "failed" || outcome.status == "unavailable" || outcome.status == "skipped")
        outcome.error = std::move(run->second.error);
    }
    report.resources.push_back(std::move(outcome));
  }
  return report;
}

DryRunReport dryRunReport(server::Services& services, const std::string& env, const std::string& dryrunId,
                          std::int64_t version) {
  DryRunReport report;
  report.version = version;
  std::optional<store::DryRun> dryrun = services.store.getDryRun(env, dryrunId);
  if (!dryrun) return report;
  for (const auto& [rvid, entry] : dryrun->resources.items()) {
    DryRunOutcome outcome;
    outcome.resource_id = util::stripVersion(rvid).value_or(rvid);
    outcome.changes = entry.value("changes", nlohmann::json::object());
    std::string diffStatus = entry.value("diff_status", "");
    if (!diffStatus.empty()) outcome.status = diffStatus;
    else if (outcome.changes.contains("handler")) outcome.status = "failed";
    else outcome.status = outcome.changes.empty() ? "unchanged" : "changed";
    if (outcome.changes.contains("hash") && outcome.changes["hash"].is_object()) {
      const nlohmann::json& hash = outcome.changes["hash"];
      if (hash.value("current", nlohmann::json()).is_string() && hash.value("desired", nlohmann::json()).is_string()) {
        std::optional<std::string> current = services.store.getFile(hash["current"].get<std::string>());
        std::optional<std::string> desired = services.store.getFile(hash["desired"].get<std::string>());
        // a content the store does not hold: the hashes are shown instead
        if (current && desired) {
          std::string path = entry.value("id_fields", nlohmann::json::object()).value("attribute_value", "");
          outcome.diff = server::unifiedDiff(*current, *desired, path + " (on the machine)", path + " (desired)");
        }
      }
    }
    report.resources.push_back(std::move(outcome));
  }
  std::sort(report.resources.begin(), report.resources.end(),
            [](const DryRunOutcome& a, const DryRunOutcome& b) { return a.resource_id < b.resource_id; });
  return report;
}

// Completes a report with how the wait ended, prints it (text or --json) and gives the exit status.
template <class Report>
int conclude(Report& report, Clock::time_point started, bool finished, const Interrupts& signals,
             const server::DeployLaunch& d, std::ostream& out) {
  report.seconds = std::chrono::duration<double>(Clock::now() - started).count();
  report.interrupted = signals.interrupted();
  report.timedOut = !finished && !report.interrupted;
  if (d.json) out << report.toJson().dump(2) << "\n";
  else report.printText(out, d.color);
  return report.exitCode();
}

// A trigger that tells nobody: the release of the deploy command is read by the scheduler when it
// starts, with the repair in the same step (no resource runs twice).
class SilentTrigger : public server::DeployTrigger {};

// Ends the process with `status` once the log, stdout and stderr are flushed, without the
// destructors and exit handlers of the rest.
[[noreturn]] void exitNow(int status) {
  spdlog::shutdown();
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  std::_Exit(status);
}

int run(const server::ServerLaunch& launch, const server::DeployLaunch& d) {
  auto started = Clock::now();
  std::ostream& out = std::cout;
  std::ostream& progressOut = d.json ? std::cerr : std::cout;

  fs::path data = fs::path(d.projectDir) / "data" / "deploy";
  std::error_code ec;
  fs::create_directories(data / "logs", ec);
  if (ec) throw DeployError("cannot create " + (data / "logs").string() + ": " + ec.message());
  ProjectLock lock(data / "lock");
  setUpLogging(data / "logs", launch.verbosity);
  Interrupts signals;

  server::ServerOptions options;
  applyListen(d.listen, options);
  options.stateDir = data.string();
  options.logDir = (data / "logs").string();
  options.purgeVersionsInterval = 0;
  options.purgeResourceActionLogsInterval = 0;
  options.database.engine = store::Engine::sqlite;
  options.database.sqlite_path = (data / "inmanta.db").string();
  std::unique_ptr<store::Store> store;
  try {
    store = store::Store::open(options.database);
  } catch (const std::exception& e) {
    throw DeployError(std::string("cannot open the deploy store: ") + e.what());
  }
  server::Auth auth{util::Settings{}};
  server::Services services(*store, options, auth, launch.version);

  Progress progress(progressOut, d.progressBar && !d.json, d.color);
  server::SchedulersConfig config;
  config.timers = false;
  config.processEndsAfterStop = true;  // exitNow() below
  // a dry-run must not deploy what the store already holds (nor read it); a deploy repairs
  // everything (D4)
  config.startMode = d.dryRun        ? scheduler::StartMode::dryRunsOnly
                     : d.incremental ? scheduler::StartMode::newVersion
                                     : scheduler::StartMode::repair;
  config.onRun = [&progress](const std::string&, scheduler::RunReport&& report) { progress.onRun(std::move(report)); };
  if (d.runPythonHandler)
    config.registerHandlers = [&d](handlers::HandlerRegistry& registry) {
      handlers::registerForeignHandlers(registry, d.pythonHandlerTypes, d.runPythonHandler,
                                        std::chrono::milliseconds(
                                            static_cast<long long>(d.handlerTimeoutSeconds * 1000)));
    };
  server::Schedulers schedulers(services, config);
  services.setDeployTrigger(schedulers);

  server::Router router;
  server::addAllRoutes(router, services);
  server::Dispatcher dispatcher(router, services);
  server::HttpServer http(dispatcher, options);
  try {
    http.start();
  } catch (const std::exception& e) {
    throw DeployError(std::string("cannot start the embedded server: ") + e.what());
  }
  for (const std::string& address : options.bindAddresses)
    services.sockets.push_back(address + ":" + std::to_string(http.port()));
  spdlog::info("The embedded server listens on {}:{}", options.bindAddresses.front(), http.port());

  store::Environment env = deployEnvironment(services, d);
  // The prune after the report removes the oldest version once this one is stored, and a
  // long-lived project last touched that version's rows a hundred deploys ago: the prune waited
  // for the disk (~0.8 s for 10,000 resources). They are read here, beside the export and the
  // runs, which use the CPU and not the disk. (joined before the prune; a std::jthread, so that
  // leaving by an exception waits for it too)
  std::jthread readAhead;
  if (nlohmann::json keep = services.settings.value(env.id, "available_versions_to_keep"); keep.is_number())
    readAhead = std::jthread([&services, id = env.id, kept = std::max<std::int64_t>(1, keep.get<std::int64_t>())] {
      try {
        services.store.readAheadPrune(id, kept - 1);  // this deploy adds a version
      } catch (const std::exception& e) {
        spdlog::debug("reading ahead of the prune: {}", e.what());
      }
    });
  try {
    // the deploy command releases the version itself (a dry-run must not deploy)
    services.settings.set(env.id, "auto_deploy", false);
  } catch (const std::exception& e) {
    spdlog::warn("auto_deploy stays as project.yml sets it: {}", e.what());
  }

  // the export, over HTTP with the exporter's client (D8)
  std::string host = options.bindAddresses.front() == "0.0.0.0" ? "127.0.0.1" : options.bindAddresses.front();
  server::DeployExport exported = d.exportModel(host, http.port(), env.id);
  if (!exported.error.empty()) throw DeployError(exported.error);
  spdlog::info("Exported version {} ({} resources) after {:.3f} s", exported.version, exported.resources,
               std::chrono::duration<double>(Clock::now() - started).count());
  if (!d.json) out << "Exported version " << exported.version << " with " << exported.resources << " resources\n";
  out.flush();

  std::optional<Clock::time_point> deadline;
  if (d.timeoutSeconds > 0)
    deadline = started + std::chrono::microseconds(static_cast<long long>(d.timeoutSeconds * 1e6));
  int status = 0;
  if (d.dryRun) {
    server::DryRunService dryruns(services.store, schedulers);
    store::DryRun dryrun = dryruns.create(env, exported.version);
    // the scheduler is idle once every dry-run task ran and its records are stored
    scheduler::Scheduler* scheduler = schedulers.get(env.id);
    bool finished = waitForIdle(scheduler, progress, deadline, signals);
    progress.finish();
    DryRunReport report = dryRunReport(services, env.id, dryrun.id, exported.version);
    status = conclude(report, started, finished, signals, d, out);
  } else {
    SilentTrigger silent;
    server::VersionService versions(services.store, silent, services.resources);
    store::ModelVersion model = services.store.getVersion(env.id, exported.version);
    if (!model.released) versions.release(env, exported.version);
    progress.setTotal(std::size_t(model.total) - model.undeployable.size() - model.skipped_for_undeployable.size());
    scheduler::Scheduler* scheduler = schedulers.get(env.id);
    if (!scheduler) throw DeployError("the environment " + env.name + " is halted: nothing is deployed");
    spdlog::info("Released and scheduled after {:.3f} s",
                 std::chrono::duration<double>(Clock::now() - started).count());
    bool finished = waitForIdle(scheduler, progress, deadline, signals);
    spdlog::info("Deployed after {:.3f} s", std::chrono::duration<double>(Clock::now() - started).count());
    progress.finish();
    schedulers.stopAll();  // runs still going after a time-out end before the report reads the store
    DeployReport report = deployReport(services, env.id, exported.version, progress.takeResults());
    status = conclude(report, started, finished, signals, d, out);
  }
  schedulers.stopAll();
  if (readAhead.joinable()) readAhead.join();
  try {
    server::pruneVersions(services);
  } catch (const std::exception& e) {
    spdlog::warn("pruning old versions failed: {}", e.what());
  }
  dispatcher.beginShutdown();
  http.stop();
  try {
    store->flushUploads();  // a handler's uploads during the runs (else the next open moves them)
  } catch (const std::exception& e) {
    spdlog::warn("storing the uploaded files failed: {}", e.what());
  }
  // Everything the deploy did is committed (the schedulers' journals are flushed, the WAL holds
  // the last commits, which the next open of the store reads) and reported: the process ends here,
  // without taking apart the model, the intents, the store's caches and the rest one object at a
  // time, which took a tenth of a second for 10,000 resources.
  exitNow(status);
}

}  // namespace

int runEmbeddedDeploy(const server::ServerLaunch& launch) {
  if (!launch.deploy || !launch.deploy->exportModel) return 1;
  int status = 1;
  try {
    status = run(launch, *launch.deploy);
  } catch (const std::exception& e) {
    std::cerr << "Error: " << e.what() << "\n";
  }
  // A module handler abandoned on its time-out may still run in the embedded Python: the process
  // ends now, without the exit handlers that would finalise the interpreter under it.
  if (handlers::abandonedForeignCalls() > 0) exitNow(status);
  return status;
}

}  // namespace inmanta::deploy
