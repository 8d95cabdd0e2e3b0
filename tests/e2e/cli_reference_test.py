#!/usr/bin/env python3
"""What `inmanta completion` and the generated man pages say about the command lines, checked
against what the binary's own --help lists (issue 32): CLI11 prints --help from the same
definitions by a path of its own, so a command or flag missing from a script or a page, or a
page left stale in the build tree, fails here.

    cli_reference_test.py path/to/inmanta path/to/source/man
"""
import filecmp
import os
import re
import shutil
import subprocess
import sys
import tempfile

from checks import check, finish

INMANTA = os.path.abspath(sys.argv[1])
SOURCE_MAN = os.path.abspath(sys.argv[2])
BUILD = os.path.dirname(INMANTA)
ROOTS = {"inmanta": INMANTA, "inmanta-cli": os.path.join(BUILD, "inmanta-cli")}


def run(args, **kwargs):
    return subprocess.run(args, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL, **kwargs)


def help_of(path):
    """(flags, subcommands) of a command path such as ["inmanta-cli", "environment", "create"],
    read from its --help."""
    proc = run([ROOTS[path[0]], *path[1:], "--help"])
    flags, subs, section = [], [], None
    for line in proc.stdout.splitlines():
        if line and not line.startswith(" "):
            section = line.rstrip(":")
            continue
        m = re.match(r"^  (\S+)", line)
        if not m:
            continue
        if section == "Options":
            # a flag's default value is shown after it: --no-recursive{false}
            flags += [name.split("{")[0] for name in m.group(1).split(",") if name.startswith("-")]
        elif section == "Subcommands":
            subs.append(m.group(1))
    return flags, subs


def commands():
    """Every command path of both command lines, with its flags and subcommands."""
    out, todo = {}, [[root] for root in ROOTS]
    while todo:
        path = todo.pop(0)
        flags, subs = help_of(path)
        out[" ".join(path)] = (flags, subs)
        todo += [path + [sub] for sub in subs]
    return out


COMMANDS = commands()
check("--help lists the commands", {"inmanta export", "inmanta project init", "inmanta-cli environment setting set",
                                    "inmanta completion"} <= set(COMMANDS), sorted(COMMANDS))

# ------------------------------------------------------------------------------ completion
scripts = {shell: run([INMANTA, "completion", shell]) for shell in ("bash", "zsh", "fish")}
for shell, proc in scripts.items():
    check(f"completion {shell} exits 0", proc.returncode == 0 and proc.stdout, proc.stderr)
    with open(os.path.join(BUILD, "completions", {"bash": "inmanta.bash", "zsh": "_inmanta",
                                                  "fish": "inmanta.fish"}[shell])) as fd:
        check(f"the build's {shell} script is current", fd.read() == proc.stdout)
proc = run([INMANTA, "completion", "tcsh"])
check("completion of an unknown shell is a usage error", proc.returncode == 2 and "tcsh" in proc.stderr, proc.stderr)

# bash: load the script as a user does, then call its function as bash's completion does
CASES = [["inmanta", "ex"], ["inmanta", "export", "--"], ["inmanta", "-c", "x.cfg", "co"], ["inmanta", "export", "-j", "ou"],
         ["inmanta-cli", "env"], ["inmanta-cli", "environment", "setting", ""], ["/usr/bin/inmanta", "project", ""],
         ["inmanta-cli", "--host", "h", "environment", "create", "--j"]]
CASES += [path.split() + ["--"] for path in COMMANDS] + [path.split() + [""] for path in COMMANDS if COMMANDS[path][1]]
driver = "source <(\"$INMANTA\" completion bash) || exit 1\ncomplete -p inmanta inmanta-cli || exit 1\n"
for words in CASES:
    quoted = " ".join("'" + w + "'" for w in words)
    driver += (f"COMP_WORDS=({quoted}); COMP_CWORD={len(words) - 1}; COMPREPLY=(); _inmanta '{words[0]}'\n"
               "echo \"${COMPREPLY[*]}\"\n")
folder = tempfile.mkdtemp(prefix="inmanta-completion-")
for name in ("out1.json", "out2.json", "other"):
    open(os.path.join(folder, name), "w").close()
proc = run(["bash", "-c", driver], cwd=folder, env={**os.environ, "INMANTA": INMANTA})
lines = proc.stdout.splitlines()
check("bash: the script loads and registers both commands", proc.returncode == 0 and len(lines) == len(CASES) + 2
      and lines[0] == "complete -o filenames -F _inmanta inmanta"
      and lines[1] == "complete -o filenames -F _inmanta inmanta-cli", f"{proc.stderr} {lines[:3]}")
offered = dict(zip((" ".join(c) for c in CASES), (line.split() for line in lines[2:])))
check("bash: inmanta ex → export", offered.get("inmanta ex") == ["export"], offered.get("inmanta ex"))
check("bash: inmanta export -- → its long flags", {"--json", "--deploy", "--partial"} <= set(offered.get("inmanta export --", [])),
      offered.get("inmanta export --"))
check("bash: a global option's value is skipped", offered.get("inmanta -c x.cfg co") == ["compile", "completion"],
      offered.get("inmanta -c x.cfg co"))
check("bash: a file after -j", sorted(offered.get("inmanta export -j ou", [])) == ["out1.json", "out2.json"],
      offered.get("inmanta export -j ou"))
