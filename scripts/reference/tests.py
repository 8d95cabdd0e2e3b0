"""Runs the reference's compiler test functions (inmanta-core tests/compiler/test_*.py, read from a
git copy: $INMANTA_CORE_GIT, tag $INMANTA_CORE_TAG, default v19.0.0; never committed here) against
an inmanta-cpp binary, with stand-in pytest and inmanta modules: fixtures with parameters,
parametrize marks, capsys and pytest.raises (exception classes built from the reference's class
hierarchy) work; a test that needs the reference's Python objects (scopes, types, caplog, ...) is
reported UNSUPPORTED. Usage: tests.py BINARY [test_*.py ...]"""
import ast, atexit, builtins, itertools, os, re, shutil, subprocess, sys, tempfile, types, traceback, inspect

if len(sys.argv) < 2:
    sys.exit("usage: tests.py BINARY [test_*.py ...]  (the reference's tests/compiler files, by name)")
BIN = os.path.abspath(sys.argv[1])
REPO = os.environ.get("INMANTA_CORE_GIT", "/work/.mirror/inmanta+inmanta-core/repo")
TAG = os.environ.get("INMANTA_CORE_TAG", "v19.0.0")
FILES = sys.argv[2:] or sorted(os.path.basename(n) for n in subprocess.run(
    ["git", "-C", REPO, "ls-tree", "--name-only", TAG, "tests/compiler/"], capture_output=True, text=True).stdout.split()
    if os.path.basename(n).startswith("test_") and n.endswith(".py"))

class Unsupported(Exception): pass

# the reference's checkout layout: tests/data (and the documentation's examples), extracted to ROOT; each test
# module's __file__ is ROOT/tests/compiler/<name>, so the paths it derives from it (tests/data/modules/...) exist;
# the reference's test modules (tests/data/modules) are on every snippet's module path after libs/, as its
# snippetcompiler puts them
ROOT = tempfile.mkdtemp(prefix="refmodules")
atexit.register(shutil.rmtree, ROOT, True)
_archive = subprocess.run(["git", "-C", REPO, "archive", TAG, "tests/data", "docs/model_developers/examples"], capture_output=True, check=True).stdout
subprocess.run(["tar", "-x", "-C", ROOT], input=_archive, check=True)
MODULES = os.path.join(ROOT, "tests", "data", "modules")

# ---- exceptions from the reference's sources
excmod = types.ModuleType("inmanta.ast")
classes = {"Exception": Exception, "Warning": Warning, "UserWarning": UserWarning, "DeprecationWarning": DeprecationWarning}
def build_exceptions():
    srcs = [l for l in subprocess.run(["git", "-C", REPO, "ls-tree", "-r", "--name-only", TAG, "src/inmanta"], capture_output=True, text=True).stdout.split() if l.endswith(".py")]
    defs = []
    for s in srcs:
        text = subprocess.run(["git", "-C", REPO, "show", f"{TAG}:" + s], capture_output=True, text=True).stdout
        for m in re.finditer(r"^class (\w+)\(([^)]*)\):", text, re.M):
            defs.append((m.group(1), [b.strip().split(".")[-1] for b in m.group(2).split(",")]))
    defined = {name for name, _ in defs}
    for b in set(itertools.chain.from_iterable(bases for _, bases in defs)):
        if b not in classes and b not in defined and isinstance(getattr(builtins, b, None), type) and issubclass(getattr(builtins, b), BaseException):
            classes[b] = getattr(builtins, b)
    changed = True
    while changed:
        changed = False
        for name, bases in defs:
            if name in classes: continue
            # build a class only once all its bases that the reference defines are built (CompilerRuntimeWarning
            # derives from InmantaWarning, defined in a later file, and must be a Warning)
            if any(b in defined and b not in classes for b in bases): continue
            bs = [classes[b] for b in bases if b in classes]
            if not bs and any(b.endswith("Exception") or b.endswith("Error") or b.endswith("Warning") for b in bases) and not any(b in classes for b in bases):
                continue
            if not bs: continue
            try:
                classes[name] = type(name, tuple(dict.fromkeys(bs)), {})
            except TypeError:
                classes[name] = type(name, (bs[0],), {})
            changed = True
