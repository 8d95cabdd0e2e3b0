#!/usr/bin/env python3
"""Diagnostics goldens: each NAME.cf here is compiled as the main.cf of a fresh project and the
standard error must equal NAME.stderr; for eval-okay-* cases the standard output must equal
NAME.stdout too. `INMANTA_TEST_ACCEPT=1` rewrites the goldens.
The name says what to expect: parse-fail-*, eval-fail-*, eval-okay-*.
"""
import glob
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from compile_output import accepting, normalise  # noqa: E402

inmanta, here = os.path.abspath(sys.argv[1]), sys.argv[2]
accept = accepting()
failed = 0
cases = sorted(glob.glob(os.path.join(here, "*.cf")))
for case in cases:
    name = os.path.basename(case)[:-3]
    d = tempfile.mkdtemp(prefix="inmanta-diag-")
    try:
        shutil.copy(case, os.path.join(d, "main.cf"))
        with open(os.path.join(d, "project.yml"), "w") as fd:
            fd.write("name: diag\nmodulepath: libs\ndownloadpath: libs\nrepo: []\n")
        proc = subprocess.run([inmanta, "compile"], cwd=d, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    finally:
        shutil.rmtree(d, ignore_errors=True)
    # the bundled std module prints with its absolute path: make goldens independent of it
    proc = subprocess.CompletedProcess(proc.args, proc.returncode, proc.stdout, normalise(proc.stderr, d))
    golden = os.path.join(here, name + ".stderr")
    golden_out = os.path.join(here, name + ".stdout")
    expect_okay = name.startswith("eval-okay")
    if accept:
        with open(golden, "w", encoding="utf-8") as fd:
            fd.write(proc.stderr)
        if expect_okay:
            with open(golden_out, "w", encoding="utf-8") as fd:
                fd.write(proc.stdout)
        print(f"ACCEPT {name}")
        continue
    want = open(golden, encoding="utf-8").read() if os.path.exists(golden) else None
    want_out = open(golden_out, encoding="utf-8").read() if os.path.exists(golden_out) else None
    expect_fail = name.startswith(("parse-fail", "eval-fail"))
    if want != proc.stderr or (expect_fail and proc.returncode != 1):
        failed += 1
        print(f"FAIL {name} (exit {proc.returncode})\n--- want\n{want}--- got\n{proc.stderr}")
    elif expect_okay and (want_out != proc.stdout or proc.returncode != 0):
        failed += 1
        print(f"FAIL {name} (exit {proc.returncode})\n--- want stdout\n{want_out}--- got\n{proc.stdout}")
    else:
        print(f"PASS {name}")
print(f"{len(cases) - failed} passed, {failed} failed")
sys.exit(1 if failed else 0)
