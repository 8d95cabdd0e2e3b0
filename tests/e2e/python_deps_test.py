#!/usr/bin/env python3
"""End-to-end test of the modules' Python requirements: `inmanta project install --no-index
--find-links DIR` installs what an imported module's requirements.txt names into the project's
.env from a folder holding a wheel made here, offline; what Debian's packages provide stays out
of .env; pip's failure names the requirement; the compile's Python sees the package.

Usage: python_deps_test.py INMANTA
"""
import glob
import os
import shutil
import subprocess
import sys

import checks
from checks import check, finish, project

INMANTA = os.path.abspath(sys.argv[1])
PACKAGE, MODULE, VERSION = "e2e-probe-pkg", "e2e_probe_pkg", "1.2.0"


def run(args, cwd):
    return subprocess.run([INMANTA] + args, cwd=cwd, capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)


def site_packages(proj):
    found = glob.glob(os.path.join(proj, ".env", "lib", "python3*", "site-packages"))
    return found[0] if found else os.path.join(proj, ".env", "missing")


module_yml = "name: {0}\nlicense: ASL\nversion: 1.0.0\n"
proj = project({
    "project.yml": "name: p\nmodulepath: libs\ndownloadpath: libs\nrequires:\n  - unused\n",
    "main.cf": "import deps\nstd::print(deps::probe())\n",
    "libs/deps/module.yml": module_yml.format("deps"),
    "libs/deps/model/_init.cf": "",
    # the requirement the wheel satisfies, one Debian's python3-jinja2 satisfies, one whose marker
    # rules it out, and what pip never gets: inmanta itself and a v2 module
    "libs/deps/requirements.txt": (f"{PACKAGE}>=1.0  # from the wheel folder\n"
                                   "Jinja2\n"
                                   "never-there; python_version < '3'\n"
                                   "inmanta-core>=8\n"
                                   "inmanta-module-net\n"),
    "libs/deps/plugins/__init__.py": ("from inmanta.plugins import plugin\n"
                                      f"import {MODULE}\n\n\n"
                                      "@plugin\n"
                                      "def probe() -> \"int\":\n"
                                      f"    return {MODULE}.VALUE\n"),
    # on the modulepath and in requires, never imported: its requirements are not installed
    "libs/unused/module.yml": module_yml.format("unused"),
    "libs/unused/model/_init.cf": "",
    "libs/unused/requirements.txt": "not-there-anywhere\n",
}, prefix="inmanta-python-deps-e2e-")
wheels = os.path.join(proj, "wheels")
checks.make_wheel(wheels, PACKAGE, MODULE, VERSION)

proc = run(["project", "install", "--no-index", "--find-links", wheels], proj)
check("install from the wheel folder", proc.returncode == 0, proc.stderr)
check("install makes .env", "created the project's Python environment .env" in proc.stderr, proc.stderr)
check("pip installs the package", f"Successfully installed {PACKAGE}-{VERSION}" in proc.stderr, proc.stderr)
check("inmanta-core and v2 modules are not given to pip",
      "`inmanta-core>=8` (module deps, libs/deps/requirements.txt:4) is not installed" in proc.stderr
      and "`inmanta-module-net`" in proc.stderr and "not-there-anywhere" not in proc.stderr, proc.stderr)
site = site_packages(proj)
check("the package is in .env's site-packages", os.path.isfile(os.path.join(site, MODULE, "__init__.py")),
      str(os.listdir(os.path.dirname(site)) if os.path.isdir(os.path.dirname(site)) else "no .env/lib"))
check("Debian's Jinja2 satisfies its requirement and is not installed again",
      not glob.glob(os.path.join(site, "[Jj]inja2*")), str(os.listdir(site) if os.path.isdir(site) else ""))
check(".env has a pip", os.access(os.path.join(proj, ".env", "bin", "pip"), os.X_OK))

proc = run(["compile"], proj)
check("the compile's Python imports the installed package", proc.returncode == 0 and proc.stdout == "42\n",
      proc.stdout + proc.stderr)

proc = run(["project", "install", "--no-index", "--find-links", wheels], proj)
check("a second install keeps .env and finds the package installed",
      proc.returncode == 0 and "created" not in proc.stderr
      and f"Requirement already satisfied: {PACKAGE}" in proc.stderr, proc.stderr)

with open(os.path.join(proj, "libs", "deps", "requirements.txt"), "w", encoding="utf-8") as fd:
    fd.write(f"{PACKAGE}>=3\n")
proc = run(["project", "install", "--no-index", "--find-links", wheels], proj)
check("pip's failure names the requirement, who set it and pip's last lines",
      proc.returncode == 1 and f"Packages {PACKAGE}>=3 were not found. No indexes were used" in proc.stderr
      and f"`{PACKAGE}>=3` (module deps, libs/deps/requirements.txt:1)" in proc.stderr
      and "pip's last lines:" in proc.stderr and "Traceback" not in proc.stderr, proc.stderr)

with open(os.path.join(proj, "libs", "deps", "requirements.txt"), "w", encoding="utf-8") as fd:
    fd.write("-r other.txt\n")
proc = run(["project", "install"], proj)
check("a pip option in requirements.txt is a located error",
      proc.returncode == 1 and "libs/deps/requirements.txt:1: invalid requirement '-r other.txt'" in proc.stderr,
      proc.stderr)

if not checks.failures:
    shutil.rmtree(proj, ignore_errors=True)
finish()
