#!/usr/bin/env python3
"""End-to-end tests of the `inmanta` binary's command line (run by ctest with the binary's path)."""
import os
import subprocess
import sys
import tempfile
import time

from checks import check, finish
import checks  # noqa: E402

INMANTA = os.path.abspath(sys.argv[1])


def run(args, cwd=None, timeout=60):
    start = time.monotonic()
    proc = subprocess.run([INMANTA] + args, cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)
    return proc, time.monotonic() - start


def run_bytes(args, cwd=None):
    return subprocess.run([INMANTA] + args, cwd=cwd, capture_output=True, timeout=60, stdin=subprocess.DEVNULL)


def project(files):
    return checks.project(files, "inmanta-e2e-")


PROJECT_YML = "name: e2e\nmodulepath: libs\ndownloadpath: libs\nrepo: []\n"

proc, _ = run(["--version"])
check("version", proc.returncode == 0 and proc.stdout.startswith("inmanta-cpp "), proc.stdout + proc.stderr)
proc, _ = run(["--help"])
check("help", proc.returncode == 0 and "compile" in proc.stdout, proc.stdout)
proc, _ = run(["compile", "--help"])
check("compile help", proc.returncode == 0 and "--project" in proc.stdout, proc.stdout)
proc, _ = run(["no-such-command"])
check("unknown subcommand fails with 2", proc.returncode == 2, f"{proc.returncode} {proc.stdout}{proc.stderr}")

# A syntax error: exit 1, kind, location, the source line and a caret, nothing on stdout.
d = project({"project.yml": PROJECT_YML, "main.cf": "x = 1\ny = (2 +\nz = 3\n"})
proc, _ = run(["compile"], cwd=d)
check("syntax error exit", proc.returncode == 1, proc.stderr)
check("syntax error kind and place", "Error: ParserException: Syntax error at token = (./main.cf:3:4)" in proc.stderr,
      proc.stderr)
check("syntax error source line", "    z = 3\n      ^" in proc.stderr, proc.stderr)
check("syntax error banner", "COMPILATION FAILURE" in proc.stderr, proc.stderr)
check("syntax error stdout empty", proc.stdout == "", proc.stdout)

# --project from elsewhere, and discovery from a subfolder.
proc, _ = run(["compile", "--project", d])
check("--project", proc.returncode == 1 and "./main.cf:3" in proc.stderr, proc.stderr)
os.makedirs(os.path.join(d, "sub", "deeper"))
proc, _ = run(["compile"], cwd=os.path.join(d, "sub", "deeper"))
check("project found upwards", proc.returncode == 1 and "./main.cf:3" in proc.stderr, proc.stderr)

# A module file with an error is reported with its path.
d = project({"project.yml": PROJECT_YML, "main.cf": "import mymod\n",
             "libs/mymod/module.yml": "name: mymod\nversion: 1.0.0\nlicense: ASL\n",
             "libs/mymod/model/_init.cf": "entity lower:\nend\n"})
proc, _ = run(["compile"], cwd=d)
check("module syntax error", proc.returncode == 1 and "./libs/mymod/model/_init.cf:1:8" in proc.stderr, proc.stderr)

# A missing module names the import and the folders searched.
d = project({"project.yml": PROJECT_YML, "main.cf": "\nimport nosuchmodule\n"})
proc, _ = run(["compile"], cwd=d)
check("missing module", proc.returncode == 1 and "ModuleLoadingException" in proc.stderr
      and "./main.cf:2" in proc.stderr and "nosuchmodule" in proc.stderr, proc.stderr)

# No project: a clear error.
d = tempfile.mkdtemp()
proc, _ = run(["compile"], cwd=d)
check("no project", proc.returncode == 1 and "project.yml" in proc.stderr, proc.stderr)

# A file that is not UTF-8 text.
d = project({"project.yml": PROJECT_YML, "main.cf": ""})
with open(os.path.join(d, "main.cf"), "wb") as fd:
    fd.write(b"x = 1\ny = '\xff'\n")
