#!/usr/bin/env python3
"""Run the reference Inmanta compiler test snippets (tests/compiler/test_*.py of
inmanta-core v19.0.0) through inmanta-cpp binaries.

Usage:
  python3 harness.py [opts] BINARY [test_*.py ...]          classify every snippet
  python3 harness.py [opts] --compare BIN_A BIN_B [test_*.py ...]
                                                           show snippets whose output differs
  python3 harness.py --list [test_*.py ...]                 list extracted / skipped snippets

Options:
  -j N        parallel snippets (default 1; the machine has 2 cores)
  --strict    for setup_for_error: require the first line of our error message (after
              "Error: ", with {dir} / "./" paths and whitespace normalised) to equal the
              expected first line exactly. Default (loose) also strips our "XxxException: "
              prefix and the trailing location "(reported in ...)" / "(file:line[:col])".
  --skips     also print every skipped snippet with the reason
  --timeout S per-compile timeout (default 20)
  --keep      keep the temp project dirs (printed)
  --export    for snippets whose test used snippetcompiler.do_export(), run `BINARY export -j dump.json`
              instead of `BINARY compile` (and, with --compare, also compare dump.json)

With no test files given, all test_*.py next to this script are used, or else the reference's
tests/compiler/test_*.py read from a git copy of inmanta-core ($INMANTA_CORE_GIT, default the
session tool's mirror; tag $INMANTA_CORE_TAG, default v19.0.0).
Stdlib only; the test files are parsed with `ast`, never imported.
"""

from __future__ import annotations

import argparse
import atexit
import ast
import concurrent.futures
import dataclasses
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))

PROJECT_YML = "name: snippet\nmodulepath: libs\ndownloadpath: libs\nrepo: []\n"

# Fixtures we can reproduce (or which do not influence the compile).
ALLOWED_FIXTURES = {"snippetcompiler", "snippetcompiler_clean", "caplog", "capsys", "modules_dir"}
SNIPPET_OBJS = {"snippetcompiler", "snippetcompiler_clean"}
# snippetcompiler methods that are harmless / understood.
ALLOWED_SC_METHODS = {"setup_for_snippet", "setup_for_error", "setup_for_error_re", "do_export", "reset", "keep"}
# setup_for_snippet / setup_for_error keyword arguments that do not change what we run.
ALLOWED_KWARGS = {"autostd", "ministd", "install_project", "indent_offset", "shouldbe"}
# Exception classes (as written in pytest.raises) that are inmanta CompilerExceptions.
COMPILER_EXCEPTIONS = {
    "CompilerException", "RuntimeException", "DuplicateException", "AttributeException", "TypingException",
    "HyphenException", "NotFoundException", "DoubleSetException", "WrappingRuntimeException",
    "TypeNotFoundException", "OptionalValueException", "MultiException", "ModuleLoadingException",
    "IndexException", "UnsetException", "InvalidTypeAnnotation", "IndexCollisionException",
    "IndexAttributeMissingInConstructorException", "DependencyCycleException", "DataClassMismatchException",
    "DataClassException", "PluginTypeException", "InvalidRelationPrecedenceRuleError",
    "CycleInRelationPrecedencePolicyError", "ParserException", "PluginException", "ExternalException",
    "ExplicitPluginException", "KeyException", "CyclicReferenceException", "ModifiedAfterFreezeException",
    "InvalidCompilerState", "NotFoundException", "UnexpectedReference", "DirectExecuteException",
    "ProjectNotFoundException", "ModuleNotFoundException", "CompilerError",
}


# ----------------------------------------------------------------------------------------------
# Extraction
# ----------------------------------------------------------------------------------------------


@dataclasses.dataclass
class Snippet:
    name: str  # test_file::function[#n]
    code: str | None  # None when skipped
    kind: str  # "success" | "raises" | "error" | "error_re"
    expected: str | None = None  # expected message (setup_for_error[_re])
    skip: str | None = None  # reason
    export: bool = False  # the test used snippetcompiler.do_export()


