#!/usr/bin/env python3
"""The scheduler of `inmanta server` (orchestrator spec §6, §8) seen from outside: the real binary
with a fresh state dir per scenario, our `inmanta export` from a project in a temporary folder,
files under the test's temporary folder owned by the running user. Scenarios of §11: O-3, O-12,
O-13, O-19 (server part), O-24 … O-27, O-31, O-32, O-36, O-40.

The server reads two test hooks from its environment, which LiveServer cleans of INMANTA_*
variables; a small wrapper script around the binary sets them:
INMANTA_TEST_HANDLER_DELAY_MS (every handler call sleeps first) and INMANTA_SYSTEMCTL (std::Service
talks to a stub systemctl that records its arguments).

Usage: server_deploy_test.py INMANTA [--postgres] [unittest options]
"""
import base64
import glob
import grp
import hashlib
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.parse
from datetime import datetime, timezone

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checks  # noqa: E402
from live_server import LiveServer  # noqa: E402
from runner_module import RUNNER_PLUGIN, copier_module_files, runner_module_files  # noqa: E402

INMANTA = os.path.abspath(sys.argv[1])
POSTGRES = "--postgres" in sys.argv[2:]
USER = pwd.getpwuid(os.getuid()).pw_name
GROUP = grp.getgrgid(os.getgid()).gr_name
HEADER = 'import std\nimport std::testing\nhost = std::Host(name="localhost", os=std::linux)\n'


def wait_for(condition, timeout, poll=0.1):
    """Polls `condition` until it returns something true or `timeout` seconds pass; returns its
    last value."""
    deadline = time.time() + timeout
    while True:
        value = condition()
        if value or time.time() >= deadline:
            return value
        time.sleep(poll)


def file_text(path):
    try:
        with open(path) as fd:
            return fd.read()
    except OSError:
        return None


