#!/usr/bin/env bash
# Installs what is needed, builds inmanta (Release, in build-rel/: the test suite's build/ keeps its
# own build type) and runs the main job on examples/quickstart: `inmanta deploy` compiles the
# model, stores and exports it to the REST server it runs in its own process, deploys it — a small
# web site's folders and files under /tmp/inmanta-quickstart, the only place the example writes —
# and prints the report. Running it again deploys a new version with 0 changes. The deploy's
# history is in examples/quickstart/data/deploy.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
cmake -S . -B build-rel -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build-rel -j "${INMANTA_JOBS:-2}" --target inmanta
cd examples/quickstart
../../build-rel/inmanta deploy
