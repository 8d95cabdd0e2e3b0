#!/usr/bin/env python3
"""clang-tidy, with the repository's .clang-tidy, finds nothing in our C++ files.

Usage: run_clang_tidy.py [options] BUILD_DIR ROOT

BUILD_DIR is a configured and built CMake tree of ROOT (its compile_commands.json says how each
file is compiled; the generated headers must exist). The files are the translation units of the
database under ROOT that are ours: not generated (nothing under BUILD_DIR), not the conformance
copy. Which of them (--base, else $INMANTA_TIDY_BASE, else `changed`):
  changed            as for a revision (below): the merge-base with origin/main when HEAD is
                     ahead of it, else HEAD~10 (a fresh clone, as CI's: the last ten commits),
                     else HEAD~1, else (a single commit) all of them;
  a git revision     those changed since that revision (committed or not, and untracked files),
                     and for each changed header one unit that includes it (the .cpp beside it,
                     else one found in ninja's dependency log or by its #include lines);
  all                every one of them (several minutes on two cores: the ctest's default is
                     `changed` for that reason).
Diagnostics are deduplicated (a header's warning is reported once), printed with their notes,
and counted per check; any warning or error fails (exit 1). Exits 77 (the ctest's
SKIP_RETURN_CODE) when clang-tidy is not installed.
"""
import argparse
import collections
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import time

SKIP = 77
# without a branch ahead of origin/main, the files of this many last commits are checked
RECENT_COMMITS = 10
WANTED_MAJOR = 14
# path prefixes (relative to ROOT) whose files are not ours to check
EXCLUDED_PREFIXES = ("tests/conformance/",)
HEADER_EXTENSIONS = (".h", ".hpp")
# Compile errors of clang 14's front end in code GCC (our compiler) accepts. They are not findings,
# and clang-tidy still checks the rest of the file: a lambda that captures a structured binding
# (C++20, P1091R3/P1381R1; clang 16 accepts it), and errors in third-party headers (outside ROOT,
# e.g. Debian's ANTLR 4.9 runtime, whose InterpreterData() default-constructs a const member).
FRONTEND_GAPS = re.compile(r"^reference to local binding '[^']*' declared in enclosing ")
DIAGNOSTIC = re.compile(r"^(?P<file>[^\s:][^:]*):(?P<line>\d+):(?P<col>\d+): (?P<level>warning|error): "
                        r"(?P<message>.*?)(?: \[(?P<check>[^\]]+)\])?$")


def find_tool(explicit, name):
    if explicit:
        return explicit if shutil.which(explicit) else None
    for candidate in (f"{name}-{WANTED_MAJOR}", name):
        path = shutil.which(candidate)
        if path:
            return path
    return None


def ere_escape(text):
    # llvm::Regex is POSIX ERE: escape exactly its special characters
    return re.sub(r"([.^$*+?()\[\]{}|\\])", r"\\\1", text)


def git(root, *args):
    return subprocess.run(["git", "-C", root, *args], capture_output=True, text=True)


def translation_units(build_dir, root):
    with open(os.path.join(build_dir, "compile_commands.json"), encoding="utf-8") as fd:
        database = json.load(fd)
    units = set()
    for entry in database:
        path = os.path.realpath(os.path.join(entry["directory"], entry["file"]))
        if path.startswith(build_dir + os.sep) or not path.startswith(root + os.sep):
            continue
        rel = os.path.relpath(path, root)
        if rel.startswith(EXCLUDED_PREFIXES) or rel.split(os.sep)[0].startswith("build"):
            continue
        units.add(path)
    return sorted(units)


def resolve_base(root, wanted):
    """The revision to compare with, or None for every file."""
    if wanted in ("", "all"):
        return None
    if wanted != "changed":
        return wanted
    if git(root, "rev-parse", "--verify", "-q", "origin/main").returncode == 0:
        merge_base = git(root, "merge-base", "HEAD", "origin/main")
        head = git(root, "rev-parse", "HEAD").stdout.strip()
        if merge_base.returncode == 0 and merge_base.stdout.strip() != head:
            return merge_base.stdout.strip()
    # nothing ahead of origin/main (a fresh clone, as CI's) or no remote: the last commits' files
    for back in (RECENT_COMMITS, 1):
        if git(root, "rev-parse", "--verify", "-q", f"HEAD~{back}").returncode == 0:
            return f"HEAD~{back}"
    return None


def changed_files(root, base):
    diff = git(root, "diff", "--name-only", "--diff-filter=d", base, "--")
    if diff.returncode != 0:
        raise SystemExit(f"clang_tidy: cannot compare with {base}: {diff.stderr.strip()}")
    untracked = git(root, "ls-files", "--others", "--exclude-standard")
    names = diff.stdout.split() + untracked.stdout.split()
    return {os.path.realpath(os.path.join(root, n)) for n in names}


def includers(build_dir, root, headers, units):
    """For each of `headers`, the translation units (of `units`) that include it, directly or not:
    from ninja's dependency log when the tree was built with ninja, else those that name it in an
    #include line."""
    found = {h: set() for h in headers}
    unit_set = set(units)
    deps = subprocess.run(["ninja", "-C", build_dir, "-t", "deps"], capture_output=True, text=True)
    if deps.returncode == 0:
        current = []
        for line in deps.stdout.splitlines() + [""]:
            if line.startswith("    "):
                current.append(os.path.realpath(line.strip()))
                continue
            sources = [p for p in current if p in unit_set]
            for p in current:
                if p in found:
                    found[p].update(sources)
            current = []
    for header, users in found.items():
        if users:
            continue
        rel = os.path.relpath(header, root)
        for unit in units:
            with open(unit, encoding="utf-8", errors="replace") as fd:
                if f'#include "{rel}"' in fd.read():
                    users.add(unit)
    return found


