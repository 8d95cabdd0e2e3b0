#!/usr/bin/env python3
"""End-to-end tests of `inmanta project install/update/freeze/init`, `module list` and
`compile --install` against git repositories made on the fly (git CLI, file:// URLs).

Usage: project_test.py INMANTA [--modules N]  (prints the install time of an N-module project)
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from checks import check, finish

INMANTA = os.path.abspath(sys.argv[1])
GIT_ENV = dict(os.environ, GIT_CONFIG_NOSYSTEM="1", HOME=tempfile.gettempdir(), GIT_AUTHOR_NAME="t",
               GIT_AUTHOR_EMAIL="t@example.com", GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.com")


def run(args, cwd, timeout=120):
    start = time.monotonic()
    proc = subprocess.run([INMANTA] + args, cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)
    return proc, time.monotonic() - start


def git(*args, cwd):
    subprocess.run(["git", *args], cwd=cwd, env=GIT_ENV, check=True, capture_output=True)


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as fd:
        fd.write(text)


def publish(root, name, versions):
    """A bare repository root/repos/NAME with one commit and tag per (version, requires, model)."""
    work = os.path.join(root, "work", name)
    os.makedirs(work)
    git("init", "-q", "-b", "main", cwd=work)
    for version, requires, model in versions:
        yml = f"name: {name}\nlicense: ASL\nversion: {version}\n"
        if requires:
            yml += "requires:\n" + "".join(f"  - {r}\n" for r in requires)
        write(os.path.join(work, "module.yml"), yml)
        write(os.path.join(work, "model", "_init.cf"), model)
        git("add", "-A", cwd=work)
        git("commit", "-qm", version, cwd=work)
        git("tag", version, cwd=work)
    git("clone", "-q", "--bare", work, os.path.join(root, "repos", name), cwd=root)


def make_project(root, requires, main):
    d = os.path.join(root, "proj")
    yml = ("name: p\nmodulepath: libs\ndownloadpath: libs\nrepo:\n"
           f"  - url: file://{root}/repos/{{}}\n    type: git\n")
    if requires:
        yml += "requires:\n" + "".join(f"  - {r}\n" for r in requires)
    write(os.path.join(d, "project.yml"), yml)
    write(os.path.join(d, "main.cf"), main)
    return d


# The acceptance scenario: tags 1.0.0, 1.1.0, 2.0.0; the project requires ~= 1.0.
root = tempfile.mkdtemp(prefix="inmanta-project-e2e-")
publish(root, "mod", [(v, [], f'version = "{v}"\n') for v in ("1.0.0", "1.1.0", "2.0.0")])
proj = make_project(root, ["mod ~= 1.0"], "import mod\nstd::print(mod::version)\n")
proc, _ = run(["compile"], proj)
check("compile before install names the module, the import and the fix",
      proc.returncode == 1 and "could not find module mod (imported at ./main.cf:1)" in proc.stderr
      and "inmanta project install" in proc.stderr, proc.stderr)
proc, _ = run(["project", "install"], proj)
check("install", proc.returncode == 0 and "mod 1.1.0 installed from file://" in proc.stderr, proc.stderr)
proc, _ = run(["compile"], proj)
check("compile uses 1.1.0", proc.returncode == 0 and proc.stdout == "1.1.0\n", proc.stdout + proc.stderr)
proc, _ = run(["module", "list", "--json"], proj)
rows = json.loads(proc.stdout) if proc.returncode == 0 else []
check("module list --json", [(r["name"], r["version"], r["constraint"], r["satisfied"]) for r in rows]
      == [("mod", "1.1.0", "~= 1.0", True), ("std", "5.2.8", "*", True)], proc.stdout + proc.stderr)
proc, _ = run(["module", "list"], proj)
check("module list", proc.returncode == 0 and "mod   1.1.0    libs/mod" in proc.stdout, proc.stdout)

# offline: with the repositories gone, install (a no-op) and compile still work
shutil.move(os.path.join(root, "repos"), os.path.join(root, "repos.away"))
proc, _ = run(["project", "install"], proj)
check("offline install", proc.returncode == 0 and "mod 1.1.0 present at libs/mod" in proc.stderr, proc.stderr)
proc, _ = run(["compile", "--install"], proj)
check("offline compile --install", proc.returncode == 0 and proc.stdout == "1.1.0\n", proc.stderr)
shutil.move(os.path.join(root, "repos.away"), os.path.join(root, "repos"))

proc, _ = run(["project", "freeze", "--operator", "=="], proj)
with open(os.path.join(proj, "project.yml"), encoding="utf-8") as fd:
    frozen = fd.read()
check("freeze", proc.returncode == 0 and "requires:\n  - mod == 1.1.0\n  - std == 5.2.8\n" in frozen, frozen + proc.stderr)

# a compile warns when an installed version breaks a constraint (and never touches git)
write(os.path.join(proj, "project.yml"), frozen.replace("mod == 1.1.0", "mod >= 1.2"))
proc, _ = run(["compile"], proj)
check("compile warns about an unmet constraint", proc.returncode == 0 and
      "ModuleVersionWarning: module mod 1.1.0 (./libs/mod) does not satisfy `mod >= 1.2` (set by ./project.yml:8)"
      in proc.stderr, proc.stderr)

# an update to a newer allowed tag
write(os.path.join(proj, "project.yml"), frozen.replace("mod == 1.1.0", "mod < 2"))
work = os.path.join(root, "work", "mod")
write(os.path.join(work, "module.yml"), "name: mod\nlicense: ASL\nversion: 1.5.0\n")
write(os.path.join(work, "model", "_init.cf"), 'version = "1.5.0"\n')
git("commit", "-qam", "1.5.0", cwd=work)
git("tag", "1.5.0", cwd=work)
git("push", "-q", "--tags", os.path.join(root, "repos", "mod"), "HEAD:refs/heads/main", cwd=work)
proc, _ = run(["project", "update"], proj)
check("update", proc.returncode == 0 and "mod 1.5.0 updated from 1.1.0" in proc.stderr, proc.stderr)
proc, _ = run(["compile"], proj)
check("compile after update", proc.stdout == "1.5.0\n", proc.stdout + proc.stderr)

# errors: an unreachable repository, a bad project.yml field
proj2 = make_project(root + "/other", [], "import ghost\n")
proc, _ = run(["compile", "--install"], proj2)
check("unreachable repository", proc.returncode == 1 and f"cannot clone file://{root}/other/repos/ghost" in proc.stderr,
      proc.stderr)
write(os.path.join(proj2, "project.yml"), "name: p\nmodulepath: libs\nrequires:\n  - mod >> 1\n")
proc, _ = run(["project", "install"], proj2)
check("bad requires", proc.returncode == 1 and "project.yml:4:5: Metadata defined in project.yml is invalid: field 'requires[0]'" in proc.stderr, proc.stderr)

# init
proc, _ = run(["project", "init", "fresh", "-o", root], root)
fresh = os.path.join(root, "fresh")
check("init", proc.returncode == 0 and os.path.isfile(os.path.join(fresh, "main.cf")), proc.stderr)
proc, _ = run(["compile"], fresh)
# quiet success (issue 32): nothing but the success line, no warning about the bundled std
check("init compiles quietly", proc.returncode == 0 and proc.stdout == ""
      and proc.stderr.strip() == "=" * 35 + " SUCCESS " + "=" * 35, repr(proc.stderr))
proc, _ = run(["-v", "compile"], fresh)
check("init: -v shows the bundled std's warning once with its other place", proc.returncode == 0
      and proc.stderr.count("TypeDeprecationWarning: Type 'number' is deprecated") == 1
      and "/modules/std/model/_init.cf:" in proc.stderr and "    also at " in proc.stderr, proc.stderr)
proc, _ = run(["project", "init", "fresh", "-o", root], root)
check("init refuses an existing project", proc.returncode == 1 and "exists" in proc.stderr, proc.stderr)
shutil.rmtree(root)

# 20 modules in a chain of imports and requires, from local repositories: the install time
count = 20
for i, arg in enumerate(sys.argv):
    if arg == "--modules":
        count = int(sys.argv[i + 1])
root = tempfile.mkdtemp(prefix="inmanta-project-bench-")
for i in range(count):
    deps = [f"m{i + 1} >= 1.0"] if i + 1 < count else []
    model = f"import m{i + 1}\n" if i + 1 < count else ""
    publish(root, f"m{i}", [("1.0.0", deps, model + "entity A:\nend\n"), ("1.1.0", deps, model + "entity A:\nend\n"),
                            ("2.0.0", deps, model)])
proj = make_project(root, ["m0 ~= 1.0"], "import m0\n")
times = []
for _ in range(5):
    shutil.rmtree(os.path.join(proj, "libs"), ignore_errors=True)
    proc, elapsed = run(["project", "install"], proj)
    times.append(elapsed)
check(f"{count}-module install", proc.returncode == 0 and proc.stderr.count("installed from") == count, proc.stderr)
print(f"TIME install of {count} modules from local repositories: median {statistics.median(times):.3f} s "
      f"(runs: {', '.join(f'{t:.3f}' for t in times)})")
proc, elapsed = run(["project", "install"], proj)
print(f"TIME re-run with everything installed: {elapsed:.3f} s")
proc, _ = run(["compile"], proj)
check(f"{count}-module project compiles", proc.returncode == 0, proc.stderr)
shutil.rmtree(root)

finish()
