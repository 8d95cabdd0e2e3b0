#!/usr/bin/env python3
"""`inmanta server` as a user runs it (orchestrator spec §8, §11): the real binary on a free port
with a fresh state dir, on SQLite and, when the ctest fixture `postgresql` is there, on
PostgreSQL. Scenarios O-1, O-2, O-4 … O-8, O-14, O-15; exit 4 when the port is taken, when
another server holds the store and for a malformed configuration; SIGTERM stops cleanly (exit 0);
after kill -9 a restart still has the projects, environments and settings; 20 keep-alive clients at
once are all served, and 64 connecting at the same moment; a second server on a port in use by
another exits 4.

    server_test.py path/to/inmanta
"""
import base64
import hashlib
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, finish  # noqa: E402
from live_server import LiveServer, pg_settings  # noqa: E402

INMANTA = os.path.abspath(sys.argv[1])
OTHER_UUID = "4e5ad3c6-0e6e-4c5c-8a0e-6fb2a8e3c9a1"
KEY = "c2VjcmV0LWtleS1vZi1hdC1sZWFzdC0zMi1ieXRlcy1sb25nLW9r"
OTHER_KEY = "b3RoZXIta2V5LW9mLWF0LWxlYXN0LTMyLWJ5dGVzLWxvbmctb2s"
AUTH_CONFIG = f"""[server]
auth = true

[auth_jwt_default]
algorithm = HS256
sign = true
client_types = api,compiler,agent
key = {KEY}
"""


def starts_with(body, prefix):
    return isinstance(body, dict) and str(body.get("message", "")).startswith(prefix)


def token(server, *args, key=None):
    """A token from `inmanta token` with the server's configuration (or another signing key)."""
    cfg = os.path.join(server.state_dir, "server.cfg")
    if key:
        cfg = os.path.join(server.state_dir, "other.cfg")
        with open(cfg, "w") as fd:
            fd.write(AUTH_CONFIG.replace(KEY, key))
    env = {k: v for k, v in os.environ.items() if not k.startswith("INMANTA_")}
    env["HOME"] = server.state_dir
    proc = subprocess.run([INMANTA, "-c", cfg, "--config-dir", server.state_dir, "token", *args],
                          capture_output=True, text=True, env=env, cwd=server.state_dir, timeout=60)
    check(f"inmanta token {' '.join(args)} exits 0", proc.returncode == 0, proc.stderr)
    return proc.stdout.strip()


