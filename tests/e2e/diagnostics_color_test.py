#!/usr/bin/env python3
"""Colour on the diagnostics (issue 32): an error's kind, its location, the caret, the "caused
by:" labels, the warnings and the summary banner are coloured on a terminal and with
--color always or CLICOLOR_FORCE; never with NO_COLOR, --color never, TERM=dumb, or in a pipe or
a file by default. Colour adds escapes and changes nothing else.

    diagnostics_color_test.py path/to/inmanta
"""
import atexit
import os
import pty
import re
import select
import shutil
import subprocess
import sys

from checks import check, finish, project

INMANTA = os.path.abspath(sys.argv[1])
ESC = "\x1b["
SGR = re.compile(r"\x1b\[[0-9;]*m")
PROJECT_YML = "name: colour\nmodulepath: libs\ndownloadpath: libs\nrepo: []\n"

FAILING = project({"project.yml": PROJECT_YML, "main.cf": """import std
h = std::Host(name="h", os=std::linux)
std::File(host=h, path="/tmp/x", content=1, owner="root")
"""})
# a warning about the user's own code, and a successful compile
WARNING = project({"project.yml": PROJECT_YML, "main.cf": """entity A:
    number n = 1
end
implement A using std::none
A()
"""})
for folder in (FAILING, WARNING):
    atexit.register(shutil.rmtree, folder, True)


def environment(**changes):
    """The test's environment without the variables that decide colour, then `changes`."""
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "CLICOLOR_FORCE", "TERM")}
    env["TERM"] = "xterm-256color"
    env.update(changes)
    return env


def compile_in_pipe(folder, *args, **env):
    proc = subprocess.run([INMANTA, *args], cwd=folder, capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL, env=environment(**env))
    return proc.returncode, proc.stderr


def compile_on_terminal(folder, *args, **env):
    """Runs with standard error on a pseudo-terminal; returns (exit status, what it printed there)."""
    master, slave = pty.openpty()
    proc = subprocess.Popen([INMANTA, *args], cwd=folder, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=slave, env=environment(**env))
    os.close(slave)
    chunks = []
    while True:
        ready, _, _ = select.select([master], [], [], 60)
        if not ready:
            break
        try:
            data = os.read(master, 65536)
        except OSError:  # the terminal closes when the process ends
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    code = proc.wait(timeout=60)
    return code, b"".join(chunks).decode("utf-8", "replace").replace("\r\n", "\n")


code, plain = compile_in_pipe(FAILING, "compile")
check("the failing model fails", code == 1, plain)
check("a pipe gets no colour by default", ESC not in plain, repr(plain))

code, coloured = compile_in_pipe(FAILING, "--color", "always", "compile")
check("--color always: exit status unchanged", code == 1, coloured)
check("--color always: the kind in bold red", "\x1b[1;31mAttributeException\x1b[0m" in coloured, repr(coloured))
check("--color always: the cause's kind and its label",
      "\x1b[1;36mcaused by:\x1b[0m \x1b[1;31mRuntimeException\x1b[0m" in coloured, repr(coloured))
check("--color always: the location in bold", "(\x1b[1m./main.cf:3:34\x1b[0m)" in coloured, repr(coloured))
check("--color always: the caret under the argument's name", "\x1b[1;32m^~~~~~~\x1b[0m" in coloured, repr(coloured))
check("--color always: the banner", "\x1b[1;31m=====" in coloured, repr(coloured))
check("colour changes nothing but the escapes", SGR.sub("", coloured) == plain, repr(coloured))

code, after = compile_in_pipe(FAILING, "compile", "--color", "always")
check("--color after the command", after == coloured, repr(after))

for name, args, env in [
    ("CLICOLOR_FORCE=1 in a pipe", ["compile"], {"CLICOLOR_FORCE": "1"}),
    ("NO_COLOR loses to --color always", ["--color", "always", "compile"], {"NO_COLOR": "1"}),
]:
    code, text = compile_in_pipe(FAILING, *args, **env)
    check(f"{name}: coloured", ESC in text and SGR.sub("", text) == plain, repr(text))

for name, args, env in [
    ("CLICOLOR_FORCE=0", ["compile"], {"CLICOLOR_FORCE": "0"}),
    ("NO_COLOR beats CLICOLOR_FORCE", ["compile"], {"NO_COLOR": "1", "CLICOLOR_FORCE": "1"}),
    ("--color never beats CLICOLOR_FORCE", ["--color", "never", "compile"], {"CLICOLOR_FORCE": "1"}),
    ("TERM=dumb in a pipe", ["compile"], {"TERM": "dumb"}),
]:
    code, text = compile_in_pipe(FAILING, *args, **env)
    check(f"{name}: plain", text == plain, repr(text))

code, text = compile_on_terminal(FAILING, "compile")
check("a terminal gets colour", "\x1b[1;31mAttributeException\x1b[0m" in text, repr(text))
check("a terminal: the same text under the colour", SGR.sub("", text) == plain, repr(text))
for name, env in [("NO_COLOR", {"NO_COLOR": "1"}), ("TERM=dumb", {"TERM": "dumb"})]:
    code, text = compile_on_terminal(FAILING, "compile", **env)
    check(f"a terminal with {name}: plain", ESC not in text and text == plain, repr(text))
code, text = compile_on_terminal(FAILING, "--color", "never", "compile")
check("a terminal with --color never: plain", ESC not in text, repr(text))

code, plain = compile_in_pipe(WARNING, "compile")
check("the warning model compiles with a warning", code == 0 and "TypeDeprecationWarning" in plain, plain)
code, coloured = compile_in_pipe(WARNING, "compile", **{"CLICOLOR_FORCE": "1"})
check("a warning's kind in bold yellow", "\x1b[1;33mTypeDeprecationWarning\x1b[0m" in coloured, repr(coloured))
check("the success banner in bold green", "\x1b[1;32m=====" in coloured, repr(coloured))
check("a coloured warning is the same text", SGR.sub("", coloured) == plain, repr(coloured))

code, text = compile_in_pipe(FAILING, "--color", "sometimes", "compile")
check("--color takes auto, always or never", code == 2 and "sometimes" in text, text)

finish()
