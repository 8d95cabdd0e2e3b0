#!/usr/bin/env python3
"""Our `inmanta export` into our `inmanta server` under load and under a crash (issue 30):

- 8 exporters at once into one environment all succeed, with distinct, increasing versions, every
  version complete;
- the server killed with SIGKILL in the middle of 20 concurrent exports and restarted on the same
  store: every version an exporter saw acknowledged ("Committed resources with version N", exit 0)
  is there with all its resources, nothing is half-stored, and the next export succeeds;
- file uploads answered 200 survive SIGKILL right after them;
- `export -d` releases, `--partial` adds to the released model's resource set, and `std::getfact`
  reads a fact set through the parameter API.

Usage: server_reliability_test.py INMANTA [--postgres]
"""
import base64
import concurrent.futures
import hashlib
import os
import re
import subprocess
import sys
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checks  # noqa: E402
from checks import check, finish  # noqa: E402
from live_server import LiveServer  # noqa: E402

INMANTA = os.path.abspath(sys.argv[1])
POSTGRES = "--postgres" in sys.argv[2:]
FILES = 40  # resources per version: enough that a version takes a moment to store
COMMITTED = re.compile(r"Committed resources with version (\d+)")


def model(tag, files=FILES):
    lines = ["import std", 'host = std::Host(name="localhost", os=std::linux)']
    for i in range(files):
        lines.append(f'std::ConfigFile(host=host, path="/tmp/inmanta-reliability/{i}.conf", content="{tag} {i}\\n")')
    return "\n".join(lines) + "\n"


def make_project(server, env, main):
    return checks.project({
        "main.cf": main,
        "project.yml": "name: reliability\nmodulepath: libs\ndownloadpath: libs\nrepo: []\n",
        ".inmanta": f"[config]\nenvironment = {env}\n\n[compiler_rest_transport]\nhost = 127.0.0.1\nport = {server.port}\n",
    }, "inmanta-reliability-")


def export(project, *args):
    env = {k: v for k, v in os.environ.items() if not k.startswith("INMANTA_")}
    env["HOME"] = project
    return subprocess.run([INMANTA, "-vv", "--config-dir", os.path.join(project, "none"), "export", *args], cwd=project,
                          capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL, env=env)


def committed_version(result):
    match = COMMITTED.search(result.stdout + result.stderr)
    return int(match.group(1)) if match and result.returncode == 0 else None


def version_rows(server, env, version):
    status, body = server.call("GET", f"/api/v1/version/{version}", tid=env)
    if status != 200:
        return status, None
    return status, body


def concurrent_exports(server):
    env = server.make_environment("concurrent", "concurrent")
    server.call("POST", "/api/v2/environment_settings/auto_deploy", {"value": False}, tid=env)
    projects = [make_project(server, env, model(f"exporter {i}")) for i in range(8)]
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        results = list(pool.map(export, projects))
    versions = [committed_version(r) for r in results]
    failed = [r.stderr[-500:] for r in results if r.returncode != 0]
    check("8 concurrent exports all succeed", not failed, "\n".join(failed))
    check("8 concurrent exports get distinct versions 1..8", sorted(v for v in versions if v) == list(range(1, 9)),
          str(versions))
    for version in (v for v in versions if v):
        status, body = version_rows(server, env, version)
        check(f"concurrent version {version} is complete", status == 200 and len(body["resources"]) == FILES,
              f"{status} {len(body['resources']) if body else None}")


def crash_during_exports(postgres):
    server = LiveServer(INMANTA, postgres=postgres).start()
    env = server.make_environment("crash", "crash")
    server.call("POST", "/api/v2/environment_settings/auto_deploy", {"value": False}, tid=env)
    projects = [make_project(server, env, model(f"crash {i}", files=200)) for i in range(20)]
    with concurrent.futures.ThreadPoolExecutor(20) as pool:
        futures = [pool.submit(export, p) for p in projects]
        # kill once a few versions are in, while the others are still on their way (a version
        # counted here may not have had its answer sent yet: its exporter then saw no
        # acknowledgement, and that version need not survive)
        deadline = time.time() + 60
        while time.time() < deadline:
            status, body = server.call("GET", "/api/v1/version", tid=env)
            if status == 200 and body["count"] >= 5:
                break
            time.sleep(0.01)
        server.kill()
        results = [f.result() for f in futures]
    acknowledged = sorted(v for v in (committed_version(r) for r in results) if v)
    failed = sum(r.returncode != 0 for r in results)
    print(f"acknowledged before the kill: {acknowledged}; {failed} exports failed")
    check("some exports were acknowledged before the kill, and the kill cut others off",
          len(acknowledged) >= 1 and failed >= 1, f"{acknowledged}, {failed} failed")
    restarted = LiveServer(INMANTA, postgres=postgres, state_dir=server.state_dir, port=server.port,
                           database=server.database).start()
    try:
        status, listing = restarted.call("GET", "/api/v1/version?start=0&limit=1000", tid=env)
        stored = sorted(v["version"] for v in listing["versions"]) if status == 200 else []
        missing = [v for v in acknowledged if v not in stored]
        check("every acknowledged version survives SIGKILL", status == 200 and not missing,
              f"missing {missing}, stored {stored}")
        for version in stored:
            status, body = version_rows(restarted, env, version)
            check(f"stored version {version} is whole after the crash",
                  status == 200 and len(body["resources"]) == 200 and body["model"]["total"] == 200,
                  f"{status} {len(body['resources']) if body else None}")
        result = export(projects[0])
        check("an export after the restart succeeds", committed_version(result) is not None, result.stderr[-800:])
    finally:
        restarted.stop()


