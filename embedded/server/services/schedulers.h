// The environments' schedulers (spec §6, §8): one Scheduler per environment that is not halted,
// each with an executor running the registered handlers on this machine. It is the server's
// DeployTrigger: releases, deploy requests, dry-runs and agent pauses reach the schedulers here.
// `inmanta server` arms the timers; `inmanta deploy` does not (it stops when the work is done).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "embedded/agent/executor.h"
#include "embedded/agent/python_executors.h"
#include "embedded/handlers/handler.h"
#include "embedded/handlers/host.h"
#include "embedded/scheduler/scheduler.h"
#include "embedded/server/services/agents.h"

namespace inmanta::server {

struct Services;

struct SchedulersConfig {
  bool timers = true;  // retries and repairs (§6.7)
  scheduler::StartMode startMode = scheduler::StartMode::resume;
  unsigned workers = 0;  // handler calls at once; 0 = the number of CPUs
  // every finished run of every environment (inmanta deploy's progress)
  std::function<void(const std::string& env, scheduler::RunReport&&)> onRun;
  // extra handlers (modules' Python handlers), after the std ones
  std::function<void(handlers::HandlerRegistry&)> registerHandlers;
  // Where the module code of versions is written for executor processes that run the modules'
  // Python handlers (`inmanta server`: <state_dir>/executors); empty: a type without a registered
  // handler is unavailable.
  agent::PythonExecutorsConfig executors;
  // The process ends right after stopAll() (inmanta deploy): stopped schedulers are left to the
  // exit instead of taken apart one intent at a time (a few hundredths of a second at 10,000
  // resources; their journals are written before stopAll() returns all the same).
  bool processEndsAfterStop = false;
};

class Schedulers : public DeployTrigger {
 public:
  Schedulers(Services& services, SchedulersConfig config);
  ~Schedulers() override;

  // Starts the scheduler of every environment that is not halted (server start, §8).
  void startAll();
  // Stops them all, letting running handler calls finish within `grace`; false when some did not.
  bool stopAll(std::chrono::milliseconds grace = std::chrono::seconds(10));
  // The environment's scheduler, started on first use; nullptr when the environment is halted or
  // unknown.
  scheduler::Scheduler* get(const std::string& env);

  // DeployTrigger
  void versionReleased(const std::string& env, std::int64_t version) override;
  void deploy(const std::string& env, bool repair, const std::vector<std::string>& agents) override;
  void dryRunRequested(const std::string& env, const std::string& dryrun_id, std::int64_t version) override;
  void agentsChanged(const std::string& env) override;
  bool schedulerRunning(const std::string& env) override;
  void settingsChanged(const std::string& env) override;
  void environmentStopped(const std::string& env) override;
  void environmentResumed(const std::string& env) override;

 private:
  struct Lane;
  Services& services_;
  SchedulersConfig config_;
  handlers::HandlerRegistry registry_;
  std::unique_ptr<handlers::Host> host_;
  std::unique_ptr<agent::PythonExecutors> executors_;  // null without config_.executors.codeRoot
  scheduler::SystemClock clock_;
  std::mutex mutex_;
  std::map<std::string, std::unique_ptr<Lane>> lanes_;  // by environment
};

// `autostart_agent_deploy_interval` / `autostart_agent_repair_interval` as seconds (0 = off).
std::int64_t intervalSeconds(const nlohmann::json& value);
// The cron expression of an interval setting's value; nullopt for a number of seconds.
std::optional<scheduler::Cron> intervalCron(const nlohmann::json& value);

}  // namespace inmanta::server
