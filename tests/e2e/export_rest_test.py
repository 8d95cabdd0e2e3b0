#!/usr/bin/env python3
"""End-to-end tests of `inmanta export` over REST (export spec 3, 4; scenarios E-20..E-31).

The real binary talks to rest_test_server.TestServer on 127.0.0.1. The first part replays
../shared/spec/fixtures/export-exchange.json: every request is checked against the recorded
reference request (method, path, headers, body keys and values) and answered with the recorded
reply. Decision X3: we upload no handler code, so the recorded code-upload calls are not expected.
"""
import base64
import hashlib
import json
import os
import socket
import subprocess
import sys
import tempfile
import urllib.parse
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rest_test_server import TestServer  # noqa: E402

from checks import check, finish  # noqa: E402
import checks  # noqa: E402

INMANTA = os.path.abspath(sys.argv[1])
FIXTURE = sys.argv[2]


def project(files):
    return checks.project(files, "inmanta-rest-e2e-")


def run(d, args, env=None, command="export"):
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("INMANTA_")}
    full_env["HOME"] = d  # no ~/.inmanta.cfg of the machine
    full_env.update(env or {})
    return subprocess.run([INMANTA, "--config-dir", os.path.join(d, "no-config-dir"), command, *args], cwd=d,
                          capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL, env=full_env)


def norm_resources(resources):
    return {r["id"]: dict(r, requires=sorted(r["requires"])) for r in resources}


# ----------------------------------------------------------------- replay of the recorded exchange
with open(FIXTURE, encoding="utf-8") as fd:
    fixture = json.load(fd)
ENV = str(uuid.uuid4())
for scenario in fixture["scenarios"]:
    if scenario["name"] == "setup":
        continue
    env_placeholder = "<env-manual-id>" if "manual" in scenario["name"] else "<env-id>"
    exchanges = scenario["exchanges"]
    put = next(e for e in exchanges if e["path"] == "/api/v1/version")
    code_hashes = {f["hash_value"] for m in put["request"]["body"]["module_version_info"].values()
                   for f in m["files_in_module"]}
    expected = [e for e in exchanges
                if not (e["path"] == "/api/v1/file" and set(e["request"]["body"]["files"]) & code_hashes)
                and not (e["path"].startswith("/api/v1/file/") and e["path"].rsplit("/", 1)[1] in code_hashes)]

    def fill(obj):
        text = json.dumps(obj).replace(env_placeholder, ENV).replace("<hostname>", "h")
        return json.loads(text)

    position = [0]

    def replay(rec):
        i = position[0]
        position[0] += 1
        if i >= len(expected):
            raise AssertionError(f"unexpected extra request {rec}")
        exp = expected[i]
        if (rec.method, rec.path) != (exp["method"], exp["path"]):
            raise AssertionError(f"request {i}: {rec} instead of {exp['method']} {exp['path']}")
        hdr = {k.lower(): v for k, v in exp["request"]["headers"].items()}
        if ("x-inmanta-tid" in hdr) != ("x-inmanta-tid" in rec.headers):
            raise AssertionError(f"{rec}: X-Inmanta-tid presence differs from the reference")
        if "x-inmanta-tid" in hdr and rec.headers["x-inmanta-tid"] != ENV:
            raise AssertionError(f"{rec}: X-Inmanta-tid {rec.headers['x-inmanta-tid']}")
        if rec.gzipped != (rec.raw_size >= 1024):
            raise AssertionError(f"{rec}: gzip {rec.gzipped} for a body of {rec.raw_size} bytes")
        body = fill(exp["request"].get("body"))
        if isinstance(body, dict):
            if not isinstance(rec.body, dict) or set(rec.body) != set(body):
                raise AssertionError(f"{rec}: body keys {sorted(rec.body or {})} != {sorted(body)}")
            if rec.path == "/api/v1/file":
                if set(rec.body["files"]) != set(body["files"]):
                    raise AssertionError(f"{rec}: files {rec.body['files']}")
            elif rec.path == "/api/v1/version":
                for key in ("version", "resource_sets", "unknowns", "resource_state", "project_constraints",
                            "pip_config"):
                    if rec.body[key] != body[key]:
                        raise AssertionError(f"{rec}: {key} {rec.body[key]!r} != {body[key]!r}")
                if norm_resources(rec.body["resources"]) != norm_resources(body["resources"]):
                    raise AssertionError(f"{rec}: resources differ: {rec.body['resources']}")
                meta = rec.body["version_info"]["export_metadata"]
                if {k: meta[k] for k in ("message", "type", "inmanta:compile:state")} != \
                        {k: body["version_info"]["export_metadata"][k] for k in
                         ("message", "type", "inmanta:compile:state")}:
                    raise AssertionError(f"{rec}: export_metadata {meta}")
                if set(rec.body["module_version_info"]) != {"std"} or \
                        rec.body["module_version_info"]["std"]["for_agents"] != ["localhost"]:
                    raise AssertionError(f"{rec}: module_version_info {rec.body['module_version_info']}")
            elif rec.path.startswith("/api/v1/file/"):
                if hashlib.sha1(base64.b64decode(rec.body["content"])).hexdigest() != rec.body["id"]:
                    raise AssertionError(f"{rec}: content does not match its hash")
            elif rec.body != body:
                raise AssertionError(f"{rec}: body {rec.body} != {body}")
        resp = exp["response"]
        return resp["status"], fill(resp.get("body"))

    with TestServer(replay) as server:
        main = fixture["project"]["main.cf"]
        if env_placeholder == "<env-id>":
            main = main.replace("/tmp/refdeploy/manual", "/tmp/refdeploy/dev")
        d = project({"main.cf": main, "project.yml": fixture["project"]["project.yml"],
                     ".inmanta": f"[config]\nenvironment = {ENV}\n\n[compiler_rest_transport]\nhost = 127.0.0.1\n"
                                 f"port = {server.port}\n"})
        args = scenario["command"].split()[2:]
        proc = run(d, args)
        check(f"replay {scenario['name']}: exit 0", proc.returncode == 0, proc.stderr)
        check(f"replay {scenario['name']}: every request as recorded",
              not server.errors and position[0] == len(expected),
              f"{server.errors} after {position[0]}/{len(expected)}: {server.requests}")
        if scenario["name"] == "export-d-auto":
            # the server's auto_deploy released the version already: nothing to warn about
            check("replay 409 already released is no warning", "was not released" not in proc.stderr
                  and "409" not in proc.stderr and "= SUCCESS =" in proc.stderr, proc.stderr)