build_exceptions()
for n, c in classes.items(): setattr(excmod, n, c)

class Location:
    """the reference's Location (FILE:LINE) / Range (FILE:LINE:COL), from our diagnostic's (FILE:LINE[:COL])"""
    def __init__(self, file, lnr, col):
        self.file, self.lnr, self.start_char, self.col = file, lnr, col or 0, col
    def __str__(self): return f"{self.file}:{self.lnr}" + (f":{self.col}" if self.col is not None else "")
LOC_RE = re.compile(r"\s*\(([^()]*?):(\d+)(?::(\d+))?\)\s*$")

def make_exc(kind, msg, causes, loc=None):
    """an exception of the reference's class KIND; msg is our message without its location, as the reference's
    msg / get_message(); str(e) is the reference's CompilerException.format() of msg and location, "MSG (LOC)"
    (the reference's RuntimeException adds "reported in STATEMENT", which our diagnostics don't show)"""
    cls = classes.get(kind) or type(kind, (classes.get("RuntimeException", Exception),), {})
    text = f"{msg} ({loc})" if loc is not None else msg
    e = cls(text)
    e.msg = msg
    e.location = loc
    e.causes = causes
    e.get_causes = lambda: causes
    e.get_message = lambda: msg
    e.get_location = lambda: loc
    e.format = lambda: text
    def format_trace(indent="", indent_level=0):
        out = indent * indent_level + text
        for c in causes:
            out += "\n" + indent * indent_level + "caused by:\n" + c.format_trace(indent=indent, indent_level=indent_level + 1)
        return out
    e.format_trace = format_trace
    return e

def parse_diagnostic(lines, i, indent):
    """our compiler's rendering of a diagnostic (compiler/diag/diagnostic.cpp), starting at lines[i] after its
    'Error: ' / 'caused by: ' / 'error N: ' prefix: 'KIND: HEAD (LOC)', the message's further lines at
    indent + 8 spaces, the source line and its caret line at indent + 4, the causes as indent + 'caused by: '
    (MultiException: indent + 'error N: '). Returns (exception, next line index)."""
    m = re.match(r"^(\w+): (.*)$", lines[i])
    if not m: return make_exc("CompilerException", lines[i], []), i + 1
    kind, head = m.group(1), m.group(2)
    loc = None
    lm = LOC_RE.search(head)
    if lm:
        loc = Location(lm.group(1), int(lm.group(2)), int(lm.group(3)) if lm.group(3) else None)
        head = head[:lm.start()]
    rest = []; causes = []
    i += 1
    caret = lambda j: j < len(lines) and re.match(r"^\s*\^\s*$", lines[j]) is not None
    while i < len(lines):
        l = lines[i]
        if l.startswith(indent + "        ") and not caret(i + 1):
            rest.append(l[len(indent) + 8:]); i += 1
        elif l.startswith(indent + "    ") and caret(i + 1):
            i += 2
        elif l.startswith(indent + "caused by: ") or re.match(re.escape(indent) + r"error \d+: ", l):
            pre = len(indent + "caused by: ") if l.startswith(indent + "caused by: ") else re.match(re.escape(indent) + r"error \d+: ", l).end()
            sub = lines[:i] + [l[pre:]] + lines[i + 1:]
            if re.match(r"^\w+: ", l[pre:]):
                c, i = parse_diagnostic(sub, i, indent + "  ")
            else:  # a native (Python) cause
                c, i = make_exc("CompilerException", l[pre:], []), i + 1
            causes.append(c)
        else:
            break
    return make_exc(kind, "\n".join([head] + rest), causes, loc), i

def compile_error(stderr):
    """the exception our compiler reports on stderr, or None"""
    lines = stderr.splitlines()
    for i, l in enumerate(lines):
        if l.startswith("Error: "):
            return parse_diagnostic(lines[:i] + [l[len("Error: "):]] + lines[i + 1:], i, "")[0]
    return None