def uploads_survive_kill(postgres):
    """File uploads answered 200 are kept through a SIGKILL right after (on SQLite they wait in the
    store's upload log until a version or thousands of uploads come; the next start moves them)."""
    server = LiveServer(INMANTA, postgres=postgres).start()
    contents = [f"upload {i}\n".encode() for i in range(300)] + [bytes(range(256)) * 4, b""]
    hashes, refused = [], []
    for content in contents:
        digest = hashlib.sha1(content).hexdigest()
        status, body = server.call("PUT", f"/api/v1/file/{digest}", {"content": base64.b64encode(content).decode()})
        if status != 200:
            refused.append(f"{status} {body}")
        hashes.append(digest)
    check("every upload is answered 200", not refused, str(refused[:3]))
    server.kill()
    if not postgres:
        logs = [os.path.join(d, f) for d, _, files in os.walk(server.state_dir) for f in files if f.endswith("-uploads")]
        check("the killed server's uploads are in its upload log", len(logs) == 1 and os.path.getsize(logs[0]) > 0,
              str(logs))
    restarted = LiveServer(INMANTA, postgres=postgres, state_dir=server.state_dir, port=server.port,
                           database=server.database).start()
    try:
        status, body = restarted.call("POST", "/api/v1/file", {"files": hashes + ["0" * 40]})
        check("after SIGKILL and a restart, only the never-uploaded hash is missing",
              status == 200 and body["files"] == ["0" * 40], f"{status} {str(body)[:300]}")
        wrong = []
        for digest, content in zip(hashes, contents):
            status, body = restarted.call("GET", f"/api/v1/file/{digest}")
            if status != 200 or base64.b64decode(body["content"]) != content:
                wrong.append(digest)
        check("every acknowledged upload reads back byte for byte after SIGKILL", not wrong, str(wrong[:5]))
    finally:
        restarted.stop()


def release_partial_and_facts(server):
    env = server.make_environment("flows", "flows")
    server.call("POST", "/api/v2/environment_settings/auto_deploy", {"value": False}, tid=env)
    project = make_project(server, env, model("full", files=3))
    result = export(project, "-d")
    version = committed_version(result)
    check("export -d succeeds", version is not None, result.stderr[-800:])
    status, body = server.call("GET", f"/api/v1/version/{version}", tid=env)
    check("export -d released the version", status == 200 and body["model"]["released"], f"{status}")

    partial = checks.project({
        "main.cf": 'import std\nhost = std::Host(name="localhost", os=std::linux)\n'
                   'f = std::ConfigFile(host=host, path="/tmp/inmanta-reliability/extra.conf", content="x")\n'
                   'std::ResourceSet(name="extra", resources=[f])\n',
        "project.yml": "name: partial\nmodulepath: libs\ndownloadpath: libs\nrepo: []\n",
        ".inmanta": f"[config]\nenvironment = {env}\n\n[compiler_rest_transport]\nhost = 127.0.0.1\nport = {server.port}\n",
    }, "inmanta-reliability-")
    result = export(partial, "--partial")
    pversion = committed_version(result)
    check("export --partial succeeds", pversion is not None and pversion > version, result.stdout[-400:] + result.stderr[-800:])
    if pversion:
        status, body = server.call("GET", f"/api/v1/version/{pversion}", tid=env)
        ids = {r["resource_id"] for r in body["resources"]} if status == 200 else set()
        check("the partial version holds the base's resources and the new set", len(ids) == 4, str(sorted(ids)))

    rid = "std::File[localhost,path=/tmp/inmanta-reliability/0.conf]"
    status, body = server.call("PUT", "/api/v1/parameter/size", {"value": "42", "source": "fact", "resource_id": rid},
                               tid=env)
    check("a fact is stored", status == 200, f"{status} {body}")
    status, body = server.call("GET", "/api/v1/parameter/size?resource_id=" + urllib.parse.quote(rid, safe=""), tid=env)
    check("the fact reads back", status == 200 and body["parameter"]["value"] == "42", f"{status} {body}")
    facts = make_project(server, env, 'import std\nhost = std::Host(name="localhost", os=std::linux)\n'
                         'f = std::ConfigFile(host=host, path="/tmp/inmanta-reliability/0.conf", content="x")\n'
                         'std::print(std::getfact(f, "size"))\n')
    env_vars = {k: v for k, v in os.environ.items() if not k.startswith("INMANTA_")}
    env_vars["HOME"] = facts
    result = subprocess.run([INMANTA, "--config-dir", os.path.join(facts, "none"), "compile"], cwd=facts,
                            capture_output=True, text=True, timeout=120, env=env_vars)
    check("std::getfact reads the fact from the server", result.returncode == 0 and "42" in result.stdout,
          result.stdout[-400:] + result.stderr[-800:])


def main():
    with LiveServer(INMANTA, postgres=POSTGRES) as server:
        concurrent_exports(server)
        release_partial_and_facts(server)
    crash_during_exports(POSTGRES)
    uploads_survive_kill(POSTGRES)
    finish()


if __name__ == "__main__":
    main()