# ----------------------------------------------------------------- scenarios with a scripted server
ALREADY_RELEASED = "Request conflicts with the current state of the resource: The version 7 on environment e is " \
                   "already released."


def scripted(version=7, missing=None, put_status=200, release_status=200, reserve_status=200, status_for=None,
             facts=None, listed_facts=(), release_message=ALREADY_RELEASED):
    """A server answering like the reference; `missing`: the hashes it lacks (None: all); `facts`:
    {(resource id, name): value} it answers one by one; `listed_facts`: those in the list call."""
    def handler(rec):
        if rec.path == "/api/v1/parameter" and rec.method == "POST":
            assert rec.body == {}, rec.body
            return 200, {"parameters": [{"resource_id": r, "name": n, "value": v} for (r, n), v in (facts or {}).items()
                                        if (r, n) in listed_facts]}
        if rec.path == "/api/v1/environment_auth":
            assert rec.body == {"client_types": ["agent"], "idempotent": True}, rec.body
            return 200, {"token": "agent-token"}
        if rec.path.startswith("/api/v1/parameter/") and rec.method == "GET":
            name, query = urllib.parse.unquote(rec.path[len("/api/v1/parameter/"):].split("?")[0]), \
                urllib.parse.parse_qs(urllib.parse.urlsplit(rec.path).query)
            key = (query["resource_id"][0], name)
            if key in (facts or {}):
                return 200, {"parameter": {"value": facts[key], "name": name, "resource_id": key[0]}}
            return 404, {"message": f"Request or referenced resource does not exist: parameter {name} not found"}
        if status_for and rec.path in status_for:
            return status_for[rec.path], {"message": f"refused {rec.path}"}
        if rec.path == "/api/v2/reserve_version":
            return reserve_status, {"data": version} if reserve_status == 200 else {"message": "no"}
        if rec.path == "/api/v2/protected_environment_settings":
            return 200, None
        if rec.path == "/api/v1/file":
            return 200, {"files": rec.body["files"] if missing is None else missing}
        if rec.path.startswith("/api/v1/file/"):
            assert hashlib.sha1(base64.b64decode(rec.body["content"])).hexdigest() == rec.body["id"]
            return 200, None
        if rec.path == "/api/v1/version":
            return put_status, None if put_status == 200 else {"message": "m"}
        if rec.path == "/api/v2/version/partial":
            return 200, {"data": 12}
        if rec.path.startswith("/api/v1/version/"):
            return release_status, {"model": {}} if release_status == 200 else {"message": release_message}
        raise AssertionError(f"unexpected {rec}")
    return handler


