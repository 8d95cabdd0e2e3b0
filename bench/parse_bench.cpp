// Parser throughput benchmark: parses one `.cf` file (INMANTA_BENCH_MODEL) per iteration.
//
//   python3 bench/gen_model.py --lines 50000 --out /tmp/model
//   INMANTA_BENCH_MODEL=/tmp/model/main.cf build-bench/bench/inmanta_parse_bench
//
// bench/run_parse.sh does both. Google Benchmark reports bytes/s (MB/s) and lines/s.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "compiler/ast/ast.h"
#include "compiler/diag/diagnostic.h"
#include "compiler/parse/parser.h"
#include "compiler/source/source.h"

namespace {

namespace ic = inmanta::compiler;

// range(0): 0 = ParseMode::Auto (what the compiler uses: the fast path), 1 = ParseMode::Antlr
// (the ANTLR-generated parser alone, the peer the fast path is measured against).
void BM_ParseFile(benchmark::State& state) {
  const ic::ParseMode mode = state.range(0) == 0 ? ic::ParseMode::Auto : ic::ParseMode::Antlr;
  state.SetLabel(state.range(0) == 0 ? "fast path" : "antlr");
  const char* path = std::getenv("INMANTA_BENCH_MODEL");
  if (path == nullptr || *path == '\0') {
    state.SkipWithError(
        "INMANTA_BENCH_MODEL is not set: point it at a .cf file, e.g. one written by "
        "`python3 bench/gen_model.py --lines 50000 --out DIR` (or use bench/run_parse.sh)");
    return;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    state.SkipWithError((std::string("cannot open INMANTA_BENCH_MODEL file ") + path).c_str());
    return;
  }
  std::ostringstream raw;
  raw << in.rdbuf();

  ic::SourceManager sources;
  const std::string display = "./" + std::filesystem::path(path).filename().string();
  const ic::FileId id = sources.add(path, display, ic::normaliseNewlines(raw.str()));
  const std::string_view text = sources.file(id).text;
  const auto lines = static_cast<double>(std::count(text.begin(), text.end(), '\n'));

  // One untimed parse first: it reports a syntax error in the model before any timing, and it
  // warms ANTLR's shared prediction (DFA) cache, so the repetitions measure the steady state
  // rather than the first parse of a process (which is ~10% slower on the 50k-line model).
  size_t statements = 0;
  try {
    ic::ast::Context ctx;
    statements = ic::parseFile(ctx, sources, id, {}, mode)->statements.size();
  } catch (const ic::CompileError& err) {
    state.SkipWithError(ic::renderDiagnostic(err.diagnostic(), sources).c_str());
    return;
  }

  for (auto _ : state) {
    ic::ast::Context ctx;
    try {
      ic::ast::File* file = ic::parseFile(ctx, sources, id, {}, mode);
      benchmark::DoNotOptimize(file);
      statements = file->statements.size();
    } catch (const ic::CompileError& err) {
      state.SkipWithError(ic::renderDiagnostic(err.diagnostic(), sources).c_str());
      break;
    }
  }

  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(text.size()));
  state.counters["lines"] = benchmark::Counter(lines);
  state.counters["lines/s"] =
      benchmark::Counter(lines * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["top_stmts"] = benchmark::Counter(static_cast<double>(statements));
}

BENCHMARK(BM_ParseFile)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

}  // namespace
