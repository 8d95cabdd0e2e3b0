#!/usr/bin/env python3
"""End-to-end tests of modules' own Python code (issue 29) with the real binary.

A project imports `svc`, a module whose plugins/ package registers a plugin used by a typedef, a
`@resource` type with getters and a handler, and a dependency manager (in a sub-module), and whose
requirements.txt names a package. Checked: `compile` and `export -j` (resources, requires from the
dependency manager), `export -d` against rest_test_server.TestServer (the module's Python files are
stat'ed and uploaded, module_version_info names them with the reference's version hash and the
agents), `-X` shows a plugin's traceback, and a model whose modules have no Python code starts no
Python.
"""
import base64
import hashlib
import json
import os
import shutil
import subprocess
import sys
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rest_test_server import TestServer  # noqa: E402

from checks import check, finish  # noqa: E402
import checks  # noqa: E402

INMANTA = os.path.abspath(sys.argv[1])
ENV = str(uuid.uuid4())

PLUGINS_INIT = '''\
import logging

from inmanta.plugins import plugin, PluginException
from inmanta.resources import resource, PurgeableResource
from inmanta.agent.handler import provider, CRUDHandler

LOGGER = logging.getLogger(__name__)


@plugin
def valid_port(port: "int") -> "bool":
    return 0 < port < 65536


@plugin
def describe(service: "svc::Service") -> "string":
    LOGGER.warning("describing %s", service.name)
    return f"{service.name}@{service.host.name}:{service.port}"


@plugin
def fail(message: "string") -> "string":
    raise ValueError(message)


@resource("svc::Service", agent="host.name", id_attribute="name")
class Service(PurgeableResource):
    fields = ("name", "port", "banner")

    @staticmethod
    def get_banner(exporter, service):
        return service.name.upper() + "!"


@provider("svc::Service", name="svc")
class ServiceHandler(CRUDHandler):
    pass
'''

PLUGINS_DEPS = '''\
from inmanta.export import dependency_manager, export


@export("mark", "svc::Service")
def mark(exporter, types):
    with open("hook-ran", "w") as fd:
        fd.write(",".join(sorted(s.name for s in types["svc::Service"])))


@dependency_manager
def services_after_files(config_model, resources):
    """Every svc::Service waits for the std::File resources of its agent."""
    files = [r for r in resources.values() if r.id.entity_type == "std::File"]
    for r in resources.values():
        if r.id.entity_type == "svc::Service":
            for f in files:
                if f.id.agent_name == r.id.agent_name:
                    r.requires.add(f)
'''

MODEL_CF = '''\
typedef port as int matching svc::valid_port(self)

entity Service extends std::PurgeableResource:
  string name
  port port = 80
end
Service.host [1] -- std::Host
implement Service using std::none
'''

MAIN = '''\
import svc
h = std::Host(name="h1", os=std::linux)
s = svc::Service(host=h, name="web", port=8080)
std::ConfigFile(host=h, path="/etc/web.conf", content="x")
std::print(svc::describe(s))
'''


def project(main=MAIN, extra=None):
    files = {"project.yml": "name: e2e\nmodulepath: libs\ndownloadpath: libs\nrepo: []\n", "main.cf": main,
             "libs/svc/module.yml": "name: svc\nversion: 1.0.0\nlicense: ASL\n",
             "libs/svc/model/_init.cf": MODEL_CF,
             "libs/svc/plugins/__init__.py": PLUGINS_INIT,
             "libs/svc/plugins/deps/__init__.py": PLUGINS_DEPS,
             "libs/svc/requirements.txt": "# what the handler needs\nrequests>=2\ninmanta-module-std\n"}
    files.update(extra or {})
    return checks.project(files, "inmanta-module-code-e2e-")


def run(d, args, env=None):
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("INMANTA_")}
    full_env["HOME"] = d
    full_env.update(env or {})
    return subprocess.run([INMANTA, "--config-dir", os.path.join(d, "no-config-dir"), *args], cwd=d,
                          capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL, env=full_env)


# ----------------------------------------------------------------- compile and export -j
d = project()
proc = run(d, ["compile"])
check("compile with module code", proc.returncode == 0 and proc.stdout == "web@h1:8080\n", proc.stdout + proc.stderr)
check("a module's Python log line is shown", "inmanta_plugins.svc WARNING describing web" in proc.stderr,
      proc.stderr)

proc = run(d, ["export", "-j", "out.json"])
check("export -j with module code", proc.returncode == 0, proc.stderr)
resources = {r["id"]: r for r in json.load(open(os.path.join(d, "out.json")))}
service = resources.get("svc::Service[h1,name=web],v=0")
check("the @resource type is exported with its getters", service is not None and service["port"] == 8080
      and service["banner"] == "WEB!" and service["purged"] is False, resources)