MODEL = """import std::testing
h1 = std::Host(name="h1", os=std::linux)
std::ConfigFile(host=h1, path="/etc/a", content="hello\\n")
std::ConfigFile(host=h1, path="/etc/b", content=std::get_env("INMANTA_E2E_SURELY_UNSET"))
n1 = std::testing::NullResource(name="n1")
n2 = std::testing::NullResource(name="n2")
n3 = std::testing::NullResource(name="n3", managed=false)
std::ResourceSet(name="set-a", resources=[n1])
std::ResourceSet(name="set-b", resources=[n2])
std::ResourceSet(name="set-gone", resources=[n3])
"""
TOKEN = "tok-123"


def model_project(port, extra_inmanta="", project_yml="name: e2e\nmodulepath: libs\n", main=MODEL):
    return project({"main.cf": main, "project.yml": project_yml,
                    ".inmanta": f"[config]\nenvironment = {ENV}\n[compiler_rest_transport]\nhost = 127.0.0.1\n"
                                f"port = {port}\ntoken = {TOKEN}\n{extra_inmanta}"})


def paths(server):
    return [f"{r.method} {r.path}" for r in server.requests]


# E-20 full export
with TestServer(scripted()) as server:
    d = model_project(server.port)
    proc = run(d, [])
    check("E-20 exit", proc.returncode == 0 and "= SUCCESS =" in proc.stderr, proc.stderr)
    check("E-20 sequence", paths(server) == [
        "POST /api/v2/reserve_version", "POST /api/v2/protected_environment_settings", "POST /api/v1/file",
        "PUT /api/v1/file/f572d396fae9206628714fb2ce00f72e94f2258f", "PUT /api/v1/version"], paths(server))
    check("E-20 bearer everywhere", all(r.headers.get("authorization") == f"Bearer {TOKEN}" for r in server.requests),
          [r.headers for r in server.requests])
    check("E-20 tid on 1, 2, 7", [("x-inmanta-tid" in r.headers) for r in server.requests] ==
          [True, True, False, False, True], [r.headers for r in server.requests])
    put = server.requests[-1].body if server.requests else {}
    check("E-20 version", put.get("version") == 7, put.get("version"))
    check("E-20 ids v=0", all(r["id"].endswith(",v=0") for r in put.get("resources", [])), put.get("resources"))
    check("E-20 undefined state", put.get("resource_state", {}).get("std::File[h1,path=/etc/b]") == "undefined"
          and put.get("resource_state", {}).get("std::File[h1,path=/etc/a]") == "available", put.get("resource_state"))
    check("E-20 resource sets", put.get("resource_sets") == {
        "std::testing::NullResource[internal,name=n1]": "set-a",
        "std::testing::NullResource[internal,name=n2]": "set-b"}, put.get("resource_sets"))
    check("E-20 metadata", put.get("version_info", {}).get("export_metadata", {}).get("inmanta:compile:state") ==
          "success", put.get("version_info"))

# E-21 release
for flags, method in ((["-d"], "push_incremental_deploy"), (["-d", "--full"], "push_full_deploy")):
    with TestServer(scripted(version=9)) as server:
        proc = run(model_project(server.port), flags)
        last = server.requests[-1] if server.requests else None
        check(f"E-21 release {method}", proc.returncode == 0 and last is not None and last.path == "/api/v1/version/9"
              and last.body == {"id": 9, "push": True, "agent_trigger_method": method}
              and "x-inmanta-tid" in last.headers, f"{paths(server)} {last and last.body} {proc.stderr}")

