// Agents (spec §4.11) and the deploy trigger (§4.9): pause/unpause and the flags kept while an
// environment is halted, the agent list with its computed status, and the interface through which
// the server tells the scheduler (issue 31) about releases, deploy requests and dry-runs.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "embedded/store/store.h"

namespace inmanta::server {

// What the server asks of the environments' schedulers. The default answers as if no scheduler
// runs: it records nothing (released versions wait as `available`). The scheduler of issue 31
// implements it; the server holds one.
class DeployTrigger {
 public:
  virtual ~DeployTrigger() = default;
  // A version was released: read it (spec §6.3).
  virtual void versionReleased(const std::string& env, std::int64_t version) { (void)env, (void)version; }
  // POST /api/v1/deploy: `repair` = push_full_deploy; `agents` are the ones the answer lists.
  virtual void deploy(const std::string& env, bool repair, const std::vector<std::string>& agents) {
    (void)env, (void)repair, (void)agents;
  }
  // A dry-run was created: compute its resources.
  virtual void dryRunRequested(const std::string& env, const std::string& dryrun_id, std::int64_t version) {
    (void)env, (void)dryrun_id, (void)version;
  }
  // An agent was paused or unpaused (empty name = every agent of the environment).
  virtual void agentsChanged(const std::string& env) { (void)env; }
  // Whether the environment's scheduler runs (agents then show `up`).
  virtual bool schedulerRunning(const std::string& env) { return (void)env, false; }
  // An environment setting changed (the intervals of §6.7).
  virtual void settingsChanged(const std::string& env) { (void)env; }
  // The environment was halted, decommissioned or is being deleted: its scheduler stops.
  virtual void environmentStopped(const std::string& env) { (void)env; }
  // The environment was resumed: its scheduler starts again (§6.8).
  virtual void environmentResumed(const std::string& env) { (void)env; }
};

// The name of the scheduler's pseudo-agent, never listed and never paused by hand.
inline constexpr const char* kSchedulerAgent = "$__scheduler";

struct AgentView {
  store::Agent agent;
  std::string status;  // paused | up | down
};

class AgentService {
 public:
  AgentService(store::Store& store, DeployTrigger& trigger) : store_(store), trigger_(trigger) {}

  // The agents of the environment (without the scheduler's), sorted by name.
  std::vector<AgentView> list(const store::Environment& env);
  // `action` of POST /api/v2/agent/<name>/<action> (`name` empty: /api/v2/agents/<action>):
  // pause, unpause (403 when halted), keep_paused_on_resume, unpause_on_resume (403 unless halted),
  // remove_all_agent_venvs (all agents only; nothing to do for us). 400 for another action or the
  // scheduler's agent, 404 for an unknown agent.
  void act(const store::Environment& env, const std::string& name, const std::string& action);

  // POST /api/v1/deploy: the agents of the active version to deploy (`requested` empty = all),
  // sorted; `warnings` names requested agents not in the version. 404 bare "No version available"
  // / "No agent could be reached".
  std::vector<std::string> deploy(const store::Environment& env, const std::string& triggerMethod,
                                  const std::optional<std::vector<std::string>>& requested,
                                  std::vector<std::string>& warnings);

 private:
  store::Store& store_;
  DeployTrigger& trigger_;
};

}  // namespace inmanta::server