def select_changed(build_dir, root, base, units):
    """The changed translation units, and for each changed header one unit that includes it (the
    .cpp beside it when there is one): the header's findings show in any unit that includes it."""
    changed = changed_files(root, base)
    selected = {u for u in units if u in changed}
    headers = sorted(c for c in changed if c.endswith(HEADER_EXTENSIONS) and os.path.isfile(c))
    for header, users in includers(build_dir, root, headers, units).items():
        if not users or users & selected:
            continue
        beside = [u for u in users if os.path.splitext(u)[0] == os.path.splitext(header)[0]]
        selected.add((beside or sorted(users))[0])
    return sorted(selected)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("build_dir")
    parser.add_argument("root")
    parser.add_argument("--base", default=os.environ.get("INMANTA_TIDY_BASE") or "changed",
                        help="changed, all or a git revision (default: $INMANTA_TIDY_BASE, else changed)")
    parser.add_argument("-j", "--jobs", type=int, default=int(os.environ.get("INMANTA_TIDY_JOBS", "2")))
    parser.add_argument("--checks", help="override the Checks of .clang-tidy (e.g. to measure a check)")
    parser.add_argument("--clang-tidy", help="the clang-tidy to run (default: clang-tidy-14 or clang-tidy)")
    parser.add_argument("files", nargs="*", help="check only these files (of the database)")
    args = parser.parse_args()
    build_dir = os.path.realpath(args.build_dir)
    root = os.path.realpath(args.root)

    clang_tidy = find_tool(args.clang_tidy, "clang-tidy")
    if clang_tidy is None:
        print("clang_tidy: SKIPPED, clang-tidy is not installed (scripts/install-deps.sh installs it)")
        return SKIP
    if not os.path.isfile(os.path.join(root, ".clang-tidy")):
        print(f"clang_tidy: {root}/.clang-tidy is missing")
        return 1
    if not os.path.isfile(os.path.join(build_dir, "compile_commands.json")):
        print(f"clang_tidy: {build_dir}/compile_commands.json is missing (configure with CMake first)")
        return 1
    version = subprocess.run([clang_tidy, "--version"], capture_output=True, text=True).stdout
    match = re.search(r"version (\d+)", version)
    if not match or int(match.group(1)) != WANTED_MAJOR:
        print(f"clang_tidy: note: .clang-tidy is tuned for clang-tidy {WANTED_MAJOR}; {clang_tidy} may find more")

    units = translation_units(build_dir, root)
    if args.files:
        wanted = {os.path.realpath(f) for f in args.files}
        units = [u for u in units if u in wanted]
        what = "the files named"
    else:
        base = resolve_base(root, args.base)
        if base is None:
            what = "all files"
        else:
            units = select_changed(build_dir, root, base, units)
            what = f"the files changed since {base}"

    # our headers: under ROOT's folders that hold our translation units (never the build tree)
    folders = sorted({os.path.relpath(u, root).split(os.sep)[0] for u in translation_units(build_dir, root)})
    header_filter = f"^{ere_escape(root)}/({'|'.join(ere_escape(f) for f in folders)})/"
    command = [clang_tidy, "-p", build_dir, "--quiet", f"--header-filter={header_filter}",
               # the database is GCC's: flags clang does not know are not findings, and clang's
               # compiler warnings are not errors (-Werror in a tree with INMANTA_WERROR)
               "--extra-arg=-Wno-unknown-warning-option", "--extra-arg=-Wno-error"]
    if args.checks:
        command.append(f"--checks={args.checks}")

    print(f"clang_tidy: {len(units)} translation units ({what}), {args.jobs} jobs, {clang_tidy}", flush=True)
    start = time.monotonic()

    def run(unit):
        result = subprocess.run(command + [unit], capture_output=True, text=True, errors="replace")
        return unit, result

    seen = set()
    counts = collections.Counter()
    ignored = 0
    failed_units = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for unit, result in pool.map(run, units):
            block = None  # printing the lines of a diagnostic (its notes, source, caret), or not
            for line in result.stdout.splitlines():
                m = DIAGNOSTIC.match(line)
                if m:
                    path = os.path.realpath(m["file"])
                    key = (path, m["line"], m["col"], m["message"], m["check"])
                    block = key not in seen
                    seen.add(key)
                    if not block:
                        continue
                    if m["level"] == "error" and (FRONTEND_GAPS.match(m["message"])
                                                  or not path.startswith(root + os.sep)):
                        ignored += 1
                        block = False
                        print(f"ignored, clang 14's front end: {line.replace(root + os.sep, '')}")
                        continue
                    counts[m["check"] or f"clang-{m['level']}"] += 1
                    print(line.replace(root + os.sep, ""))
                elif block:  # its notes, source lines and carets
                    print(line.replace(root + os.sep, ""))
            if result.returncode != 0 and not any(DIAGNOSTIC.match(line) for line in result.stdout.splitlines()):
                failed_units.append(unit)
                print(f"{os.path.relpath(unit, root)}: clang-tidy failed (exit {result.returncode}):\n"
                      f"{result.stderr.strip()}")
    elapsed = time.monotonic() - start

    total = sum(counts.values())
    for check, n in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        print(f"  {n:5d}  {check}")
    print(f"clang_tidy: {total} findings in {len(units)} translation units ({what}) in {elapsed:.0f} s"
          + (f"; {ignored} compile errors of clang 14 ignored" if ignored else ""))
    return 1 if total or failed_units else 0


if __name__ == "__main__":
    sys.exit(main())
