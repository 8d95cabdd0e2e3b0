#!/usr/bin/env python3
"""What modules' Python code costs a command-line compile (issue 29).

Three generated projects, each compiled RUNS times (median wall time, `inmanta compile`):

  calls    a module with a Python plugin `inc(x: "int") -> "int"` and 1,000 instances whose
           attribute is `m::inc(i)`: 1,000 plugin calls
  one      the same module and model with one call and 999 literals: Python started, one call
  none     the same model with literals and the module without plugins/: no Python at all

`calls - one` is the cost of 1,000 Python plugin calls; `one - none` the cost of starting the
embedded Python with our `inmanta` package and loading a module's plugins. With `--ip DIR` (a
checkout of the inmanta/ip module, with net beside it) it also times a model that imports ip
(whose typedefs call its Python plugins) against the same project without the import.

Usage: python3 bench/module_code_bench.py [BIN] [--runs N] [--ip DIR]
"""
import argparse
import os
import shutil
import statistics
import subprocess
import tempfile
import time

PROJECT_YML = "name: bench\nmodulepath: libs\ndownloadpath: libs\nrepo: []\n"
PLUGIN = 'from inmanta.plugins import plugin\n\n\n@plugin\ndef inc(x: "int") -> "int":\n    return x + 1\n'


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as fd:
        fd.write(text)


def project(root, calls, python):
    write(os.path.join(root, "project.yml"), PROJECT_YML)
    write(os.path.join(root, "libs/m/module.yml"), "name: m\nversion: 1.0.0\nlicense: ASL\n")
    write(os.path.join(root, "libs/m/model/_init.cf"), "entity A:\n  int n\nend\nimplement A using std::none\n")
    if python:
        write(os.path.join(root, "libs/m/plugins/__init__.py"), PLUGIN)
    lines = ["import m"] + [f"m::A(n=m::inc({i}))" if i < calls else f"m::A(n={i} + 1)" for i in range(1000)]
    write(os.path.join(root, "main.cf"), "\n".join(lines) + "\n")
    return root


def median_time(binary, cwd, runs):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        proc = subprocess.run([binary, "compile"], cwd=cwd, capture_output=True, text=True)
        times.append(time.perf_counter() - start)
        if proc.returncode != 0:
            raise SystemExit(f"compile failed in {cwd}:\n{proc.stderr}")
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary", nargs="?", default=os.path.join(os.path.dirname(__file__), "..", "build", "inmanta"))
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--ip", help="a checkout of the inmanta/ip module (net beside it)")
    args = parser.parse_args()
    binary = os.path.abspath(args.binary)
    with tempfile.TemporaryDirectory(prefix="inmanta-module-code-bench-") as tmp:
        # warm the bytecode cache and the page cache once
        median_time(binary, project(os.path.join(tmp, "warm"), 1, True), 1)
        results = {}
        for name, calls, python in [("calls", 1000, True), ("one", 1, True), ("none", 0, False)]:
            results[name] = median_time(binary, project(os.path.join(tmp, name), calls, python), args.runs)
        print(f"1,000 plugin calls:   {results['calls'] * 1000:7.1f} ms")
        print(f"one plugin call:      {results['one'] * 1000:7.1f} ms")
        print(f"no Python:            {results['none'] * 1000:7.1f} ms")
        print(f"cost of 1,000 calls:  {(results['calls'] - results['one']) * 1000:7.1f} ms (target <= 20)")
        print(f"cost of Python start: {(results['one'] - results['none']) * 1000:7.1f} ms")
        if args.ip:
            ip_root = os.path.join(tmp, "ip")
            write(os.path.join(ip_root, "project.yml"), PROJECT_YML)
            shutil.copytree(args.ip, os.path.join(ip_root, "libs/ip"))
            net = os.path.join(os.path.dirname(os.path.abspath(args.ip)), "net")
            if os.path.isdir(net):
                shutil.copytree(net, os.path.join(ip_root, "libs/net"))
            write(os.path.join(ip_root, "main.cf"), 'import ip\nstd::print(ip::is_valid_ip("10.0.0.1"))\n')
            median_time(binary, ip_root, 1)
            with_python = median_time(binary, ip_root, args.runs)
            write(os.path.join(ip_root, "main.cf"), "std::print(true)\n")
            without = median_time(binary, ip_root, args.runs)
            print(f"import ip (Python):   {with_python * 1000:7.1f} ms")
            print(f"without import ip:    {without * 1000:7.1f} ms")
            print(f"difference:           {(with_python - without) * 1000:7.1f} ms (target <= 200)")


if __name__ == "__main__":
    main()