def api_scenarios(engine, postgres):
    with LiveServer(INMANTA, postgres=postgres) as server:
        call = server.call
        # O-1
        status, body = call("GET", "/api/v2/health")
        check(f"{engine} O-1 health", (status, body) == (200, {"data": None}), f"{status} {body}")
        status, body = call("GET", "/api/v1/serverstatus")
        check(f"{engine} O-1 serverstatus", status == 200 and body["data"]["status"] == "OK"
              and body["data"]["product"] == "inmanta-cpp" and body["data"]["version"], f"{status} {body}")

        # O-2
        status, body = call("PUT", "/api/v1/project", {"name": "P"})
        check(f"{engine} O-2 create project (v1)", status == 200, f"{status} {body}")
        project = body["project"]["id"]
        status, body = call("PUT", "/api/v2/environment", {"name": "E", "project_id": project})
        check(f"{engine} O-2 create environment (v2)", status == 200, f"{status} {body}")
        env = body["data"]["id"]
        _, v1 = call("GET", "/api/v1/environment")
        _, v2 = call("GET", "/api/v2/environment")
        check(f"{engine} O-2 list both ways", v1["environments"][0]["project"] == project
              and v2["data"][0]["project_id"] == project, f"{v1} {v2}")
        _, nested = call("GET", "/api/v2/project")
        check(f"{engine} O-2 v2 project nests its environment",
              nested["data"][0]["environments"][0]["id"] == env, str(nested))
        status, body = call("PUT", "/api/v2/environment", {"name": "E", "project_id": project})
        check(f"{engine} O-2 same environment again → 400", status == 400, f"{status} {body}")
        status, body = call("PUT", "/api/v2/environment", {"name": "X", "project_id": OTHER_UUID})
        check(f"{engine} O-2 unknown project → 404", status == 404, f"{status} {body}")
        status, body = call("DELETE", f"/api/v1/project/{project}")
        check(f"{engine} O-2 delete project with environment → 409", status == 409, f"{status} {body}")
        check(f"{engine} O-2 delete E", call("DELETE", f"/api/v2/environment/{env}")[0] == 200)
        check(f"{engine} O-2 delete P", call("DELETE", f"/api/v1/project/{project}")[0] == 200)
        check(f"{engine} O-2 E and P are gone", call("GET", f"/api/v2/environment/{env}")[0] == 404
              and call("GET", f"/api/v1/project/{project}")[0] == 404)

        # O-4
        status, body = call("PUT", "/api/v2/environment", raw=b'{"name": env}',
                            headers={"Content-Type": "application/json"})
        check(f"{engine} O-4 bad JSON → 400", status == 400
              and starts_with(body, "The request body couldn't be decoded as a JSON"), f"{status} {body}")
        status, body = call("PUT", "/api/v2/environment", [1, 2])
        check(f"{engine} O-4 JSON list → 400", status == 400, f"{status} {body}")
        check(f"{engine} O-4 still healthy", call("GET", "/api/v2/health")[0] == 200)

        # O-5
        status, body = call("PUT", "/api/v1/project", {"name": "a", "x": 1})
        check(f"{engine} O-5 unknown field", status == 400
              and starts_with(body, "Invalid request: request contains fields {'x'}"), f"{status} {body}")
        status, body = call("PUT", "/api/v1/project", {})
        check(f"{engine} O-5 missing name", (status, body) == (400, {"message": "Invalid request: Field 'name' is required."}),
              f"{status} {body}")
        status, body = call("PUT", "/api/v2/environment", {"name": "a", "project_id": "nope"})
        check(f"{engine} O-5 project_id not a UUID", status == 400
              and starts_with(body, "Invalid request: Failed to validate argument"), f"{status} {body}")

        # O-6
        status, body = call("GET", "/api/v2/environment_settings")
        check(f"{engine} O-6 no header → 400", status == 400, f"{status} {body}")
        status, body = call("GET", "/api/v2/environment_settings", tid="not-a-uuid")
        check(f"{engine} O-6 malformed → 400", status == 400, f"{status} {body}")
        status, body = call("GET", "/api/v2/environment_settings", tid=OTHER_UUID)
        check(f"{engine} O-6 unknown → 404", status == 404
              and body["message"].endswith("The given environment id does not exist!"), f"{status} {body}")

        # O-7
        status, body = call("PATCH", "/api/v1/project")
        check(f"{engine} O-7 PATCH → 405 with Allow", status == 405 and "Allow" in server.last_headers,
              f"{status} {body} {server.last_headers}")
        status, body = call("GET", "/api/v9/nothing")
        check(f"{engine} O-7 unknown path → JSON 404", status == 404 and isinstance(body, dict), f"{status} {body}")

        # O-14 (the protected part with the batch the exporter sends)
        env = server.make_environment("P14", "E14")
        status, _ = call("POST", "/api/v2/environment_settings/autostart_agent_repair_interval", {"value": "30"}, tid=env)
        _, v1 = call("GET", "/api/v1/environment_settings", tid=env)
        _, v2 = call("GET", "/api/v2/environment_settings", tid=env)
        check(f"{engine} O-14 set repair interval, visible both ways", status == 200
              and v1["settings"]["autostart_agent_repair_interval"] == "30"
              and v2["data"]["settings"]["autostart_agent_repair_interval"] == "30", f"{v1['settings']}")
        status, body = call("POST", "/api/v1/environment_settings/autostart_agent_repair_interval", {"value": "abc"}, tid=env)
        check(f"{engine} O-14 invalid value → 400", status == 400, f"{status} {body}")
        status, body = call("POST", "/api/v1/environment_settings/push_on_auto_deploy", {"value": True}, tid=env)
        check(f"{engine} O-14 removed setting → 404", status == 404, f"{status} {body}")
        call("DELETE", "/api/v1/environment_settings/autostart_agent_repair_interval", tid=env)
        _, one = call("GET", "/api/v1/environment_settings/autostart_agent_repair_interval", tid=env)
        check(f"{engine} O-14 delete → default", one["value"] == "86400", str(one))
        status, _ = call("POST", "/api/v2/protected_environment_settings",
                         {"settings": {"auto_deploy": False}, "protected_by": "project_yml"}, tid=env)
        status2, body = call("POST", "/api/v2/environment_settings/auto_deploy", {"value": True}, tid=env)
        _, v2 = call("GET", "/api/v2/environment_settings", tid=env)
        check(f"{engine} O-14 protected by project.yml → 403", status == 200 and status2 == 403
              and v2["data"]["definition"]["auto_deploy"]["protected"] is True, f"{status} {status2} {body}")

        # O-15
        env = server.make_environment("P15", "E15")
        call("POST", "/api/v2/environment_settings/protected_environment", {"value": True}, tid=env)
        status, body = call("DELETE", f"/api/v2/environment/{env}")
        check(f"{engine} O-15 protected environment → 403", status == 403
              and body["message"].endswith("is protected. See environment setting: protected_environment"),
              f"{status} {body}")
        call("DELETE", "/api/v2/environment_settings/protected_environment", tid=env)
        status, _ = call("DELETE", f"/api/v2/environment/{env}")
        check(f"{engine} O-15 delete after reset → 200", status == 200 and call("GET", f"/api/v2/environment/{env}")[0] == 404)

        check(f"{engine} one debug line per request is not logged without -v",
              "GET /api/v2/health 200" not in server.output())


