#!/usr/bin/env python3
"""End-to-end tests of `inmanta-cli` (the `inmanta` binary called through a symlink of that name)
against a real `inmanta server` on 127.0.0.1: every command's table and --json output, the
settings it reads (.inmanta, INMANTA_CMDLINE_REST_TRANSPORT_*), and its errors and exit codes.
Run by ctest with the binary's path."""
import base64
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, finish  # noqa: E402
from live_server import LiveServer, free_port  # noqa: E402

INMANTA = os.path.abspath(sys.argv[1])
WORK = tempfile.mkdtemp(prefix="inmanta-cli-e2e-")
CLI = os.path.join(WORK, "bin", "inmanta-cli")
os.makedirs(os.path.dirname(CLI))
os.symlink(INMANTA, CLI)
HOME = os.path.join(WORK, "home")
os.makedirs(HOME)
# no configuration of the machine or the caller: a clean environment, an empty HOME
BASE_ENV = {k: v for k, v in os.environ.items() if not k.startswith("INMANTA_")}
BASE_ENV["HOME"] = HOME


def cli(args, port=None, cwd=WORK, env=None, stdin=None, timeout=60):
    """Runs inmanta-cli (with --host/--port of `port` when given); returns the finished process."""
    full = [CLI] + (["--host", "127.0.0.1", "--port", str(port)] if port else []) + args
    return subprocess.run(full, cwd=cwd, env=dict(BASE_ENV, **(env or {})), capture_output=True, text=True,
                          timeout=timeout, input=stdin if stdin is not None else "")


def show(proc):
    return f"exit {proc.returncode}\nstdout: {proc.stdout}\nstderr: {proc.stderr}"


def ok(name, proc, *expected):
    """The command succeeded and its standard output holds every expected text."""
    good = proc.returncode == 0 and all(text in proc.stdout for text in expected)
    check(name, good, show(proc))
    return good


def fails(name, proc, code, *expected):
    """The command failed with `code` and its standard error holds every expected text."""
    check(name, proc.returncode == code and all(text in proc.stderr for text in expected), show(proc))


def as_json(name, proc):
    """The command's standard output as JSON (None, and a failed check, when it is not)."""
    try:
        value = json.loads(proc.stdout)
    except ValueError:
        check(name + " is JSON", False, show(proc))
        return None
    check(name + " is JSON", proc.returncode == 0, show(proc))
    return value


def table_rows(text):
    """The data rows of a table: lists of stripped cells."""
    rows, seen_header = [], False
    for line in text.splitlines():
        if line.startswith("+="):
            seen_header = True
        elif seen_header and line.startswith("|"):
            rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


# Without a server: help, usage errors, and an unreachable server.
proc = cli(["--help"])
ok("help lists the groups", proc, "project", "environment", "agent", "version", "param", "token", "action-log",
   "monitor")
proc = cli(["project", "nonsense"])
check("unknown command: exit 2", proc.returncode == 2, show(proc))
proc = cli(["agent", "list"])
check("missing --environment: exit 2", proc.returncode == 2 and "environment" in proc.stderr, show(proc))
proc = cli(["project", "list"], port=free_port())
fails("no server: exit 1 naming the address", proc, 1, "could not reach the server at http://127.0.0.1:")

