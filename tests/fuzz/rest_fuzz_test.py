#!/usr/bin/env python3
"""REST fuzzing of the real `inmanta server`: random methods, paths (the API's routes with random,
malformed and hostile segments, and paths of no route), headers (environment ids valid, malformed
and unknown; bogus tokens; gzip claims on plain bodies) and bodies (valid objects with random fields,
JSON that is not an object, truncated JSON, bytes, gzip of junk), from 8 threads on keep-alive
connections. Every answer must be a 2xx, 3xx or 4xx (never a 5xx, never a dropped connection), and
the server must still be alive and answering at the end.

Usage: rest_fuzz_test.py INMANTA [--requests N] [--seconds S] [--seed N] [--postgres]
"""
import argparse
import gzip
import http.client
import json
import os
import random
import string
import sys
import threading
import time
import uuid

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
from checks import check, finish  # noqa: E402
from live_server import LiveServer  # noqa: E402

ROUTES = [
    "/api/v2/health", "/api/v1/serverstatus",
    "/api/v1/project", "/api/v1/project/{id}", "/api/v2/project", "/api/v2/project/{id}",
    "/api/v1/environment", "/api/v1/environment/{id}", "/api/v2/environment", "/api/v2/environment/{id}",
    "/api/v2/actions/environment/halt", "/api/v2/actions/environment/resume", "/api/v2/decommission/{id}",
    "/api/v1/decommission/{id}",
    "/api/v1/environment_settings", "/api/v1/environment_settings/{setting}", "/api/v2/environment_settings",
    "/api/v2/environment_settings/{setting}", "/api/v2/protected_environment_settings",
    "/api/v1/file", "/api/v1/file/{hash}", "/api/v1/filediff",
    "/api/v2/reserve_version", "/api/v1/version", "/api/v1/version/{n}", "/api/v1/version/partial",
    "/api/v2/version/partial",
    "/api/v2/desiredstate", "/api/v2/desiredstate/{n}", "/api/v2/desiredstate/{n}/resource/{rid}",
    "/api/v2/desiredstate/{n}/promote", "/api/v2/desiredstate/diff/{n}/{n}",
    "/api/v2/resource", "/api/v2/resource/{rid}", "/api/v2/resource/{rid}/logs", "/api/v2/resource_actions",
    "/api/v1/deploy", "/api/v1/dryrun", "/api/v1/dryrun/{n}", "/api/v1/dryrun/{id}", "/api/v2/dryrun/{n}",
    "/api/v2/dryrun/{n}/{id}",
    "/api/v2/agents", "/api/v1/agent", "/api/v2/agent/{name}/{action}", "/api/v2/agents/{action}",
    "/api/v1/parameter", "/api/v1/parameter/{name}", "/api/v1/parameters", "/api/v2/facts",
    "/api/v2/resource/{rid}/facts", "/api/v1/environment_auth",
    "/api/v3/nothing", "/", "/api", "/api/v1/", "/api/v2/project/{id}/extra",
]
METHODS = ["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"]
FIELDS = ["name", "project_id", "id", "value", "version", "resources", "files", "content", "settings",
          "protected_by", "resource_state", "unknowns", "module_version_info", "version_info", "repository",
          "branch", "description", "icon", "agents", "agent_trigger_method", "push", "limit", "start",
          "file_id_1", "file_id_2", "source", "resource_id", "metadata", "environment_id", "client_types",
          "resource_sets", "tid", "x"]


def junk_text(rng, size=None):
    size = rng.randint(0, 40) if size is None else size
    alphabet = string.printable + "éß☃\x00\x7f[]=,/%"
    return "".join(rng.choice(alphabet) for _ in range(size))


def percent_encode(text):
    """Every byte of the UTF-8 text that is not an ASCII letter or digit as %XX."""
    return "".join(chr(b) if chr(b).isascii() and chr(b).isalnum() else f"%{b:02X}" for b in text.encode("utf-8"))


def segment(rng, kind, env):
    choice = rng.random()
    if kind == "id" and choice < 0.4:
        return env if rng.random() < 0.5 else str(uuid.uuid4())
    if kind == "n" and choice < 0.5:
        return str(rng.choice([0, 1, 2, -1, 99999999999999999999, 3]))
    if kind == "rid" and choice < 0.5:
        rid = rng.choice(["std::File[localhost,path=/tmp/x]", "std::Nope[x,y=z]", "a::b[c,d=e],v=3", "[[,,]]",
                          "std::File[localhost,path=/a]b]"])
        return percent_encode(rid)
    if kind == "hash" and choice < 0.4:
        return "".join(rng.choice("0123456789abcdef") for _ in range(40))
    if kind == "setting" and choice < 0.5:
        return rng.choice(["auto_deploy", "autostart_agent_repair_interval", "push_on_auto_deploy", "nope"])
    if kind == "action" and choice < 0.5:
        return rng.choice(["pause", "unpause", "keep_paused_on_resume", "unpause_on_resume", "explode"])
    if choice < 0.7:
        return percent_encode(junk_text(rng)) or "x"
    return "%" + rng.choice(["", "Z", "ZZ", "0", "2", "FF", "C3"])  # broken percent-escapes


