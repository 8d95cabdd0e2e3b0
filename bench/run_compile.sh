#!/bin/sh
# Compile benchmark: generates projects of 100, 1,000 and 10,000 services (about 6 instances
# each) and times whole compiles of each (median of 5). Builds nothing.
#
#   bench/run_compile.sh [BUILD_DIR] [extra Google Benchmark flags...]
#
# BUILD_DIR (default build-bench) is a Release tree configured with -DINMANTA_BUILD_BENCH=ON in
# which inmanta_compile_bench was built. Environment: BENCH_SIZES (default "100 1000 10000").
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build-bench}
[ $# -gt 0 ] && shift
bin=$build/bench/inmanta_compile_bench
if [ ! -x "$bin" ]; then
  echo "run_compile.sh: $bin not found; build the target inmanta_compile_bench first" >&2
  exit 1
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/inmanta-compile-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
projects=""
for n in ${BENCH_SIZES:-100 1000 10000}; do
  python3 "$here/gen_model.py" --services "$n" --out "$tmp/p$n" >/dev/null
  projects="$projects:$tmp/p$n"
done
INMANTA_BENCH_PROJECTS="$projects" "$bin" --benchmark_repetitions=5 --benchmark_report_aggregates_only=true "$@"
