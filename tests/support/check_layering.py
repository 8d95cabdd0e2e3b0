#!/usr/bin/env python3
"""Dependencies point one way: grammar <- compiler <- util <- project/exporter <- embedded <- cli.

A component may include its own headers and those of the components before it, never after.
"""
import os
import re
import sys

ORDER = ["grammar", "compiler", "util", "modules", "project", "exporter", "embedded", "cli"]
# what each component may include from the project (besides itself)
ALLOWED = {
    "compiler": {"grammar"},
    # helpers above the compiler's run-time values (util/unknown.h reads them)
    "util": {"compiler"},
    "modules": {"compiler", "util"},
    # the installer (libgit2) sits beside the compiler, which never includes it
    "project": {"compiler"},
    "exporter": {"compiler", "util"},
    "embedded": {"compiler", "exporter", "util"},
    "cli": {"compiler", "exporter", "embedded", "modules", "project", "util"},
}
# a header names its component by its first folder or by a known top-level header
HEADER_OWNER = {"Inmanta": "grammar"}
root = sys.argv[1]
owners = {}
for comp in ORDER:
    base = os.path.join(root, comp)
    for dirpath, _, files in os.walk(base):
        for f in files:
            if f.endswith((".h", ".hpp")):
                rel = os.path.relpath(os.path.join(dirpath, f), base)
                owners.setdefault(rel, comp)
problems = []
for comp, allowed in ALLOWED.items():
    base = os.path.join(root, comp)
    for dirpath, _, files in os.walk(base):
        for f in files:
            if not f.endswith((".cpp", ".h", ".hpp")):
                continue
            path = os.path.join(dirpath, f)
            with open(path, encoding="utf-8") as fd:
                for n, line in enumerate(fd, 1):
                    m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
                    if not m:
                        continue
                    inc = m.group(1)
                    # includes are written from the repository root: "util/sha1.h"
                    first = inc.split("/", 1)[0]
                    owner = first if "/" in inc and first in ORDER else None
                    for prefix, o in HEADER_OWNER.items():
                        if os.path.basename(inc).startswith(prefix):
                            owner = o
                    if owner is None:
                        local = os.path.join(dirpath, inc)
                        if os.path.exists(local) or os.path.exists(os.path.join(base, inc)):
                            owner = comp
                        else:
                            owner = owners.get(inc)
                    if owner and owner != comp and owner not in allowed:
                        problems.append(f"{os.path.relpath(path, root)}:{n}: {comp} includes {inc} of {owner}")
for p in problems:
    print(p)
print(f"layering: {len(problems)} wrong-way includes")
sys.exit(1 if problems else 0)
