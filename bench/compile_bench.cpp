// Compile benchmark: a whole `inmanta compile` (load, parse, define, execute, final checks) of
// generated projects of several sizes, in-process. Projects come from bench/gen_model.py:
//
//   INMANTA_BENCH_PROJECTS=/tmp/p100:/tmp/p1000:/tmp/p10000 build-bench/bench/inmanta_compile_bench
//
// bench/run_compile.sh generates them and runs this with repetitions (medians).
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "compiler/driver.h"
#include "modules/std/plugins/std_plugins.h"

namespace {

namespace ic = inmanta::compiler;

void BM_Compile(benchmark::State& state, std::string project) {
  ic::PluginRegistry plugins;
  inmanta::stdmodule::registerStdPlugins(plugins);
  ic::CompileOptions options;
  options.projectDir = project;
  options.plugins = &plugins;
  for (auto _ : state) {
    std::ostringstream out, err;
    ic::CompileStatus status = ic::runCompile(options, out, err);
    if (status != ic::CompileStatus::Success) {
      state.SkipWithError(("compile failed: " + err.str().substr(0, 500)).c_str());
      return;
    }
  }
}

int registerProjects() {
  const char* env = std::getenv("INMANTA_BENCH_PROJECTS");
  if (env == nullptr) return 0;
  std::stringstream list(env);
  std::string project;
  while (std::getline(list, project, ':'))
    if (!project.empty())
      benchmark::RegisterBenchmark(("BM_Compile/" + project).c_str(), BM_Compile, project)
          ->Unit(benchmark::kMillisecond);
  return 0;
}

const int registered = registerProjects();

}  // namespace