proc = run_bytes(["compile"], cwd=d)
err = proc.stderr.decode("utf-8", errors="strict")  # the diagnostic itself must be UTF-8
check("invalid utf-8", proc.returncode == 1 and "./main.cf:2:6" in err, err)
# ... after a long ASCII run, CRLF and lone CR line ends, and valid non-ASCII on its own line
# (columns count code points)
with open(os.path.join(d, "main.cf"), "wb") as fd:
    fd.write(b"# " + b"x" * 100 + b"\r\ny = '\xc3\xa9\xe6\x97\xa5'\r\rz = '\xc3\xa9\xff'\n")
proc = run_bytes(["compile"], cwd=d)
err = proc.stderr.decode("utf-8", errors="strict")
check("invalid utf-8 after CRLF and non-ASCII", proc.returncode == 1 and "./main.cf:4:7" in err, err)

# A model that compiles: std::print output only on stdout, the summary on stderr.
d = project({"project.yml": PROJECT_YML, "main.cf": "x = 1\nstd::print(x)\n"})
proc, _ = run(["compile"], cwd=d)
check("compiles", proc.returncode == 0 and proc.stdout == "1\n" and "SUCCESS" in proc.stderr,
      f"{proc.returncode} {proc.stdout} {proc.stderr}")

# An expression is evaluated in the unit of the statement that uses it, as the reference's
# ReferenceStatements are (operators, plugin calls, casts, literals, lookups, formatting): a
# statement whose inputs are ready runs in source order; one waiting for `x` runs once x is set.
d = project({"project.yml": PROJECT_YML, "main.cf": (
    'std::print(1 + 1)\nstd::print("a")\nx = 3\nstd::print(x * 2)\nstd::print("b")\n'
    'std::print(std::upper("c"))\nstd::print("1-1" + string(int("4")))\nstd::print("d")\n')})
proc, _ = run(["compile"], cwd=d)
check("statement order of direct expressions", proc.returncode == 0 and proc.stdout.split() == [
    "2", "a", "b", "C", "1-14", "d", "6"], f"{proc.stdout!r} {proc.stderr}")

# A run-time error: kind, location, exit 1.
d = project({"project.yml": PROJECT_YML, "main.cf": "x = 1\nx = 2\n"})
proc, _ = run(["compile"], cwd=d)
check("double set", proc.returncode == 1 and "DoubleSetException" in proc.stderr and "./main.cf:2" in proc.stderr,
      proc.stderr)


# INMANTA_MAX_ITERATIONS bounds the scheduler's rounds as in the reference; a bad value is an error.
d = project({"project.yml": PROJECT_YML, "main.cf": """
entity A:
end
A.others [0:] -- A
implement A using std::none
a = A()
b = A(others=a)
std::print(std::count(b.others))
"""})
env = dict(os.environ, INMANTA_MAX_ITERATIONS="1")
proc = subprocess.run([INMANTA, "compile"], cwd=d, capture_output=True, text=True, timeout=60, env=env)
check("max iterations reached", proc.returncode == 1
      and "CompilerException: Could not complete model, max_iterations 1 reached." in proc.stderr, proc.stderr)
env["INMANTA_MAX_ITERATIONS"] = "many"
proc = subprocess.run([INMANTA, "compile"], cwd=d, capture_output=True, text=True, timeout=60, env=env)
check("max iterations malformed", proc.returncode == 1 and "INMANTA_MAX_ITERATIONS must be a positive whole number, got 'many'"
      in proc.stderr, proc.stderr)
env["INMANTA_MAX_ITERATIONS"] = "50"
proc = subprocess.run([INMANTA, "compile"], cwd=d, capture_output=True, text=True, timeout=60, env=env)
check("max iterations enough", proc.returncode == 0 and proc.stdout == "1\n", proc.stdout + proc.stderr)

# A model that constructs instances without end never completes: past its memory limit
# (INMANTA_MAX_MEMORY, MiB) the compile stops with an error at the latest constructor, where the
# reference runs until the machine's memory is gone.
d = project({"project.yml": PROJECT_YML, "main.cf": """
entity Vm:
    string name
end
implementation more for Vm:
    Vm(name="worker")
end
implement Vm using more
Vm(name="first")
"""})
env = dict(os.environ, INMANTA_MAX_MEMORY="200")
proc = subprocess.run([INMANTA, "compile"], cwd=d, capture_output=True, text=True, timeout=120, env=env)
check("endless construction stops at the memory limit", proc.returncode == 1
      and "CompilerException: Could not complete model: the compile uses " in proc.stderr
      and "over its limit of 200 MiB" in proc.stderr and "the latest here. (./main.cf:6)" in proc.stderr, proc.stderr)