check("the dependency manager adds requires",
      service is not None and service["requires"] == ["std::File[h1,path=/etc/web.conf]"], service)

# an @export hook, by name
proc = run(d, ["export", "-j", "out.json", "--export-plugin", "mark"])
ran = os.path.join(d, "hook-ran")
check("--export-plugin runs a module's @export hook", proc.returncode == 0 and os.path.exists(ran)
      and open(ran).read() == "web", proc.stderr)
proc = run(d, ["export", "-j", "out.json", "--export-plugin", "nothere"])
check("an unknown export plugin fails the export", proc.returncode == 1
      and "Error: Export function nothere does not exist." in proc.stderr, proc.stderr)

# a resource field whose getter returns a Python object JSON cannot hold: the export fails with
# the reference's encoder message (an export failure, not an internal error), writes no file,
# and `inmanta deploy` stores nothing
odd = {"libs/odd/module.yml": "name: odd\nversion: 1.0.0\nlicense: ASL\n",
       "libs/odd/model/_init.cf": "entity Thing extends std::Resource:\n  string name\nend\nimplement Thing using std::none\n",
       "libs/odd/plugins/__init__.py": "from inmanta.resources import resource, Resource\n\n\n"
                                       "@resource(\"odd::Thing\", agent=\"name\", id_attribute=\"name\")\n"
                                       "class Thing(Resource):\n    fields = (\"name\", \"tags\")\n\n"
                                       "    @staticmethod\n    def get_tags(exporter, thing):\n        return {1, 2}\n"}
d_odd = project(main="import odd\nodd::Thing(name=\"a\")\n", extra=odd)
proc = run(d_odd, ["export", "-j", "out.json"])
check("a getter's Python object fails the export as the reference's encoder does",
      proc.returncode == 1 and "EXPORT FAILURE" in proc.stderr and "{1, 2} is not JSON serializable" in proc.stderr
      and "InternalError" not in proc.stderr and not os.path.exists(os.path.join(d_odd, "out.json")), proc.stderr)
proc = run(d_odd, ["deploy"])
check("... and fails inmanta deploy the same way", proc.returncode == 1
      and "{1, 2} is not JSON serializable" in proc.stderr and "InternalError" not in proc.stderr, proc.stderr)

# a typedef whose constraint is a Python plugin
d2 = project(main='import svc\nh = std::Host(name="h1", os=std::linux)\nsvc::Service(host=h, name="x", port=0)\n')
proc = run(d2, ["compile"])
check("a plugin-backed typedef refuses a value", proc.returncode == 1 and "Invalid value 0, does not match constraint `svc::valid_port(self)`"
      in proc.stderr and "main.cf:3" in proc.stderr, proc.stderr)

# a Python exception: located, with its traceback under -X
d3 = project(main='import svc\nstd::print(svc::fail("boom"))\n')
proc = run(d3, ["compile"])
check("a Python exception is an ExternalException", proc.returncode == 1
      and "ExternalException: Exception in plugin svc::fail (./main.cf:2:12)" in proc.stderr
      and "caused by: ValueError: boom" in proc.stderr, proc.stderr)
proc = run(d3, ["-X", "compile"])
check("-X shows the traceback", proc.returncode == 1 and "Traceback (most recent call last)" in proc.stderr
      and 'plugins/__init__.py", line 23, in fail' in proc.stderr, proc.stderr)

# ----------------------------------------------------------------- export -d: the handler code
received = {}


def handler(rec):
    if rec.path == "/api/v2/reserve_version":
        return 200, {"data": 3}
    if rec.path == "/api/v2/protected_environment_settings":
        return 200, None
    if rec.path == "/api/v1/file":
        return 200, {"files": rec.body["files"]}  # the server has none of them
    if rec.path.startswith("/api/v1/file/"):
        content = base64.b64decode(rec.body["content"])
        assert hashlib.sha1(content).hexdigest() == rec.body["id"]
        received[rec.body["id"]] = content
        return 200, None
    if rec.path == "/api/v1/version":
        return 200, None
    if rec.path.startswith("/api/v1/version/"):
        return 200, {"model": {}}
    raise AssertionError(f"unexpected {rec}")