class Unevaluable(Exception):
    pass


def eval_str(node: ast.AST, env: dict[str, ast.AST] | None = None) -> str:
    """Evaluate a string-literal expression: constants, implicit concat, f-strings without
    placeholders, '+', textwrap.dedent()/dedent(), .strip()/.lstrip()/.rstrip(), and names bound exactly
    once (in the test function, else at module level) to such an expression."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        parts = []
        for v in node.values:
            if isinstance(v, ast.Constant) and isinstance(v.value, str):
                parts.append(v.value)
            else:
                raise Unevaluable("f-string with placeholders")
        return "".join(parts)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return eval_str(node.left, env) + eval_str(node.right, env)
    if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords:
        f = node.func
        if (isinstance(f, ast.Attribute) and f.attr == "dedent" and isinstance(f.value, ast.Name)
                and f.value.id == "textwrap") or (isinstance(f, ast.Name) and f.id == "dedent"):
            return textwrap.dedent(eval_str(node.args[0], env))
    if (isinstance(node, ast.Call) and len(node.args) <= 1 and not node.keywords
            and isinstance(node.func, ast.Attribute) and node.func.attr in ("strip", "lstrip", "rstrip")):
        args = [eval_str(a, env) for a in node.args]
        return getattr(eval_str(node.func.value, env), node.func.attr)(*args)
    if isinstance(node, ast.Name) and env is not None and node.id in env:
        return eval_str(env[node.id], env)
    raise Unevaluable(f"not a string literal ({type(node).__name__})")


def call_kind(call: ast.Call) -> str | None:
    f = call.func
    if not isinstance(f, ast.Attribute):
        return None
    base = f.value
    if isinstance(base, ast.Name):
        if base.id in SNIPPET_OBJS:
            return "sc." + f.attr
        if base.id == "compiler" and f.attr == "do_compile":
            return "do_compile"
    if isinstance(base, ast.Attribute) and base.attr == "compiler" and f.attr == "do_compile":
        return "do_compile"  # inmanta.compiler.do_compile()
    return None


def is_pytest_raises(expr: ast.AST) -> ast.Call | None:
    if (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "raises"
            and isinstance(expr.func.value, ast.Name) and expr.func.value.id == "pytest"):
        return expr
    return None


def exc_names(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Tuple):
        return [n for e in node.elts for n in exc_names(e)]
    if isinstance(node, ast.Name):
        return [node.id]
    if isinstance(node, ast.Attribute):
        return [node.attr]
    return ["<expr>"]


def names_used(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def snippet_import_skip(code: str) -> str | None:
    for line in code.splitlines():
        m = re.match(r"\s*import\s+([A-Za-z_][\w-]*)", line)
        if m and m.group(1) != "std":
            return f"imports module {m.group(1)}"
    return None


def function_skip(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    if isinstance(fn, ast.AsyncFunctionDef):
        return "async test"
    for d in fn.decorator_list:
        src = ast.unparse(d)
        if "mark.skip" in src or "mark.xfail" in src:
            return "marked skip/xfail"
    params: set[str] = set()
    for d in fn.decorator_list:
        if isinstance(d, ast.Call) and ast.unparse(d.func).endswith("parametrize") and d.args:
            a0 = d.args[0]
            if isinstance(a0, ast.Constant) and isinstance(a0.value, str):
                params |= {p.strip() for p in a0.value.split(",")}
            elif isinstance(a0, (ast.Tuple, ast.List)):
                params |= {e.value for e in a0.elts if isinstance(e, ast.Constant)}
    for a in fn.args.args + fn.args.kwonlyargs:
        if a.arg not in ALLOWED_FIXTURES and a.arg not in params:
            return f"fixture {a.arg}"
    for node in ast.walk(fn):
        if isinstance(node, ast.Call):
            src = ast.unparse(node.func)
            if src.endswith("Config.set") or src.startswith("monkeypatch"):
                return f"changes config ({src})"
            k = call_kind(node)
            if k and k.startswith("sc.") and k[3:] not in ALLOWED_SC_METHODS:
                return f"uses snippetcompiler.{k[3:]}"
    return None


def single_assignments(stmts) -> dict[str, ast.AST]:
    """name -> value for names assigned exactly once (plain `x = ...` / `x: T = ...`) in these statements."""
    count: dict[str, int] = {}
    value: dict[str, ast.AST] = {}
    for st in stmts:
        for node in ast.walk(st):
            targets = []
            if isinstance(node, ast.Assign):
                targets = [(t, node.value) for t in node.targets]
            elif isinstance(node, ast.AnnAssign) and node.value is not None:
                targets = [(node.target, node.value)]
            elif isinstance(node, (ast.AugAssign, ast.For, ast.comprehension, ast.NamedExpr, ast.With)):
                for n in ast.walk(getattr(node, "target", None) or node):
                    if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                        count[n.id] = count.get(n.id, 0) + 2
            for t, v in targets:
                if isinstance(t, ast.Name):
                    count[t.id] = count.get(t.id, 0) + 1
                    value[t.id] = v
                else:
                    for n in ast.walk(t):
                        if isinstance(n, ast.Name):
                            count[n.id] = count.get(n.id, 0) + 2
    return {k: v for k, v in value.items() if count.get(k) == 1}


def extract_function(fname: str, fn, module_env: dict[str, ast.AST]) -> list[Snippet]:
    out: list[Snippet] = []
    local_names = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    local_names |= {a.arg for a in fn.args.args + fn.args.kwonlyargs}
    env = {k: v for k, v in module_env.items() if k not in local_names}
    env.update(single_assignments(fn.body))
    base = f"{fname}::{fn.name}"
    fskip = function_skip(fn)
    params: set[str] = set()
    for d in fn.decorator_list:
        if isinstance(d, ast.Call) and ast.unparse(d.func).endswith("parametrize"):
            params |= names_used(d.args[0]) if d.args and not isinstance(d.args[0], ast.Constant) else set()
            if d.args and isinstance(d.args[0], ast.Constant) and isinstance(d.args[0].value, str):
                params |= {p.strip() for p in d.args[0].value.split(",")}

    pending: dict | None = None  # {"call": ast.Call, "raises": ...}

    def emit(kind: str, setup_call: ast.Call, raises: str | None, expected_node: ast.AST | None, why: str | None,
             export: bool = False):
        nonlocal out
        sn = Snippet(name=base, code=None, kind=kind, export=export)
        reason = fskip or why
        if reason is None:
            bad_kw = [k.arg for k in setup_call.keywords if k.arg not in ALLOWED_KWARGS]
            if bad_kw:
                reason = f"kwarg {bad_kw[0]}"
            elif not setup_call.args:
                reason = "no snippet argument"
        if reason is None and params & names_used(setup_call):
            reason = "parametrized snippet/args"
        if reason is None:
            try:
                sn.code = eval_str(setup_call.args[0], env)
            except Unevaluable as e:
                reason = str(e)
        if reason is None:
            reason = snippet_import_skip(sn.code)
        if reason is None and raises is not None and raises != "ok":
            reason = raises
        if reason is None and kind in ("error", "error_re"):
            if expected_node is None:
                reason = "no expected message"
            else:
                try:
                    sn.expected = eval_str(expected_node, env)
                except Unevaluable as e:
                    reason = "expected message " + str(e)
                if reason is None and params & names_used(expected_node):
                    reason = "parametrized expected message"
        if reason is None and kind == "raises" and raises is None:
            pass
        sn.skip = reason
        if reason:
            sn.code = None
        out.append(sn)

    def raises_state(stack: list[ast.Call]) -> str | None:
        """None: no pytest.raises around; 'ok': compiler exception expected; else skip reason."""
        if not stack:
            return None
        for r in stack:
            if not r.args:
                return "pytest.raises without type"
            if params & names_used(r.args[0]):
                return "parametrized pytest.raises"
            for n in exc_names(r.args[0]):
                if n not in COMPILER_EXCEPTIONS:
                    return f"pytest.raises({n})"
        return "ok"

    def flush_pending():
        """A setup_for_snippet that is not followed by a compile: only usable when setup itself is
        expected to raise (inside pytest.raises)."""
        nonlocal pending
        if pending is not None:
            if pending["raises"] is not None:
                emit("raises", pending["call"], pending["raises"], None, pending["nested"])
            else:
                emit("success", pending["call"], None, None, "setup_for_snippet without compile")
            pending = None

    def visit_calls(stmt: ast.stmt, stack: list[ast.Call], nested: str | None):
        nonlocal pending
        calls = sorted((n for n in ast.walk(stmt) if isinstance(n, ast.Call) and call_kind(n)),
                       key=lambda c: (c.lineno, c.col_offset))
        for c in calls:
            k = call_kind(c)
            rs = raises_state(stack)
            if k == "sc.setup_for_snippet":
                flush_pending()
                pending = {"call": c, "raises": rs, "nested": nested}
            elif k in ("do_compile", "sc.do_export"):
                if pending is None:
                    continue  # second compile of the same snippet, or compile of something else
                r = pending["raises"] if pending["raises"] is not None else rs
                kind = "raises" if r is not None else "success"
                emit(kind, pending["call"], r, None, nested or pending["nested"], export=(k == "sc.do_export"))
                pending = None
            elif k in ("sc.setup_for_error", "sc.setup_for_error_re"):
                flush_pending()
                exp = c.args[1] if len(c.args) > 1 else next((kw.value for kw in c.keywords if kw.arg == "shouldbe"), None)
                why = nested or ("setup_for_error inside pytest.raises" if rs is not None else None)
                emit("error" if k == "sc.setup_for_error" else "error_re", c, None, exp, why)

    def try_expects_error(st: ast.Try) -> bool:
        """try: <compile>; raise AssertionError/assert False/pytest.fail  except SomeException: ..."""
        if not st.handlers or any(h.type is None for h in st.handlers):
            return False
        last = st.body[-1]
        fails = (isinstance(last, ast.Raise) and last.exc is not None and "AssertionError" in ast.unparse(last.exc)) \
            or (isinstance(last, ast.Assert) and isinstance(last.test, ast.Constant) and not last.test.value) \
            or (isinstance(last, ast.Expr) and ast.unparse(last.value).startswith("pytest.fail"))
        return fails

    def walk(stmts: list[ast.stmt], stack: list[ast.Call], nested: str | None):
        for st in stmts:
            if isinstance(st, (ast.With, ast.AsyncWith)):
                new = list(stack)
                for item in st.items:
                    r = is_pytest_raises(item.context_expr)
                    if r is not None:
                        new.append(r)
                    else:
                        visit_calls(ast.Expr(item.context_expr), stack, nested)
                walk(st.body, new, nested)
            elif isinstance(st, ast.Try) and try_expects_error(st):
                types = [h.type for h in st.handlers]
                fake = ast.Call(func=ast.Attribute(value=ast.Name("pytest"), attr="raises"),
                                args=[ast.Tuple(elts=types) if len(types) > 1 else types[0]], keywords=[])
                walk(st.body, stack + [fake], nested)
                for h in st.handlers:
                    walk(h.body, stack, nested or "inside except")
                walk(st.orelse + st.finalbody, stack, nested or "inside try")
            elif isinstance(st, (ast.If, ast.For, ast.AsyncFor, ast.While, ast.Try, ast.FunctionDef,
                                 ast.AsyncFunctionDef, ast.ClassDef, ast.Match)) or type(st).__name__ == "TryStar":
                inner = nested or f"inside {type(st).__name__.lower()}"
                for field in ("test", "iter"):
                    e = getattr(st, field, None)
                    if e is not None:
                        visit_calls(ast.Expr(e), stack, inner)
                for field in ("body", "orelse", "finalbody", "handlers", "cases"):
                    for sub in getattr(st, field, []) or []:
                        if isinstance(sub, ast.stmt):
                            walk([sub], stack, inner)
                        else:
                            walk(getattr(sub, "body", []), stack, inner)
            else:
                visit_calls(st, stack, nested)

    walk(fn.body, [], None)
    flush_pending()
    if len(out) > 1:
        for i, s in enumerate(out, 1):
            s.name = f"{base}[#{i}]"
    return out


REFERENCE_GIT = os.environ.get("INMANTA_CORE_GIT", "/work/.mirror/inmanta+inmanta-core/repo")
REFERENCE_TAG = os.environ.get("INMANTA_CORE_TAG", "v19.0.0")


def reference_test_files() -> list[str]:
    """The reference's tests/compiler/test_*.py, read from a git copy of inmanta-core (never
    committed here) into a temporary folder."""
    names = subprocess.run(["git", "-C", REFERENCE_GIT, "ls-tree", "--name-only", REFERENCE_TAG, "tests/compiler/"],
                           capture_output=True, text=True, check=True).stdout.split()
    out = tempfile.mkdtemp(prefix="reference-tests-")
    atexit.register(shutil.rmtree, out, True)
    files = []
    for name in names:
        base = os.path.basename(name)
        if not (base.startswith("test_") and base.endswith(".py")):
            continue
        text = subprocess.run(["git", "-C", REFERENCE_GIT, "show", f"{REFERENCE_TAG}:{name}"],
                              capture_output=True, text=True, check=True).stdout
        with open(os.path.join(out, base), "w", encoding="utf-8") as fh:
            fh.write(text)
        files.append(os.path.join(out, base))
    return files


def extract_file(path: str) -> list[Snippet]:
    fname = os.path.basename(path)
    with open(path, encoding="utf-8") as fh:
        src = fh.read()
    try:
        tree = ast.parse(src, filename=path)
    except SyntaxError as e:
        n = src.count("setup_for_snippet") + src.count("setup_for_error")
        print(f"# {fname}: cannot parse with this Python ({e.msg}, line {e.lineno}); "
              f"{n} setup_for_* calls not extracted", file=sys.stderr)
        return []
    result: list[Snippet] = []
    fns = []
    module_env = single_assignments([n for n in tree.body if isinstance(n, (ast.Assign, ast.AnnAssign))])
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
            fns.append(node)
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            fns += [n for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                    and n.name.startswith("test")]
    for fn in fns:
        result += extract_function(fname, fn, module_env)
    return result


# ----------------------------------------------------------------------------------------------
# Running
# ----------------------------------------------------------------------------------------------


@dataclasses.dataclass
class Run:
    rc: int | None  # None = timeout
    stdout: str
    stderr: str
    dir: str
    dump: str = ""  # dump.json of `export -j` (--export mode)


def run_snippet(binary: str, code: str, timeout: float, keep: bool, export: bool = False) -> Run:
    d = tempfile.mkdtemp(prefix="refsnip-")
    try:
        with open(os.path.join(d, "main.cf"), "w", encoding="utf-8") as fh:
            fh.write(code)
        with open(os.path.join(d, "project.yml"), "w", encoding="utf-8") as fh:
            fh.write(PROJECT_YML)
        try:
            cmd = [binary, "export", "-j", "dump.json"] if export else [binary, "compile"]
            p = subprocess.run(cmd, cwd=d, capture_output=True, timeout=timeout, stdin=subprocess.DEVNULL)
            dump = ""
            if export and os.path.exists(os.path.join(d, "dump.json")):
                with open(os.path.join(d, "dump.json"), encoding="utf-8", errors="replace") as fh:
                    dump = fh.read()
            return Run(p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace"), d, dump)
        except OSError as e:  # binary missing / being rebuilt
            return Run(-999, "", f"cannot run {binary}: {e}", d)
        except subprocess.TimeoutExpired as e:
            return Run(None, (e.stdout or b"").decode("utf-8", "replace"),
                       (e.stderr or b"").decode("utf-8", "replace"), d)
    finally:
        if keep:
            print(f"  kept {d}", file=sys.stderr)
        else:
            shutil.rmtree(d, ignore_errors=True)


def error_line(r: Run) -> str:
    """The first line of our error message."""
    if r.rc is None:
        return "(timeout)"
    if r.rc == -999:
        return r.stderr
    lines = [l for l in r.stderr.splitlines()]
    for l in lines:
        if l.startswith("Error: "):
            return l
    nonempty = [l for l in lines if l.strip() and not l.startswith("=")]
    if r.rc == 0:
        return "(exit 0, succeeded)"
    return nonempty[-1] if nonempty else f"(exit {r.rc}, no stderr)"


def ws(s: str) -> str:
    return " ".join(s.split())


def norm_paths(s: str, d: str) -> str:
    for p in {os.path.realpath(d), d}:
        s = s.replace(p + "/", "")
    return re.sub(r"(?<![\w./])\./", "", s)


LOC_RE = re.compile(r"^[^\s()]+:\d+(:\d+)?$")


def strip_location(s: str) -> str:
    for _ in range(2):
        s = s.rstrip()
        if not s.endswith(")"):
            break
        depth = 0
        for i in range(len(s) - 1, -1, -1):
            if s[i] == ")":
                depth += 1
            elif s[i] == "(":
                depth -= 1
                if depth == 0:
                    break
        else:
            break
        inner = s[i + 1:-1]
        if inner.startswith("reported in ") or LOC_RE.match(inner):
            s = s[:i]
        else:
            break
    return s.rstrip()


def message_matches(ours: str, expected: str, d: str, strict: bool) -> bool:
    try:
        exp = expected.format(dir=d)
    except (KeyError, IndexError, ValueError):
        exp = expected.replace("{dir}", d)
    exp = exp.strip("\n").splitlines()[0] if exp.strip("\n") else ""
    o = ours[len("Error: "):] if ours.startswith("Error: ") else ours
    o, exp = ws(norm_paths(o, d)), ws(norm_paths(exp, d))
    if o == exp:
        return True
    if strict:
        return False
    o = re.sub(r"^[A-Z]\w*(Exception|Error|Warning): ", "", o)
    return ws(strip_location(o)) == ws(strip_location(exp))


def classify(sn: Snippet, r: Run, strict: bool) -> tuple[str, bool]:
    """-> (class, exact first-line match)"""
    if r.rc is None or r.rc not in (0, 1):
        return "CRASH", False
    if sn.kind == "success":
        return ("ok", False) if r.rc == 0 else ("FAIL", False)
    if r.rc == 0:
        return "FAIL", False
    if sn.kind == "raises":
        return "ok-raises", False
    if sn.kind == "error_re":
        return "ok-error", False
    ours = error_line(r)
    if message_matches(ours, sn.expected or "", r.dir, True):
        return "ok-error", True
    if not strict and message_matches(ours, sn.expected or "", r.dir, False):
        return "ok-error", False
    return "MISMATCH", False


def normalise_output(s: str, d: str) -> str:
    for p in sorted({os.path.realpath(d), d}, key=len, reverse=True):
        s = s.replace(p, "{dir}")
    return re.sub(r"/[^\s():]*/modules/std/", "{std}/", s)


def collect(files: list[str]) -> list[Snippet]:
    snippets: list[Snippet] = []
    for f in files:
        snippets += extract_file(f)
    return snippets


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--compare", nargs=2, metavar=("BIN_A", "BIN_B"))
    ap.add_argument("--list", action="store_true")
    ap.add_argument("-j", type=int, default=1)
    ap.add_argument("--strict", action="store_true")
    ap.add_argument("--skips", action="store_true")
    ap.add_argument("--timeout", type=float, default=20)
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--export", action="store_true")
    ap.add_argument("args", nargs="*")
    a = ap.parse_args()

    args = list(a.args)
    binary = None
    if not a.compare and not a.list:
        if not args:
            ap.error("BINARY required")
        binary = args.pop(0)
    def resolve(b: str) -> str:
        p = shutil.which(b) if os.sep not in b else os.path.abspath(b)
        if not p or not os.access(p, os.X_OK):
            ap.error(f"binary not found / not executable: {b}")
        return p

    if binary:
        binary = resolve(binary)
    if a.compare:
        a.compare = [resolve(b) for b in a.compare]
    files = args or sorted(glob.glob(os.path.join(HERE, "test_*.py"))) or reference_test_files()
    snippets = collect(files)
    runnable = [s for s in snippets if s.skip is None]
    skipped = [s for s in snippets if s.skip is not None]

    if a.list or a.skips:
        for s in snippets:
            if s.skip is not None:
                print(f"{s.name} SKIP {s.skip}")
            elif a.list:
                print(f"{s.name} RUN {s.kind}")
    print(f"# extracted {len(snippets)} snippets: {len(runnable)} runnable, {len(skipped)} skipped", flush=True)
    if a.list:
        return 0

    pool = concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.j))

    if a.compare:
        bin_a, bin_b = a.compare

        def both(s: Snippet):
            ex = a.export and s.export
            return (run_snippet(bin_a, s.code, a.timeout, a.keep, ex), run_snippet(bin_b, s.code, a.timeout, a.keep, ex))

        differ = 0
        for s, (ra, rb) in zip(runnable, pool.map(both, runnable)):
            ka = (ra.rc, normalise_output(ra.stdout, ra.dir), normalise_output(ra.stderr, ra.dir), ra.dump)
            kb = (rb.rc, normalise_output(rb.stdout, rb.dir), normalise_output(rb.stderr, rb.dir), rb.dump)
            if ka != kb:
                differ += 1
                print(f"{s.name} DIFFER")
                print(f"  A: exit {ra.rc}: {normalise_output(error_line(ra), ra.dir)}")
                print(f"  B: exit {rb.rc}: {normalise_output(error_line(rb), rb.dir)}")
                if ka[3] != kb[3]:
                    print("    dump.json differs")
                if error_line(ra) == error_line(rb) and ka[:3] != kb[:3]:
                    import difflib
                    diff = list(difflib.unified_diff(
                        (ka[1] + ka[2]).splitlines(), (kb[1] + kb[2]).splitlines(), "A", "B", lineterm="", n=0))
                    for l in diff[2:12]:
                        print("    " + l)
        print(f"{len(runnable)} snippets, {differ} differ")
        return 1 if differ else 0

    totals: dict[str, int] = {}
    exact = 0
    for s, r in zip(runnable, pool.map(lambda s: run_snippet(binary, s.code, a.timeout, a.keep, a.export and s.export),
                                       runnable)):
        cls, ex = classify(s, r, a.strict)
        exact += ex
        totals[cls] = totals.get(cls, 0) + 1
        if cls in ("FAIL", "MISMATCH", "CRASH"):
            extra = error_line(r) if r.rc is not None else "(timeout)"
            if r.rc not in (0, 1, None):
                extra = f"(exit {r.rc}) " + extra
            print(f"{s.name} {cls} {normalise_output(extra, r.dir)}")
            if cls == "MISMATCH":
                exp = (s.expected or "").strip("\n").splitlines()
                print(f"    expected: {exp[0] if exp else ''}")
        else:
            print(f"{s.name} {cls}")
    print("# totals: " + ", ".join(f"{k}={totals.get(k, 0)}" for k in
                                    ("ok", "ok-error", "ok-raises", "MISMATCH", "FAIL", "CRASH")) +
          f", skipped={len(skipped)} (ok-error with exact first line: {exact})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
