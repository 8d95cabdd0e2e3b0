#!/bin/sh
# Export benchmark: a generated model of 10,000 resources (1,000 hosts x 10). Prints the median
# of 3 runs of `inmanta compile`, `inmanta export -j` and `inmanta export` to a local test server
# (tests/e2e/rest_test_server.py answering like the reference), and the export's cost beyond
# the compile.
#
#   bench/run_export.sh [INMANTA_BINARY]      (default build/inmanta)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
bin=$(realpath "${1:-$here/../build/inmanta}")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/inmanta-export-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
python3 "$here/gen_export_model.py" --hosts "${BENCH_HOSTS:-1000}" --out "$tmp/p"
python3 - "$bin" "$tmp/p" "$here/../tests/e2e" <<'PY'
import json, os, statistics, subprocess, sys, time, uuid
inmanta, proj, e2e = sys.argv[1:4]
sys.path.insert(0, e2e)
from rest_test_server import TestServer

def timed(args, env=None):
    runs = []
    for _ in range(3):
        start = time.monotonic()
        proc = subprocess.run([inmanta, *args], cwd=proj, capture_output=True, text=True, env=env)
        runs.append(time.monotonic() - start)
        if proc.returncode:
            sys.exit(f"{args} failed: {proc.stderr[-2000:]}")
    return statistics.median(runs)

def handler(rec):
    if rec.path == "/api/v2/reserve_version": return 200, {"data": 1}
    if rec.path == "/api/v1/file": return 200, {"files": rec.body["files"]}
    if rec.path == "/api/v2/version/partial": return 200, {"data": 1}
    return 200, None

compile_s = timed(["compile"])
json_s = timed(["export", "-j", os.path.join(proj, "out.json")])
count = len(json.load(open(os.path.join(proj, "out.json"))))
with TestServer(handler) as server:
    env = dict(os.environ, INMANTA_CONFIG_ENVIRONMENT=str(uuid.uuid4()),
               INMANTA_COMPILER_REST_TRANSPORT_HOST="127.0.0.1", INMANTA_COMPILER_REST_TRANSPORT_PORT=str(server.port))
    rest_s = timed(["export"], env)
    uploads = sum(1 for r in server.requests if r.path.startswith("/api/v1/file/"))
print(f"resources: {count}, file uploads per REST export: {uploads // 3}")
print(f"compile:           {compile_s:.3f} s")
print(f"export -j:         {json_s:.3f} s  (+{json_s - compile_s:.3f} s beyond the compile)")
print(f"export over REST:  {rest_s:.3f} s  (+{rest_s - compile_s:.3f} s beyond the compile)")
PY