def export_project(server, environment, name, main):
    """A project whose .inmanta exports to `environment` on `server`; returns its folder and the
    environment to run `inmanta` in (no INMANTA_* variables, HOME in the project)."""
    project_dir = tempfile.mkdtemp(prefix="inmanta-server-e2e-")
    for path, text in {
            "main.cf": main,
            "project.yml": f"name: {name}\nmodulepath: libs\ndownloadpath: libs\nrepo: []\n",
            ".inmanta": f"[config]\nenvironment = {environment}\n\n[compiler_rest_transport]\nhost = 127.0.0.1\n"
                        f"port = {server.port}\n"}.items():
        with open(os.path.join(project_dir, path), "w") as fd:
            fd.write(text)
    env = {k: v for k, v in os.environ.items() if not k.startswith("INMANTA_")}
    env["HOME"] = project_dir
    return project_dir, env


def auth_scenario():  # O-8
    with LiveServer(INMANTA, extra_config=AUTH_CONFIG) as server:
        call = server.call
        check("O-8 no token → 401", call("GET", "/api/v1/project")[0] == 401)
        check("O-8 health is open", call("GET", "/api/v2/health")[0] == 200)
        api = token(server, "--client-types", "api")
        bearer = lambda t: {"Authorization": f"Bearer {t}"}  # noqa: E731
        check("O-8 garbage token → 403", call("GET", "/api/v1/project", headers=bearer("garbage"))[0] == 403)
        foreign = token(server, "--client-types", "api", key=OTHER_KEY)
        check("O-8 token of another key → 403", call("GET", "/api/v1/project", headers=bearer(foreign))[0] == 403)
        status, body = call("PUT", "/api/v2/project", {"name": "p"}, headers=bearer(api))
        check("O-8 api token works", status == 200, f"{status} {body}")
        project = body["data"]["id"]
        envs = [call("PUT", "/api/v2/environment", {"name": n, "project_id": project}, headers=bearer(api))[1]["data"]["id"]
                for n in ("a", "b")]
        scoped = token(server, "--client-types", "api", "--environment", envs[0])
        status, _ = call("GET", "/api/v2/environment_settings", tid=envs[0], headers=bearer(scoped))
        check("O-8 scoped token on its environment", status == 200)
        status, body = call("GET", "/api/v2/environment_settings", tid=envs[1], headers=bearer(scoped))
        check("O-8 scoped token on another environment → 403", status == 403, f"{status} {body}")
        agent = token(server, "--client-types", "agent")
        status, body = call("POST", "/api/v2/protected_environment_settings",
                            {"settings": {}, "protected_by": "project_yml"}, tid=envs[0], headers=bearer(agent))
        check("O-8 wrong client type → 403", status == 403 and "client type" in body["message"], f"{status} {body}")
        status, body = call("POST", "/api/v1/environment_auth", {"client_types": ["compiler"]}, tid=envs[0],
                            headers=bearer(api))
        check("O-8 environment_auth mints a token", status == 200 and body.get("token"), f"{status} {body}")
        # a compiler token scoped to the environment runs a whole `inmanta export -d`
        compiler = token(server, "--client-types", "compiler", "--environment", envs[0])
        project_dir, env = export_project(server, envs[0], "o8", 'import std\nhost = std::Host(name="localhost", '
                                          'os=std::linux)\nstd::ConfigFile(host=host, path="/tmp/inmanta-o8.conf", '
                                          'content="o8")\n')
        proc = subprocess.run([INMANTA, "--config-dir", project_dir, "export", "-d", "--token", compiler], cwd=project_dir,
                              capture_output=True, text=True, env=env, timeout=120)
        check("O-8 export -d with a scoped compiler token", proc.returncode == 0, proc.stderr[-1500:])
        status, body = call("GET", "/api/v1/version", tid=envs[0], headers=bearer(api))
        check("O-8 the export's version is stored and released",
              status == 200 and body["count"] == 1 and body["versions"][0]["released"], f"{status} {body}")
        proc = subprocess.run([INMANTA, "--config-dir", project_dir, "export", "-d", "-e", envs[1], "--token", compiler],
                              cwd=project_dir, capture_output=True, text=True, env=env, timeout=120)
        check("O-8 the scoped compiler token cannot export to another environment",
              proc.returncode != 0 and "403" in proc.stderr, proc.stderr[-800:])
        # an expired token: a configuration whose tokens live one second
        expiring = os.path.join(server.state_dir, "expiring.cfg")
        with open(expiring, "w") as fd:
            fd.write(AUTH_CONFIG + "expire = 1\n")
        proc = subprocess.run([INMANTA, "-c", expiring, "--config-dir", server.state_dir, "token"], capture_output=True,
                              text=True, env={k: v for k, v in os.environ.items() if not k.startswith("INMANTA_")},
                              cwd=server.state_dir, timeout=60)
        time.sleep(2.1)
        check("O-8 expired token → 403", call("GET", "/api/v1/project", headers=bearer(proc.stdout.strip()))[0] == 403)