class DeployScenario(unittest.TestCase):
    """One server per test, started by `serve`, stopped at the end; a scratch folder for the
    managed files (`self.tmp`) and one for the project."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="inmanta-srv-deploy-")
        self.servers = []
        self.project_dir = None

    def tearDown(self):
        for server in self.servers:
            server.stop(timeout=60)
            server.log.close()
        result = self._outcome.result
        if any(test is self for test, _ in result.failures + result.errors):  # the server's side of a failure
            for server in self.servers:
                print(f"--- server log of {self.id()}:\n{server.output()[-4000:]}")
        for server in self.servers:
            shutil.rmtree(server.state_dir, ignore_errors=True)
        shutil.rmtree(self.tmp, ignore_errors=True)
        if self.project_dir:
            shutil.rmtree(self.project_dir, ignore_errors=True)

    # ------------------------------------------------------------------ server and project

    def serve(self, delay_ms=0, systemctl=None, state_dir=None, port=None, database=None, extra_config="", env=None):
        """A running server; the test hooks (and `env`) go into its environment through a wrapper script."""
        hooks = dict(env or {})
        if delay_ms:
            hooks["INMANTA_TEST_HANDLER_DELAY_MS"] = str(delay_ms)
        if systemctl:
            hooks["INMANTA_SYSTEMCTL"] = systemctl
        binary = INMANTA
        if hooks:
            binary = os.path.join(self.tmp, f"inmanta-hooked-{len(self.servers)}")
            with open(binary, "w") as fd:
                fd.write("#!/bin/sh\n" + "".join(f"export {k}='{v}'\n" for k, v in hooks.items())
                         + f"exec '{INMANTA}' \"$@\"\n")
            os.chmod(binary, 0o755)
        server = LiveServer(binary, postgres=POSTGRES, state_dir=state_dir, port=port, database=database,
                            extra_config=extra_config)
        if state_dir:
            server.log_path = os.path.join(state_dir, f"server-{len(self.servers)}.log")
        self.servers.append(server)
        return server.start()

    def environment(self, server, project="p", **settings):
        self.server = server
        self.env = server.make_environment(project)
        for name, value in settings.items():
            status, body = server.call("POST", f"/api/v2/environment_settings/{name}", {"value": value}, tid=self.env)
            self.assertEqual(status, 200, f"setting {name}={value}: {body}")
        return self.env

    def write_project(self, files):
        """Writes `files` (relative path -> text) into the project, made on first use for the server."""
        if self.project_dir is None:
            self.project_dir = checks.project({
                "project.yml": "name: serverdeploy\nmodulepath: libs\ndownloadpath: libs\nrepo: []\n",
                ".inmanta": f"[config]\nenvironment = {self.env}\n\n[compiler_rest_transport]\n"
                            f"host = 127.0.0.1\nport = {self.server.port}\n"}, "inmanta-srv-deploy-project-")
        for path, text in files.items():
            full = os.path.join(self.project_dir, path)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "w") as fd:
                fd.write(text)

    def run_inmanta(self, *args):
        """`inmanta ARGS` in the project, which must succeed."""
        env = {k: v for k, v in os.environ.items() if not k.startswith("INMANTA_")}
        env["HOME"] = self.project_dir
        result = subprocess.run([INMANTA, "--config-dir", os.path.join(self.project_dir, "none"), *args],
                                cwd=self.project_dir, capture_output=True, text=True, timeout=120, env=env,
                                stdin=subprocess.DEVNULL)
        self.assertEqual(result.returncode, 0, f"inmanta {' '.join(args)}:\n{result.stderr[-2000:]}")
        return result

    def export(self, main, *args, files=None):
        """Writes `main` as the project's main.cf (and `files`) and runs `inmanta export ARGS`
        against the server."""
        self.write_project({"main.cf": HEADER + main, **(files or {})})
        return self.run_inmanta("export", *args)

    def file_model(self, name, content, **extra):
        attrs = "".join(f", {k}={v}" for k, v in extra.items())
        return (f'{name} = std::File(host=host, path="{self.tmp}/{name}", content="{content}", owner="{USER}", '
                f'group="{GROUP}", mode=644{attrs})\n')

    def file_id(self, name):
        return f"std::File[localhost,path={self.tmp}/{name}]"

    # ------------------------------------------------------------------ reading the API

    def call(self, method, path, body=None):
        status, answer = self.server.call(method, path, body, tid=self.env)
        self.assertIn(status, (200, 204), f"{method} {path}: {status} {answer}")
        return answer

    def statuses(self):
        """resource id -> status, from GET /api/v2/resource."""
        return {r["resource_id"]: r["status"] for r in self.call("GET", "/api/v2/resource")["data"]}

    def wait_statuses(self, wanted, timeout=10):
        """Waits until every resource id of `wanted` has its status; returns the last statuses."""
        def reached():
            now = self.statuses()
            return now if all(now.get(k) == v for k, v in wanted.items()) else None
        return wait_for(reached, timeout) or self.statuses()

    def assert_statuses(self, wanted, timeout=10):
        now = self.wait_statuses(wanted, timeout)
        wrong = [rid for rid in wanted if now.get(rid) != wanted[rid]]
        history = {rid: [(a["version"], a["status"], a["started"], a["finished"], self.reasons(a))
                         for a in self.deploy_actions(rid)] for rid in wrong}
        self.assertEqual({k: now.get(k) for k in wanted}, wanted, f"all statuses: {now}; deploy actions: {history}")

    def deploy_actions(self, rid):
        """The `deploy` resource actions of resource `rid` (any version), oldest first."""
        answer = self.call("GET", "/api/v2/resource_actions?limit=1000")
        actions = [a for a in answer["data"] if a["action"] == "deploy"
                   and any(v.rsplit(",v=", 1)[0] == rid for v in a["resource_version_ids"])]
        return sorted(actions, key=lambda a: a["started"])

    def logs(self, rid):
        return self.call("GET", f"/api/v2/resource/{urllib.parse.quote(rid, safe='')}/logs")["data"]

    def reasons(self, action):
        return [m.get("kwargs", {}).get("reason") for m in action["messages"] if m.get("kwargs", {}).get("reason")]

    def latest_version(self):
        return self.call("GET", "/api/v1/version")["versions"][0]

    # ------------------------------------------------------------------ scenarios

    def test_o12_auto_deploy(self):
        self.environment(self.serve())
        self.export(self.file_model("auto", "on"))
        self.assertTrue(wait_for(lambda: file_text(f"{self.tmp}/auto") == "on", 10),
                        "auto_deploy=true: `inmanta export` without -d deploys the file")
        self.assertTrue(self.latest_version()["released"])
        self.assert_statuses({self.file_id("auto"): "deployed"})

        self.environment(self.server, project="manual", auto_deploy=False)
        shutil.rmtree(self.project_dir)
        self.project_dir = None
        self.export(self.file_model("manual", "off"))
        version = self.latest_version()
        self.assertFalse(version["released"], str(version))
        states = {d["version"]: d["status"] for d in self.call("GET", "/api/v2/desiredstate")["data"]}
        self.assertEqual(states.get(version["version"]), "candidate", str(states))
        time.sleep(1.5)
        self.assertFalse(os.path.exists(f"{self.tmp}/manual"), "auto_deploy=false: the candidate deploys nothing")
        self.call("POST", f"/api/v1/version/{version['version']}", {"push": True})
        self.assertTrue(wait_for(lambda: file_text(f"{self.tmp}/manual") == "off", 10), "the release deploys it")

    def test_o13_export_d_deploys(self):
        self.environment(self.serve())  # auto_deploy releases first, so the release of -d answers 409 (issue 32: quietly)
        result = self.export(self.file_model("f", "thirteen"), "-d")
        self.assertNotIn("409", result.stdout + result.stderr, "a version auto_deploy released is not a warning")
        self.assertTrue(wait_for(lambda: file_text(f"{self.tmp}/f") == "thirteen", 10), "export -d deploys the file")
        self.assert_statuses({self.file_id("f"): "deployed"})
        action = self.deploy_actions(self.file_id("f"))[-1]
        self.assertEqual(action["change"], "created", str(action))

    def test_a_module_python_handler_runs_from_the_code_the_export_uploaded(self):
        """`export -d` uploads the runner module's Python code with the version; the server writes it
        out, loads it in an executor process and deploys runner::Run with the module's handler; a
        version with changed handler code runs the new code; a failing handler fails its resource."""
        self.environment(self.serve())
        done, boom = f"{self.tmp}/done", f"{self.tmp}/boom"
        model = (f'import runner\nrunner::Run(name="touch", command="touch {done}", creates="{done}")\n'
                 f'runner::Run(name="boom", command="false", creates="{boom}")\n')
        self.export(model, "-d", files=runner_module_files())
        touch_id, boom_id = "runner::Run[internal,name=touch]", "runner::Run[internal,name=boom]"
        self.assert_statuses({touch_id: "deployed", boom_id: "failed"}, timeout=30)
        self.assertTrue(os.path.exists(done))
        action = self.deploy_actions(touch_id)[-1]
        self.assertEqual(action["change"], "created", str(action))
        self.assertTrue(any(m["msg"] == f"ran touch {done}" for m in action["messages"]), action["messages"])
        failed = self.deploy_actions(boom_id)[-1]
        self.assertTrue(any("command failed with exit code 1" in m["msg"] and m["level"] == "ERROR"
                            for m in failed["messages"]), failed["messages"])
        # the code is stored with the version and written out under the state dir
        version = self.latest_version()["version"]
        code_root = os.path.join(self.server.state_dir, "executors")
        written = [os.path.join(d, f) for d, _, fs in os.walk(code_root) for f in fs]
        self.assertTrue(any(p.endswith("runner/plugins/__init__.py") for p in written), written)

        # new handler code in a new version: its executor runs the new code
        os.remove(done)
        changed = runner_module_files(RUNNER_PLUGIN.replace('"ran %(command)s"', '"executed %(command)s"'))
        self.export(model, "-d", files=changed)
        self.assertTrue(wait_for(lambda: self.latest_version()["version"] > version, 10))
        # the resource did not change, so only a repair runs it again
        self.call("POST", "/api/v1/deploy", {"agent_trigger_method": "push_full_deploy"})
        self.assertTrue(wait_for(lambda: os.path.exists(done), 30), "the repair runs the handler")

        def ran_new_code():  # the repair's action is stored a moment after the handler ran
            return any(m["msg"] == f"executed touch {done}"
                       for action in self.deploy_actions(touch_id) for m in action["messages"])
        self.assertTrue(wait_for(ran_new_code, 30), [a["messages"] for a in self.deploy_actions(touch_id)])
        self.assert_statuses({touch_id: "deployed"}, timeout=30)

    def test_a_module_python_handler_reads_and_uploads_files_of_the_file_store(self):
        self.environment(self.serve())
        target = f"{self.tmp}/copy.txt"
        self.export(f'import copier\ncopier::Copy(path="{target}", content="served\\n")\n', "-d",
                    files=copier_module_files())
        self.assert_statuses({f"copier::Copy[internal,path={target}]": "deployed"}, timeout=30)
        self.assertEqual(file_text(target), "served\n")
        reverse = base64.b64encode(b"\ndevres").decode()
        digest = hashlib.sha1(b"\ndevres").hexdigest()
        status, answer = self.server.call("GET", f"/api/v1/file/{digest}", None, tid=self.env)
        self.assertEqual((status, answer.get("content")), (200, reverse), "the handler's upload_file is stored")

    def test_a_module_python_handler_gets_its_requirements_installed_by_the_executor(self):
        """The module's requirements.txt travels with its code; the executor installs it with the
        version's pip settings (here: the system's configuration, pip offline on a folder of wheels)
        into the code set's environment before it loads the code, which imports the package."""
        wheels = os.path.join(self.tmp, "wheels")
        checks.make_wheel(wheels, "e2e-executor-pkg", "e2e_executor_pkg", "1.0.0", value=7)
        self.environment(self.serve(env={"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": wheels}))
        plugin = RUNNER_PLUGIN.replace("import time\n", "import time\n\nimport e2e_executor_pkg\n").replace(
            'ctx.info("ran %(command)s", command=resource.command)',
            'ctx.info("ran with %(value)s: %(command)s", value=e2e_executor_pkg.VALUE, command=resource.command)')
        files = runner_module_files(plugin)
        files["libs/runner/requirements.txt"] = "e2e-executor-pkg>=1.0\n"
        files["project.yml"] = ("name: serverdeploy\nmodulepath: libs\ndownloadpath: libs\nrepo: []\n"
                                "pip:\n  use-system-config: true\n")
        done = f"{self.tmp}/done"
        main = f'import runner\nrunner::Run(name="touch", command="touch {done}", creates="{done}")\n'
        self.write_project({"main.cf": HEADER + main, **files})
        # the compile imports the plugin too: the project's own environment, as a user installs it
        self.run_inmanta("project", "install", "--no-index", "--find-links", wheels)
        self.export(main, "-d")
        rid = "runner::Run[internal,name=touch]"
        self.assert_statuses({rid: "deployed"}, timeout=120)
        action = self.deploy_actions(rid)[-1]
        self.assertTrue(any(m["msg"] == f"ran with 7: touch {done}" for m in action["messages"]), action["messages"])
        installed = glob.glob(os.path.join(self.server.state_dir, "executors", "*", ".env", "lib", "python3*",
                                           "site-packages", "e2e_executor_pkg"))
        self.assertEqual(len(installed), 1, "installed into the code set's environment")

    def test_a_module_without_its_code_on_the_server_is_unavailable_with_the_reason(self):
        """A version whose module code names a file the server does not have, then one whose code
        cannot be imported: the resource is unavailable, and the reason names the missing file, then
        shows the load error as the compile does."""
        server = self.serve()
        self.environment(server, auto_deploy=False)
        status, answer = server.call("POST", "/api/v2/reserve_version", None, tid=self.env)
        self.assertEqual(status, 200, answer)
        version = answer["data"]
        rid = "runner::Run[internal,name=x]"
        resource = {"id": f"{rid},v={version}", "name": "x", "command": "true", "creates": f"{self.tmp}/x",
                    "purged": False, "requires": [], "send_event": False, "receive_events": True}
        info = {"runner": {"name": "runner", "version": "0" * 40, "requirements": [], "for_agents": ["internal"],
                           "files_in_module": [{"name": "inmanta_plugins.runner", "hash_value": "1" * 40,
                                                "is_byte_code": False}]}}
        status, answer = server.call("PUT", "/api/v1/version", {"version": version, "resources": [resource],
                                                                 "module_version_info": info}, tid=self.env)
        self.assertEqual(status, 200, answer)
        self.call("POST", f"/api/v1/version/{version}", {"push": True})
        self.assert_statuses({rid: "unavailable"}, timeout=20)
        messages = self.deploy_actions(rid)[-1]["messages"]
        reasons = [m.get("kwargs", {}).get("reason", "") for m in messages]
        self.assertTrue(any("1" * 40 in r and "not in the file store" in r for r in reasons), messages)

        # code that the executor cannot import: the load error as the compile shows it, with its line
        source = b"import inmanta_e2e_absent_pkg\n"
        digest = hashlib.sha1(source).hexdigest()
        self.call("PUT", f"/api/v1/file/{digest}", {"content": base64.b64encode(source).decode()})
        info["runner"]["files_in_module"][0]["hash_value"] = digest
        status, answer = server.call("POST", "/api/v2/reserve_version", None, tid=self.env)
        version = answer["data"]
        resource["id"] = f"{rid},v={version}"
        status, answer = server.call("PUT", "/api/v1/version", {"version": version, "resources": [resource],
                                                                 "module_version_info": info}, tid=self.env)
        self.assertEqual(status, 200, answer)
        self.call("POST", f"/api/v1/version/{version}", {"push": True})

        def load_error():
            return [m.get("kwargs", {}).get("reason", "") for a in self.deploy_actions(rid) if a["version"] == version
                    for m in a["messages"] if "Unable to load all plug-ins" in m.get("kwargs", {}).get("reason", "")]
        reasons = wait_for(load_error, 20)
        self.assertTrue(reasons, [a["messages"] for a in self.deploy_actions(rid)])
        self.assertIn("runner/plugins/__init__.py:1", reasons[0])
        self.assertIn("import inmanta_e2e_absent_pkg", reasons[0])
        # and a malformed module_version_info is refused with what is wrong
        status, answer = server.call("POST", "/api/v2/reserve_version", None, tid=self.env)
        bad = {"runner": {"name": "runner", "version": "1", "files_in_module": [{"name": "x"}]}}
        status, answer = server.call("PUT", "/api/v1/version", {"version": answer["data"], "resources": [],
                                                                 "module_version_info": bad}, tid=self.env)
        self.assertEqual(status, 400, answer)
        self.assertIn("module_version_info.runner.files_in_module", str(answer))

    def test_a_server_with_deploy_false_releases_but_deploys_nothing(self):
        self.environment(self.serve(extra_config="[server]\ndeploy = false\n"))
        self.export(self.file_model("f", "not written"), "-d")
        time.sleep(2)  # what a deploying server takes for one file is well below this
        self.assertFalse(os.path.exists(f"{self.tmp}/f"))
        self.assertEqual(self.statuses(), {self.file_id("f"): "available"})
        self.assertEqual(self.deploy_actions(self.file_id("f")), [])
        agents = self.call("GET", "/api/v2/agents")["data"]
        self.assertTrue(agents and all(a["status"] == "down" for a in agents), str(agents))

    def test_o19_recovery_cascade(self):
        self.environment(self.serve(), autostart_agent_deploy_interval="600")
        chain = ('a = std::testing::NullResource(name="a", fail={fail})\n'
                 'b = std::testing::NullResource(name="b", requires=a)\n'
                 'c = std::testing::NullResource(name="c", requires=b)\n')
        ids = {n: f"std::testing::NullResource[internal,name={n}]" for n in "abc"}
        self.export(chain.format(fail="true"))
        self.assert_statuses({ids["a"]: "failed", ids["b"]: "skipped", ids["c"]: "skipped"})
        before = {n: len(self.deploy_actions(rid)) for n, rid in ids.items()}
        fixed_at = time.time()
        self.export(chain.format(fail="false"))
        self.assert_statuses({rid: "deployed" for rid in ids.values()}, timeout=5)
        self.assertLess(time.time() - fixed_at, 8, "recovery within seconds, long before the 600 s retry")
        after = {n: self.deploy_actions(rid) for n, rid in ids.items()}
        self.assertEqual(len(after["a"]), before["a"] + 1, "the fixed A is deployed once")
        self.assertIn("a new version was released", self.reasons(after["a"][-1]))
        for name, cause in (("b", "a"), ("c", "b")):
            self.assertEqual(len(after[name]), before[name] + 1, f"{name} runs once more")
            reasons = self.reasons(after[name][-1])
            self.assertTrue(any(r.endswith(f"received from {ids[cause]}") for r in reasons),
                            f"{name} runs because {cause} recovered: {reasons}")

    def test_o24_repair_restores_drift(self):
        self.environment(self.serve(), autostart_agent_repair_interval="3", autostart_agent_deploy_interval="600")
        path = f"{self.tmp}/f"
        self.export(self.file_model("f", "kept"))
        self.assert_statuses({self.file_id("f"): "deployed"})
        with open(path, "w") as fd:
            fd.write("drifted")
        self.assertTrue(wait_for(lambda: file_text(path) == "kept", 10), "the repair timer restores the file")
        # the run's record is committed a moment after the handler wrote the file (the journal
        # writes in batches), and the status stays `deployed` throughout: wait for the record
        repairs = wait_for(lambda: [a for a in self.deploy_actions(self.file_id("f")) if a["change"] == "updated"], 10)
        self.assertTrue(repairs, "a deploy action with change `updated`")
        self.assertIn("previous repair happened more than 3s ago", self.reasons(repairs[-1]))

        self.call("POST", "/api/v2/environment_settings/autostart_agent_repair_interval", {"value": "0"})
        with open(path, "w") as fd:
            fd.write("drifted again")
        time.sleep(6)
        self.assertEqual(file_text(path), "drifted again", "repair interval 0: no self-healing")

    def test_o25_retry_after_failure(self):
        self.environment(self.serve(), autostart_agent_deploy_interval="2")
        parent = f"{self.tmp}/missing"
        self.export(f'std::File(host=host, path="{parent}/f", content="retried", owner="{USER}", group="{GROUP}", '
                    'mode=644)\n')
        rid = f"std::File[localhost,path={parent}/f]"
        self.assert_statuses({rid: "failed"})
        os.mkdir(parent)
        made_at = time.time()
        self.assert_statuses({rid: "deployed"}, timeout=6)
        self.assertLess(time.time() - made_at, 6.5)
        self.assertEqual(file_text(f"{parent}/f"), "retried")
        reasons = self.reasons(self.deploy_actions(rid)[-1])
        self.assertIn("previous deploy happened more than 2s ago", reasons)

    def test_o26_only_the_changed_resource_deploys(self):
        self.environment(self.serve())
        nulls = "".join(f'std::testing::NullResource(name="n{i}")\n' for i in range(5))
        ids = [f"std::testing::NullResource[internal,name=n{i}]" for i in range(5)] + [self.file_id("f")]
        self.export(nulls + self.file_model("f", "one"))
        self.assert_statuses({rid: "deployed" for rid in ids})
        before = {rid: [a["action_id"] for a in self.deploy_actions(rid)] for rid in ids}
        self.export(nulls + self.file_model("f", "two"))
        self.assertTrue(wait_for(lambda: file_text(f"{self.tmp}/f") == "two", 10))
        self.assert_statuses({rid: "deployed" for rid in ids})
        time.sleep(1)
        after = {rid: [a["action_id"] for a in self.deploy_actions(rid)] for rid in ids}
        self.assertEqual(len(after[self.file_id("f")]), len(before[self.file_id("f")]) + 1, "F deploys once more")
        self.assertEqual({rid: after[rid] for rid in ids[:5]}, {rid: before[rid] for rid in ids[:5]},
                         "the unchanged NullResources keep their previous actions")

    def test_o27_reload_on_event(self):
        record = os.path.join(self.tmp, "systemctl.calls")
        stub = os.path.join(self.tmp, "systemctl")
        with open(stub, "w") as fd:
            # running and enabled: the Service itself never needs a change, only reloads
            fd.write(f'#!/bin/sh\necho "$*" >> \'{record}\'\ncase "$1" in\n'
                     '  status) echo "Loaded: loaded"; exit 0;;\n  *) exit 0;;\nesac\n')
        os.chmod(stub, 0o755)
        self.environment(self.serve(systemctl=stub))
        model = (self.file_model("conf", "{content}", reload="true")
                 + 'std::Service(host=host, name="o27", state="running", onboot=true, requires=conf)\n')
        service = "std::Service[localhost,name=o27]"
        self.export(model.format(content="first"))
        self.assert_statuses({self.file_id("conf"): "deployed", service: "deployed"})

        def reloads():
            return (file_text(record) or "").splitlines().count("reload-or-restart o27.service")

        first = reloads()
        self.export(model.format(content="second"))
        self.assertTrue(wait_for(lambda: reloads() == first + 1, 10),
                        f"the content change reloads the service; stub calls: {file_text(record)}")
        self.assertEqual(self.deploy_actions(self.file_id("conf"))[-1]["change"], "updated")
        self.assert_statuses({self.file_id("conf"): "deployed", service: "deployed"})

        service_runs = len(self.deploy_actions(service))
        self.call("POST", "/api/v1/deploy", {"agent_trigger_method": "push_full_deploy"})
        self.assertTrue(wait_for(lambda: len(self.deploy_actions(service)) >= service_runs + 1, 10),
                        "the repair runs the service")
        time.sleep(1)
        self.assertEqual(reloads(), first + 1, f"a repair without changes reloads nothing: {file_text(record)}")

        # receive_events=false: S's own change deploys it once, then F's changes no longer run it
        deaf = model.replace("requires=conf)", "requires=conf, receive_events=false)")
        self.export(deaf.format(content="third"))
        self.assert_statuses({self.file_id("conf"): "deployed", service: "deployed"})
        self.assertTrue(wait_for(lambda: file_text(f"{self.tmp}/conf") == "third", 10))
        time.sleep(1)
        service_runs = len(self.deploy_actions(service))
        file_runs = len(self.deploy_actions(self.file_id("conf")))
        self.export(deaf.format(content="fourth"))
        self.assertTrue(wait_for(lambda: len(self.deploy_actions(self.file_id("conf"))) == file_runs + 1, 10))
        self.assertEqual(file_text(f"{self.tmp}/conf"), "fourth")
        time.sleep(1)
        self.assertEqual(len(self.deploy_actions(service)), service_runs, "no event-triggered run of S")

    def test_o31_paused_agent(self):
        self.environment(self.serve(), auto_deploy=False)
        self.export('std::testing::NullResource(name="x", agentname="a1")\n'
                    'std::testing::NullResource(name="y", agentname="a2")\n')
        x, y = "std::testing::NullResource[a1,name=x]", "std::testing::NullResource[a2,name=y]"
        self.call("POST", "/api/v2/agent/a1/pause")
        version = self.latest_version()["version"]
        self.call("POST", f"/api/v1/version/{version}", {"push": True})
        self.assert_statuses({y: "deployed"})
        time.sleep(1)
        self.assert_statuses({x: "available"}, timeout=0)
        self.assertEqual(self.deploy_actions(x), [], "a paused agent starts no resource action")
        agents = {a["name"]: a["status"] for a in self.call("GET", "/api/v2/agents")["data"]}
        self.assertEqual((agents.get("a1"), agents.get("a2")), ("paused", "up"), str(agents))

        dryrun = self.call("POST", f"/api/v2/dryrun/{version}")["data"]

        def finished_report():
            report = self.call("GET", f"/api/v2/dryrun/{version}/{dryrun}")["data"]
            return report if report["summary"]["todo"] == 0 else None
        report = wait_for(finished_report, 10)
        self.assertTrue(report, "the dry-run finishes")
        diff = {d["resource_id"]: d["status"] for d in report["diff"]}
        self.assertEqual(diff.get(x), "agent_down", str(report["diff"]))

        self.call("POST", "/api/v2/agent/a1/unpause")
        self.assert_statuses({x: "deployed"})
        agents = {a["name"]: a["status"] for a in self.call("GET", "/api/v2/agents")["data"]}
        self.assertEqual(agents.get("a1"), "up", str(agents))

    def test_o32_user_deploy_and_repair(self):
        self.environment(self.serve())
        self.export('std::testing::NullResource(name="p", agentname="a1")\n'
                    'std::testing::NullResource(name="q", agentname="a2")\n' + self.file_model("f", "32"))
        ids = ["std::testing::NullResource[a1,name=p]", "std::testing::NullResource[a2,name=q]", self.file_id("f")]
        self.assert_statuses({rid: "deployed" for rid in ids})
        before = {rid: len(self.deploy_actions(rid)) for rid in ids}
        answer = self.call("POST", "/api/v1/deploy", {"agent_trigger_method": "push_incremental_deploy"})
        self.assertEqual(answer["agents"], ["a1", "a2", "localhost"])
        time.sleep(1.5)
        self.assertEqual({rid: len(self.deploy_actions(rid)) for rid in ids}, before,
                         "an incremental deploy of a compliant model runs nothing")
        self.call("POST", "/api/v1/deploy", {"agent_trigger_method": "push_full_deploy"})
        self.assertTrue(wait_for(lambda: all(len(self.deploy_actions(rid)) == before[rid] + 1 for rid in ids), 10),
                        "a repair gives every resource a new deploy action")
        self.assert_statuses({rid: "deployed" for rid in ids})
        for rid in ids:
            action = self.deploy_actions(rid)[-1]
            self.assertEqual(action["change"], "nochange", str(action))
            self.assertIn("user requested a repair", self.reasons(action))

    def test_o03_restart_keeps_states(self):
        server = self.serve()
        self.environment(server, autostart_agent_repair_interval="600", autostart_agent_deploy_interval="600")
        self.export(self.file_model("f", "three") + 'std::testing::NullResource(name="bad", fail=true)\n', "-d")
        bad = "std::testing::NullResource[internal,name=bad]"
        self.assert_statuses({self.file_id("f"): "deployed", bad: "failed"})
        statuses = self.statuses()
        file_actions = [a["action_id"] for a in self.deploy_actions(self.file_id("f"))]
        bad_actions = len(self.deploy_actions(bad))
        file_logs = self.logs(self.file_id("f"))
        versions = self.call("GET", "/api/v1/version")["versions"]
        settings = self.call("GET", "/api/v2/environment_settings")["data"]["settings"]
        self.assertEqual(server.stop(), 0, server.output())

        self.server = self.serve(state_dir=server.state_dir, port=server.port, database=server.database)
        self.assertEqual(self.call("GET", "/api/v1/version")["versions"], versions)
        self.assertEqual(self.call("GET", "/api/v2/environment_settings")["data"]["settings"], settings)
        self.assertTrue(wait_for(lambda: len(self.deploy_actions(bad)) > bad_actions, 5),
                        "the failed resource is retried at start")
        time.sleep(3)
        self.assertEqual([a["action_id"] for a in self.deploy_actions(self.file_id("f"))], file_actions,
                         "no new deploy action for the compliant file")
        self.assertEqual(self.statuses(), statuses)
        self.assertEqual(self.logs(self.file_id("f")), file_logs)
        self.assertIn("the resource scheduler was started", self.reasons(self.deploy_actions(bad)[-1]))

    def test_o36_kill_during_deploy(self):
        server = self.serve(delay_ms=4000)
        self.environment(server)
        slow = "std::testing::NullResource[internal,name=slow]"
        self.export('std::testing::NullResource(name="slow")\n')
        self.assert_statuses({slow: "deploying"})
        self.assertEqual(server.kill(), -9)

        self.server = self.serve(state_dir=server.state_dir, port=server.port, database=server.database)
        self.assert_statuses({slow: "deployed"})
        actions = self.deploy_actions(slow)
        self.assertEqual([a["status"] for a in actions if a["status"] == "deploying"], [],
                         f"no action left running: {actions}")
        self.assertEqual(actions[-1]["status"], "deployed")

    def test_o40_stale_run(self):
        self.environment(self.serve(delay_ms=2000))
        rid = self.file_id("f")
        self.export(self.file_model("f", "old"))
        self.assert_statuses({rid: "deploying"})
        self.export(self.file_model("f", "new"))
        new_version = self.latest_version()["version"]
        first_deployed = self.wait_statuses({rid: "deployed"}, timeout=15)
        # the first moment the resource shows deployed, the new intent is on disk
        self.assertEqual(first_deployed.get(rid), "deployed")
        self.assertEqual(file_text(f"{self.tmp}/f"), "new")
        resource = self.call("GET", f"/api/v2/resource/{urllib.parse.quote(rid, safe='')}")["data"]
        self.assertEqual(resource["status"], "deployed")
        self.assertEqual(resource["attributes"]["hash"], hashlib.sha1(b"new").hexdigest(), "the new intent")
        self.assertTrue(any(a["version"] == new_version and a["status"] == "deployed"
                            for a in self.deploy_actions(rid)), "a deploy action for the new version")
        versions = {a["version"] for a in self.deploy_actions(rid)}
        self.assertEqual(versions, {new_version - 1, new_version}, "one run per intent")

    # The resource list is cached per environment (ResourceService::snapshot). A list read from the
    # store just before a run's last write must not be cached after that write's invalidate(), or
    # GET /api/v2/resource keeps showing `deploying` (or the previous result) for a finished run. This
    # provokes that race: readers poll the list while 20 agents finish their runs at nearly the same
    # moment, and 500 idle resources make every list read take a while.
    def test_statuses_follow_the_last_run(self):
        self.environment(self.serve())
        fast = [f"std::testing::NullResource[a{i},name=r{i}]" for i in range(20)]
        self.export("".join(f'std::testing::NullResource(name="r{i}", agentname="a{i}")\n' for i in range(20))
                    + "".join(f'std::testing::NullResource(name="idle{i}", agentname="idle")\n' for i in range(500)))
        self.assert_statuses({rid: "deployed" for rid in fast}, timeout=30)
        reading = threading.Event()

        def reader():
            while reading.is_set():
                self.server.call("GET", "/api/v2/resource", tid=self.env)

        def finished_since(start):
            actions = self.call("GET", "/api/v2/resource_actions?limit=100")["data"]
            return sum(1 for a in actions if a["action"] == "deploy" and a["status"] == "deployed"
                       and datetime.fromisoformat(a["started"]) >= start) >= len(fast)

        for _ in range(20):  # about half of the rounds end with a stale list while the bug is there
            reading.set()
            readers = [threading.Thread(target=reader) for _ in range(4)]
            for thread in readers:
                thread.start()
            start = datetime.now(timezone.utc)
            self.call("POST", "/api/v1/deploy", {"agent_trigger_method": "push_full_deploy",
                                                 "agents": [f"a{i}" for i in range(20)]})
            finished = wait_for(lambda: finished_since(start), 20)
            reading.clear()
            for thread in readers:
                thread.join()
            self.assertTrue(finished, "the repair of the 20 resources finishes")
            time.sleep(0.2)
            now = self.statuses()
            self.assertEqual({rid: now.get(rid) for rid in fast}, {rid: "deployed" for rid in fast},
                             "every finished run shows in GET /api/v2/resource")


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0]] + [a for a in sys.argv[2:] if a != "--postgres"], verbosity=2)