with LiveServer(INMANTA) as server:
    P = server.port

    # projects
    proc = cli(["project", "list"], P)
    check("project list, none", proc.returncode == 0 and "No projects defined." in proc.stderr, show(proc))
    check("project list --json, none", as_json("project list --json", cli(["project", "list", "--json"], P)) == [])
    proc = cli(["project", "create", "-n", "demo"], P)
    ok("project create", proc, "| Name", "| demo")
    rows = table_rows(proc.stdout)
    project_id = rows[0][1] if rows and rows[0][0] == "ID" else ""
    check("project create shows the id", len(project_id) == 36, proc.stdout)
    check("project table has a border and a header rule",
          proc.stdout.startswith("+") and "\n+=" in proc.stdout and proc.stdout.rstrip().endswith("+"), proc.stdout)
    other = as_json("project create --json", cli(["project", "create", "-n", "other", "--json"], P))
    check("project create --json", isinstance(other, dict) and other.get("name") == "other", str(other))
    fails("project create, duplicate name: exit 1 with the server's message", cli(["project", "create", "-n", "demo"], P),
          1, "demo")
    proc = cli(["project", "list"], P)
    ok("project list", proc, project_id, "demo", "other")
    listed = as_json("project list --json", cli(["project", "list", "--json"], P))
    check("project list --json", sorted(p["name"] for p in listed or []) == ["demo", "other"], str(listed))
    ok("project show by name", cli(["project", "show", "demo"], P), project_id)
    ok("project show by id", cli(["project", "show", project_id], P), "demo")
    shown = as_json("project show --json", cli(["project", "show", "demo", "--json"], P))
    check("project show --json", isinstance(shown, dict) and shown.get("id") == project_id, str(shown))
    fails("project show, unknown name", cli(["project", "show", "nosuch"], P), 1,
          "Unable to find a project with the given id or name")
    fails("project show, unknown id: 404 message", cli(["project", "show", "00000000-0000-0000-0000-000000000001"], P),
          1, "not found")
    ok("project modify", cli(["project", "modify", "-n", "demo2", "demo"], P), "demo2", project_id)

    # environments
    proc = cli(["environment", "create", "-n", "dev", "-p", "demo2"], P)
    ok("environment create", proc, "Environment ID", "dev", "demo2", project_id)
    rows = table_rows(proc.stdout)
    env_id = rows[0][0] if rows else ""
    check("environment create shows the id", len(env_id) == 36, proc.stdout)
    created = as_json("environment create --json",
                      cli(["environment", "create", "-n", "empty", "-p", project_id, "--json"], P))
    empty_id = created.get("id") if isinstance(created, dict) else None
    check("environment create --json", isinstance(created, dict) and created.get("name") == "empty", str(created))
    fails("environment create, unknown project", cli(["environment", "create", "-n", "x", "-p", "nosuch"], P), 1,
          "Unable to find a project")
    fails("environment create, name taken: the server's message",
          cli(["environment", "create", "-n", "dev", "-p", "demo2"], P), 1, "dev")
    ok("environment list", cli(["environment", "list"], P), "Project name", "demo2", "dev", env_id, "empty")
    envs = as_json("environment list --json", cli(["environment", "list", "--json"], P))
    check("environment list --json", sorted(e["name"] for e in envs or []) == ["dev", "empty"], str(envs))
    ok("environment show", cli(["environment", "show", "dev"], P), env_id, "Repository URL", "Branch Name")
    proc = cli(["environment", "show", "dev", "--format", "{id}:{name}:{project} {{x}}"], P)
    check("environment show --format", proc.returncode == 0 and proc.stdout == f"{env_id}:dev:{project_id} {{x}}\n",
          show(proc))
    fails("environment show --format, unknown field", cli(["environment", "show", "dev", "--format", "{nope}"], P), 1,
          "nope")
    env = as_json("environment show --json", cli(["environment", "show", env_id, "--json"], P))
    check("environment show --json", isinstance(env, dict) and env.get("name") == "dev" and "settings" in env, str(env))
    fails("environment show, unknown name", cli(["environment", "show", "nosuch"], P), 1,
          "Unable to find an environment with the given id or name")
    ok("environment modify", cli(["environment", "modify", "-n", "dev2", "-r", "https://git.example/m", "-b", "main",
                                  "dev"], P), "dev2", "https://git.example/m", "main")

    # environment save: .inmanta, then the client reads its own section from it
    folder = tempfile.mkdtemp(dir=WORK)
    proc = cli(["environment", "save", "dev2"], P, cwd=folder)
    saved = open(os.path.join(folder, ".inmanta")).read() if os.path.exists(os.path.join(folder, ".inmanta")) else ""
    check("environment save writes .inmanta", proc.returncode == 0 and f"environment={env_id}" in saved
          and "[cmdline_rest_transport]" in saved and f"port={P}" in saved and "host=127.0.0.1" in saved,
          show(proc) + saved)
    proc = cli(["environment", "save", "dev2"], P, cwd=folder, stdin="n\n")
    check("environment save, existing file kept on no",
          proc.returncode == 0 and "not writing config" in proc.stderr, show(proc))
    proc = cli(["environment", "save", "dev2"], P, cwd=folder, stdin="")
    check("environment save, no answer: aborted", proc.returncode == 1 and "Aborted!" in proc.stderr, show(proc))
    ok(".inmanta gives the server", cli(["project", "list"], cwd=folder), "demo2")
    ok("INMANTA_CMDLINE_REST_TRANSPORT_* give the server",
       cli(["project", "list"], env={"INMANTA_CMDLINE_REST_TRANSPORT_HOST": "127.0.0.1",
                                     "INMANTA_CMDLINE_REST_TRANSPORT_PORT": str(P)}), "demo2")
    proc = cli(["environment", "create", "-n", "saved", "-p", "demo2", "--save"], P, cwd=tempfile.mkdtemp(dir=WORK))
    ok("environment create --save", proc, "saved")

    # settings
    proc = cli(["environment", "setting", "list", "-e", "dev2"], P)
    ok("setting list", proc, f"Settings for environment {env_id}", "auto_deploy", "Default value",
       "available_versions_to_keep")
    settings = as_json("setting list --json", cli(["environment", "setting", "list", "-e", env_id, "--json"], P))
    check("setting list --json", isinstance(settings, dict) and "auto_deploy" in settings.get("metadata", {}),
          str(settings)[:300])
    proc = cli(["environment", "setting", "set", "-e", "dev2", "-k", "auto_deploy", "-o", "false"], P)
    check("setting set: silent", proc.returncode == 0 and proc.stdout == "", show(proc))
    proc = cli(["environment", "setting", "get", "-e", "dev2", "-k", "auto_deploy"], P)
    check("setting get", proc.returncode == 0 and proc.stdout == "False\n", show(proc))
    value = as_json("setting get --json", cli(["environment", "setting", "get", "-e", "dev2", "-k", "auto_deploy",
                                               "--json"], P))
    check("setting get --json", value is False, str(value))
    ok("setting set an int", cli(["environment", "setting", "set", "-e", "dev2", "-k", "available_versions_to_keep",
                                  "-o", "5"], P))
    proc = cli(["environment", "setting", "get", "-e", "dev2", "-k", "available_versions_to_keep"], P)
    check("setting get an int", proc.stdout == "5\n", show(proc))
    ok("setting delete", cli(["environment", "setting", "delete", "-e", "dev2", "-k", "available_versions_to_keep"], P))
    proc = cli(["environment", "setting", "get", "-e", "dev2", "-k", "available_versions_to_keep"], P)
    check("setting delete resets to the default", proc.stdout == "100\n", show(proc))
    fails("setting set, unknown key", cli(["environment", "setting", "set", "-e", "dev2", "-k", "nope", "-o", "1"], P),
          1, "nope")
    fails("setting set, bad value: the server's message",
          cli(["environment", "setting", "set", "-e", "dev2", "-k", "auto_deploy", "-o", "maybe"], P), 1,
          "Invalid value")

    # a version of two resources, put the way an exporter does
    res_a = "std::File[localhost,path=/tmp/cli-e2e/a.txt]"
    res_b = "std::Directory[localhost,path=/tmp/cli-e2e]"
    status, reserved = server.call("POST", "/api/v2/reserve_version", {}, tid=env_id)
    version = reserved["data"] if status == 200 else 1
    common = {"owner": "root", "group": "root", "permissions": 644, "purged": False, "purge_on_delete": False,
              "send_event": True, "receive_events": True, "references": [], "mutators": [], "report_only": False}
    resources = [dict(common, id=f"{res_b},v={version}", requires=[], path="/tmp/cli-e2e"),
                 dict(common, id=f"{res_a},v={version}", requires=[res_b], path="/tmp/cli-e2e/a.txt",
                      hash="f572d396fae9206628714fb2ce00f72e94f2258f", reload=False)]
    status, body = server.call("PUT", "/api/v1/version", {"version": version, "resources": resources,
                                                          "module_version_info": {}, "resource_state": {}},
                               tid=env_id)
    check("setup: a version put", status == 200, f"{status} {body}")
    # the agent stays paused while the version's states are checked: the scheduler deploys what an
    # unpaused agent's resources hold
    status, body = server.call("POST", "/api/v2/agent/localhost/pause", {}, tid=env_id)
    check("setup: agent paused", status == 200, f"{status} {body}")

    proc = cli(["version", "list", "-e", "dev2"], P)
    ok("version list", proc, "Created at", "# Resources", "candidate")
    rows = table_rows(proc.stdout)
    check("version list row", rows and rows[0][1:] == [str(version), "False", "2", "candidate"], proc.stdout)
    versions = as_json("version list --json", cli(["version", "list", "-e", "dev2", "--json"], P))
    check("version list --json", isinstance(versions, list) and versions and versions[0].get("total") == 2,
          str(versions))
    proc = cli(["version", "report", "-e", "dev2", "-i", str(version)], P)
    ok("version report of a candidate", proc, "Agent: localhost", "Resource type:std::File (path)",
       "/tmp/cli-e2e/a.txt (#actions=", "Resource type:std::Directory (path)")
    proc = cli(["version", "release", "-e", "dev2", "--push", "--full", str(version)], P)
    ok("version release", proc, "Released", "True")
    fails("version release again: the server's 409 message", cli(["version", "release", "-e", "dev2", str(version)], P),
          1, "already released")
    fails("version release, unknown version", cli(["version", "release", "-e", "dev2", "99"], P), 1, "not found")
    check("version release, not a number: exit 2", cli(["version", "release", "-e", "dev2", "x"], P).returncode == 2)
    proc = cli(["version", "list", "-e", "dev2"], P)
    rows = table_rows(proc.stdout)
    check("version list after release", rows and rows[0][1:] == [str(version), "True", "2", "active"], proc.stdout)
    proc = cli(["version", "report", "-e", "dev2", "-i", str(version), "-l"], P)
    ok("version report of the released version: resources and states", proc, "Agent: localhost",
       "/tmp/cli-e2e/a.txt (#actions=", "* state: available")
    report = as_json("version report --json", cli(["version", "report", "-e", "dev2", "-i", str(version), "--json"], P))
    check("version report --json", isinstance(report, dict) and len(report.get("resources", [])) == 2, str(report)[:300])

    # agents
    proc = cli(["agent", "list", "-e", "dev2"], P)
    ok("agent list", proc, "localhost", env_id, "True")
    agents = as_json("agent list --json", cli(["agent", "list", "-e", "dev2", "--json"], P))
    check("agent list --json", isinstance(agents, list) and [a["name"] for a in agents] == ["localhost"], str(agents))
    ok("agent unpause --all", cli(["agent", "unpause", "-e", env_id, "--all"], P))
    rows = table_rows(cli(["agent", "list", "-e", "dev2"], P).stdout)
    check("agent unpaused", rows and rows[0][2] == "False", str(rows))
    ok("agent pause --agent", cli(["agent", "pause", "-e", "dev2", "--agent", "localhost"], P))
    rows = table_rows(cli(["agent", "list", "-e", "dev2"], P).stdout)
    check("agent paused", rows and rows[0][2] == "True", str(rows))
    fails("agent pause, --agent and --all", cli(["agent", "pause", "-e", "dev2", "--agent", "x", "--all"], P), 1,
          "cannot be used simultaneously")
    fails("agent pause, neither", cli(["agent", "pause", "-e", "dev2"], P), 1, "--all flag")

    # parameters
    proc = cli(["param", "set", "-e", "dev2", "--name", "color", "--value", "blue"], P)
    ok("param set", proc, "color", "blue", "user")
    ok("param get", cli(["param", "get", "-e", "dev2", "--name", "color"], P), "color", "blue")
    param = as_json("param get --json", cli(["param", "get", "-e", "dev2", "--name", "color", "--json"], P))
    check("param get --json", isinstance(param, dict) and param.get("value") == "blue", str(param))
    ok("param set again", cli(["param", "set", "-e", "dev2", "--name", "color", "--value", "red"], P), "red")
    proc = cli(["param", "list", "-e", "dev2"], P)
    ok("param list", proc, "color", "Expired")
    params = as_json("param list --json", cli(["param", "list", "-e", "dev2", "--json"], P))
    check("param list --json", isinstance(params, dict) and [p["name"] for p in params.get("parameters", [])] == ["color"],
          str(params))
    fails("param get, unknown", cli(["param", "get", "-e", "dev2", "--name", "nosuch"], P), 1, "not found")

    # the action log of one resource version
    rvid = f"{res_a},v={version}"
    proc = cli(["action-log", "list", "-e", "dev2", "--rvid", rvid], P)
    ok("action-log list", proc, "Action ID", "store")
    logs = as_json("action-log list --json", cli(["action-log", "list", "-e", "dev2", "--rvid", rvid, "--json"], P))
    # the store action (the deploy that followed the release is listed first, newest first)
    stores = [a for a in logs if a.get("action") == "store"] if isinstance(logs, list) else []
    action_id = stores[0]["action_id"] if stores else ""
    check("action-log list --json", bool(action_id), str(logs))
    proc = cli(["action-log", "list", "-e", "dev2", "--rvid", rvid, "--action", "deploy"], P)
    check("action-log list --action filters", proc.returncode == 0 and "store" not in proc.stdout, show(proc))
    proc = cli(["action-log", "show-messages", "-e", "dev2", "--rvid", rvid, "--action-id", action_id], P)
    ok("action-log show-messages", proc, f"Successfully stored version {version}", "INFO")
    proc = cli(["action-log", "show-messages", "-e", "dev2", "--rvid", rvid, "--action-id",
                "00000000-0000-0000-0000-000000000002"], P)
    ok("action-log show-messages, unknown action", proc, "No log messages found for action-id")
    check("action-log, bad --rvid: exit 2", cli(["action-log", "list", "-e", "dev2", "--rvid", res_a], P).returncode == 2)
    check("action-log, bad --action: exit 2",
          cli(["action-log", "list", "-e", "dev2", "--rvid", rvid, "--action", "fly"], P).returncode == 2)

    # monitor: the deploy summary; an empty environment is complete at once; released resources
    # that no agent deploys yet keep it waiting
    summary = as_json("monitor --json", cli(["monitor", "-e", "dev2", "--json"], P))
    check("monitor --json", isinstance(summary, dict) and summary.get("total") == 2, str(summary))
    ok("monitor, nothing to deploy", cli(["monitor", "-e", empty_id], P), "Complete: 0/0")
    # a new version whose file changed, released while the agent is paused: it waits as available
    status, reserved = server.call("POST", "/api/v2/reserve_version", {}, tid=env_id)
    v2 = reserved["data"] if status == 200 else 2
    changed = [dict(r, id=r["id"].rsplit(",v=", 1)[0] + f",v={v2}") for r in resources]
    changed[1]["hash"] = "0" * 40
    status, body = server.call("PUT", "/api/v1/version", {"version": v2, "resources": changed,
                                                          "module_version_info": {}, "resource_state": {}},
                               tid=env_id)
    check("setup: a second version put", status == 200, f"{status} {body}")
    status, body = server.call("POST", f"/api/v1/version/{v2}", {"push": False}, tid=env_id)
    check("setup: the second version released", status == 200, f"{status} {body}")
    process = subprocess.Popen([CLI, "--host", "127.0.0.1", "--port", str(P), "monitor", "-e", "dev2"],
                               env=BASE_ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        process.wait(timeout=3)
        check("monitor waits for the deploy", False, "it exited")
    except subprocess.TimeoutExpired:
        process.send_signal(signal.SIGINT)
        out, _ = process.communicate(timeout=10)
        check("monitor waits for the deploy", "environment:dev2" in out and "Complete" not in out, out)

    # tokens: this server has no authentication, which it says
    fails("token create without auth: the server's message",
          cli(["token", "create", "-e", "dev2", "--api"], P), 1, "An error occurred while requesting token: ")

    # deletes
    fails("project delete with environments: the server's message", cli(["project", "delete", "demo2"], P), 1,
          "environments")
    ok("environment delete", cli(["environment", "delete", "dev2"], P), "Environment successfully deleted")
    fails("environment delete again", cli(["environment", "delete", env_id], P), 1, "not found")
    ok("project delete", cli(["project", "delete", "other"], P), "Project successfully deleted")
    proc = cli(["project", "list", "--json"], P)
    check("project list after delete", [p["name"] for p in json.loads(proc.stdout)] == ["demo2"], show(proc))

# token bootstrap: minted offline from the signing [auth_jwt_*] section of the configuration files
# (here ./.inmanta.cfg, read as the reference's client reads it); the token opens a server with auth
KEY = base64.urlsafe_b64encode(os.urandom(32)).decode()
AUTH_SECTION = f"""[auth_jwt_default]
algorithm = HS256
sign = true
client_types = api,compiler,agent
key = {KEY}
"""


def jwt_claims(token):
    """The claims of a JWT, without checking its signature."""
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


proc = cli(["token", "bootstrap"], cwd=tempfile.mkdtemp(dir=WORK))
fails("token bootstrap without a signing section", proc, 1, "sign=true")
narrow = tempfile.mkdtemp(dir=WORK)
with open(os.path.join(narrow, ".inmanta.cfg"), "w") as fd:
    fd.write(AUTH_SECTION.replace("api,compiler,agent", "api"))
fails("token bootstrap, a section without every client type", cli(["token", "bootstrap"], cwd=narrow), 1,
      "does not allow the client types agent, compiler")

with LiveServer(INMANTA, extra_config="[server]\nauth = true\n\n" + AUTH_SECTION) as server:
    P = server.port
    folder = tempfile.mkdtemp(dir=WORK)
    with open(os.path.join(folder, ".inmanta.cfg"), "w") as fd:
        fd.write(AUTH_SECTION)
    proc = cli(["token", "bootstrap"], cwd=folder)
    printed = proc.stdout.strip()
    token = printed[len("Token: "):] if printed.startswith("Token: ") else ""
    check("token bootstrap prints Token: <jwt>", proc.returncode == 0 and token.count(".") == 2
          and proc.stdout.endswith("\n") and "\n" not in printed, show(proc))
    claims = jwt_claims(token) if token else {}
    check("token bootstrap: every client type, no environment, one hour",
          sorted(claims.get("urn:inmanta:ct", "").split(",")) == ["agent", "api", "compiler"]
          and "urn:inmanta:env" not in claims and claims.get("exp", 0) - claims.get("iat", 0) == 3600, str(claims))
    fails("auth on, no token: the server's 401", cli(["project", "list"], P), 1, "unauthorized")
    with_token = {"INMANTA_CMDLINE_REST_TRANSPORT_TOKEN": token}
    ok("the bootstrap token opens the server", cli(["project", "create", "-n", "secure"], P, env=with_token), "secure")
    ok("environment create with the bootstrap token",
       cli(["environment", "create", "-n", "prod", "-p", "secure"], P, env=with_token), "prod")
    proc = cli(["token", "create", "-e", "prod", "--agent"], P, env=with_token)
    minted = proc.stdout.strip()[len("Token: "):]
    check("token create with auth on: an agent token of the environment",
          proc.returncode == 0 and minted.count(".") == 2 and jwt_claims(minted).get("urn:inmanta:ct") == "agent",
          show(proc))
    fails("a token with a bad signature is refused", cli(["project", "list"], P, env={
        "INMANTA_CMDLINE_REST_TRANSPORT_TOKEN": token[:-4] + ("AAAA" if not token.endswith("AAAA") else "BBBB")}), 1,
          "Access denied")

shutil.rmtree(WORK, ignore_errors=True)
finish()
