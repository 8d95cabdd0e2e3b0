#!/usr/bin/env python3
"""Runs the conformance cases through the shared runner and holds them to the expected-failure list.

Every case must pass unless it is listed in the xfail file (cases that need features of later
issues); a listed case that passes is an error too, so the list only ever shrinks. A case that
does not expect a syntax error must never fail with one. The last line is the runner's
`N passed, M failed` summary.
"""
import argparse
import os
import re
import subprocess
import sys

SYNTAX_KINDS = ("ParserException", "LexException", "InvalidNamespaceAccess", "HyphenException")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--inmanta", required=True)
    parser.add_argument("--runner", required=True)
    parser.add_argument("--xfail", required=True)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--cases", help="the cases folder (default: the runner's cases/)")
    args = parser.parse_args()

    with open(args.xfail, encoding="utf-8") as fd:
        xfail = {line.split("#")[0].strip() for line in fd if line.split("#")[0].strip()}
    cases_dir = args.cases or os.path.join(os.path.dirname(os.path.abspath(args.runner)), "cases")
    proc = subprocess.run([sys.executable, args.runner, "--inmanta", args.inmanta, "--jobs", str(args.jobs),
                           "--verbose", cases_dir], capture_output=True, text=True)
    passed, failed = set(), {}
    for line in proc.stdout.splitlines():
        m = re.match(r"(PASS|FAIL) ([^:]+)(?:: (.*))?$", line)
        if not m:
            continue
        if m.group(1) == "PASS":
            passed.add(m.group(2))
        else:
            failed[m.group(2)] = m.group(3) or ""
    problems = []
    for name, message in sorted(failed.items()):
        expected_error = os.path.join(cases_dir, name, "expected_error")
        expects_syntax = False
        if os.path.exists(expected_error):
            with open(expected_error, encoding="utf-8") as fd:
                expects_syntax = fd.readline().strip() in SYNTAX_KINDS
        if not expects_syntax and any(kind + ":" in message for kind in SYNTAX_KINDS):
            problems.append(f"{name}: reported a syntax error: {message}")
        if name not in xfail:
            problems.append(f"{name}: fails: {message}")
    for name in sorted(passed & xfail):
        problems.append(f"{name}: passes now; remove it from {os.path.basename(args.xfail)}")
    for name in sorted(xfail - passed - set(failed)):
        problems.append(f"{name}: listed in {os.path.basename(args.xfail)} but no such case")
    for p in problems:
        print("PROBLEM " + p)
    print(f"expected failures: {len(xfail)} (cases that need later issues)")
    summary = [l for l in proc.stdout.splitlines() if re.match(r"^\d+ passed, \d+ failed$", l)]
    print(summary[-1] if summary else "0 passed, 0 failed")
    return 1 if problems or not summary else 0


if __name__ == "__main__":
    sys.exit(main())
