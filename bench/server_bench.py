#!/usr/bin/env python3
"""Benchmarks of `inmanta server` (issue 30), on SQLite and, when a PostgreSQL is given, on it too:

  start      from exec to the first answer of GET /api/v2/health (ms)
  idle_rss   resident memory of the idle server after start-up and one environment (MB)
  put_10k    PUT /api/v1/version of 10,000 resources, over HTTP, including the store's commit (s)
  resource   GET /api/v2/resource on that released 10,000-resource environment, one client (p50/p99 ms)
  status     GET /api/v1/serverstatus with 8 keep-alive clients (requests/s)

Each figure is the median of --runs runs (a fresh server and state dir per run).

Usage: server_bench.py INMANTA REST_LOAD [--runs N] [--postgres CONNINFO]
  CONNINFO: libpq words of a running cluster, e.g. "host=127.0.0.1 port=5433 user=postgres"
  (tests/support/pg_cluster.py start DIR starts one and prints them)
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "e2e"))
from live_server import LiveServer  # noqa: E402

TARGETS = {"sqlite": {"put_10k": 0.3}, "postgresql": {"put_10k": 0.5},
           "all": {"start": 100, "idle_rss": 30, "resource_p50": 2, "resource_p99": 10, "status": 5000}}


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as fd:
        for line in fd:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def version_body(n):
    resources = []
    for i in range(n):
        resources.append({
            "id": f"std::File[localhost,path=/srv/bench/{i}.conf],v=1",
            "requires": [] if i == 0 else [f"std::File[localhost,path=/srv/bench/{i - 1}.conf]"],
            "path": f"/srv/bench/{i}.conf", "owner": "root", "group": "root", "permissions": 644,
            "hash": f"{i:040x}", "reload": False, "purged": False, "purge_on_delete": False,
            "send_event": True, "receive_events": True, "references": [], "mutators": [], "report_only": False})
    return {"version": 1, "resources": resources, "module_version_info": {},
            "resource_state": {}, "unknowns": [], "version_info": {}}


def one_run(inmanta, rest_load, postgres):
    figures = {}
    server = LiveServer(inmanta, postgres=postgres is not None)
    server.config_text()  # makes the PostgreSQL database first: not part of the server's start
    started = time.perf_counter()
    server.start(wait=False)
    server.wait_ready(poll=0.002)
    figures["start"] = (time.perf_counter() - started) * 1000
    try:
        env = server.make_environment("bench", "bench")
        server.call("POST", "/api/v2/environment_settings/auto_deploy", {"value": False}, tid=env)
        time.sleep(0.5)
        figures["idle_rss"] = rss_mb(server.process.pid)

        body = json.dumps(version_body(10000)).encode()
        server.call("POST", "/api/v2/reserve_version", {}, tid=env)
        conn = server.connection(timeout=120)
        begin = time.perf_counter()
        status, answer = server.call("PUT", "/api/v1/version", raw=body, tid=env,
                                     headers={"Content-Type": "application/json"}, connection=conn)
        figures["put_10k"] = time.perf_counter() - begin
        conn.close()
        if status != 200:
            raise RuntimeError(f"PUT /api/v1/version: {status} {answer}")
        status, answer = server.call("POST", "/api/v1/version/1", {}, tid=env)
        if status != 200:
            raise RuntimeError(f"release: {status} {answer}")

        load = subprocess.run([rest_load, "127.0.0.1", str(server.port), "/api/v2/resource", "--threads", "1",
                               "--count", "300", "--header", f"X-Inmanta-tid:{env}"],
                              capture_output=True, text=True, timeout=300)
        resource = json.loads(load.stdout)
        figures["resource_p50"], figures["resource_p99"] = resource["p50_ms"], resource["p99_ms"]
        load = subprocess.run([rest_load, "127.0.0.1", str(server.port), "/api/v1/serverstatus", "--threads", "8",
                               "--seconds", "3"], capture_output=True, text=True, timeout=300)
        figures["status"] = json.loads(load.stdout)["per_second"]
    finally:
        server.stop()
    return figures


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("inmanta")
    parser.add_argument("rest_load")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--postgres", help="libpq key=value words of a running PostgreSQL")
    args = parser.parse_args()
    engines = [("sqlite", None)]
    if args.postgres:
        os.environ["INMANTA_TEST_PG"] = args.postgres
        engines.append(("postgresql", args.postgres))
    for engine, pg in engines:
        runs = [one_run(args.inmanta, args.rest_load, pg) for _ in range(args.runs)]
        print(f"{engine} ({args.runs} runs, medians):")
        for key in runs[0]:
            median = statistics.median(r[key] for r in runs)
            target = TARGETS[engine].get(key, TARGETS["all"].get(key))
            if key == "resource_p50" or key == "resource_p99":
                target = TARGETS["all"][key]
            unit = {"start": "ms", "idle_rss": "MB", "put_10k": "s", "status": "req/s"}.get(key, "ms")
            ok = median >= target if key == "status" else median <= target
            print(f"  {key:14} {median:10.3f} {unit:6} target {'>=' if key == 'status' else '<='} {target}"
                  f"  {'ok' if ok else 'MISSED'}   runs: {', '.join(f'{r[key]:.3f}' for r in runs)}")


if __name__ == "__main__":
    main()
