#include "embedded/server/services/agents.h"

#include <algorithm>
#include <set>

#include "embedded/server/errors.h"

namespace inmanta::server {

std::vector<AgentView> AgentService::list(const store::Environment& env) {
  bool running = trigger_.schedulerRunning(env.id);
  std::vector<AgentView> out;
  for (store::Agent& agent : store_.listAgents(env.id)) {
    if (agent.name == kSchedulerAgent) continue;
    std::string status = agent.paused ? "paused" : running ? "up" : "down";
    out.push_back({std::move(agent), std::move(status)});
  }
  return out;
}

void AgentService::act(const store::Environment& env, const std::string& name, const std::string& action) {
  if (name == kSchedulerAgent)
    throw badRequest("Particular action cannot be directed towards the Scheduler agent: " + action);
  bool all = name.empty();
  if (!all && !store_.getAgent(env.id, name)) throw notFound("The agent with name " + name + " does not exist.");
  if (action == "pause" || action == "unpause") {
    if (env.halted) throw forbidden("Can not pause or unpause agents when the environment has been halted.");
    bool paused = action == "pause";
    if (all) store_.setAllAgentsPaused(env.id, paused);
    else store_.setAgentPaused(env.id, name, paused);
    trigger_.agentsChanged(env.id);
  } else if (action == "keep_paused_on_resume" || action == "unpause_on_resume") {
    if (!env.halted) throw forbidden("Cannot set on_resume state of agents when the environment is not halted.");
    bool unpause = action == "unpause_on_resume";
    if (all) store_.setAllUnpauseOnResume(env.id, unpause);
    else store_.setUnpauseOnResume(env.id, name, unpause);
  } else if (!(all && action == "remove_all_agent_venvs")) {
    throw badRequest("Unknown agent action: " + action);
  }
}

std::vector<std::string> AgentService::deploy(const store::Environment& env, const std::string& triggerMethod,
                                              const std::optional<std::vector<std::string>>& requested,
                                              std::vector<std::string>& warnings) {
  if (triggerMethod != "push_full_deploy" && triggerMethod != "push_incremental_deploy")
    throw badRequest("agent_trigger_method must be push_full_deploy or push_incremental_deploy, not " + triggerMethod);
  std::optional<std::int64_t> active = store_.latestReleasedVersion(env.id);
  if (!active) throw bare(404, "No version available");
  std::set<std::string> present;
  for (const store::Resource& resource : store_.versionResources(env.id, *active)) present.insert(resource.agent);
  std::vector<std::string> agents;
  if (!requested) {
    agents.assign(present.begin(), present.end());
  } else {
    std::set<std::string> chosen;
    for (const std::string& name : *requested) {
      if (present.count(name)) chosen.insert(name);
      else warnings.push_back("Model version " + std::to_string(*active) + " does not contain agent named " + name);
    }
    agents.assign(chosen.begin(), chosen.end());
  }
  if (agents.empty()) throw bare(404, "No agent could be reached");
  trigger_.deploy(env.id, triggerMethod == "push_full_deploy", agents);
  return agents;
}

}  // namespace inmanta::server
