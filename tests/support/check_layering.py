#!/usr/bin/env python3
"""Dependencies point one way, between components and between the compiler's layers.

Components: grammar <- compiler <- util <- modules/installer/exporter <- embedded <- cli. Inside the
compiler (compiler/README.md draws the same picture):

    source <- diag <- values <- ast <- parse
                               ast <- model <- runtime <- sema <- exec <- driver
    (project, load and plugin sit where ALLOWED says; module_code, the modules' Python code,
    sits on runtime, beside sema and exec, below the driver)

`embedded/` may use the compiler only from its deploy part (embedded/deploy*), never the reverse;
the store (embedded/store) uses nothing of the project but util/ and itself; inside embedded/ the
parts are layered handlers <- agent <- scheduler (with store) <- server <- deploy.
An #include names its file from the repository root ("compiler/exec/evaluator.h"); a file may
include its own layer's headers and those of the layers it is allowed, never one further up.

Usage: check_layering.py ROOT          check the tree, exit 1 on a wrong-way include
       check_layering.py --self-test   show that an upward include fails the check
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

COMPONENTS = ["grammar", "compiler", "util", "modules", "installer", "exporter", "embedded", "cli"]
# what each component may include from the project (besides itself)
COMPONENT_ALLOWED = {
    "grammar": set(),
    "compiler": {"grammar"},
    "util": {"compiler"},
    "modules": {"compiler", "util"},
    # the installer (libgit2) sits beside the compiler, which never includes it
    "installer": {"compiler"},
    "exporter": {"compiler", "util"},
    "embedded": {"compiler", "exporter", "util"},
    "cli": {"compiler", "util", "exporter", "embedded", "modules", "installer"},
}

# The compiler's layers, by path under compiler/ (the longest matching prefix wins).
LAYER_OF = [
    ("source/", "source"),
    ("diag/", "diag"),
    ("shared_module.", "base"),
    ("runtime/value.", "values"),
    ("runtime/variable.h", "values"),
    ("plugin.", "plugin"),
    ("ast/", "ast"),
    ("parse/", "parse"),
    ("project/", "project"),
    ("compile.", "load"),
    ("model/", "model"),
    ("resource_types.h", "runtime"),
    ("runtime/", "runtime"),
    ("module_code.", "module_code"),
    ("sema/", "sema"),
    ("exec/", "exec"),
    ("driver.", "driver"),
]
BELOW = {
    "base": set(),
    "source": {"base"},
    "diag": {"source"},
    "values": {"diag"},
    "plugin": {"values"},
    "ast": {"values"},
    "parse": {"ast"},
    "project": {"diag"},
    "load": {"parse", "project"},
    "model": {"ast", "plugin"},
    "runtime": {"model"},
    "sema": {"runtime", "load"},
    "exec": {"sema"},
    # modules' Python code (libinmanta_python.so, loaded by the driver), beside the evaluator
    "module_code": {"runtime"},
    "driver": {"exec", "module_code"},
}


def below(layer):
    """Every layer `layer` may include (transitively), itself included."""
    seen, todo = {layer}, [layer]
    while todo:
        for lower in BELOW[todo.pop()]:
            if lower not in seen:
                seen.add(lower)
                todo.append(lower)
    return seen


def layer_of(rel):
    best = None
    for prefix, layer in LAYER_OF:
        if rel.startswith(prefix) and (best is None or len(prefix) > len(best[0])):
            best = (prefix, layer)
    return best[1] if best else None


def embedded_part_may(path_rel, owner):
    """embedded/ may use the compiler from its deploy part only."""
    if owner != "compiler":
        return True
    return path_rel.startswith("embedded/deploy")


def embedded_store_may(path_rel, inc):
    """embedded/store may include util/ and its own headers only (no compiler, exporter, server)."""
    if not path_rel.startswith("embedded/store/"):
        return True
    return inc.startswith("util/") or inc.startswith("embedded/store/")


# The parts of embedded/, each with the parts it may include (besides itself): the handlers know
# nothing of the store or the scheduler, the agent runs handlers, the scheduler drives agents over
# the store, the server runs schedulers, the deploy runs the server. The module's entry point
# (server_main.cpp) joins the server and the deploy.
EMBEDDED_PARTS = {
    "store": set(),
    "handlers": set(),
    "agent": {"handlers"},
    "scheduler": {"agent", "handlers", "store"},
    "server": {"scheduler", "agent", "handlers", "store"},
    "deploy": {"server", "scheduler", "agent", "handlers", "store"},
}
EMBEDDED_JOINS = {"embedded/server/server_main.cpp"}


def embedded_layer_may(path_rel, inc):
    """Inside embedded/: a part includes only the parts EMBEDDED_PARTS allows it."""
    if not path_rel.startswith("embedded/") or not inc.startswith("embedded/") or path_rel in EMBEDDED_JOINS:
        return True
    mine = path_rel.split("/")[1]
    theirs = inc.split("/")[1]
    if mine not in EMBEDDED_PARTS:
        return True
    return theirs == mine or theirs in EMBEDDED_PARTS[mine]


def check(root):
    problems = []
    for comp in COMPONENTS:
        base = os.path.join(root, comp)
        for dirpath, _, files in os.walk(base):
            for f in files:
                if not f.endswith((".cpp", ".h", ".hpp")):
                    continue
                path = os.path.join(dirpath, f)
                rel = os.path.relpath(path, root)
                with open(path, encoding="utf-8") as fd:
                    for n, line in enumerate(fd, 1):
                        m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
                        if not m:
                            continue
                        inc = m.group(1)
                        first = inc.split("/", 1)[0]
                        if "/" not in inc or first not in COMPONENTS:
                            continue  # generated headers (InmantaParser.h, jinja_support_py.h)
                        where = f"{rel}:{n}"
                        if not embedded_store_may(rel, inc):
                            problems.append(f"{where}: embedded/store may include only util/ and itself ({inc})")
                            continue
                        if not embedded_layer_may(rel, inc):
                            problems.append(f"{where}: embedded/{rel.split('/')[1]} may not include {inc}")
                            continue
                        if first != comp:
                            if first not in COMPONENT_ALLOWED[comp]:
                                problems.append(f"{where}: {comp} includes {inc} of {first}")
                            elif comp == "embedded" and not embedded_part_may(rel, first):
                                problems.append(f"{where}: only embedded/deploy may use the compiler ({inc})")
                            continue
                        if comp != "compiler":
                            continue
                        mine = layer_of(os.path.relpath(path, base))
                        theirs = layer_of(inc[len("compiler/"):])
                        if mine is None or theirs is None:
                            problems.append(f"{where}: {inc}: no layer for this file in check_layering.py")
                        elif theirs not in below(mine):
                            problems.append(f"{where}: the {mine} layer includes {inc} of the {theirs} layer above it")
    return problems


def self_test():
    """An upward include (the syntax tree including the evaluator) fails the check; the same tree
    without it passes."""
    with tempfile.TemporaryDirectory(prefix="inmanta-layering-") as tmp:
        for folder in ("compiler/ast", "compiler/exec", "embedded/store", "embedded/server", "embedded/deploy",
                       "embedded/handlers"):
            os.makedirs(os.path.join(tmp, folder))
        files = {
            "compiler/exec/evaluator.h": '#include "compiler/ast/ast.h"\n',
            "compiler/ast/ast.h": "",
            "embedded/deploy/deploy.cpp": '#include "compiler/driver.h"\n',
            "embedded/store/store.h": '#include "embedded/store/errors.h"\n',
            "embedded/server/routes.cpp": '#include "embedded/store/store.h"\n',
            "embedded/handlers/file.cpp": '#include "embedded/handlers/handler.h"\n',
        }
        for name, text in files.items():
            with open(os.path.join(tmp, name), "w", encoding="utf-8") as fd:
                fd.write(text)
        clean = check(tmp)
        with open(os.path.join(tmp, "compiler/ast/ast.h"), "a", encoding="utf-8") as fd:
            fd.write('#include "compiler/exec/evaluator.h"\n')
        with open(os.path.join(tmp, "embedded/server/routes.cpp"), "a", encoding="utf-8") as fd:
            fd.write('#include "compiler/runtime/value.h"\n')
        with open(os.path.join(tmp, "embedded/store/store.h"), "a", encoding="utf-8") as fd:
            fd.write('#include "exporter/export.h"\n')
        with open(os.path.join(tmp, "embedded/handlers/file.cpp"), "a", encoding="utf-8") as fd:
            fd.write('#include "embedded/scheduler/scheduler.h"\n')
        bad = check(tmp)
    ok = not clean and len(bad) == 4 and any("the ast layer includes compiler/exec/evaluator.h" in p for p in bad) \
        and any("embedded/handlers may not include embedded/scheduler/scheduler.h" in p for p in bad) \
        and any("only embedded/deploy" in p for p in bad) \
        and any("embedded/store may include only util/" in p for p in bad)
    print("clean tree:", clean or "no problems")
    print("with upward includes:", *bad, sep="\n  ")
    print("self-test:", "passed" if ok else "FAILED")
    return 0 if ok else 1


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    problems = check(sys.argv[1])
    for p in problems:
        print(p)
    print(f"layering: {len(problems)} wrong-way includes")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