# ---- the compile
state = {"dir": None, "out": "", "err": "", "raises": 0, "result": None}
def run_compile():
    if state["result"] is not None:  # the compile setup_for_snippet already ran
        r, state["result"] = state["result"], None
        return r
    return subprocess.run([BIN, "compile"], cwd=state["dir"], capture_output=True, text=True, timeout=60)
def do_compile(*a, **k):
    r = run_compile()
    state["out"] += r.stdout; state["err"] += r.stderr
    # the compiler's warnings as Python warnings, for tests that record them (warnings.catch_warnings)
    import warnings
    for l in r.stderr.splitlines():
        m = re.match(r"^(\w+Warning): (.*)$", l)
        if m and isinstance(classes.get(m.group(1)), type) and issubclass(classes[m.group(1)], Warning):
            warnings.warn(classes[m.group(1)](m.group(2)))
    if r.returncode == 0:
        return (Opaque("types"), Opaque("scopes"))
    raise compile_error(r.stderr) or make_exc("CompilerException", r.stderr, [])

def raised_at_load(e):
    """whether the reference raises E when it loads the project (setup_for_snippet: parsing main.cf and the
    modules, loading modules and their plug-ins) rather than in do_compile"""
    isa = lambda n: n in classes and isinstance(e, classes[n])
    return (isa("ParserException") or isa("ModuleLoadingException") or isa("ModuleNotFoundException")
            or isa("InvalidModuleException")
            or (type(e).__name__ == "DuplicateException" and e.msg.startswith("duplicate key in dict"))
            or (type(e).__name__ == "CompilerException" and e.msg.startswith("Unable to load all plug-ins")))

class Opaque:
    def __init__(self, what): self.what = what
    def __getattr__(self, n):
        if n.startswith("_"): raise AttributeError(n)
        raise Unsupported(f"uses compile result {self.what}.{n}")
    def __iter__(self): raise Unsupported(f"uses compile result {self.what}")
    def __getitem__(self, k): raise Unsupported(f"uses compile result {self.what}[...]")
    def __call__(self, *a, **k): raise Unsupported(f"calls {self.what}")

PROJECT_YML = "name: snippet\nmodulepath: [libs, " + MODULES + "]\ndownloadpath: libs\nrepo: []\n"
class SnippetCompiler:
    def setup_for_snippet(self, code, *a, autostd=True, ministd=False, install_project=True, **kw):
        if a or kw.get("relation_precedence_rules") or kw.get("project_requires") or kw.get("python_requires"):
            raise Unsupported("snippet options " + repr((a, list(kw))))
        d = tempfile.mkdtemp(prefix="refrun")
        state["dir"] = d
        open(os.path.join(d, "project.yml"), "w").write(PROJECT_YML)
        # as is, not dedented: the reference writes the snippet unchanged, columns depend on it
        open(os.path.join(d, "main.cf"), "w").write(code)
        state["result"] = None
        if state["raises"]:
            # the reference parses and loads the modules here: those errors raise from setup_for_snippet; the
            # compile is kept for the do_compile that follows
            r = subprocess.run([BIN, "compile"], cwd=d, capture_output=True, text=True, timeout=60)
            state["result"] = r
            e = compile_error(r.stderr) if r.returncode != 0 else None
            if e is not None and raised_at_load(e):
                state["result"] = None
                state["out"] += r.stdout; state["err"] += r.stderr
                raise e
    def setup_for_error(self, code, shouldbe, indent_offset=0, **kw):
        self.setup_for_snippet(code, **kw)
        try:
            do_compile()
        except Exception as e:
            got = e.msg.split("\n")[0] if hasattr(e, "msg") else str(e)
            want = shouldbe.format(dir=state["dir"]).strip().split("\n")[0].replace(state["dir"] + "/", "./")
            norm = lambda t: re.sub(r"\s*\((reported in .*|[^()]*:\d+(:\d+)?)\)\s*$", "", t).strip()
            if norm(want)[:60] != norm(got)[:60]:
                raise AssertionError(f"error differs:\n  want {want!r}\n  got  {got!r}")
            return
        raise AssertionError("no error")
    project_dir = "."
    def setup_for_error_re(self, code, shouldbe):
        self.setup_for_snippet(code)
        r = run_compile()
        if r.returncode == 0: raise AssertionError("no error")
        text = r.stderr[r.stderr.find("Error: ") + 7:] if "Error: " in r.stderr else r.stderr
        e = compile_error(r.stderr)
        trace = e.format_trace(indent="  ") if e is not None else text  # the reference matches format_trace
        want = shouldbe.format(dir=".")
        if re.search(want, trace) is None and re.search(want, text) is None and re.search(want, re.sub(r"\s+", " ", text)) is None:
            raise AssertionError(f"regex {want!r} not in {text[:300]!r}")
    def do_export(self, *a, **k): raise Unsupported("do_export")
    def __getattr__(self, n): raise Unsupported(f"snippetcompiler.{n}")

