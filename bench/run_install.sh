#!/usr/bin/env bash
# Install time of an N-module project (a chain of imports and requires, 3 tags each) from local
# bare git repositories: the median of 5 fresh installs, then a re-run with everything installed.
# Usage: bench/run_install.sh [build/inmanta] [N=20]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
inmanta=$(realpath "${1:-$here/../build/inmanta}")
python3 "$here/../tests/e2e/project_test.py" "$inmanta" --modules "${2:-20}" | grep -E '^TIME|modules'
