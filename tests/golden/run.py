#!/usr/bin/env python3
"""Golden compiles: `run.py BINARY CASE_DIR` runs one case, a folder tests/golden/<case>/ (one
ctest each, golden_<case>).

The case folder is a project: main.cf, project.yml when the case needs settings of its own (else
the one below is written), modules under libs/ when it imports any. It is copied to a temporary
folder and compiled there with `BINARY compile`, or with the arguments the case's file `args`
lists (shell words, e.g. `-vv compile`), with the variables its file `env` sets (NAME=value
lines) added to the environment. The exit status, standard output and standard error, with the
temporary folder written as <project> and the bundled std module's folder as <std>, must equal
expected.exit, expected.stdout and expected.stderr. `INMANTA_TEST_ACCEPT=1` rewrites those three
files from the run instead.
"""
import difflib
import os
import shlex
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from compile_output import accepting, normalise  # noqa: E402

PROJECT_YML = "name: golden\nmodulepath: libs\ndownloadpath: libs\nrepo: []\n"
CASE_FILES = ("args", "env", "expected.exit", "expected.stdout", "expected.stderr")


def read(path, default=None):
    if not os.path.exists(path):
        return default
    with open(path, encoding="utf-8") as fd:
        return fd.read()


def write(path, text):
    with open(path, "w", encoding="utf-8") as fd:
        fd.write(text)


def main():
    inmanta, case = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    name = os.path.basename(case)
    args = shlex.split(read(os.path.join(case, "args"), "compile"), comments=True)
    env = dict(os.environ)
    for line in read(os.path.join(case, "env"), "").splitlines():
        if line.strip() and not line.startswith("#"):
            key, _, value = line.partition("=")
            env[key.strip()] = value
    d = tempfile.mkdtemp(prefix="inmanta-golden-")
    try:
        project = os.path.join(d, "project")
        shutil.copytree(case, project, ignore=lambda _, names: [n for n in names if n in CASE_FILES])
        if not os.path.exists(os.path.join(project, "project.yml")):
            write(os.path.join(project, "project.yml"), PROJECT_YML)
        proc = subprocess.run([inmanta, *args], cwd=project, env=env, capture_output=True, text=True, timeout=240,
                              stdin=subprocess.DEVNULL)
        got = {"expected.exit": f"{proc.returncode}\n", "expected.stdout": normalise(proc.stdout, project),
               "expected.stderr": normalise(proc.stderr, project)}
    finally:
        shutil.rmtree(d, ignore_errors=True)
    if accepting():
        for file, text in got.items():
            write(os.path.join(case, file), text)
        print(f"ACCEPT {name}")
        return 0
    failed = False
    for file, text in got.items():
        want = read(os.path.join(case, file))
        if want is None:
            failed = True
            print(f"{file}: missing (INMANTA_TEST_ACCEPT=1 writes it)")
        elif want != text:
            failed = True
            print(f"{file}: differs")
            sys.stdout.writelines(difflib.unified_diff(want.splitlines(True), text.splitlines(True),
                                                       f"{name}/{file}", "this run"))
    print(f"{'FAIL' if failed else 'PASS'} {name}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