class Capsys:
    def readouterr(self):
        o, e = state["out"], state["err"]; state["out"] = state["err"] = ""
        return types.SimpleNamespace(out=o, err=e) if False else _OE(o, e)
class _OE(tuple):
    def __new__(cls, o, e): return super().__new__(cls, (o, e))
    out = property(lambda s: s[0]); err = property(lambda s: s[1])

# ---- fake pytest
class Raises:
    def __init__(self, exc, match=None): self.exc, self.match = exc, match; self.value = None
    def __enter__(self):
        state["raises"] += 1; return self
    def __exit__(self, t, v, tb):
        state["raises"] -= 1
        if t is None: raise AssertionError(f"DID NOT RAISE {self.exc}")
        if t is Unsupported: return False
        if not issubclass(t, self.exc): return False
        self.value = v; self.type = t
        if self.match and not re.search(self.match, str(v)): raise AssertionError(f"no match {self.match!r} in {v}")
        return True
class Mark:
    def __getattr__(self, name):
        def deco(*a, **k):
            def apply(f):
                f.__dict__.setdefault("_marks", []).append((name, a, k)); return f
            if len(a) == 1 and callable(a[0]) and not k and name not in ("parametrize",): return apply(a[0])
            return apply
        return deco
def fixture(*a, params=None, ids=None, **k):
    def apply(f):
        f._fixture = True; f._params = params; return f
    if a and callable(a[0]): return apply(a[0])
    return apply
pytest = types.ModuleType("pytest")
pytest.fixture = fixture; pytest.mark = Mark(); pytest.raises = Raises
pytest.fail = lambda m="": (_ for _ in ()).throw(AssertionError(m))
pytest.skip = lambda m="": (_ for _ in ()).throw(Unsupported("skip " + m))
pytest.param = lambda *a, **k: a if len(a) > 1 else a[0]
pytest.approx = lambda x, **k: x
sys.modules["pytest"] = pytest

class AnyModule(types.ModuleType):
    def __getattr__(self, n):
        if n.startswith("__"): raise AttributeError(n)
        return Opaque(f"{self.__name__}.{n}")
inm = AnyModule("inmanta"); inm.__path__ = []; sys.modules["inmanta"] = inm
comp = AnyModule("inmanta.compiler"); comp.__path__ = []; comp.do_compile = do_compile; sys.modules["inmanta.compiler"] = comp; inm.compiler = comp
excmod.__path__ = []
excmod.__getattr__ = lambda n: Opaque("inmanta.ast." + n)
sys.modules["inmanta.ast"] = excmod; inm.ast = excmod
class Finder:
    def find_module(self, name, path=None):
        return self if (name.startswith("inmanta") or name in ("utils", "conftest", "packaging", "py")) else None
    def load_module(self, name):
        if name in sys.modules: return sys.modules[name]
        m = AnyModule(name); m.__path__ = []; sys.modules[name] = m
        if name.startswith("inmanta.ast") or name.startswith("inmanta.parser"):
            for n, c in classes.items(): setattr(m, n, c)
        return m
