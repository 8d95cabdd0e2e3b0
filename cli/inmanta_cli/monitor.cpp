// inmanta-cli monitor: follows the deploy of an environment's resources until every one is done
// (deployed, failed, skipped, skipped for undefined, unavailable or undefined), as the
// reference's monitor does; --json prints the current deploy summary once.
#include <unistd.h>

#include <chrono>
#include <iostream>
#include <thread>

#include "cli/inmanta_cli/session.h"

namespace inmanta::cli::client {

namespace {

struct MonitorOptions {
  std::string environment;
  bool json = false;
};

// The summary comes with the list of resources, asked for as the reference's client does.
json deploySummary(Session& session, const std::string& tid) {
  json answer = session.request("GET", "/api/v2/resource?deploy_summary=True&limit=0", nullptr, tid, "deploy summary");
  json summary = answer.is_object() ? answer.value("metadata", json::object()).value("deploy_summary", json()) : json();
  if (!summary.is_object()) throw CliError("Expected metadata.deploy_summary in the answer of GET /api/v2/resource");
  return summary;
}

// (done, total) of a deploy summary.
std::pair<long long, long long> progress(const json& summary) {
  long long done = 0;
  json byState = summary.value("by_state", json::object());
  for (const char* state : {"deployed", "failed", "skipped", "skipped_for_undefined", "unavailable", "undefined"})
    if (byState.contains(state) && byState[state].is_number_integer()) done += byState[state].get<long long>();
  return {done, summary.value("total", 0LL)};
}

// click's progress bar: `label  [####------]  done/total`, redrawn in place.
void drawBar(const std::string& label, long long done, long long total) {
  const int width = 36;
  int filled = total > 0 ? static_cast<int>(width * done / total) : width;
  std::cout << "\r" << label << "  [" << std::string(filled, '#') << std::string(width - filled, '-') << "]  " << done
            << "/" << total << std::flush;
}

}  // namespace

void addMonitorCommand(CLI::App& root, Session& session) {
  auto o = std::make_shared<MonitorOptions>();
  CLI::App* monitor = root.add_subcommand("monitor",
                                          "Monitor the deployment process of the configuration model in an "
                                          "environment, receiving continuous updates "
                                          "on the deployment status");
  addEnvironmentOption(*monitor, o->environment);
  monitor->add_flag("--json", o->json, "Print the environment's deploy summary once, as the server's JSON");
  monitor->callback([&session, o] {
    std::string tid = session.environmentId(o->environment);
    json summary = deploySummary(session, tid);
    if (o->json) return printJson(summary);
    const std::string label = "environment:" + o->environment;
    const bool tty = isatty(STDOUT_FILENO) != 0;
    auto [done, total] = progress(summary);
    // Not on a terminal the bar shows only its label, as click's does.
    if (tty) drawBar(label, done, total);
    else std::cout << label << "\n" << std::flush;
    while (done != total) {
      std::this_thread::sleep_for(std::chrono::seconds(1));
      long long last = done;
      std::tie(done, total) = progress(deploySummary(session, tid));
      if (tty && done != last) drawBar(label, done, total);
    }
    if (tty) std::cout << "\n";
    std::cout << "Complete: " << done << "/" << total << "\n";
  });
}

}  // namespace inmanta::cli::client
