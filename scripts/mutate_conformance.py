#!/usr/bin/env python3
"""Compiles random mutants of the conformance models and keeps those the compiler mishandles.

A development tool, not part of the suite (its runs are random): every mutant must end with exit
0 or 1, without `InternalError` and without a sanitizer report, within the time limit. The
mutations are line deletions, duplications, swaps, lines spliced in from other cases, token
replacements and indentation changes, one to three per mutant, so most mutants still parse and
exercise the evaluator. Kept mutants are copied to OUT/SEED_N with the reason printed.

    python3 scripts/mutate_conformance.py BINARY [--seconds S] [--seed N] [--cases DIR] [--out DIR]

Runaway models (an implementation that constructs its own entity) stop at the memory limit, set
low here (INMANTA_MAX_MEMORY=400) so that they end quickly.
"""
import argparse
import os
import random
import shutil
import subprocess
import tempfile
import time

PROJECT_YML = "name: conformance\nmodulepath: libs\ndownloadpath: libs\nrepo: []\n"
TOKENS = ["", "null", "1", '"a"', "self", "a.b", "[]", "{}", "(", ")", ":", "end", "for", "if", "true", "1.5", "-1",
          "9999999999999999999", "std::count", "**x", "x[0]", "is defined", "+", "==", "not"]


def mutate(lines, pool, rng):
    lines = list(lines)
    for _ in range(rng.randint(1, 3)):
        if not lines:
            lines = ["x = 1"]
        op = rng.choice(["delete", "duplicate", "swap", "splice", "token", "indent"])
        i = rng.randrange(len(lines))
        if op == "delete":
            del lines[i]
        elif op == "duplicate":
            lines.insert(rng.randrange(len(lines) + 1), lines[i])
        elif op == "swap":
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif op == "splice":
            lines.insert(i, rng.choice(pool))
        elif op == "token":
            words = lines[i].split(" ")
            words[rng.randrange(len(words))] = rng.choice(TOKENS)
            lines[i] = " ".join(words)
        else:
            lines[i] = "    " + lines[i] if rng.random() < 0.5 else lines[i].lstrip()
    return lines


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("binary")
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cases", default=os.path.join(here, "..", "tests", "conformance", "cases"))
    parser.add_argument("--out", default=os.path.join(tempfile.gettempdir(), "mutants"))
    parser.add_argument("--timeout", type=float, default=20)
    args = parser.parse_args()
    binary = os.path.abspath(args.binary)
    rng = random.Random(args.seed)
    cases = sorted(root for root, _, files in os.walk(args.cases) if "main.cf" in files)
    if not cases:
        raise SystemExit(f"no case with a main.cf under {args.cases}")
    pool = [line for case in cases for line in open(os.path.join(case, "main.cf"), encoding="utf-8").read().splitlines()]
    env = dict(os.environ, INMANTA_MAX_MEMORY="400")
    work = tempfile.mkdtemp(prefix="mutate-")
    runs = kept = 0
    end = time.time() + args.seconds
    try:
        while time.time() < end:
            case = rng.choice(cases)
            project = os.path.join(work, "p")
            shutil.rmtree(project, ignore_errors=True)
            shutil.copytree(case, project)
            if not os.path.exists(os.path.join(project, "project.yml")):
                with open(os.path.join(project, "project.yml"), "w", encoding="utf-8") as f:
                    f.write(PROJECT_YML)
            source = open(os.path.join(case, "main.cf"), encoding="utf-8").read().splitlines()
            with open(os.path.join(project, "main.cf"), "w", encoding="utf-8") as f:
                f.write("\n".join(mutate(source, pool, rng)) + "\n")
            try:
                proc = subprocess.run([binary, "compile"], cwd=project, capture_output=True, text=True,
                                      timeout=args.timeout, env=env, stdin=subprocess.DEVNULL)
                output = proc.stdout + proc.stderr
                reason = None
                if proc.returncode not in (0, 1):
                    reason = f"exit {proc.returncode}"
                elif "InternalError" in output:
                    reason = "InternalError"
                elif "AddressSanitizer" in output or "runtime error:" in output:
                    reason = "sanitizer report"
            except subprocess.TimeoutExpired:
                reason = "timeout"
            runs += 1
            if reason:
                kept += 1
                target = os.path.join(args.out, f"{args.seed}_{kept}")
                shutil.rmtree(target, ignore_errors=True)
                shutil.copytree(project, target)
                print(f"KEPT {reason}: {os.path.relpath(case, args.cases)} -> {target}", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"{runs} mutants, {kept} kept")
    return 1 if kept else 0


if __name__ == "__main__":
    raise SystemExit(main())