# E-22 partial
with TestServer(scripted()) as server:
    proc = run(model_project(server.port), ["--partial", "--delete-resource-set", "old", "-d"])
    put = next((r for r in server.requests if r.path == "/api/v2/version/partial"), None)
    check("E-22 no reserve", proc.returncode == 0 and "POST /api/v2/reserve_version" not in paths(server),
          f"{paths(server)} {proc.stderr}")
    check("E-22 partial body", put is not None and {"old", "set-gone"} <= set(put.body["removed_resource_sets"])
          and "set-a" not in put.body["removed_resource_sets"] and put.body["allow_handler_code_update"] is False
          and "version" not in put.body and "project_constraints" not in put.body, put and put.body)
    check("E-22 release uses the reply", paths(server)[-1:] == ["POST /api/v1/version/12"], paths(server))

with TestServer(scripted()) as server:
    proc = run(model_project(server.port), ["--partial", "--delete-resource-set", "set-a", "--delete-resource-set",
                                            "old", "--soft-delete"])
    put = next((r for r in server.requests if r.path == "/api/v2/version/partial"), None)
    check("E-22 --soft-delete keeps sets with resources", put is not None
          and sorted(put.body["removed_resource_sets"]) == ["old", "set-gone"], put and put.body)

# E-23 deleted sets without --partial
with TestServer(scripted()) as server:
    proc = run(model_project(server.port), [], env={"INMANTA_REMOVED_RESOURCE_SET_ID": "x"})
    check("E-23 refused", proc.returncode == 1 and "A full export was requested" in proc.stderr and not server.requests,
          proc.stderr)

# E-24 metadata
with TestServer(scripted()) as server:
    proc = run(model_project(server.port), ["--metadata", '{"message":"hi","type":"api"}'], env={"USERNAME": "alice"})
    meta = server.requests[-1].body["version_info"]["export_metadata"] if server.requests else {}
    check("E-24 json metadata", meta.get("message") == "hi" and meta.get("type") == "api"
          and meta.get("cli-user") == "alice" and "hostname" in meta and meta.get("inmanta:compile:state") == "success",
          meta)
with TestServer(scripted()) as server:
    proc = run(model_project(server.port), ["--metadata", "not json"])
    meta = server.requests[-1].body["version_info"]["export_metadata"] if server.requests else {}
    check("E-24 text metadata", meta.get("message") == "not json" and meta.get("type") == "manual", meta)
with TestServer(scripted()) as server:
    proc = run(model_project(server.port), ["-m", "x"])
    meta = server.requests[-1].body["version_info"]["export_metadata"] if server.requests else {}
    check("E-24/X5 -m is the message", meta.get("message") == "x", meta)

# E-25 precedence (X4): .inmanta < .inmanta.cfg < -c FILE < INMANTA_* < flags
with TestServer(scripted()) as server:
    d = model_project(server.port)
    envs = [str(uuid.uuid4()) for _ in range(4)]
    with open(os.path.join(d, ".inmanta.cfg"), "w") as fd:
        fd.write(f"[config]\nenvironment = {envs[0]}\n")
    with open(os.path.join(d, "extra.cfg"), "w") as fd:
        fd.write(f"[config]\nenvironment = {envs[1]}\n[compiler_rest_transport]\ntoken = from-file\n")

    def tid_and_token(args, env=None):
        server.requests.clear()
        run(d, args, env)
        first = server.requests[0] if server.requests else None
        return (first.headers.get("x-inmanta-tid"), first.headers.get("authorization")) if first else None

    check("E-25 .inmanta.cfg over .inmanta", tid_and_token([]) == (envs[0], f"Bearer {TOKEN}"), tid_and_token([]))
    proc = subprocess.run([INMANTA, "-c", "extra.cfg", "export"], cwd=d, capture_output=True, text=True,
                          env={"PATH": os.environ["PATH"], "HOME": d})
    first = server.requests[-5] if len(server.requests) >= 5 else None
    check("E-25 -c over files", first is not None and first.headers.get("x-inmanta-tid") == envs[1]
          and first.headers.get("authorization") == "Bearer from-file", proc.stderr)
    got = tid_and_token([], {"INMANTA_CONFIG_ENVIRONMENT": envs[2], "INMANTA_COMPILER_REST_TRANSPORT_TOKEN": "env"})
    check("E-25 INMANTA_* over files", got == (envs[2], "Bearer env"), got)
    got = tid_and_token(["-e", envs[3], "--token", "flag"],
                        {"INMANTA_CONFIG_ENVIRONMENT": envs[2], "INMANTA_COMPILER_REST_TRANSPORT_TOKEN": "env"})
    check("E-25 flags over INMANTA_* (X4)", got == (envs[3], "Bearer flag"), got)

