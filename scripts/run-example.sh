#!/usr/bin/env bash
# Installs what is needed, builds inmanta (Release) and runs the main job on examples/quickstart.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build -j "${INMANTA_JOBS:-2}" --target inmanta
cd examples/quickstart
set +e
../../build/inmanta compile
status=$?
set -e
if [ $status -eq 3 ]; then
  # The model parsed; semantic analysis arrives with issue #5 and `inmanta deploy` after it.
  echo "run-example: examples/quickstart parsed without errors (semantics come with issue #5)" >&2
  exit 0
fi
exit $status
