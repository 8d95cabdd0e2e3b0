#!/usr/bin/env python3
"""`inmanta deploy` as a user runs it (orchestrator spec §9.2, §7.4, decisions D3/D4/D9): the real
binary in a fresh project under a temporary folder, writing only below that folder, with the
running user as owner and group. Scenarios O-16 … O-23, O-28, O-29, O-33, O-34, O-35, O-39, plus
`-f`, `--timeout`, SIGKILL in the middle of writing 2,000 files, Ctrl-C, and a module's own Python
handler (deployed, re-run without change, one that throws and one that hangs).

    deploy_test.py path/to/inmanta [unittest arguments]
"""
import grp
import hashlib
import json
import os
import pwd
import re
import shutil
import signal
import sqlite3
import stat
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from runner_module import RUNNER_MODEL, RUNNER_PLUGIN, copier_module_files, runner_module_files  # noqa: E402

INMANTA = os.path.abspath(sys.argv.pop(1) if len(sys.argv) > 1 else os.environ.get("INMANTA_BINARY", "inmanta"))
OWNER = pwd.getpwuid(os.getuid()).pw_name
GROUP = grp.getgrgid(os.getgid()).gr_name
PROJECT_YML = "name: deploy_e2e\nmodulepath: libs\ndownloadpath: libs\nrepo: []\n"
LOCK_MESSAGE = "another inmanta deploy is running in this project (data/deploy/lock)"

# O-29: a module whose Python code declares a resource type but ships no handler for it.
NO_HANDLER_PLUGIN = '''\
from inmanta.resources import resource, PurgeableResource


@resource("nohandler::Thing", agent="agent", id_attribute="name")
class Thing(PurgeableResource):
    fields = ("name",)
'''
NO_HANDLER_MODEL = '''\
entity Thing extends std::PurgeableResource:
  string name
  string agent = "internal"
end
implement Thing using std::none
'''