check("bash: inmanta-cli env → environment", offered.get("inmanta-cli env") == ["environment"])
check("bash: a nested group's commands", offered.get("inmanta-cli environment setting ") == ["list", "set", "get", "delete"],
      offered.get("inmanta-cli environment setting "))
check("bash: called by a path", offered.get("/usr/bin/inmanta project ") == COMMANDS["inmanta project"][1],
      offered.get("/usr/bin/inmanta project "))
check("bash: past --host's value", offered.get("inmanta-cli --host h environment create --j") == ["--json"],
      offered.get("inmanta-cli --host h environment create --j"))
for path, (flags, subs) in COMMANDS.items():
    longs = [f for f in flags if f.startswith("--")]
    check(f"bash: {path} -- offers the long flags of its --help", offered.get(path + " --") == longs,
          f"{offered.get(path + ' --')} != {longs}")
    if subs:
        check(f"bash: {path} offers the subcommands of its --help", offered.get(path + " ") == subs,
              f"{offered.get(path + ' ')} != {subs}")

# zsh and fish are not installed here: their scripts name every command level and flag
for shell in ("zsh", "fish"):
    text = scripts[shell].stdout
    for path, (flags, subs) in COMMANDS.items():
        check(f"{shell}: {path} has its subcommands and flags", f"'{path}'" in text
              and all(re.search(rf"[ ']{re.escape(s)}[ '\n]", text) for s in subs + flags), path)
    if shutil.which(shell):
        check(f"{shell}: the script parses", run([shell, "-n", "-c", text]).returncode == 0)
check("zsh: registered for both commands", "compdef _inmanta inmanta inmanta-cli" in scripts["zsh"].stdout
      and scripts["zsh"].stdout.startswith("#compdef inmanta inmanta-cli\n"))
check("fish: registered for both commands", "complete -c inmanta -f -a '(__inmanta_complete)'" in scripts["fish"].stdout
      and "complete -c inmanta-cli -f -a '(__inmanta_complete)'" in scripts["fish"].stdout)

# ------------------------------------------------------------------------------ man pages
fresh = tempfile.mkdtemp(prefix="inmanta-man-")
proc = run([INMANTA, "man", fresh])
check("inmanta man writes the pages", proc.returncode == 0, proc.stderr)
built = os.path.join(BUILD, "man", "man1")
names = sorted(os.listdir(fresh))
check("the build's pages are current", sorted(os.listdir(built)) == names
      and not filecmp.cmpfiles(built, fresh, names, shallow=False)[1], f"{os.listdir(built)} {names}")
expected = sorted(path.replace(" ", "-") + ".1" for path in COMMANDS if path.count(" ") == 1)
check("a page per subcommand", names == expected, f"{names} != {expected}")


def render(page):
    """The page as man shows it, and what man or groff warned about it."""
    if shutil.which("man"):
        proc = run(["man", "--warnings", "-l", page], env={**os.environ, "MANWIDTH": "100", "MAN_KEEP_FORMATTING": ""})
    else:
        proc = run(["groff", "-man", "-Tutf8", "-ww", page])
    return proc.stdout, proc.stderr


def roff_text(path):
    with open(path, encoding="utf-8") as fd:
        return fd.read().replace("\\-", "-").replace("\\e", "\\")


for name in names:
    shown, warnings = render(os.path.join(built, name))
    check(f"{name} renders without warnings", shown and not warnings, warnings)
    text = roff_text(os.path.join(built, name))
    # a section per command of the page: its own options, then one per nested command
    sections = re.split(r'\n\.SS "([^"]+)"\n', text)
    own = {name[:-2].replace("-", " ", 1) if not name.startswith("inmanta-cli") else
           "inmanta-cli " + name[len("inmanta-cli-"):-2]: sections[0]}
    own.update(dict(zip(sections[1::2], sections[2::2])))
    for path, body in own.items():
        flags = COMMANDS.get(path, (None, None))[0]
        check(f"{name}: {path} is a command", flags is not None, sorted(own))
        missing = [f for f in flags or [] if f not in ("-h", "--help") and f"\\fB{f}\\fR" not in body]
        check(f"{name}: every flag of {path} is in its section", not missing, missing)

# the hand-written overview pages: they render, name every subcommand, and every flag they
# write exists
for root in ROOTS:
    page = os.path.join(SOURCE_MAN, root + ".1")
    shown, warnings = render(page)
    check(f"{root}.1 renders without warnings", shown and not warnings, warnings)
    text = roff_text(page)
    subs = COMMANDS[root][1]
    check(f"{root}.1 names every subcommand", all(re.search(rf"\.B {re.escape(s)}\b", text) for s in subs),
          [s for s in subs if not re.search(rf"\.B {re.escape(s)}\b", text)])
    known = {f for path, (flags, _) in COMMANDS.items() if path.split()[0] == root for f in flags}
    # the flags of its synopsis and option lines (.B, .BR; the prose may name other tools' flags)
    written = {f for line in text.splitlines() if line.startswith(".B") for f in re.findall(r"--[a-z][-a-z_]*", line)}
    check(f"{root}.1 writes only flags that exist", written <= known, sorted(written - known))
    check(f"{root}.1 describes every option of {root} itself",
          all(f"{f}" in text for f in COMMANDS[root][0]), [f for f in COMMANDS[root][0] if f not in text])
    unlisted = [s for s in subs if f"\\fB{root}-{s}\\fR(1)" not in text]
    check(f"{root}.1 points at the pages of its subcommands", not unlisted, unlisted)

finish()