env["INMANTA_MAX_MEMORY"] = "lots"
proc = subprocess.run([INMANTA, "compile"], cwd=d, capture_output=True, text=True, timeout=60, env=env)
check("memory limit malformed", proc.returncode == 1
      and "INMANTA_MAX_MEMORY must be a positive whole number of MiB, got 'lots'" in proc.stderr, proc.stderr)
# a model that completes is not stopped by a limit it stays under
d = project({"project.yml": PROJECT_YML, "main.cf": "entity A:\nend\nimplement A using std::none\nfor i in std::sequence(70000):\n    A()\nend\n"})
env["INMANTA_MAX_MEMORY"] = "2000"
proc = subprocess.run([INMANTA, "compile"], cwd=d, capture_output=True, text=True, timeout=120, env=env)
check("memory limit not reached", proc.returncode == 0, proc.stderr)

# std::template's CPython is in libinmanta_python.so, loaded by the first render: the binary does
# not link libpython, and neither --version nor a compile without templates loads it.
def loaded_libraries(args, cwd=None, env=None):
    """The files the dynamic loader opened while running the binary (LD_DEBUG=files)."""
    env = dict(env or os.environ, LD_DEBUG="files")
    proc = subprocess.run([INMANTA] + args, cwd=cwd, capture_output=True, text=True, timeout=60, env=env,
                          stdin=subprocess.DEVNULL)
    return proc, [line.split("file=", 1)[1].split()[0] for line in proc.stderr.splitlines() if "file=" in line]


proc = subprocess.run([INMANTA], capture_output=True, text=True, timeout=60,
                      env=dict(os.environ, LD_TRACE_LOADED_OBJECTS="1"))
check("binary does not link libpython", proc.returncode == 0 and "libc.so" in proc.stdout
      and "libpython" not in proc.stdout, proc.stdout + proc.stderr)
proc, files = loaded_libraries(["--version"])
check("--version loads no Python", proc.returncode == 0 and files and not any(
    "libpython" in f or "inmanta_python" in f for f in files), files)
d = project({"project.yml": PROJECT_YML, "main.cf": "std::print(std::upper('a'))\n"})
proc, files = loaded_libraries(["compile"], cwd=d)
check("compile without templates loads no Python", proc.returncode == 0 and not any(
    "libpython" in f or "inmanta_python" in f for f in files), files)
d = project({"project.yml": PROJECT_YML, "main.cf": "x = 'a<b'\nstd::print(std::template('/t.j2'))\n",
             "templates/t.j2": "{{ x }} {{ x | e }}", "not-a-library.so": "not a shared library\n" * 10})
proc, files = loaded_libraries(["compile"], cwd=d)
check("a template loads the module", proc.returncode == 0 and proc.stdout == "a<b a&lt;b\n"
      and any("inmanta_python" in f for f in files) and any("libpython" in f for f in files),
      f"{proc.stdout!r} {files}")
# without the module: a located plugin error that says what is missing
for module, reason in [("/nonexistent/libinmanta_python.so", "not found (looked for /nonexistent/libinmanta_python.so)"),
                       (os.path.join(d, "not-a-library.so"), "invalid ELF header")]:
    env = dict(os.environ, INMANTA_PYTHON_MODULE=module)
    proc = subprocess.run([INMANTA, "compile"], cwd=d, capture_output=True, text=True, timeout=60, env=env)
    check(f"missing module: {reason}", proc.returncode == 1
          and "Exception in plugin std::template (./main.cf:2:12)" in proc.stderr
          and "caused by: ImportError: cannot load the Jinja2 engine of std::template (libinmanta_python.so): " in proc.stderr
          and reason in proc.stderr, proc.stderr)

finish()