class Deploy(unittest.TestCase):
    """One fresh project per test; helpers write its model and run `inmanta deploy` in it."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="inmanta-deploy-e2e-")
        self.addCleanup(shutil.rmtree, self.tmp, ignore_errors=True)
        self.project = os.path.join(self.tmp, "project")
        self.root = os.path.join(self.tmp, "target")  # everything the models manage lives here
        os.makedirs(self.project)
        os.makedirs(self.root)
        self.write("project.yml", PROJECT_YML)

    # --- helpers ---------------------------------------------------------------------------------

    def write(self, relative, text):
        full = os.path.join(self.project, relative)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", encoding="utf-8") as fd:
            fd.write(text)

    def path(self, *parts):
        return os.path.join(self.root, *parts)

    def model(self, body, name="main.cf"):
        """A main file importing std::testing with a `host`; `{root}` in body is the target folder."""
        self.write(name, 'import std::testing\nhost = std::Host(name="localhost", os=std::linux)\n'
                   + body.replace("{root}", self.root))

    @staticmethod
    def file(var, path, content, extra=""):
        return (f'{var} = std::File(host=host, path="{path}", owner="{OWNER}", group="{GROUP}", mode=644, '
                f'content={json.dumps(content)}{extra})\n')

    @staticmethod
    def directory(var, path, extra=""):
        return f'{var} = std::Directory(host=host, path="{path}", owner="{OWNER}", group="{GROUP}", mode=755{extra})\n'

    def environment(self, extra=None):
        env = {k: v for k, v in os.environ.items() if not k.startswith("INMANTA_")}
        env["HOME"] = self.tmp
        env.update(extra or {})
        return env

    def command(self, *args):
        return [INMANTA, "--config-dir", os.path.join(self.tmp, "no-config-dir"), "deploy", *args]

    def deploy(self, *args, env=None, timeout=60):
        """Runs `inmanta deploy ARGS`; returns (process, report) with the report parsed for --json."""
        proc = subprocess.run(self.command(*args), cwd=self.project, capture_output=True, text=True,
                              timeout=timeout, env=self.environment(env), stdin=subprocess.DEVNULL)
        report = None
        if "--json" in args and proc.stdout.strip():
            try:
                report = json.loads(proc.stdout)
            except ValueError:
                self.fail(f"--json printed no JSON document: {proc.stdout!r} {proc.stderr!r}")
        return proc, report

    def start(self, *args, env=None):
        return subprocess.Popen(self.command(*args), cwd=self.project, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env=self.environment(env),
                                stdin=subprocess.DEVNULL)

    def deployed(self, *args, **kwargs):
        """A --json deploy that must exit 0; returns its report."""
        proc, report = self.deploy("--json", *args, **kwargs)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        return report

    @staticmethod
    def by_id(report):
        return {r["id"]: r for r in report["resources"]}

    def status(self, report, rid):
        resources = self.by_id(report)
        self.assertIn(rid, resources, json.dumps(report, indent=1))
        return resources[rid]

    def assertOutcome(self, report, rid, status, change=None):
        r = self.status(report, rid)
        self.assertEqual(r["status"], status, json.dumps(r))
        if change is not None:
            self.assertEqual(r["change"], change, json.dumps(r))
        return r

    def file_id(self, path):
        return f"std::File[localhost,path={path}]"

    def directory_id(self, path):
        return f"std::Directory[localhost,path={path}]"

    def symlink_id(self, target):
        return f"std::Symlink[localhost,target={target}]"

    @staticmethod
    def null_id(name):
        return f"std::testing::NullResource[internal,name={name}]"

    @staticmethod
    def read(path):
        with open(path, encoding="utf-8") as fd:
            return fd.read()

    def store(self):
        db = sqlite3.connect(os.path.join(self.project, "data", "deploy", "inmanta.db"))
        self.addCleanup(db.close)
        return db

    def deploy_runs(self):
        """(resource id, started, finished) of every deploy action in the store: a run names its
        resource in its own row (migration 005), an older action in resource_action_resource."""
        return self.store().execute(
            "SELECT a.resource_id, a.started, a.finished FROM resource_action a "
            "WHERE a.action = 'deploy' AND a.resource_id IS NOT NULL UNION ALL "
            "SELECT r.resource_id, a.started, a.finished FROM resource_action a "
            "JOIN resource_action_resource r ON r.action_id = a.action_id WHERE a.action = 'deploy'").fetchall()

    def versions(self):
        return [row[0] for row in self.store().execute("SELECT version FROM model_version ORDER BY version")]

    def o16_model(self, content="hello\n", extra=""):
        """Directory D, File F in D (mode 644), Symlink L -> F (O-16)."""
        self.model(self.directory("d", "{root}/d")
                   + self.file("f", "{root}/d/f.txt", content, ", requires=d")
                   + 'l = std::Symlink(host=host, source=f.path, target="{root}/d/l", requires=f)\n' + extra)
        return self.path("d"), self.path("d", "f.txt"), self.path("d", "l")

    # --- scenarios -------------------------------------------------------------------------------

    def test_o16_first_deploy_and_o17_idempotent_rerun(self):
        d, f, link = self.o16_model()
        proc, _ = self.deploy()
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertIn("Exported version 1 with 3 resources", proc.stdout + proc.stderr)
        self.assertIn("Deployed version 1: 3 deployed (3 changed), 0 failed", proc.stdout)
        changed = proc.stdout.split("Changed:", 1)[-1]
        for rid in (self.directory_id(d), self.file_id(f), self.symlink_id(link)):
            self.assertIn(rid, changed, proc.stdout)
        self.assertTrue(os.path.isdir(d))
        self.assertEqual(self.read(f), "hello\n")
        self.assertEqual(stat.S_IMODE(os.stat(f).st_mode), 0o644)
        self.assertEqual(os.readlink(link), f)
        before = {p: os.lstat(p).st_mtime_ns for p in (d, f, link)}

        time.sleep(0.05)  # so that a rewrite would show in the nanosecond mtimes
        report = self.deployed()
        self.assertEqual(report["version"], 2)
        self.assertEqual(len(report["resources"]), 3)
        for r in report["resources"]:
            self.assertEqual((r["status"], r["change"]), ("deployed", "nochange"), json.dumps(r))
        self.assertIn("(0 changed)", report["summary"])
        self.assertEqual({p: os.lstat(p).st_mtime_ns for p in (d, f, link)}, before)
        proc, _ = self.deploy()
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertIn("Deployed version 3: 3 deployed (0 changed)", proc.stdout)

    def test_o18_failure_skips_dependents(self):
        f = self.path("missing", "f.txt")
        self.model(self.directory("u", "{root}/unrelated")
                   + self.file("f", "{root}/missing/f.txt", "x\n")
                   + 'l = std::Symlink(host=host, source=f.path, target="{root}/l", requires=f)\n')
        proc, report = self.deploy("--json")
        self.assertEqual(proc.returncode, 3, proc.stdout + proc.stderr)
        self.assertEqual(report["exit_code"], 3)
        failed = self.assertOutcome(report, self.file_id(f), "failed")
        self.assertIn("FileNotFoundError", failed["error"])
        skipped = self.assertOutcome(report, self.symlink_id(self.path("l")), "skipped")
        self.assertIn("skipped due to failed dependencies: ['" + self.file_id(f) + "']", skipped["error"])
        self.assertOutcome(report, self.directory_id(self.path("unrelated")), "deployed", "created")
        self.assertFalse(os.path.lexists(self.path("l")))
        # the text form: the failure's error under its progress line, the skip in the summary
        proc, _ = self.deploy()
        self.assertEqual(proc.returncode, 3)
        self.assertIn("1 failed, 1 skipped", proc.stdout)

    def test_o19_cascade_and_recovery(self):
        def write(fail):
            self.model(f'a = std::testing::NullResource(name="a", fail={fail})\n'
                       'b = std::testing::NullResource(name="b", requires=a)\n'
                       'c = std::testing::NullResource(name="c", requires=b)\n')
        write("true")
        proc, report = self.deploy("--json")
        self.assertEqual(proc.returncode, 3, proc.stdout + proc.stderr)
        self.assertIn("This resource is set to fail", self.assertOutcome(report, self.null_id("a"), "failed")["error"])
        b = self.assertOutcome(report, self.null_id("b"), "skipped")
        self.assertIn(self.null_id("a"), b["error"])
        c = self.assertOutcome(report, self.null_id("c"), "skipped")
        self.assertIn("skipped due to failed dependencies: ['" + self.null_id("b") + "']", c["error"])
        write("false")
        report = self.deployed()
        for name in "abc":
            self.assertOutcome(report, self.null_id(name), "deployed")

    def test_o20_dry_run(self):
        d, f, link = self.o16_model()
        self.deployed()
        g = self.path("d", "g.txt")
        self.o16_model("hello\nworld\n", self.file("g", "{root}/d/g.txt", "new\n", ", requires=d"))
        proc, report = self.deploy("--dry-run", "--json")
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertTrue(report["dry_run"])
        self.assertEqual(report["version"], 2)
        fr = self.status(report, self.file_id(f))
        self.assertEqual(fr["status"], "changed")
        self.assertIn("hash", fr["changes"])
        diff = "".join(fr.get("diff", []))
        self.assertIn("+world", diff, json.dumps(fr))
        gr = self.status(report, self.file_id(g))
        self.assertEqual(gr["changes"].get("purged"), {"current": True, "desired": False}, json.dumps(gr))
        for rid in (self.directory_id(d), self.symlink_id(link)):
            self.assertEqual(self.status(report, rid)["status"], "unchanged")
        self.assertEqual(report["summary"], {"would_change": 2, "unchanged": 2, "failed": 0})
        self.assertEqual(self.read(f), "hello\n")
        self.assertFalse(os.path.exists(g))
        released = dict(self.store().execute("SELECT version, released FROM model_version"))
        self.assertEqual(released, {1: 1, 2: 0})
        # the text form shows the content diff and the summary
        proc, _ = self.deploy("--dry-run")
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertIn("+world", proc.stdout)
        self.assertIn("Dry-run of version 3: 2 would change, 2 unchanged, 0 failed", proc.stdout)

        report = self.deployed()
        self.assertEqual(report["version"], 4)
        self.assertOutcome(report, self.file_id(f), "deployed", "updated")
        self.assertOutcome(report, self.file_id(g), "deployed", "created")
        self.assertEqual((self.read(f), self.read(g)), ("hello\nworld\n", "new\n"))

    def test_o20_failing_dry_run_exits_3(self):
        self.model('std::testing::NullResource(name="bad", fail=true)\nstd::testing::NullResource(name="ok")\n')
        proc, report = self.deploy("--dry-run", "--json")
        self.assertEqual(proc.returncode, 3, proc.stdout + proc.stderr)
        self.assertEqual(self.status(report, self.null_id("bad"))["status"], "failed")
        self.assertEqual(report["summary"]["failed"], 1)

    def test_o21_purge(self):
        d, f, link = self.o16_model()
        self.deployed()
        self.model(self.directory("d", "{root}/d")
                   + self.file("f", "{root}/d/f.txt", "hello\n", ", requires=d, purged=true")
                   + 'l = std::Symlink(host=host, source=f.path, target="{root}/d/l", purged=true)\n'
                   + self.file("n", "{root}/never.txt", "x\n", ", purged=true"))
        report = self.deployed()
        self.assertOutcome(report, self.file_id(f), "deployed", "purged")
        self.assertOutcome(report, self.symlink_id(link), "deployed", "purged")
        self.assertOutcome(report, self.directory_id(d), "deployed", "nochange")
        self.assertOutcome(report, self.file_id(self.path("never.txt")), "deployed", "nochange")
        self.assertFalse(os.path.lexists(f))
        self.assertFalse(os.path.lexists(link))
        self.assertTrue(os.path.isdir(d))
        self.assertFalse(os.path.lexists(self.path("never.txt")))
        report = self.deployed()
        for r in report["resources"]:
            self.assertEqual((r["status"], r["change"]), ("deployed", "nochange"), json.dumps(r))

    def test_o22_removed_from_model_is_orphaned(self):
        f, g = self.path("f.txt"), self.path("g.txt")
        self.model(self.file("f", "{root}/f.txt", "f\n") + self.file("g", "{root}/g.txt", "g\n"))
        self.deployed()
        self.model(self.file("f", "{root}/f.txt", "f\n"))
        report = self.deployed()
        self.assertIn(self.file_id(g), json.dumps(report["orphaned"]))
        self.assertNotIn(self.file_id(g), self.by_id(report))
        self.assertEqual(self.read(g), "g\n")
        proc, _ = self.deploy()
        self.assertEqual(proc.returncode, 0)

    def test_o23_drift_repaired_unless_incremental(self):
        f = self.path("f.txt")
        self.model(self.file("f", "{root}/f.txt", "wanted\n"))
        self.deployed()

        def drift():
            with open(f, "w") as fd:
                fd.write("drifted\n")
            os.chmod(f, 0o600)

        drift()
        report = self.deployed()
        r = self.assertOutcome(report, self.file_id(f), "deployed", "updated")
        self.assertIn("hash", r["changes"])
        self.assertEqual(r["changes"].get("permissions"), {"current": 600, "desired": 644}, json.dumps(r))
        self.assertEqual(self.read(f), "wanted\n")
        self.assertEqual(stat.S_IMODE(os.stat(f).st_mode), 0o644)

        drift()  # D4: --incremental deploys only what changed in the model, so the drift stays
        proc, report = self.deploy("--incremental", "--json")
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertEqual(self.read(f), "drifted\n")
        self.assertEqual(stat.S_IMODE(os.stat(f).st_mode), 0o600)
        self.assertNotEqual(self.status(report, self.file_id(f))["change"], "updated")

    def test_o28_undefined(self):
        x = self.path("x.txt")
        self.model(f'x = std::File(host=host, path="{x}", owner="{OWNER}", group="{GROUP}", mode=644, '
                   'content=std::get_env("INMANTA_E2E_SURELY_UNSET"))\n'
                   'y = std::testing::NullResource(name="y", requires=x)\n'
                   'z = std::testing::NullResource(name="z")\n')
        proc, report = self.deploy("--dry-run", "--json")
        self.assertEqual(self.status(report, self.file_id(x))["status"], "undefined")
        self.assertEqual(self.status(report, self.null_id("y"))["status"], "skipped_for_undefined")
        proc, report = self.deploy("--json")
        self.assertEqual(proc.returncode, 3, proc.stdout + proc.stderr)
        self.assertOutcome(report, self.file_id(x), "undefined")
        self.assertOutcome(report, self.null_id("y"), "skipped_for_undefined")
        self.assertOutcome(report, self.null_id("z"), "deployed")
        self.assertFalse(os.path.exists(x))
        deployed = [rid for rid, _, _ in self.deploy_runs()]
        self.assertIn(self.null_id("z"), deployed)
        self.assertNotIn(self.file_id(x), deployed, "no handler call for undefined resources")
        self.assertNotIn(self.null_id("y"), deployed, "no handler call for undefined resources")

    def test_o29_resource_type_without_handler(self):
        self.write("libs/nohandler/module.yml", "name: nohandler\nversion: 1.0.0\nlicense: ASL\n")
        self.write("libs/nohandler/model/_init.cf", NO_HANDLER_MODEL)
        self.write("libs/nohandler/plugins/__init__.py", NO_HANDLER_PLUGIN)
        self.model('import nohandler\nt = nohandler::Thing(name="t")\n'
                   'std::testing::NullResource(name="after", requires=t)\n'
                   'std::testing::NullResource(name="other")\n')
        proc, report = self.deploy("--json")
        self.assertEqual(proc.returncode, 3, proc.stdout + proc.stderr)
        t = self.assertOutcome(report, "nohandler::Thing[internal,name=t]", "unavailable")
        self.assertIn("Unable to find a handler", t.get("error", ""), json.dumps(t))
        self.assertOutcome(report, self.null_id("after"), "skipped")
        self.assertOutcome(report, self.null_id("other"), "deployed")

    def runner_module(self):
        for path, text in runner_module_files().items():
            self.write(path, text)

    def test_python_handler_of_a_module_deploys_and_reruns_without_change(self):
        self.runner_module()
        done = self.path("done")
        self.model(f'import runner\nrunner::Run(name="touch", command="touch {done}", creates="{done}")\n')
        rid = "runner::Run[internal,name=touch]"
        first = self.deployed()
        outcome = self.assertOutcome(first, rid, "deployed")
        self.assertEqual(outcome["change"], "created")
        self.assertEqual(outcome["changes"], {"purged": {"current": True, "desired": False}})
        self.assertTrue(os.path.exists(done))
        # the handler's own log line is in the deploy's resource action
        with sqlite3.connect(os.path.join(self.project, "data", "deploy", "inmanta.db")) as db:
            messages = [json.loads(row[0]) for row in db.execute(
                "SELECT messages FROM resource_action WHERE action = 'deploy'")]
        self.assertTrue(any(line["msg"] == f"ran touch {done}" for lines in messages for line in lines), messages)
        second = self.deployed()
        outcome = self.assertOutcome(second, rid, "deployed")
        self.assertEqual(outcome["change"], "nochange")
        self.assertIn("0 changed", second["summary"])
        # a dry-run after removing the file shows the run that would happen, and runs nothing
        os.remove(done)
        proc, report = self.deploy("--dry-run", "--json")
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertFalse(os.path.exists(done))

    def test_o38_report_only_reports_non_compliant_and_changes_nothing(self):
        """O-38 with a module resource type that has report_only: the difference is reported, the
        resource is non_compliant and the handler changes nothing; without report_only it deploys."""
        files = runner_module_files(RUNNER_PLUGIN.replace('fields = ("name", "command", "creates")',
                                                          'fields = ("name", "command", "creates", "report_only")'))
        files["libs/runner/model/_init.cf"] = RUNNER_MODEL.replace("  string creates\n",
                                                                   "  string creates\n  bool report_only = false\n")
        for path, text in files.items():
            self.write(path, text)
        done = self.path("done")
        self.model(f'import runner\nrunner::Run(name="r", command="touch {done}", creates="{done}", report_only=true)\n')
        rid = "runner::Run[internal,name=r]"
        proc, report = self.deploy("--json")
        self.assertEqual(proc.returncode, 3, "D3: a non-compliant resource has not reached its desired state")
        outcome = self.assertOutcome(report, rid, "non_compliant")
        self.assertIn("1 non-compliant", report["summary"])
        self.assertEqual(outcome["changes"], {"purged": {"current": True, "desired": False}}, json.dumps(outcome))
        self.assertFalse(os.path.exists(done), "report_only changes nothing")
        proc, _ = self.deploy()
        self.assertIn("Non-compliant (report only):\n  " + rid + "  non_compliant\n      purged: true -> false",
                      proc.stdout)
        self.model(f'import runner\nrunner::Run(name="r", command="touch {done}", creates="{done}")\n')
        self.assertOutcome(self.deployed(), rid, "deployed", "created")
        self.assertTrue(os.path.exists(done))

    def test_python_handler_reads_and_uploads_files_of_the_file_store(self):
        for path, text in copier_module_files().items():
            self.write(path, text)
        target = self.path("copy.txt")
        self.model(f'import copier\ncopier::Copy(path="{target}", content="from the file store\\n")\n')
        outcome = self.assertOutcome(self.deployed(), f"copier::Copy[internal,path={target}]", "deployed", "created")
        with open(target) as fd:
            self.assertEqual(fd.read(), "from the file store\n", json.dumps(outcome))
        reverse = "\nerots elif eht morf".encode()
        digest = hashlib.sha1(reverse).hexdigest()
        with sqlite3.connect(os.path.join(self.project, "data", "deploy", "inmanta.db")) as db:
            stored = db.execute("SELECT content FROM file WHERE content_hash = ?", (digest,)).fetchall()
        self.assertEqual([bytes(row[0]) for row in stored], [reverse], "the handler's upload_file is stored")

    def test_python_handler_that_throws_or_hangs_fails_only_its_resource(self):
        self.runner_module()
        self.model('import runner\n'
                   f'runner::Run(name="boom", command="false", creates="{self.path("never1")}")\n'
                   f'runner::Run(name="hang", command="hang", creates="{self.path("never2")}")\n'
                   'std::testing::NullResource(name="other")\n')
        started = time.monotonic()
        proc, report = self.deploy("--json", "--handler-timeout", "2")
        self.assertLess(time.monotonic() - started, 30, "a hung handler must not hang the deploy")
        self.assertEqual(proc.returncode, 3, proc.stdout + proc.stderr)
        boom = self.assertOutcome(report, "runner::Run[internal,name=boom]", "failed")
        self.assertIn("command failed with exit code 1", boom["error"])
        # located: the line of the module's Python code that raised
        self.assertRegex(boom["error"], r"\(at .*libs/runner/plugins/__init__\.py:\d+\)")
        hang = self.assertOutcome(report, "runner::Run[internal,name=hang]", "failed")
        self.assertIn("did not finish within 2 s", hang["error"])
        self.assertOutcome(report, self.null_id("other"), "deployed")

    def test_o30_ordering_and_concurrency(self):
        # two resources per agent, each handler call held 300 ms by the test hook; n2 requires m1
        self.model('m1 = std::testing::NullResource(name="m1", agentname="a1")\n'
                   'm2 = std::testing::NullResource(name="m2", agentname="a1")\n'
                   'n1 = std::testing::NullResource(name="n1", agentname="a2")\n'
                   'n2 = std::testing::NullResource(name="n2", agentname="a2", requires=m1)\n')
        self.deployed(env={"INMANTA_TEST_HANDLER_DELAY_MS": "300"})
        spans = {}
        for rid, started, finished in self.deploy_runs():
            spans[rid.split("name=")[1].rstrip("]")] = (started, finished)
        self.assertEqual(set(spans), {"m1", "m2", "n1", "n2"}, spans)

        def overlap(x, y):
            return spans[x][0] < spans[y][1] and spans[y][0] < spans[x][1]

        self.assertFalse(overlap("m1", "m2"), f"one agent runs one resource at a time: {spans}")
        self.assertFalse(overlap("n1", "n2"), spans)
        if (os.cpu_count() or 1) > 1:  # one worker per CPU
            self.assertTrue(overlap("m1", "n1") or overlap("m2", "n1"), f"the two agents work side by side: {spans}")
        self.assertGreaterEqual(spans["n2"][0], spans["m1"][1], f"n2 starts after m1, which it requires: {spans}")

    def test_o33_history_across_runs(self):
        self.model(self.file("f", "{root}/f.txt", "one\n"))
        self.deployed()
        first = self.store().execute(
            "SELECT count(*) FROM resource_action WHERE version = 1 AND action = 'deploy'").fetchone()[0]
        self.assertGreater(first, 0)
        self.model(self.file("f", "{root}/f.txt", "two\n"))
        self.deployed()
        self.deployed()
        self.assertEqual(self.versions(), [1, 2, 3])
        db = self.store()
        self.assertEqual(db.execute("SELECT count(*) FROM resource_action WHERE version = 1 AND action = 'deploy'")
                         .fetchone()[0], first)
        tables = [row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        self.assertIn("resource_action", tables)
        self.assertEqual(db.execute("PRAGMA integrity_check").fetchone()[0], "ok")

    def test_old_versions_are_pruned_to_the_number_kept(self):
        # the prune after the report, read ahead beside the export (readAheadPrune), keeps the
        # newest versions with their actions, and leaves no row of a pruned action behind
        self.write("project.yml", PROJECT_YML + "environment_settings:\n  available_versions_to_keep: 2\n")
        for content in ("one\n", "two\n", "three\n", "four\n"):
            self.model(self.file("f", "{root}/f.txt", content))
            self.deployed()
        self.assertEqual(self.versions(), [3, 4])
        self.assertEqual(self.read(self.path("f.txt")), "four\n")
        db = self.store()
        self.assertEqual(db.execute("SELECT DISTINCT version FROM resource_action ORDER BY version").fetchall(),
                         [(3,), (4,)])
        self.assertEqual(db.execute("SELECT count(*) FROM resource_action_resource WHERE action_id NOT IN "
                                    "(SELECT action_id FROM resource_action)").fetchone()[0], 0)
        self.assertEqual(db.execute("SELECT DISTINCT version FROM resource ORDER BY version").fetchall(),
                         [(3,), (4,)])
        self.assertEqual(db.execute("PRAGMA integrity_check").fetchone()[0], "ok")

    def test_o34_concurrent_deploys(self):
        self.model("".join(f'std::testing::NullResource(name="n{i}")\n' for i in range(10)))
        slow = {"INMANTA_TEST_HANDLER_DELAY_MS": "300"}
        first, second = self.start(env=slow), self.start(env=slow)
        outputs = [p.communicate(timeout=60) for p in (first, second)]
        codes = sorted(p.returncode for p in (first, second))
        self.assertEqual(codes, [0, 1], outputs)
        loser = outputs[[first.returncode, second.returncode].index(1)]
        self.assertIn(LOCK_MESSAGE, loser[1], loser)
        self.assertEqual(self.versions(), [1])
        self.assertEqual(self.store().execute("PRAGMA integrity_check").fetchone()[0], "ok")

    def test_o35_compile_error(self):
        self.model(self.file("f", "{root}/f.txt", "ok\n"))
        self.deployed()
        self.model(self.file("f", "{root}/f.txt", "ok\n") + self.file("g", "{root}/g.txt", "new\n")
                   + 'std::testing::NullResource(name=3)\n')
        proc, _ = self.deploy()
        self.assertEqual(proc.returncode, 1, proc.stdout + proc.stderr)
        self.assertIn("Invalid value '3', expected string (./main.cf:5)", proc.stderr)
        self.assertEqual(self.versions(), [1])
        self.assertFalse(os.path.exists(self.path("g.txt")))

    def test_o35_compile_error_in_fresh_project_stores_nothing(self):
        self.model("x = undefined_name\n" + self.file("g", "{root}/g.txt", "new\n"))
        proc, _ = self.deploy()
        self.assertEqual(proc.returncode, 1, proc.stdout + proc.stderr)
        self.assertIn("variable undefined_name not found (./main.cf:3:5)", proc.stderr)
        self.assertFalse(os.path.exists(self.path("g.txt")))
        # §9.2: the compile comes before the store is opened
        self.assertFalse(os.path.exists(os.path.join(self.project, "data", "deploy", "inmanta.db")))

    def test_the_compile_sees_the_deploy_environment(self):
        """std::environment() is the deploy environment's id, on the first run (before the store
        exists) as on the next; a project whose settings name an environment keeps that one."""
        self.model(f'std::File(host=host, path="{{root}}/env.txt", owner="{OWNER}", group="{GROUP}", mode=644, '
                   'content=std::environment())\n')
        report = self.deployed()
        (env_id,) = self.store().execute("SELECT id FROM environment WHERE name = 'deploy'").fetchone()
        self.assertEqual(self.read(self.path("env.txt")), env_id)
        self.assertOutcome(report, self.file_id(self.path("env.txt")), "deployed", "created")
        report = self.deployed()
        self.assertOutcome(report, self.file_id(self.path("env.txt")), "deployed", "nochange")
        configured = "0f3e1c4a-1111-4222-8333-444455556666"
        self.write(".inmanta", f"[config]\nenvironment = {configured}\n")
        report = self.deployed()
        self.assertOutcome(report, self.file_id(self.path("env.txt")), "deployed", "updated")
        self.assertEqual(self.read(self.path("env.txt")), configured)

    def test_o39_symlink_over_a_file(self):
        target = self.path("existing")
        with open(target, "w") as fd:
            fd.write("keep me\n")
        self.model(f'std::Symlink(host=host, source="/etc/hostname", target="{target}")\n')
        proc, report = self.deploy("--json")
        self.assertEqual(proc.returncode, 3, proc.stdout + proc.stderr)
        r = self.assertOutcome(report, self.symlink_id(target), "failed")
        self.assertIn("already exists but is not a symlink", r.get("error", ""))
        self.assertFalse(os.path.islink(target))
        self.assertEqual(self.read(target), "keep me\n")

    def test_main_file_option(self):
        self.model(self.file("f", "{root}/main.txt", "main\n"))
        self.model(self.file("o", "{root}/other.txt", "other\n"), name="other.cf")
        report = self.deployed("-f", "other.cf")
        self.assertEqual(list(self.by_id(report)), [self.file_id(self.path("other.txt"))])
        self.assertEqual(self.read(self.path("other.txt")), "other\n")
        self.assertFalse(os.path.exists(self.path("main.txt")))

    def test_timeout_reports_unfinished(self):
        self.model("".join(f'std::testing::NullResource(name="n{i}")\n' for i in range(10)))
        started = time.monotonic()
        proc, report = self.deploy("--timeout", "1", "--json", env={"INMANTA_TEST_HANDLER_DELAY_MS": "400"})
        self.assertEqual(proc.returncode, 3, proc.stdout + proc.stderr)
        self.assertTrue(report["timed_out"])
        self.assertLess(time.monotonic() - started, 4.5)
        unfinished = [r for r in report["resources"] if r["status"] in ("deploying", "available")]
        self.assertTrue(unfinished, json.dumps(report, indent=1))
        # the next run continues from a consistent store
        report = self.deployed(env={"INMANTA_TEST_HANDLER_DELAY_MS": "10"})
        self.assertTrue(all(r["status"] == "deployed" for r in report["resources"]), json.dumps(report))

    def test_sigkill_while_writing_2000_files(self):
        count = 2000

        def write(content):
            self.model("d = std::Directory(host=host, path=\"{root}/files\", owner=\"%s\", group=\"%s\", mode=755)\n"
                       "for i in std::sequence(%d):\n"
                       "    std::File(host=host, path=\"{root}/files/f{{i}}\", owner=\"%s\", group=\"%s\", "
                       "mode=644, content=%s, requires=d)\n"
                       "end\n" % (OWNER, GROUP, count, OWNER, GROUP, json.dumps(content)))
        old, new = "A" * 100 + "\n", "B" * 5000 + "\n"
        paths = [self.path("files", f"f{i}") for i in range(count)]
        write(old)
        self.deployed(timeout=120)
        self.assertTrue(all(self.read(p) == old for p in paths))

        write(new)
        proc = self.start()
        time.sleep(0.1)
        # kill once the first new content shows (or after 3 s): then the writes are under way
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline and proc.poll() is None:
            if any(self.read(p).startswith("B") for p in paths[::97]):
                break
            time.sleep(0.005)
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=30)
        written = [self.read(p) for p in paths]
        contents = set(written)
        # how far the killed run got, for whoever reads the log (0 or 2000 means the kill missed)
        print(f"\n  killed after writing {sum(c.startswith('B') for c in written)} of {count} files", file=sys.stderr)
        self.assertLessEqual(contents, {old, new},
                             [c[:20] + f"...({len(c)})" for c in contents])
        # D9: the content is written to a file without a name (O_TMPFILE), named only once complete
        # and renamed at once: only a kill between those two steps (microseconds) leaves a
        # temporary file, and then one named after its target, never other debris
        leftovers = set(os.listdir(self.path("files"))) - {f"f{i}" for i in range(count)}
        self.assertLessEqual(len(leftovers), 1, leftovers)
        self.assertTrue(all(re.fullmatch(r"\.f\d+\.inmanta-\w{6}", name) for name in leftovers), leftovers)
        proc, _ = self.deploy(timeout=120)
        self.assertEqual(proc.returncode, 0, proc.stdout[-2000:] + proc.stderr[-2000:])
        self.assertTrue(all(self.read(p) == new for p in paths))

    def test_ctrl_c_during_a_slow_deploy(self):
        self.model("".join(f'std::testing::NullResource(name="n{i}")\n' for i in range(10)))
        proc = self.start("--json", env={"INMANTA_TEST_HANDLER_DELAY_MS": "300"})
        # interrupt once the first resource finished (its progress line is on stderr with --json)
        seen = ""
        while not seen.startswith("[1/"):
            seen = proc.stderr.readline()
            self.assertTrue(seen, "the deploy ended before its first progress line")
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
        self.assertEqual(proc.returncode, 3, out + err)
        report = json.loads(out)
        self.assertTrue(report["interrupted"])
        self.assertFalse(all(r["status"] == "deployed" for r in report["resources"]), out)
        report = self.deployed()
        self.assertEqual(report["version"], 2)
        self.assertTrue(all(r["status"] == "deployed" for r in report["resources"]), json.dumps(report))


if __name__ == "__main__":
    unittest.main(verbosity=2)