def already_released_scenario():
    """`inmanta export -d` into a server whose auto_deploy releases each stored version: the
    release call answers 409 "already released", which is what -d asked for — exit 0, no warning
    by default, an info line at -v (issue 32)."""
    with LiveServer(INMANTA) as server:
        env_id = server.make_environment("released", "e")
        status, body = server.call("POST", "/api/v2/environment_settings/auto_deploy", {"value": True}, tid=env_id)
        check("released: auto_deploy on", status == 200, f"{status} {body}")
        project_dir, env = export_project(server, env_id, "released",
                                          'import std::testing\nstd::testing::NullResource(name="released")\n')
        for verbose, version in (([], 1), (["-v"], 2)):
            proc = subprocess.run([INMANTA, "--config-dir", project_dir, *verbose, "export", "-d"], cwd=project_dir,
                                  capture_output=True, text=True, env=env, timeout=120)
            _, versions = server.call("GET", "/api/v1/version", tid=env_id)
            released = {v["version"]: v["released"] for v in versions.get("versions", [])}
            info = f"INFO    Version {version} was already released by the server"
            label = " ".join([*verbose, "export", "-d"])
            check(f"released: {label} exits 0 with the version released",
                  proc.returncode == 0 and released.get(version) is True, f"{released} {proc.stderr[-1500:]}")
            check(f"released: {label} prints no warning about the release",
                  "was not released" not in proc.stderr and "409" not in proc.stderr, proc.stderr[-1500:])
            check(f"released: {label} " + ("says so" if verbose else "is quiet about it"),
                  (info in proc.stderr) == bool(verbose), proc.stderr[-1500:])


