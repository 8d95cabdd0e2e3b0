#!/usr/bin/env bash
# Installs what is needed, builds the two trees and runs the whole test suite in each:
#   build/       RelWithDebInfo, every suite (unit, conformance, e2e, diagnostics, fuzz, layering)
#   build-asan/  AddressSanitizer + UndefinedBehaviorSanitizer, every suite too
# Exits non-zero when anything fails. ctest's summary is the last thing printed.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
jobs=${INMANTA_JOBS:-2}
# ccache hits across clones of the repository in different folders
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DINMANTA_BUILD_TESTS=ON -DINMANTA_WERROR=ON \
  -DINMANTA_BUILD_BENCH=ON
cmake --build build -j "$jobs"
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DINMANTA_BUILD_TESTS=ON -DINMANTA_WERROR=ON \
  -DINMANTA_SANITIZE=address,undefined
cmake --build build-asan -j "$jobs"

status=0
(cd build-asan && ctest -j "$jobs" --output-on-failure) || status=1
(cd build && ctest -j "$jobs" --output-on-failure) || status=1
exit $status
