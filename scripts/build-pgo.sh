#!/usr/bin/env bash
# A Release build of `inmanta` optimised with profiles (GCC profile-guided optimisation):
#   build-pgo-gen/  instrumented; compiles the example project and a generated model (another
#                   seed and size than the benchmarks' models) to record where the time goes
#   build-pgo/      built with those profiles: the binary to use
# It takes about twice as long as the plain Release build (build-rel/, scripts/run-example.sh).
# Compiles of generated models: about 15% fewer instructions at 1,000 services; see bench/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=${INMANTA_JOBS:-2}
# ccache hits across clones of the repository in different folders
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
profiles="$PWD/build-pgo-gen/pgo-profile"

cmake -S . -B build-pgo-gen -G Ninja -DCMAKE_BUILD_TYPE=Release -DINMANTA_PGO=GENERATE -DINMANTA_PGO_DIR="$profiles"
cmake --build build-pgo-gen -j "$jobs" --target inmanta
rm -rf "$profiles"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/inmanta-pgo.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
cp -r examples/quickstart "$tmp/quickstart"
build-pgo-gen/inmanta compile --project "$tmp/quickstart" >/dev/null
build-pgo-gen/inmanta export -j "$tmp/quickstart.json" --project "$tmp/quickstart" >/dev/null
python3 bench/gen_model.py --services 2000 --seed 7 --out "$tmp/model" >/dev/null
build-pgo-gen/inmanta compile --project "$tmp/model" >/dev/null
build-pgo-gen/inmanta export -j "$tmp/model.json" --project "$tmp/model" >/dev/null

cmake -S . -B build-pgo -G Ninja -DCMAKE_BUILD_TYPE=Release -DINMANTA_PGO=USE -DINMANTA_PGO_DIR="$profiles"
cmake --build build-pgo -j "$jobs" --target inmanta
echo "build-pgo/inmanta: built with the profiles in $profiles"