def tls_scenario():
    """ssl_cert_file + ssl_key_file: the server speaks HTTPS (a self-signed certificate)."""
    import http.client
    import ssl
    state = tempfile.mkdtemp(prefix="inmanta-server-e2e-")
    cert, key = os.path.join(state, "cert.pem"), os.path.join(state, "key.pem")
    made = subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1",
                           "-days", "1", "-keyout", key, "-out", cert], capture_output=True, timeout=60)
    check("openssl made a test certificate", made.returncode == 0, made.stderr.decode(errors="replace"))
    server = LiveServer(INMANTA, state_dir=state,
                        extra_config=f"[server]\nssl_cert_file = {cert}\nssl_key_file = {key}\n")
    server.start(wait=False)
    context = ssl.create_default_context(cafile=cert)
    context.check_hostname = False
    answer = None
    deadline = time.time() + 30
    while time.time() < deadline and answer is None and server.process.poll() is None:
        try:
            conn = http.client.HTTPSConnection("127.0.0.1", server.port, timeout=5, context=context)
            conn.request("GET", "/api/v2/health")
            reply = conn.getresponse()
            answer = (reply.status, reply.read())
            conn.close()
        except OSError:
            time.sleep(0.05)
    check("TLS: health over HTTPS", answer == (200, b'{"data":null}'), f"{answer} {server.output()}")
    check("TLS: stops on SIGTERM", server.stop() == 0, server.output())


def exit_code(args, timeout=30):
    env = {k: v for k, v in os.environ.items() if not k.startswith("INMANTA_")}
    env["HOME"] = tempfile.gettempdir()
    proc = subprocess.run([INMANTA, *args], capture_output=True, text=True, env=env, timeout=timeout)
    return proc.returncode, proc.stderr


