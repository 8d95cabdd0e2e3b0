#!/usr/bin/env python3
"""The diagnostics as JSON (`compile --json`, `export --format json`; issue 32): for every
conformance case that expects an error, the document is valid against the documented schema
(inmanta-diagnostics/1, checked here by hand), stdout holds it alone, and it names the same
errors with the same kinds and file:line as the text output, the case's expected kind and line
among them. Plus the success, warning and print cases.

    diagnostics_json_test.py path/to/inmanta path/to/conformance/cases
"""
import atexit
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from checks import check, finish, project

INMANTA = os.path.abspath(sys.argv[1])
CASES = os.path.abspath(sys.argv[2])
PROJECT_YML = "name: conformance\nmodulepath: libs\ndownloadpath: libs\nrepo: []\n"
DIAGNOSTIC_KEYS = ["severity", "kind", "message", "file", "line", "column", "range", "causes", "notes"]
NOTE_KEYS = ["message", "file", "line", "column"]


# ------------------------------------------------------------------ the schema, by hand

def schema_problems(doc):
    """What is wrong with `doc` as an inmanta-diagnostics/1 document (empty: nothing)."""
    problems = []
    if not isinstance(doc, dict) or list(doc) != ["schema", "success", "diagnostics"]:
        return [f"the document's members are not schema, success, diagnostics: {doc!r:.200}"]
    if doc["schema"] != "inmanta-diagnostics/1":
        problems.append(f"schema is {doc['schema']!r}")
    if not isinstance(doc["success"], bool):
        problems.append("success is not a boolean")
    if not isinstance(doc["diagnostics"], list):
        return problems + ["diagnostics is not a list"]
    for i, d in enumerate(doc["diagnostics"]):
        problems += diagnostic_problems(d, f"diagnostics[{i}]", None)
    return problems


def positive_or_null(value):
    return value is None or (isinstance(value, int) and not isinstance(value, bool) and value >= 1)


def place_problems(d, where):
    problems = []
    if not (d["file"] is None or (isinstance(d["file"], str) and d["file"])):
        problems.append(f"{where}.file is {d['file']!r}")
    for key in ("line", "column"):
        if not positive_or_null(d[key]):
            problems.append(f"{where}.{key} is {d[key]!r}")
    if d["file"] is None and (d["line"] is not None or d["column"] is not None):
        problems.append(f"{where} has a line without a file")
    if d["line"] is None and d["column"] is not None:
        problems.append(f"{where} has a column without a line")
    return problems


def diagnostic_problems(d, where, severity):
    if not isinstance(d, dict) or list(d) != DIAGNOSTIC_KEYS:
        return [f"{where}'s members are not {DIAGNOSTIC_KEYS}: {d!r:.200}"]
    problems = place_problems(d, where)
    if d["severity"] not in ("error", "warning") or (severity and d["severity"] != severity):
        problems.append(f"{where}.severity is {d['severity']!r}")
    if not isinstance(d["kind"], str) or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.]*", d["kind"]):
        problems.append(f"{where}.kind is {d['kind']!r}")
    if not isinstance(d["message"], str):
        problems.append(f"{where}.message is not text")
    r = d["range"]
    if r is not None:
        ok = isinstance(r, dict) and list(r) == ["start", "end"] and all(
            isinstance(r[e], dict) and list(r[e]) == ["line", "column"] and positive_or_null(r[e]["line"])
            and r[e]["line"] is not None and positive_or_null(r[e]["column"]) for e in ("start", "end"))
        if not ok:
            problems.append(f"{where}.range is {r!r}")
        elif d["line"] is None or (r["end"]["line"], r["end"]["column"] or 0) < (r["start"]["line"],
                                                                                r["start"]["column"] or 0):
            problems.append(f"{where}.range is empty or has no line: {r!r}")
    if not isinstance(d["causes"], list) or not isinstance(d["notes"], list):
        return problems + [f"{where}: causes and notes are not lists"]
    for i, cause in enumerate(d["causes"]):
        problems += diagnostic_problems(cause, f"{where}.causes[{i}]", "error")
    for i, note in enumerate(d["notes"]):
        if not isinstance(note, dict) or list(note) != NOTE_KEYS or not isinstance(note["message"], str):
            problems.append(f"{where}.notes[{i}]'s members are not {NOTE_KEYS}: {note!r:.200}")
        else:
            problems += place_problems(note, f"{where}.notes[{i}]")
    return problems


# ------------------------------------------------------------------ the text, taken apart

