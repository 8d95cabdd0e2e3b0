#!/usr/bin/env python3
"""The recorded exchanges with the reference server (../shared/spec/fixtures), replayed against
our `inmanta server`: every request as the reference's clients sent it (their headers, bodies and
order, gzip where they gzipped), and our answer compared with the recorded one — the status code,
and the JSON shape: the same keys at every level, the same kinds of values, error messages with
the same prefix. Ids, timestamps and host names are placeholders in the recordings (`<env-id>`,
`<uuid-3>`, `<timestamp>`): a placeholder is bound to the value of our first answer that carries it
and must then stay the same.

Usage: fixture_replay_test.py INMANTA FIXTURES_DIR [--postgres]
"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, finish  # noqa: E402
from live_server import LiveServer  # noqa: E402

INMANTA, FIXTURES = sys.argv[1], sys.argv[2]
POSTGRES = "--postgres" in sys.argv[3:]
PLACEHOLDER = re.compile(r"<[a-z][a-z0-9-]*>")
TIMESTAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?([+-]\d\d:\d\d)?$")

# Requests of the recordings that this server does not answer as the reference, each with why.
# Reaching one of them is not a failure; the list is printed so it stays visible.
NOT_HERE = {
    # spec 4.12: the compile service is not part of the first release (a JSON 404 instead)
    ("GET", "/api/v2/compilereport"): "compile service (spec 4.12)",
    # the scheduler's internal state: issue 31 (scheduler and agents)
    ("GET", "/api/v2/scheduler_status"): "scheduler state (issue 31)",
}
# Answers whose values depend on deploys having run (issue 31: scheduler, agents, handlers): for
# these only the keys of the first element of each list are compared, not the element count.
DEPLOY_DEPENDENT = ("/api/v2/resource", "/api/v2/dryrun", "/api/v1/dryrun", "/api/v2/resource_actions",
                    "/api/v1/version/", "/api/v2/agents")
# In those answers, also because nothing was deployed: a timestamp of the last deploy may be null;
# the paging links present depend on the counts (`next` only when there are more); a dry-run's
# `resources` (keyed by resource version id) are filled by the agents' dry-run, and what it finds
# depends on this machine's files.
DEPLOY_DEPENDENT_LINKS = {"next", "prev", "first"}
# Keys of an answer (by their place: `body.data.definition`) that differ from the recordings on
# purpose, each with why. Only the named keys are excused, and each is printed when it is used.
DELIBERATE_EXTRA = {
    # decision D2: autostart_agent_map stays a setting so that std::AgentConfig deploys
    "body.data.definition": {"autostart_agent_map": "decision D2 keeps autostart_agent_map"},
    "body.metadata": {"autostart_agent_map": "decision D2 keeps autostart_agent_map"},
}
DELIBERATE_MISSING = {
    # the reference's scheduler reads these settings when it starts, which stores their defaults
    # (spec 4.5 [QUIRK]); our scheduler comes with issue 31
    "body.data.settings": {name: "read by the scheduler (issue 31)" for name in
                           ("autostart_agent_deploy_interval", "autostart_agent_repair_interval",
                            "reset_deploy_progress_on_start")},
}
# Subtrees that are ours by design: serverstatus describes this server (spec 4.2 [DIVERGE?]: our
# product and version; its slices are our server's parts, not the reference's Python services; the
# server runs no Python)
DELIBERATE_SUBTREES = {
    "body.data.slices": "serverstatus lists this server's own slices (spec 4.2)",
    "body.data.python_version": "the server runs no Python (spec 4.2)",
}
excused = set()
RESOURCE_VERSION_ID = re.compile(r"^[^\[]+::[^\[]+\[.+\],v=\d+$")

bindings = {}


def substitute(value):
    """`value` (JSON) with every bound placeholder replaced by its value."""
    if isinstance(value, str):
        return PLACEHOLDER.sub(lambda m: str(bindings.get(m.group(0), m.group(0))), value)
    if isinstance(value, list):
        return [substitute(v) for v in value]
    if isinstance(value, dict):
        return {substitute(k): substitute(v) for k, v in value.items()}
    return value


def kind(value):
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "list"
    return "object"


def compare(recorded, actual, where, problems, loose_lists):
    """Appends to `problems` how `actual` differs in shape from `recorded`."""
    if where in DELIBERATE_SUBTREES:
        excused.add(f"{where}: {DELIBERATE_SUBTREES[where]}")
        return
    if isinstance(recorded, str) and PLACEHOLDER.fullmatch(recorded):
        if recorded == "<timestamp>":
            if actual is None and loose_lists:
                return
            if not (isinstance(actual, str) and TIMESTAMP.match(actual)):
                problems.append(f"{where}: {actual!r} is not an ISO 8601 timestamp")
        elif recorded in bindings:
            if str(bindings[recorded]) != str(actual):
                problems.append(f"{where}: {actual!r}, but {recorded} is {bindings[recorded]!r}")
        else:
            bindings[recorded] = actual
        return
    if kind(recorded) != kind(actual):
        problems.append(f"{where}: a {kind(actual)} ({json.dumps(actual)[:80]}) where the reference has a "
                        f"{kind(recorded)} ({json.dumps(recorded)[:80]})")
        return
    if isinstance(recorded, dict):
        # keys may be placeholders (resource ids carrying <env-id>, dry-run ids, ...)
        rec_keys = {substitute(k): k for k in recorded}
        if any(PLACEHOLDER.search(k) for k in rec_keys) or (
                loose_lists and recorded and all(RESOURCE_VERSION_ID.match(k) for k in rec_keys)):
            if len(recorded) != len(actual) and not loose_lists:
                problems.append(f"{where}: {len(actual)} entries, the reference has {len(recorded)}")
            return
        if loose_lists and where.endswith(".attributes"):
            # a dry-run diff's attributes are what the handlers found on this machine (the recording's
            # files are not here): which attributes changed depends on it, their shape does not
            for key in set(rec_keys) & set(actual):
                compare(recorded[rec_keys[key]], actual[key], f"{where}.{key}", problems, loose_lists)
            return
        missing = sorted(set(rec_keys) - set(actual))
        if loose_lists and where.endswith(".links"):
            missing = [k for k in missing if k not in DEPLOY_DEPENDENT_LINKS]
        extra = sorted(set(actual) - set(rec_keys))
        for excuses, keys in ((DELIBERATE_MISSING, missing), (DELIBERATE_EXTRA, extra)):
            for key in [k for k in keys if k in excuses.get(where, {})]:
                excused.add(f"{where}.{key}: {excuses[where][key]}")
                keys.remove(key)
        if missing:
            problems.append(f"{where}: missing keys {missing}")
        if extra:
            problems.append(f"{where}: keys the reference does not have {extra}")
        for key in set(rec_keys) & set(actual):
            compare(recorded[rec_keys[key]], actual[key], f"{where}.{key}", problems, loose_lists)
    elif isinstance(recorded, list):
        if not loose_lists and len(recorded) != len(actual):
            problems.append(f"{where}: {len(actual)} items, the reference has {len(recorded)}")
        if recorded and actual:
            pairs = zip(recorded, actual) if not loose_lists else [(recorded[0], actual[0])]
            for i, (r, a) in enumerate(pairs):
                compare(r, a, f"{where}[{i}]", problems, loose_lists)
    elif isinstance(recorded, str) and where.endswith(".message"):
        expected = substitute(recorded)
        prefix = expected.split(": ", 1)[0]
        if not actual.startswith(prefix):
            problems.append(f"{where}: {actual!r} does not start like the reference's {expected!r}")


def replay(server, scenario, skipped):
    # the recordings number ids (<uuid-1>, ...) per scenario: the dry-run scenario's <uuid-1> is not
    # the queries scenario's; only the environment, project and host placeholders are shared
    for name in [k for k in bindings if k.startswith("<uuid-")]:
        del bindings[name]
    for index, exchange in enumerate(scenario["exchanges"]):
        method, path = exchange["method"], substitute(exchange["path"])
        name = f"{scenario['name']}[{index}] {method} {exchange['path']}"
        if (method, exchange["path"]) in NOT_HERE:
            print(f"NOT HERE {name}: {NOT_HERE[(method, exchange['path'])]}")
            continue
        request = exchange.get("request", {})
        headers = {k: substitute(v) for k, v in request.get("headers", {}).items()
                   if k.lower() not in ("accept-encoding", "content-encoding", "content-length")}
        body = substitute(request.get("body")) if "body" in request else None
        if isinstance(body, dict) and isinstance(body.get("content"), str) and body["content"].startswith("<elided"):
            # the recording left the module's Python source out; without it the hash cannot match
            skipped.add(path.rsplit("/", 1)[-1])
            print(f"SKIP {name}: the recording elided the uploaded source")
            continue
        query = exchange.get("query")
        if query:
            path += "?" + "&".join(f"{k}={v}" for k, values in query.items() for v in values)
        raw = json.dumps(body).encode() if body is not None else None
        gzipped = request.get("headers", {}).get("Content-Encoding") == "gzip"
        status, answer = server.call(method, path, raw=raw, headers=headers, gzip_body=gzipped)
        recorded = exchange["response"]
        problems = []
        if status != recorded["status"]:
            problems.append(f"status {status}, the reference answered {recorded['status']}: {json.dumps(answer)[:300]}")
        else:
            recorded_body = recorded.get("body")
            if method == "POST" and exchange["path"] == "/api/v1/file" and isinstance(answer, dict):
                # the sources we could not upload are still missing here; nothing else may be
                expected = set(recorded_body["files"]) | (set(body["files"]) & skipped)
                if set(answer.get("files", [])) != expected:
                    problems.append(f"missing files {sorted(answer.get('files', []))}, expected {sorted(expected)}")
            elif recorded_body is None:
                if answer is not None:
                    problems.append(f"a body {json.dumps(answer)[:200]} where the reference's is empty")
            elif answer is None:
                problems.append("an empty body where the reference has one")
            else:
                loose = exchange["path"].startswith(DEPLOY_DEPENDENT)
                compare(recorded_body, answer, "body", problems, loose)
        check(name, not problems, "; ".join(problems)[:2000])


def main():
    with open(os.path.join(FIXTURES, "export-exchange.json")) as fd:
        exports = json.load(fd)
    with open(os.path.join(FIXTURES, "queries.json")) as fd:
        queries = json.load(fd)
    skipped = set()
    # The recordings' queries saw versions stored and released, not deployed; our server would
    # deploy them on this machine, where the recording's files are not, and its answers would
    # depend on how far that got: this server runs with `[server] deploy = false`.
    with LiveServer(INMANTA, postgres=POSTGRES, extra_config="[server]\ndeploy = false\n") as server:
        for scenario in exports["scenarios"]:
            replay(server, scenario, skipped)
        for scenario in queries["scenarios"]:
            replay(server, scenario, skipped)
        status, _ = server.call("GET", "/api/v2/health")
        check("the server still answers after the replay", status == 200, str(status))
    for line in sorted(excused):
        print(f"DELIBERATE {line}")
    finish()


if __name__ == "__main__":
    main()