def many_keep_alive_clients():
    """More keep-alive clients than httplib's fixed pool had threads (8 on 2 CPUs): each was a
    thread held while its connection stayed open, so the ninth client waited for another to be
    idle for 5 s, or for ever while they all kept asking."""
    clients = 20
    with LiveServer(INMANTA) as server:
        connections = [server.connection() for _ in range(clients)]
        answered, slowest = 0, 0.0
        try:
            for _ in range(2):  # every connection open and kept, asked in turn
                for connection in connections:
                    started = time.monotonic()
                    try:
                        connection.request("GET", "/api/v1/serverstatus")
                        response = connection.getresponse()
                        response.read()
                        answered += response.status == 200
                    except (OSError, http.client.HTTPException):
                        pass  # (a connection the server closed: not answered)
                    slowest = max(slowest, time.monotonic() - started)
        finally:
            for connection in connections:
                connection.close()
        # (an answer takes about a millisecond; the stall was the keep-alive timeout, 5 s)
        check(f"{clients} keep-alive clients at once are all answered without waiting for another's connection "
              "to end", answered == 2 * clients and slowest < 4.0, f"{answered} answers, slowest {slowest:.2f} s")

        # 64 clients connecting at the same moment, each uploading a file (a request in two writes,
        # as an exporter's): httplib's listen backlog of 5 overflowed and the kernel reset some of
        # the connections (SYN cookies)
        burst = 64
        barrier = threading.Barrier(burst)
        failures = []
        content = b"burst\n"
        upload = json.dumps({"id": hashlib.sha1(content).hexdigest(), "content": base64.b64encode(content).decode()})

        def connect_and_ask():
            barrier.wait()
            try:
                connection = server.connection()
                connection.request("PUT", "/api/v1/file/" + hashlib.sha1(content).hexdigest(), body=upload,
                                   headers={"Content-Type": "application/json"})
                response = connection.getresponse()
                response.read()
                connection.close()
                if response.status != 200:
                    failures.append(response.status)
            except (OSError, http.client.HTTPException) as e:
                failures.append(repr(e))

        for _ in range(3):
            threads = [threading.Thread(target=connect_and_ask) for _ in range(burst)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            barrier.reset()
        check(f"{burst} clients connecting at once, three times, are all answered", not failures,
              f"{len(failures)} failed: {failures[:3]}")


def lifecycle():
    # a port in use
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        server = LiveServer(INMANTA, port=busy.getsockname()[1])
        server.start(wait=False)
        code = server.process.wait(timeout=30)
        check("a port in use → exit 4 with the reason", code == 4 and "cannot listen" in server.output(),
              server.output())

    # a malformed configuration
    state = tempfile.mkdtemp(prefix="inmanta-server-e2e-")
    bad = os.path.join(state, "bad.cfg")
    with open(bad, "w") as fd:
        fd.write("[server]\nbind-port = not-a-port\n")
    code, err = exit_code(["-c", bad, "--config-dir", state, "server"])
    check("a bad option → exit 4 naming it", code == 4 and "bind-port" in err, err)
    with open(bad, "w") as fd:
        fd.write("no section here\n")
    code, err = exit_code(["-c", bad, "--config-dir", state, "server"])
    check("a malformed configuration file → exit 4", code == 4 and "bad.cfg:1" in err, err)

    # a second server on the same store; SIGTERM; kill -9 and restart
    first = LiveServer(INMANTA).start()
    try:
        env = first.make_environment("keep", "me")
        first.call("POST", "/api/v2/environment_settings/auto_deploy", {"value": False}, tid=env)
        second = LiveServer(INMANTA, state_dir=first.state_dir)
        second.log_path = os.path.join(first.state_dir, "second.log")
        second.start(wait=False)
        code = second.process.wait(timeout=30)
        check("a second server on the same store → exit 4", code == 4 and "Error" in second.output(), second.output())
        # another server (its own store) on the same port: httplib's SO_REUSEPORT let it listen too,
        # and the kernel shared the connections out between the two
        third = LiveServer(INMANTA, port=first.port)
        third.start(wait=False)
        try:
            code = third.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            code = None
            third.stop()
        check("a second server on the same port (another store) → exit 4, cannot listen",
              code == 4 and "cannot listen" in third.output(), third.output())
        check("kill -9", first.kill() == -signal.SIGKILL)
        again = LiveServer(INMANTA, state_dir=first.state_dir, port=first.port)
        again.log_path = os.path.join(first.state_dir, "again.log")
        again.start()
        _, projects = again.call("GET", "/api/v1/project")
        _, setting = again.call("GET", "/api/v1/environment_settings/auto_deploy", tid=env)
        check("after kill -9 the project, environment and setting are there",
              [p["name"] for p in projects["projects"]] == ["keep"] and projects["projects"][0]["environments"] == [env]
              and setting["value"] is False, f"{projects} {setting}")
        check("SIGTERM → exit 0", again.stop(signal.SIGTERM) == 0, again.output())
        check("SIGTERM logs the stop", "Server stopped" in again.output(), again.output())
        check("the server logged where it listens", f"Server listening on 127.0.0.1:{first.port}" in again.output())
    finally:
        first.stop()


api_scenarios("sqlite", False)
if pg_settings() is not None:
    api_scenarios("postgresql", True)
elif os.environ.get("INMANTA_TEST_PG_REQUIRED"):
    check("PostgreSQL fixture available", False, "INMANTA_TEST_PG_REQUIRED is set but there is no PostgreSQL")
auth_scenario()
already_released_scenario()
tls_scenario()
many_keep_alive_clients()
lifecycle()
finish()