def random_value(rng, depth=0):
    pick = rng.random()
    if depth > 2 or pick < 0.3:
        return rng.choice([None, True, False, 0, -1, 3.5, 10**30, "", junk_text(rng), str(uuid.uuid4())])
    if pick < 0.6:
        return [random_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    return {rng.choice(FIELDS): random_value(rng, depth + 1) for _ in range(rng.randint(0, 4))}


def random_body(rng):
    pick = rng.random()
    if pick < 0.15:
        return None
    if pick < 0.55:
        return json.dumps({rng.choice(FIELDS): random_value(rng) for _ in range(rng.randint(0, 5))}).encode()
    if pick < 0.7:
        return json.dumps(random_value(rng)).encode()
    if pick < 0.8:
        text = json.dumps({rng.choice(FIELDS): random_value(rng)})
        return text[: rng.randint(0, len(text))].encode()
    if pick < 0.9:
        return bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 200)))
    return gzip.compress(bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 100))))


def random_request(rng, env):
    route = rng.choice(ROUTES)
    path = route
    for kind in ("id", "n", "rid", "hash", "setting", "name", "action"):
        while "{" + kind + "}" in path:
            path = path.replace("{" + kind + "}", segment(rng, kind, env), 1)
    if rng.random() < 0.3:
        path += "?" + "&".join(f"{rng.choice(['limit', 'start', 'sort', 'filter.status', 'filter.agent', 'details', 'x', 'version', 'include_logs'])}="
                               f"{segment(rng, 'q', env)}" for _ in range(rng.randint(1, 3)))
    headers = {}
    pick = rng.random()
    if pick < 0.6:
        headers["X-Inmanta-tid"] = env
    elif pick < 0.75:
        headers["X-Inmanta-tid"] = rng.choice([str(uuid.uuid4()), "not-a-uuid", "", env.upper()])
    if rng.random() < 0.1:
        headers["Authorization"] = rng.choice(["Bearer x.y.z", "Bearer", "bearer a b", "Basic abc"])
    body = random_body(rng)
    if body is not None and rng.random() < 0.1:
        headers["Content-Encoding"] = "gzip"  # a claim the body may not honour
    if body is not None:
        headers["Content-Type"] = rng.choice(["application/json", "application/x-www-form-urlencoded", "text/plain"])
    return rng.choice(METHODS), path, headers, body


def worker(server, env, seed, deadline, budget, results, lock):
    rng = random.Random(seed)
    conn = server.connection(timeout=30)
    while time.time() < deadline:
        with lock:
            if results["sent"] >= budget:
                return
            results["sent"] += 1
        method, path, headers, body = random_request(rng, env)
        try:
            conn.request(method, path, body=body, headers=headers)
            reply = conn.getresponse()
            reply.read()
            status = reply.status
            if reply.getheader("Connection", "").lower() == "close":
                conn.close()
                conn = server.connection(timeout=30)
        except (OSError, http.client.HTTPException) as e:
            with lock:
                results["errors"].append(f"{method} {path}: {type(e).__name__}: {e}")
            conn.close()
            conn = server.connection(timeout=30)
            if server.process.poll() is not None:
                return
            continue
        with lock:
            results["done"] += 1
            if status >= 500:
                results["5xx"].append(f"{status} {method} {path} {headers} {body[:200] if body else b''!r}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("inmanta")
    parser.add_argument("--requests", type=int, default=50000)
    parser.add_argument("--seconds", type=float, default=600)
    parser.add_argument("--seed", type=int, default=20261128)
    parser.add_argument("--postgres", action="store_true")
    args = parser.parse_args()
    with LiveServer(args.inmanta, postgres=args.postgres) as server:
        env = server.make_environment()
        # some state for the fuzzer to hit: a stored version with a resource
        server.call("POST", "/api/v2/reserve_version", {}, tid=env)
        server.call("PUT", "/api/v1/version", {
            "version": 1, "module_version_info": {},
            "resources": [{"id": "std::File[localhost,path=/tmp/x],v=1", "requires": [], "path": "/tmp/x",
                           "purged": False, "send_event": False}]}, tid=env)
        results = {"sent": 0, "done": 0, "errors": [], "5xx": []}
        lock = threading.Lock()
        start = time.time()
        deadline = start + args.seconds
        threads = [threading.Thread(target=worker, args=(server, env, args.seed + i, deadline, args.requests, results, lock))
                   for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        elapsed = time.time() - start
        print(f"{results['done']} answers in {elapsed:.1f}s ({results['done'] / elapsed:.0f}/s), "
              f"{len(results['errors'])} transport errors, {len(results['5xx'])} 5xx")
        alive = server.process.poll() is None
        check("the server survives the fuzzing", alive, f"exit {server.process.returncode}\n{server.output()[-3000:]}")
        check(f"at least {args.requests} requests answered", results["done"] >= args.requests,
              f"{results['done']} in {elapsed:.0f}s")
        check("no 5xx answer", not results["5xx"], "\n".join(results["5xx"][:20]))
        check("no dropped connection", not results["errors"], "\n".join(results["errors"][:20]))
        if alive:
            status, _ = server.call("GET", "/api/v2/health")
            check("health after the fuzzing", status == 200, str(status))
            # the fuzzer may have deleted or cleared its environment; the server must still work
            try:
                server.make_environment("after-fuzzing", "after-fuzzing")
                created = ""
            except RuntimeError as e:
                created = str(e)
            check("a new project and environment after the fuzzing", not created, created)
    finish()


if __name__ == "__main__":
    main()