with TestServer(handler) as server:
    d = project(extra={".inmanta": f"[config]\nenvironment = {ENV}\n[compiler_rest_transport]\n"
                                   f"host = 127.0.0.1\nport = {server.port}\n"})
    proc = run(d, ["export", "-d"])
    check("export -d with module code", proc.returncode == 0, proc.stderr)
    init = open(os.path.join(d, "libs/svc/plugins/__init__.py"), "rb").read()
    deps = open(os.path.join(d, "libs/svc/plugins/deps/__init__.py"), "rb").read()
    init_hash, deps_hash = hashlib.sha1(init).hexdigest(), hashlib.sha1(deps).hexdigest()
    stats = [r.body["files"] for r in server.requests if r.path == "/api/v1/file"]
    check("the code files are stat'ed first", stats and sorted(stats[0]) == sorted([init_hash, deps_hash]), stats)
    check("the code files are uploaded", received.get(init_hash) == init and received.get(deps_hash) == deps,
          list(received))
    put = next((r for r in server.requests if r.path == "/api/v1/version"), None)
    info = put.body["module_version_info"].get("svc") if put else None
    version = hashlib.sha1((''.join(sorted([init_hash, deps_hash])) + "requests>=2").encode()).hexdigest()
    check("module_version_info names the module's files", info is not None and sorted(
        (f["name"], f["hash_value"], f["is_byte_code"]) for f in info["files_in_module"]) == sorted(
        [("inmanta_plugins.svc", init_hash, False), ("inmanta_plugins.svc.deps", deps_hash, False)]), info)
    check("module_version_info: requirements, agents, version", info is not None
          and info["requirements"] == ["requests>=2"] and info["for_agents"] == ["h1"]
          and info["version"] == version, info)
    check("std without its Python code is said once", proc.stderr.count(
        "a reference orchestrator will not be able to deploy its resources") == 1, proc.stderr)
    check("the version is released", any(r.path == "/api/v1/version/3" for r in server.requests),
          [r.path for r in server.requests])

# std on the module path with its Python code (as real projects have it in libs/): its files are
# uploaded as the reference uploads them (its code is never loaded: std is built in)
STD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "modules", "std")
with TestServer(handler) as server:
    received.clear()
    d = project(extra={".inmanta": f"[config]\nenvironment = {ENV}\n[compiler_rest_transport]\n"
                                   f"host = 127.0.0.1\nport = {server.port}\n",
                       "libs/std/plugins/__init__.py": "raise RuntimeError('std handler code is never imported')\n",
                       "libs/std/plugins/resources.py": "# std's resources and handlers\n",
                       "libs/std/requirements.txt": "Jinja2>=3.1,<4\n"})
    shutil.copytree(os.path.join(STD, "model"), os.path.join(d, "libs/std/model"))
    shutil.copy(os.path.join(STD, "module.yml"), os.path.join(d, "libs/std/module.yml"))
    proc = run(d, ["export", "-d"])
    check("export -d with std's code on the module path", proc.returncode == 0
          and "will not be able to deploy" not in proc.stderr, proc.stderr)
    put = next((r for r in server.requests if r.path == "/api/v1/version"), None)
    info = put.body["module_version_info"].get("std") if put else None
    init = hashlib.sha1(b"raise RuntimeError('std handler code is never imported')\n").hexdigest()
    res = hashlib.sha1(b"# std's resources and handlers\n").hexdigest()
    check("std's files in module_version_info", info is not None and sorted(
        (f["name"], f["hash_value"]) for f in info["files_in_module"]) == sorted(
        [("inmanta_plugins.std", init), ("inmanta_plugins.std.resources", res)])
        and info["requirements"] == ["Jinja2>=3.1,<4"] and info["for_agents"] == ["h1"], info)
    check("std's files uploaded", init in received and res in received, list(received))

# ----------------------------------------------------------------- no Python without module code


def loaded_libraries(args, cwd):
    env = dict(os.environ, LD_DEBUG="files")
    proc = subprocess.run([INMANTA] + args, cwd=cwd, capture_output=True, text=True, timeout=60, env=env,
                          stdin=subprocess.DEVNULL)
    return proc, [line.split("file=", 1)[1].split()[0] for line in proc.stderr.splitlines() if "file=" in line]


plain = checks.project({"project.yml": "name: e2e\nmodulepath: libs\n", "main.cf": "import plain\nplain::A()\n",
                        "libs/plain/module.yml": "name: plain\nversion: 1.0.0\nlicense: ASL\n",
                        "libs/plain/model/_init.cf": "entity A:\nend\nimplement A using std::none\n",
                        "libs/plain/plugins/README": "no Python here\n"}, "inmanta-module-code-e2e-")
proc, files = loaded_libraries(["compile"], plain)
check("modules without Python code start no Python", proc.returncode == 0 and not any(
    "libpython" in f or "inmanta_python" in f for f in files), files)
proc, files = loaded_libraries(["compile"], project())
check("a module with Python code loads the module", proc.returncode == 0 and any("inmanta_python" in f for f in files),
      files)

finish()