# E-26 no environment / bad uuid
with TestServer(scripted()) as server:
    d = project({"main.cf": MODEL, "project.yml": "name: e2e\n",
                 ".inmanta": f"[compiler_rest_transport]\nport = {server.port}\n"})
    proc = run(d, [])
    check("E-26 no environment", proc.returncode == 1 and "Error: The environment for this model should be set!"
          in proc.stderr and not server.requests, proc.stderr)
    proc = run(d, ["-e", "nope"])
    check("E-26 bad uuid", proc.returncode == 1 and "badly formed hexadecimal UUID string" in proc.stderr
          and not server.requests, proc.stderr)

# E-27 nothing listening
with TestServer(scripted()) as server:
    port = server.port
proc = run(model_project(port), [])
check("E-27 unreachable", proc.returncode == 1 and "Error: Unable to reserve version number from server" in proc.stderr
      and f"127.0.0.1:{port}" in proc.stderr, proc.stderr)

# E-28 put_version 400, release 409
with TestServer(scripted(put_status=400)) as server:
    proc = run(model_project(server.port), ["-d"])
    check("E-28 put refused", proc.returncode == 1 and "Error: Failed to commit resource updates (" in proc.stderr
          and ": m" in proc.stderr and "EXPORT FAILURE" in proc.stderr
          and not any(r.path.startswith("/api/v1/version/") for r in server.requests), proc.stderr)
with TestServer(scripted(release_status=409)) as server:
    proc = run(model_project(server.port), ["-d"])
    check("E-28 release 409 already released is quiet", proc.returncode == 0 and "= SUCCESS =" in proc.stderr
          and "released" not in proc.stderr and "409" not in proc.stderr, proc.stderr)
with TestServer(scripted(release_status=409)) as server:
    proc = run(model_project(server.port), ["-d", "-v"])
    check("E-28 release 409 already released is an info line at -v", proc.returncode == 0 and "was not released"
          not in proc.stderr and "INFO    Version 7 was already released by the server" in proc.stderr, proc.stderr)
older = "Request conflicts with the current state of the resource: The version 7 on environment e is older then " \
        "the latest released version 9."
with TestServer(scripted(release_status=409, release_message=older)) as server:
    proc = run(model_project(server.port), ["-d"])
    check("E-28 release 409 of an older version is a warning", proc.returncode == 0 and "WARNING" in proc.stderr
          and "Version 7 was not released: " in proc.stderr and "older then" in proc.stderr, proc.stderr)

# 401 / 403 with the server's message
with TestServer(scripted(status_for={"/api/v2/reserve_version": 401})) as server:
    proc = run(model_project(server.port), [])
    check("401 names the token", proc.returncode == 1 and "HTTP 401" in proc.stderr and "token" in proc.stderr
          and "refused /api/v2/reserve_version" in proc.stderr, proc.stderr)

# an older server that does not know pip_config: the same call again without it (3.5)
old_server = scripted()


def old_handler(rec):
    if rec.path == "/api/v1/version" and "pip_config" in rec.body:
        return 400, {"message": "Invalid request: request contains fields {'pip_config'} that are not declared"}
    return old_server(rec)


with TestServer(old_handler) as server:
    proc = run(model_project(server.port), [])
    puts = [r.body for r in server.requests if r.path == "/api/v1/version"]
    check("pip_config retry", proc.returncode == 0 and len(puts) == 2 and "pip_config" not in puts[1]
          and "project_constraints" not in puts[1] and puts[1]["resources"] == puts[0]["resources"], proc.stderr)

# a refused upload fails the export (decision X4), before any version is put
upload_path = "/api/v1/file/f572d396fae9206628714fb2ce00f72e94f2258f"
with TestServer(scripted(status_for={upload_path: 500})) as server:
    proc = run(model_project(server.port), [])
    check("upload refused", proc.returncode == 1 and "Unable to upload file with hash f572d396" in proc.stderr
          and f"refused {upload_path}" in proc.stderr
          and "PUT /api/v1/version" not in paths(server), f"{paths(server)} {proc.stderr}")

