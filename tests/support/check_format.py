#!/usr/bin/env python3
"""Every C++ file of ours is formatted as the repository's .clang-format says (clang-format 14).

Usage: check_format.py [--fix] [--clang-format PATH] ROOT

The files are the tracked *.cpp/*.h/*.hpp/*.cc of ROOT (`git ls-files`; when ROOT is not a git
checkout, the files found walking it), except the conformance copy (tests/conformance), build
trees and generated code. Prints the files clang-format would change, with the first lines of
the change, and exits 1 if there are any; --fix rewrites them in place instead. Exits 77 (the
ctest's SKIP_RETURN_CODE) when clang-format is not installed.
"""
import argparse
import concurrent.futures
import difflib
import os
import re
import shutil
import subprocess
import sys

EXTENSIONS = (".cpp", ".h", ".hpp", ".cc")
# path prefixes (relative to ROOT, with /) that are not ours to format
EXCLUDED_PREFIXES = ("tests/conformance/",)
# folders never walked (build trees, generated code, VCS metadata)
EXCLUDED_DIR = re.compile(r"^(build(-.*)?|\..*|__pycache__|gen|generated)$")
SKIP = 77
WANTED_MAJOR = 14


def find_clang_format(explicit):
    if explicit:
        return explicit if shutil.which(explicit) else None
    for name in (f"clang-format-{WANTED_MAJOR}", "clang-format"):
        path = shutil.which(name)
        if path:
            return path
    return None


def is_ours(rel):
    if not rel.endswith(EXTENSIONS):
        return False
    if rel.startswith(EXCLUDED_PREFIXES):
        return False
    return not any(EXCLUDED_DIR.match(part) for part in rel.split("/")[:-1])


def list_files(root):
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-z", "--", *[f"*{e}" for e in EXTENSIONS]],
                             check=True, capture_output=True).stdout
        # tracked but deleted in the work tree: nothing to check
        names = [n for n in out.decode().split("\0") if n and os.path.isfile(os.path.join(root, n))]
    except (OSError, subprocess.CalledProcessError):
        names = []
        for dirpath, dirs, files in os.walk(root):
            dirs[:] = sorted(d for d in dirs if not EXCLUDED_DIR.match(d))
            for f in files:
                names.append(os.path.relpath(os.path.join(dirpath, f), root).replace(os.sep, "/"))
    return sorted(n for n in names if is_ours(n))


def formatted(clang_format, root, rel):
    path = os.path.join(root, rel)
    with open(path, "rb") as fd:
        original = fd.read()
    result = subprocess.run([clang_format, "--style=file", f"--assume-filename={path}"], input=original,
                            capture_output=True)
    if result.returncode != 0:
        raise RuntimeError(f"{rel}: clang-format failed: {result.stderr.decode(errors='replace').strip()}")
    return original, result.stdout


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("root")
    parser.add_argument("--fix", action="store_true", help="rewrite the files that differ")
    parser.add_argument("--clang-format", help="the clang-format to run (default: clang-format-14 or clang-format)")
    args = parser.parse_args()
    root = os.path.abspath(args.root)

    clang_format = find_clang_format(args.clang_format)
    if clang_format is None:
        print("format: SKIPPED, clang-format is not installed (scripts/install-deps.sh installs it)")
        return SKIP
    if not os.path.isfile(os.path.join(root, ".clang-format")):
        print(f"format: {root}/.clang-format is missing")
        return 1
    version = subprocess.run([clang_format, "--version"], capture_output=True, text=True).stdout.strip()
    match = re.search(r"version (\d+)", version)
    if not match or int(match.group(1)) != WANTED_MAJOR:
        print(f"format: note: the tree is formatted with clang-format {WANTED_MAJOR}; {clang_format} is "
              f"'{version}', whose output may differ")

    files = list_files(root)
    differ = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        for rel, (original, new) in zip(files, pool.map(lambda r: formatted(clang_format, root, r), files)):
            if original == new:
                continue
            differ.append(rel)
            if args.fix:
                with open(os.path.join(root, rel), "wb") as fd:
                    fd.write(new)
                print(f"reformatted {rel}")
                continue
            diff = list(difflib.unified_diff(original.decode(errors="replace").splitlines(),
                                             new.decode(errors="replace").splitlines(), f"a/{rel}", f"b/{rel}",
                                             n=0, lineterm=""))
            changed = sum(1 for line in diff[2:] if line[:1] in "+-")
            print(f"{rel}: {changed} lines differ from clang-format's output")
            for line in diff[2:12]:
                print(f"    {line}")
            if len(diff) > 12:
                print("    ...")
    if args.fix:
        print(f"format: reformatted {len(differ)} of {len(files)} files")
        return 0
    if differ:
        print(f"format: {len(differ)} of {len(files)} files are not formatted; run "
              f"`python3 tests/support/check_format.py --fix .` (or clang-format -i on them)")
        return 1
    print(f"format: {len(files)} files formatted ({version})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
