"""A real `inmanta server` for end-to-end tests: a free port on 127.0.0.1, a fresh state dir, the
SQLite store or (with `postgres=True`) a database of its own in the PostgreSQL cluster that the
ctest fixture `postgresql` started (INMANTA_TEST_PG, libpq key=value words, or the file
INMANTA_TEST_PG_FILE names); a small JSON client.

    with LiveServer(inmanta) as server:
        status, body = server.call("GET", "/api/v2/health")
"""
import gzip
import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import uuid


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def pg_settings():
    """The fixture's PostgreSQL as a dict (host, port, user, ...), or None when there is none."""
    conninfo = os.environ.get("INMANTA_TEST_PG", "")
    if not conninfo and os.environ.get("INMANTA_TEST_PG_FILE"):
        # the ctest fixture writes the cluster's words to a file once it knows its port
        with open(os.environ["INMANTA_TEST_PG_FILE"]) as fd:
            conninfo = fd.read().strip()
    if not conninfo:
        return None
    return dict(word.split("=", 1) for word in conninfo.split())


def create_pg_database(settings):
    """A new, empty database in the fixture's cluster; returns its name."""
    name = "e2e_" + uuid.uuid4().hex[:12]
    env = dict(os.environ, PGPASSWORD=settings.get("password", ""))
    subprocess.run(["psql", "-h", settings["host"], "-p", settings["port"], "-U", settings.get("user", "postgres"),
                    "-d", settings.get("dbname", "postgres"), "-v", "ON_ERROR_STOP=1", "-q",
                    "-c", f"CREATE DATABASE {name}"], check=True, env=env, capture_output=True)
    return name


class LiveServer:
    def __init__(self, inmanta, postgres=False, extra_config="", state_dir=None, port=None, database=None):
        self.inmanta = os.path.abspath(inmanta)
        self.own_state_dir = state_dir is None
        self.state_dir = state_dir or tempfile.mkdtemp(prefix="inmanta-server-e2e-")
        self.port = port or free_port()
        self.postgres = postgres
        self.database = database
        self.extra_config = extra_config
        self.process = None
        self.log_path = os.path.join(self.state_dir, "server.log")

    def config_text(self):
        text = f"[config]\nstate_dir = {self.state_dir}\n\n[server]\nbind-address = 127.0.0.1\nbind-port = {self.port}\n"
        if self.postgres:
            pg = pg_settings()
            if pg is None:
                raise RuntimeError("postgres=True but neither INMANTA_TEST_PG nor INMANTA_TEST_PG_FILE is set "
                                   "(the ctest fixture `postgresql`)")
            if self.database is None:
                self.database = create_pg_database(pg)
            text += (f"\n[database]\ntype = postgresql\nhost = {pg['host']}\nport = {pg['port']}\n"
                     f"name = {self.database}\nusername = {pg.get('user', 'postgres')}\n"
                     f"password = {pg.get('password', '')}\n")
        return text + "\n" + self.extra_config

    def start(self, wait=True):
        cfg = os.path.join(self.state_dir, "server.cfg")
        with open(cfg, "w") as fd:
            fd.write(self.config_text())
        env = {k: v for k, v in os.environ.items() if not k.startswith("INMANTA_")}
        env["HOME"] = self.state_dir  # no ~/.inmanta.cfg of the machine
        self.log = open(self.log_path, "ab")
        self.process = subprocess.Popen([self.inmanta, "-c", cfg, "--config-dir", self.state_dir, "server"],
                                        cwd=self.state_dir, env=env, stdout=self.log, stderr=subprocess.STDOUT)
        if wait:
            self.wait_ready()
        return self

    def wait_ready(self, timeout=30, poll=0.05):
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"inmanta server exited with {self.process.returncode}:\n{self.output()}")
            try:
                status, _ = self.call("GET", "/api/v2/health", timeout=2)
                if status == 200:
                    return
            except OSError:
                pass
            time.sleep(poll)
        raise RuntimeError(f"inmanta server did not answer within {timeout}s:\n{self.output()}")

    def output(self):
        try:
            with open(self.log_path, errors="replace") as fd:
                return fd.read()
        except OSError:
            return ""

    def stop(self, sig=signal.SIGTERM, timeout=30):
        """Stops the server with `sig`; returns its exit status."""
        if self.process is None or self.process.poll() is not None:
            return None if self.process is None else self.process.returncode
        self.process.send_signal(sig)
        try:
            return self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            raise RuntimeError(f"inmanta server did not stop within {timeout}s after signal {sig}")

    def kill(self):
        return self.stop(signal.SIGKILL)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
        if self.own_state_dir and exc[0] is None:
            shutil.rmtree(self.state_dir, ignore_errors=True)

    def connection(self, timeout=30):
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)

    def call(self, method, path, body=None, tid=None, headers=None, raw=None, gzip_body=False, timeout=30,
             connection=None):
        """One request; returns (status, decoded JSON body or None for an empty body; the text when
        it is not JSON). `raw` sends those bytes as the body instead of JSON of `body`."""
        hdrs = dict(headers or {})
        if tid:
            hdrs["X-Inmanta-tid"] = tid
        data = raw
        if data is None and body is not None:
            data = json.dumps(body).encode()
            hdrs.setdefault("Content-Type", "application/json")
        if data is not None and gzip_body:
            data = gzip.compress(data)
            hdrs["Content-Encoding"] = "gzip"
        conn = connection or self.connection(timeout)
        try:
            conn.request(method, path, body=data, headers=hdrs)
            reply = conn.getresponse()
            text = reply.read()
            self.last_headers = dict(reply.getheaders())
        finally:
            if connection is None:
                conn.close()
        if not text:
            return reply.status, None
        try:
            return reply.status, json.loads(text)
        except ValueError:
            return reply.status, text.decode(errors="replace")

    def make_environment(self, project="p", name="e"):
        """A project and an environment in it; returns the environment id."""
        status, body = self.call("PUT", "/api/v2/project", {"name": project})
        if status != 200:
            raise RuntimeError(f"PUT /api/v2/project: {status} {body}")
        status, env = self.call("PUT", "/api/v2/environment", {"name": name, "project_id": body["data"]["id"]})
        if status != 200:
            raise RuntimeError(f"PUT /api/v2/environment: {status} {env}")
        return env["data"]["id"]