# E-29 server has every file
with TestServer(scripted(missing=[])) as server:
    proc = run(model_project(server.port), [])
    check("E-29 no uploads", proc.returncode == 0 and not any(r.path.startswith("/api/v1/file/") for r in server.requests),
          paths(server))

# E-30 project.yml settings and constraints
with TestServer(scripted()) as server:
    proc = run(model_project(server.port, project_yml="name: e2e\nrequires:\n  - std >= 5.0\n"
                             "environment_settings:\n  auto_deploy: true\npip:\n  index_url: https://pi\n  pre: true\n"),
               [])
    settings = next((r.body for r in server.requests if r.path == "/api/v2/protected_environment_settings"), None)
    put = next((r.body for r in server.requests if r.path == "/api/v1/version"), {})
    check("E-30 settings", settings == {"settings": {"auto_deploy": True}, "protected_by": "project_yml"}, settings)
    check("E-30 constraints", put.get("project_constraints") == "inmanta-module-std>=5.0", put.get("project_constraints"))
    check("E-30 pip", put.get("pip_config") == {"index-url": "https://pi", "extra-index-url": [], "pre": True,
                                                 "use-system-config": False}, put.get("pip_config"))

# E-31 compile failure: only the reservation
with TestServer(scripted()) as server:
    proc = run(model_project(server.port, main="x = 1 + 'a'\n"), ["-d"])
    check("E-31 compile failure", proc.returncode == 1 and "COMPILATION FAILURE" in proc.stderr
          and paths(server) == ["POST /api/v2/reserve_version"], f"{paths(server)} {proc.stderr}")

# Empty model: all steps, no resources
with TestServer(scripted()) as server:
    proc = run(model_project(server.port, main="x = 1\n"), [])
    check("empty model", proc.returncode == 0 and "Empty deployment model." in proc.stderr
          and server.requests[-1].body["resources"] == [], proc.stderr)

# E-32 facts (3.9): std::getfact asks the server during the compile
FACT_MODEL = """import std::testing
n = std::testing::NullResource(name="n")
v = std::getfact(n, "f")
std::print(v)
std::testing::NullResource(name=v)
std::print(std::getfact(n, "g", default_value="dflt"))
"""
N_ID = "std::testing::NullResource[internal,name=n]"
with TestServer(scripted(facts={(N_ID, "f"): "known", (N_ID, "g"): "listed"}, listed_facts={(N_ID, "g")})) as server:
    proc = run(model_project(server.port, main=FACT_MODEL), [])
    put = next((r.body for r in server.requests if r.path == "/api/v1/version"), {})
    fact_calls = [r for r in server.requests if "/parameter" in r.path]
    check("E-32 known fact", proc.returncode == 0 and sorted(proc.stdout.split()) == ["known", "listed"]
          and put.get("unknowns") == []
          and "std::testing::NullResource[internal,name=known],v=0" in [r["id"] for r in put.get("resources", [])],
          f"{proc.stdout!r} {proc.stderr} {put.get('unknowns')}")
    check("E-32 calls", [f"{r.method} {r.path}" for r in fact_calls] == [
        "POST /api/v1/parameter",
        "GET /api/v1/parameter/f?resource_id=std%3A%3Atesting%3A%3ANullResource%5Binternal%2Cname%3Dn%5D"]
          and all(r.headers.get("x-inmanta-tid") == ENV and r.headers.get("authorization") == f"Bearer {TOKEN}"
                  for r in fact_calls), paths(server))
with TestServer(scripted(facts={})) as server:
    proc = run(model_project(server.port, main=FACT_MODEL), ["-vv"])
    put = next((r.body for r in server.requests if r.path == "/api/v1/version"), {})
    ids = [r["id"] for r in put.get("resources", [])]
    check("E-32 unknown fact", proc.returncode == 0 and put.get("unknowns") == [
        {"resource": N_ID, "parameter": "f", "source": "fact"}, {"resource": N_ID, "parameter": "g", "source": "fact"}]
          and ids == [N_ID + ",v=0"] and "dflt" in proc.stdout.split()
          and f"Param f of resource {N_ID} is unknown" in proc.stderr, f"{ids} {put.get('unknowns')} {proc.stderr}")

