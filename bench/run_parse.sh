#!/bin/sh
# Parser benchmark: generates a ~50k-line model and times parsing it. Builds nothing.
#
#   bench/run_parse.sh [BUILD_DIR] [extra Google Benchmark flags...]
#
# BUILD_DIR (default /work/main/build-bench) must be a Release tree configured with
# -DINMANTA_BUILD_BENCH=ON in which the target inmanta_parse_bench was built, e.g.:
#   cmake -S /work/main -B /work/main/build-bench -G Ninja -DCMAKE_BUILD_TYPE=Release \
#         -DINMANTA_BUILD_BENCH=ON -DINMANTA_BUILD_TESTS=OFF
#   cmake --build /work/main/build-bench --target inmanta_parse_bench
# Environment: BENCH_LINES (default 50000), BENCH_SEED (default 1).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
build=${1:-/work/main/build-bench}
[ $# -gt 0 ] && shift
bin=$build/bench/inmanta_parse_bench
if [ ! -x "$bin" ]; then
  echo "run_parse.sh: $bin not found; build the target inmanta_parse_bench first" >&2
  exit 1
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/inmanta-parse-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

python3 "$here/gen_model.py" --lines "${BENCH_LINES:-50000}" --seed "${BENCH_SEED:-1}" --out "$tmp/model"

INMANTA_BENCH_MODEL="$tmp/model/main.cf" "$bin" \
  --benchmark_repetitions=5 --benchmark_report_aggregates_only=true "$@"