# "Error: Kind: message (./main.cf:3:5)", "caused by: Kind: ...", "error 0: Kind: ..." (the
# location is the last parenthesised file:line on the header line of the message)
ERROR_LINE = re.compile(r"^\s*(?:Error: |caused by: |error \d+: )([A-Za-z_][\w.]*): ?(.*)$")
LOCATION = re.compile(r" \(([^ ():]+):(\d+)(?::\d+)?\)$")


def text_errors(stderr):
    """(kind, file, line) of every error of the text summary, in order (file and line None
    where it names none)."""
    out = []
    summary = stderr.split("= COMPILATION FAILURE =", 1)[-1] if "COMPILATION FAILURE" in stderr else stderr
    for line in summary.splitlines():
        m = ERROR_LINE.match(line)
        if not m:
            continue
        loc = LOCATION.search(m.group(2))
        out.append((m.group(1), loc.group(1) if loc else None, int(loc.group(2)) if loc else None))
    return out


def json_errors(diagnostics):
    """The same of the document's errors, depth first as the text prints them."""
    out = []
    for d in diagnostics:
        if d["severity"] != "error":
            continue
        out.append((d["kind"], d["file"], d["line"]))
        out += json_errors(d["causes"])
    return out


# ------------------------------------------------------------------ the runs

def run(args, cwd):
    return subprocess.run([INMANTA, *args], cwd=cwd, capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)


def document(proc, name):
    """The JSON document of a run, or None with a failed check."""
    try:
        return json.loads(proc.stdout)
    except ValueError as exc:
        check(f"{name}: stdout is one JSON document", False, f"{exc}: {proc.stdout[:300]!r} {proc.stderr[-300:]!r}")
        return None


def error_case(case):
    """[(check name, condition, detail)] of one conformance case that expects an error."""
    results = []
    name = os.path.relpath(case, CASES)
    with tempfile.TemporaryDirectory(prefix="diagnostics-json-") as tmp:
        folder = os.path.join(tmp, "project")
        shutil.copytree(case, folder, ignore=shutil.ignore_patterns("expected_*"))
        if not os.path.exists(os.path.join(folder, "project.yml")):
            with open(os.path.join(folder, "project.yml"), "w", encoding="utf-8") as fd:
                fd.write(PROJECT_YML)
        with open(os.path.join(case, "expected_error"), encoding="utf-8") as fd:
            expected = [l.strip() for l in fd.read().splitlines() if l.strip()]
        text = run(["compile"], folder)
        want = text_errors(text.stderr)
        for args in (["compile", "--json"], ["compile", "--format", "json"],
                     ["export", "--format", "json", "-j", os.path.join(tmp, "out.json")]):
            label = f"{name}: {' '.join(args[:3])}"
            proc = run(args, folder)
            try:
                doc = json.loads(proc.stdout)
            except ValueError as exc:
                results.append((f"{label}: stdout is one JSON document", False, f"{exc}: {proc.stdout[:300]!r}"))
                continue
            problems = schema_problems(doc)
            results.append((f"{label}: valid inmanta-diagnostics/1", not problems, problems[:5]))
            if problems:
                continue
            results.append((f"{label}: failure, as the exit status", proc.returncode == text.returncode != 0
                            and doc["success"] is False, f"exit {proc.returncode}, success {doc['success']}"))
            results.append((f"{label}: no text summary", "FAILURE" not in proc.stderr, proc.stderr[-300:]))
            got = json_errors(doc["diagnostics"])
            results.append((f"{label}: the text's errors, kinds and file:line", got == want and want != [],
                            f"json {got} text {want}"))
            kinds = [k for k, _, _ in got]
            places = [f"{os.path.basename(f)}:{l}" for _, f, l in got if f]
            # as the conformance runner reads the text: the place may be named in a message (the
            # instance an UnsetException is about)
            messages = " ".join(json.dumps(d["message"]) for d in doc["diagnostics"])
            ok = expected[0] in kinds and (len(expected) < 2 or expected[1] in places or expected[1] in messages)
            results.append((f"{label}: the expected {' '.join(expected[:2])}", ok, f"{kinds} {places}"))
        results.append((f"{name}: export --format json leaves no -j file",
                        not os.path.exists(os.path.join(tmp, "out.json")), ""))
    return results


def error_cases():
    cases = []
    for root, dirs, files in os.walk(CASES):
        dirs.sort()
        if "expected_error" in files and "main.cf" in files:
            cases.append(root)
    return cases