import importlib.abc, importlib.machinery, importlib.util
class MetaFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path, target=None):
        if name.startswith("inmanta") or name.split(".")[0] in ("utils", "conftest", "py", "packaging", "asyncpg", "psutil"):
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
        return None
    def create_module(self, spec):
        if spec.name in sys.modules: return sys.modules[spec.name]
        m = AnyModule(spec.name); m.__path__ = []
        if spec.name.startswith("inmanta"):  # the reference's exception classes, wherever a test imports them from
            for n, c in classes.items(): setattr(m, n, c)
        return m
    def exec_module(self, m): pass
sys.meta_path.insert(0, MetaFinder())

# ---- run
totals = {}
for path in FILES:
    src = subprocess.run(["git", "-C", REPO, "show", f"{TAG}:tests/compiler/" + path], capture_output=True, text=True).stdout
    mod = types.ModuleType(path[:-3])
    mod.__file__ = os.path.join(ROOT, "tests", "compiler", path)  # the test's place in the reference's checkout
    try:
        exec(compile(src, path, "exec"), mod.__dict__)
    except Exception as e:
        print(f"{path} IMPORT-FAIL {type(e).__name__}: {e}"); continue
    fixtures = {n: f for n, f in mod.__dict__.items() if callable(f) and getattr(f, "_fixture", False)}
    for name, fn in list(mod.__dict__.items()):
        if not name.startswith("test_") or not callable(fn): continue
        marks = getattr(fn, "_marks", [])
        if any(m[0] in ("skip", "skipif", "xfail", "slow") for m in marks):
            continue
        params = list(inspect.signature(fn).parameters)
        axes = []  # list of lists of dict
        for m in reversed(marks):
            if m[0] != "parametrize": continue
            names = m[1][0]; vals = m[1][1]
            names = [n.strip() for n in names.split(",")] if isinstance(names, str) else list(names)
            axes.append([dict(zip(names, v if len(names) > 1 else (v,))) for v in vals])
        fixed = set(itertools.chain.from_iterable(a[0].keys() for a in axes if a))
        for p in params:
            if p in fixed: continue
            if p in fixtures and fixtures[p]._params:
                axes.append([{p: ("__fixture__", p, v)} for v in fixtures[p]._params])
        for combo in itertools.product(*axes) if axes else [()]:
            kwargs = {}
            for d in combo: kwargs.update(d)
            label = f"{path}::{name}" + (f"[{','.join(str(v[2]) if isinstance(v, tuple) and v and v[0]=='__fixture__' else str(v) for v in kwargs.values())}]" if kwargs else "")
            try:
                for p in params:
                    if p in kwargs:
                        v = kwargs[p]
                        if isinstance(v, tuple) and v and v[0] == "__fixture__":
                            kwargs[p] = fixtures[p](types.SimpleNamespace(param=v[2]))
                        continue
                    if p == "snippetcompiler": kwargs[p] = SnippetCompiler()
                    elif p == "capsys": kwargs[p] = Capsys()
                    elif p in fixtures and not fixtures[p]._params:
                        sig = inspect.signature(fixtures[p]).parameters
                        if sig: raise Unsupported(f"fixture {p} with args")
                        kwargs[p] = fixtures[p]()
                    else: raise Unsupported(f"fixture {p}")
                state["out"] = state["err"] = ""; state["raises"] = 0; state["result"] = None
                r = fn(**kwargs)
                if inspect.isgenerator(r) or inspect.iscoroutine(r): raise Unsupported("generator/coroutine")
                res = "PASS"
            except Unsupported as e:
                res = f"UNSUPPORTED {e}"
            except AssertionError as e:
                if os.environ.get("REFTESTS_TRACE"): traceback.print_exc()
                res = f"FAIL {str(e)[:300]!r}"
            except Exception as e:
                res = f"FAIL {type(e).__name__}: {str(e)[:300]!r}"
            kind = res.split()[0]
            totals[kind] = totals.get(kind, 0) + 1
            print(label, res, flush=True)
            if state["dir"]: shutil.rmtree(state["dir"], ignore_errors=True); state["dir"] = None
print("# totals", totals)