# facts in `inmanta compile`: the same calls with -e and the server flags; nothing listening is a warning
with TestServer(scripted(facts={(N_ID, "f"): "from-compile"})) as server:
    d = project({"main.cf": FACT_MODEL, "project.yml": "name: e2e\n"})
    proc = run(d, ["-e", ENV, "--server_address", "127.0.0.1", "--server_port", str(server.port)], command="compile")
    check("compile asks for facts", proc.returncode == 0 and sorted(proc.stdout.split()) == ["dflt", "from-compile"]
          and sorted(r.path.split("?")[0] for r in server.requests) == [
              "/api/v1/parameter", "/api/v1/parameter", "/api/v1/parameter/f", "/api/v1/parameter/g"],
          f"{proc.stdout!r} {proc.stderr} {paths(server)}")
with socket.socket() as probe:  # a port nothing listens on
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
proc = run(d, ["-e", ENV, "--server_address", "127.0.0.1", "--server_port", str(port)], command="compile")
check("compile with the server down", proc.returncode == 0 and "dflt" in proc.stdout.split()
      and f"Param f of resource {N_ID} is unknown because the server at http://127.0.0.1:{port} could not be reached"
      in proc.stderr and "WARNING" in proc.stderr, proc.stderr)
proc = run(d, [], command="compile")
check("getfact without environment", proc.returncode == 1
      and "The environment of this model should be configured in config>environment" in proc.stderr
      and "std::getfact" in proc.stderr, proc.stderr)

# resource ids as the reference's to_id: the registered type of a subtype, the agent path
SUB_MODEL = """h = std::Host(name="h1", os=std::linux)
f = std::ConfigFile(host=h, path="/x", content="")
std::print(std::getfact(f, "size"))
"""
with TestServer(scripted(facts={("std::File[h1,path=/x]", "size"): "12"})) as server:
    d = project({"main.cf": SUB_MODEL, "project.yml": "name: e2e\n"})
    proc = run(d, ["-e", ENV, "--server_port", str(server.port), "--server_address", "127.0.0.1"], command="compile")
    check("getfact of a ConfigFile", proc.returncode == 0 and proc.stdout == "12\n", proc.stderr)
    d = project({"main.cf": "import std::testing\nstd::getfact(std::testing::NullResource(name='x]y'), 'f')\n",
                 "project.yml": "name: e2e\n"})
    proc = run(d, ["-e", ENV, "--server_port", str(server.port), "--server_address", "127.0.0.1"], command="compile")
    check("getfact of an id that cannot be", proc.returncode == 1
          and "Invalid attribute value 'x]y': cannot contain ']'." in proc.stderr, proc.stderr)

# the compile reads .inmanta: std::environment, std::server_token (a token from the server)
with TestServer(scripted()) as server:
    proc = run(model_project(server.port, main="std::print(std::environment())\nstd::print(std::server_token())\n"),
               [], command="compile")
    check("compile reads .inmanta", proc.returncode == 0 and proc.stdout == f"{ENV}\nagent-token\n"
          and paths(server) == ["POST /api/v1/environment_auth"], f"{proc.stdout!r} {proc.stderr}")

# TLS with a CA file (a self-signed certificate for 127.0.0.1 made with the openssl tool)
certs = tempfile.mkdtemp(prefix="inmanta-rest-tls-")
key, cert = os.path.join(certs, "key.pem"), os.path.join(certs, "cert.pem")
made = subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert,
                       "-days", "2", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
                      capture_output=True, text=True)
check("TLS test certificate", made.returncode == 0, made.stderr)
if made.returncode == 0:
    import ssl
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    with TestServer(scripted(), ssl_context=context) as server:
        proc = run(model_project(server.port), ["--ssl", "--ssl-ca-cert", cert])
        check("TLS with the CA file", proc.returncode == 0 and paths(server)[-1:] == ["PUT /api/v1/version"],
              proc.stderr)
        server.requests.clear()
        proc = run(model_project(server.port, extra_inmanta="ssl = true\n"), [])
        check("TLS without the CA: certificate refused", proc.returncode == 1 and "certificate" in proc.stderr
              and not server.requests, proc.stderr)
    with TestServer(scripted()) as server:
        proc = run(model_project(server.port), ["--ssl"])
        check("TLS against plain http", proc.returncode == 1 and "TLS" in proc.stderr
              and "Unable to reserve version number" in proc.stderr, proc.stderr)

finish()