cases = error_cases()
check("conformance cases that expect an error", len(cases) >= 50, str(len(cases)))
with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
    for results in pool.map(error_case, cases):
        for name, ok, detail in results:
            check(name, ok, detail)

# a success: std::print output on stderr, stdout the document alone, a warning of the user's file
PROJECT = project({"project.yml": PROJECT_YML, "main.cf": """entity A:
    number n = 1
end
implement A using std::none
A()
std::print("hello")
"""})
atexit.register(shutil.rmtree, PROJECT, True)
proc = run(["compile", "--json"], PROJECT)
doc = document(proc, "success")
if doc is not None:
    check("success: valid", not schema_problems(doc), schema_problems(doc))
    check("success: exit 0 and success true", proc.returncode == 0 and doc.get("success") is True, proc.stderr)
    check("success: std::print output goes to stderr", "hello" in proc.stderr and "hello" not in proc.stdout,
          proc.stderr)
    check("success: no banner", "SUCCESS" not in proc.stderr, proc.stderr)
    warnings = [d for d in doc.get("diagnostics", []) if d["severity"] == "warning"]
    check("success: the deprecation warning at the user's line",
          [(w["kind"], w["file"], w["line"], w["column"]) for w in warnings]
          == [("TypeDeprecationWarning", "./main.cf", 2, 5)], warnings)
    text = run(["compile"], PROJECT)
    check("text output unchanged without the flag",
          text.stdout == "hello\n" and "TypeDeprecationWarning" in text.stderr and "SUCCESS" in text.stderr,
          text.stdout + text.stderr)

# a wrong constructor argument: the argument, its value as the cause (printed FILE:LINE as the
# reference prints it, so its column is null and its range says where), the call as a note
ARGUMENT = project({"project.yml": PROJECT_YML, "main.cf": """import std
h = std::Host(name="h", os=std::linux)
std::File(host=h, path="/tmp/x", content=1, owner="root")
"""})
atexit.register(shutil.rmtree, ARGUMENT, True)
proc = run(["compile", "--json"], ARGUMENT)
doc = document(proc, "argument")
if doc is not None:
    check("argument: valid", not schema_problems(doc), schema_problems(doc))
    error = doc["diagnostics"][0] if doc["diagnostics"] else {}
    check("argument: at content=1, the value as its cause, the call as a note",
          (error.get("kind"), error.get("line"), error.get("column"), error.get("range"),
           [(c["kind"], c["line"], c["column"], (c["range"] or {}).get("start")) for c in error.get("causes", [])],
           [(n["message"], n["file"], n["line"], n["column"]) for n in error.get("notes", [])])
          == ("AttributeException", 3, 34, {"start": {"line": 3, "column": 34}, "end": {"line": 3, "column": 40}},
              [("RuntimeException", 3, None, {"line": 3, "column": 42})],
              [("in this constructor call", "./main.cf", 3, 10)]), error)

# a project that cannot be found: an error of no file
EMPTY = tempfile.mkdtemp(prefix="diagnostics-json-")
atexit.register(shutil.rmtree, EMPTY, True)
proc = run(["compile", "--json"], EMPTY)
doc = document(proc, "no project")
if doc is not None:
    check("no project: valid", not schema_problems(doc), schema_problems(doc))
    check("no project: a ProjectException without a file",
          proc.returncode == 1 and [(d["kind"], d["file"]) for d in doc["diagnostics"]] == [("ProjectException", None)],
          doc)

# a usage error of export before any compile: a document too, not the text alone
proc = run(["export", "--format", "json", "--delete-resource-set", "set-a"], PROJECT)
doc = document(proc, "full export with a deleted set")
if doc is not None:
    check("full export with a deleted set: valid", not schema_problems(doc), schema_problems(doc))
    check("full export with a deleted set: exit 1, the reason as its one error",
          proc.returncode == 1 and doc["success"] is False and len(doc["diagnostics"]) == 1
          and "Only partial exports (--partial) can delete resource sets" in doc["diagnostics"][0]["message"],
          (proc.returncode, doc))
proc = run(["export", "--delete-resource-set", "set-a"], PROJECT)
check("full export with a deleted set: the reference's text without --format",
      proc.returncode == 1 and proc.stdout == "" and proc.stderr.startswith("A full export was requested"),
      proc.stderr)

proc = run(["compile", "--format", "yaml"], PROJECT)
check("--format takes text or json", proc.returncode == 2 and "yaml" in proc.stderr, proc.stderr)

finish()
