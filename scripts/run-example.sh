#!/usr/bin/env bash
# Installs what is needed, builds inmanta (Release, in build-rel/: the test suite's build/ keeps its
# own build type) and runs the main job that exists so far on examples/quickstart: compile the
# model, then write its resources as JSON (`export -j`). The embedded `inmanta deploy` comes with
# its own issue.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
cmake -S . -B build-rel -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build-rel -j "${INMANTA_JOBS:-2}" --target inmanta
cd examples/quickstart
../../build-rel/inmanta compile
out="${TMPDIR:-/tmp}/inmanta-quickstart-resources.json"
../../build-rel/inmanta export -j "$out"
echo "run-example: examples/quickstart compiled; its resources are in $out" >&2
