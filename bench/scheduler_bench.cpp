// The scheduler's overhead per resource (issue 31: 100,000 NullResources with a scheduling
// overhead of at most 20 µs per resource). One version of N std::testing::NullResource, stored
// and released in a SQLite store in a temporary folder, deployed by a Scheduler with the std
// handlers; the time from the release to the end of the work (every run recorded in the store)
// is divided by N. The same is measured with an executor that does nothing, which leaves the
// scheduler and its store writes alone, and the handler's own time is reported beside it.
//
//   inmanta_scheduler_bench [N=100000] [AGENTS=1] [RUNS=3] [both|handler|nothing]
//
// (`handler` or `nothing` times one of the two alone, e.g. under a profiler.) Beside each time, the
// CPU time of the whole process over the same span (every thread's user and system time), which a
// busy shared machine moves less than the elapsed time.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <sys/resource.h>

#include "embedded/agent/executor.h"
#include "embedded/handlers/host.h"
#include "embedded/scheduler/scheduler.h"
#include "util/attribute_hash.h"

namespace {

using namespace inmanta;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// An executor that only says `deployed`: what is left is the scheduler.
class NothingExecutor : public agent::Executor {
 public:
  agent::RunResult run(const agent::RunRequest&) override {
    agent::RunResult result;
    result.status = "deployed";
    return result;
  }
};

struct Measure {
  double releaseToIdle = 0;  // seconds
  double cpu = 0;            // seconds of CPU of the process over that span
};

double processCpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

Measure once(int count, int agents, bool realHandlers) {
  fs::path dir = fs::temp_directory_path() / ("inmanta-scheduler-bench-" + store::newUuid());
  fs::create_directories(dir);
  Measure m;
  {
    store::StoreConfig config;
    config.sqlite_path = (dir / "inmanta.db").string();
    auto st = store::Store::open(config);
    store::NewEnvironment ne;
    ne.project_id = st->createProject("bench").id;
    ne.name = "bench";
    std::string env = st->createEnvironment(ne).id;
    store::NewVersion version;
    version.environment = env;
    version.version = st->reserveVersion(env);
    for (int i = 0; i < count; ++i) {
      store::Resource r;
      std::string agent = "agent" + std::to_string(i % agents);
      r.resource_id = "std::testing::NullResource[" + agent + ",name=r" + std::to_string(i) + "]";
      r.resource_type = "std::testing::NullResource";
      r.agent = agent;
      r.id_attribute = "name";
      r.resource_id_value = "r" + std::to_string(i);
      r.attributes = {{"name", r.resource_id_value},
                      {"agentname", agent},
                      {"fail", false},
                      {"send_event", true},
                      {"purged", false},
                      {"purge_on_delete", false},
                      {"requires", nlohmann::json::array()},
                      {"receive_events", true},
                      {"report_only", false}};
      r.attribute_hash = util::attributeHash(r.resource_id, r.attributes);
      version.resources.push_back(std::move(r));
    }
    // by value, as the server's put_version stores what it parsed (the store keeps the resources
    // for the scheduler's first read of the version)
    std::int64_t number = st->putVersion(std::move(version));

    handlers::HandlerRegistry registry;
    handlers::registerStdHandlers(registry);
    auto host = handlers::makeLocalHost();
    agent::HandlerExecutor real(registry, handlers::HandlerServices{host.get(), nullptr, nullptr});
    NothingExecutor nothing;
    scheduler::SystemClock clock;
    scheduler::SchedulerOptions options;
    options.timers = false;
    options.startMode = scheduler::StartMode::newVersion;
    scheduler::Scheduler s(*st, env, realHandlers ? static_cast<agent::Executor&>(real) : nothing, clock, options);
    s.start();
    auto started = Clock::now();
    double cpuStarted = processCpuSeconds();
    st->releaseVersion(env, number);
    s.versionReleased(number);
    s.waitIdle();
    m.releaseToIdle = std::chrono::duration<double>(Clock::now() - started).count();
    m.cpu = processCpuSeconds() - cpuStarted;
    s.stop();
  }
  fs::remove_all(dir);
  return m;
}

// The median of one field of the runs.
double median(const std::vector<Measure>& runs, double Measure::*field) {
  std::vector<double> values;
  for (const Measure& m : runs) values.push_back(m.*field);
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int count = argc > 1 ? std::atoi(argv[1]) : 100000;
  int agents = argc > 2 ? std::max(1, std::atoi(argv[2])) : 1;
  int runs = argc > 3 ? std::max(1, std::atoi(argv[3])) : 3;
  std::string mode = argc > 4 ? argv[4] : "both";
  if (mode != "both" && mode != "handler" && mode != "nothing") {
    std::fprintf(stderr, "inmanta_scheduler_bench: the fourth argument is both, handler or nothing, not %s\n",
                 mode.c_str());
    return 2;
  }
  bool withHandler = mode != "nothing", withNothing = mode != "handler";
  std::vector<Measure> real, bare;
  for (int i = 0; i < runs; ++i) {
    if (withHandler) real.push_back(once(count, agents, true));
    if (withNothing) bare.push_back(once(count, agents, false));
  }
  std::printf("%d NullResources on %d agent(s), median of %d runs:\n", count, agents, runs);
  if (withHandler) {
    double r = median(real, &Measure::releaseToIdle);
    std::printf("  release to idle with the null handler: %.3f s = %.1f us per resource (CPU %.1f us)\n", r,
                r * 1e6 / count, median(real, &Measure::cpu) * 1e6 / count);
  }
  if (withNothing) {
    double b = median(bare, &Measure::releaseToIdle);
    std::printf(
        "  release to idle with an executor that does nothing (scheduler + store): %.3f s = %.1f us per "
        "resource (CPU %.1f us)\n",
        b, b * 1e6 / count, median(bare, &Measure::cpu) * 1e6 / count);
  }
  if (withHandler && withNothing)
    std::printf("  the handler calls (the difference): %.1f us per resource\n",
                (median(real, &Measure::releaseToIdle) - median(bare, &Measure::releaseToIdle)) * 1e6 / count);
  return 0;
}
