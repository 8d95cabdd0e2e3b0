#!/usr/bin/env python3
"""Compares two `inmanta` binaries on whole command-line compiles of one generated project.

    python3 bench/compare_compile.py BIN_A BIN_B [--services N] [--pairs P]

The compiles run in alternating pairs (A then B, then B then A, ...). The script prints each
binary's median wall time and peak memory, and the median of the per-pair ratios B/A with its
quartiles. On a shared machine the speed of one binary drifts over minutes by more than most
changes make; the two runs of a pair see the same conditions, so the ratio of each pair is
steadier than a ratio of medians. Builds nothing: generate, compile, compare.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def compile_once(binary, project):
    """(wall seconds, peak RSS in KiB) of one compile; exits with its message when it fails."""
    env = dict(os.environ, INMANTA_MAX_ITERATIONS="1000000")  # (100,000 services need more rounds)
    with tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen([binary, "compile", "--project", project], stdout=subprocess.DEVNULL,
                                stderr=err, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            err.seek(0)
            sys.exit(f"compare_compile: {binary} failed to compile the project:\n"
                     + err.read().decode(errors="replace")[-2000:])
    return wall, usage.ru_maxrss


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a", help="the binary compared against (A)")
    parser.add_argument("b", help="the binary measured (B)")
    parser.add_argument("--services", type=int, default=10000, help="size of the generated project")
    parser.add_argument("--pairs", type=int, default=15, help="number of A/B pairs")
    args = parser.parse_args()
    for binary in (args.a, args.b):
        if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
            sys.exit(f"compare_compile: {binary} is not an executable")
    if args.pairs < 1 or args.services < 1:
        sys.exit("compare_compile: --pairs and --services must be at least 1")
    with tempfile.TemporaryDirectory(prefix="inmanta-compare.") as tmp:
        project = os.path.join(tmp, "project")
        gen = subprocess.run([sys.executable, os.path.join(HERE, "gen_model.py"), "--services",
                              str(args.services), "--out", project], capture_output=True, text=True)
        if gen.returncode != 0:
            sys.exit(f"compare_compile: gen_model.py failed:\n{gen.stderr}")
        rows = []
        for i in range(args.pairs):
            if i % 2 == 0:
                a = compile_once(args.a, project)
                b = compile_once(args.b, project)
            else:
                b = compile_once(args.b, project)
                a = compile_once(args.a, project)
            rows.append((a, b))
    ratios = sorted(b[0] / a[0] for a, b in rows)
    quartile = lambda f: ratios[min(len(ratios) - 1, int(f * len(ratios)))]
    for label, k in ((args.a, 0), (args.b, 1)):
        print(f"{label}: median wall {statistics.median(r[k][0] for r in rows):.3f} s, "
              f"peak RSS {statistics.median(r[k][1] for r in rows) / 1024:.1f} MiB")
    print(f"B/A per pair: median {statistics.median(ratios):.3f} "
          f"(quartiles {quartile(0.25):.3f} - {quartile(0.75):.3f}, {len(ratios)} pairs)")


if __name__ == "__main__":
    main()
