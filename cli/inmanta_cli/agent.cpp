// inmanta-cli agent list/pause/unpause (the reference's `agent` group).
#include <iostream>

#include "cli/inmanta_cli/session.h"

namespace inmanta::cli::client {

namespace {

struct AgentOptions {
  std::string environment, agent;
  bool all = false, json = false;
};

// pause or unpause one agent (--agent) or every agent (--all) of the environment.
void addAgentAction(CLI::App& group, Session& session, const std::shared_ptr<AgentOptions>& o,
                    const std::string& action, const std::string& help) {
  CLI::App* command = group.add_subcommand(action, help);
  addEnvironmentOption(*command, o->environment);
  command->add_option("--agent", o->agent, "The name of the agent to " + action + ".");
  command->add_flag("--all", o->all, "Apply to all agents in the given environment");
  command->callback([&session, o, action] {
    if (!o->agent.empty() && o->all)
      throw CliError("The --agent option and the --all flag cannot be used simultaneously.");
    if (o->agent.empty() && !o->all)
      throw CliError("Either the --agent options should be set or use the --all flag to " + action +
                     " all agents in the given environment.");
    std::string tid = session.environmentId(o->environment);
    if (o->all) session.request("POST", "/api/v2/agents/" + action, nullptr, tid, "agents");
    else
      session.request("POST", "/api/v2/agent/" + urlEncode(o->agent) + "/" + action, nullptr, tid, "agent " + o->agent);
  });
}

}  // namespace

void addAgentCommands(CLI::App& root, Session& session) {
  CLI::App* group = root.add_subcommand("agent", "Subcommand to manage agents");
  group->require_subcommand(1);
  auto o = std::make_shared<AgentOptions>();

  CLI::App* list = group->add_subcommand("list", "List agents in an environment");
  addEnvironmentOption(*list, o->environment);
  addJsonFlag(*list, o->json);
  list->callback([&session, o] {
    std::string tid = session.environmentId(o->environment);
    json agents = session.requestKey("GET", "/api/v1/agent", "agents", nullptr, tid);
    if (o->json) return printJson(agents);
    std::vector<std::vector<std::string>> rows;
    for (const json& agent : agents)
      rows.push_back({field(agent, "name"), field(agent, "environment"), field(agent, "paused")});
    printTable({"Agent", "Environment", "Paused"}, rows);
  });

  addAgentAction(*group, session, o, "pause",
                 "Pause a specific agent or all agents in a given environment. A paused agent cannot execute "
                 "deploy operations.");
  addAgentAction(*group, session, o, "unpause",
                 "Unpause a specific agent or all agents in a given environment. An unpaused agent will be able "
                 "to execute deploy operations.");
}

}  // namespace inmanta::cli::client
