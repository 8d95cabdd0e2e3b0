#!/usr/bin/env python3
"""End-to-end tests of `inmanta export -j` (export spec section 6, scenarios E-1..E-19, E-33).

Run by ctest with the binary's path. Each scenario writes a project to a temporary folder,
runs the real binary and checks the file, the summary and the exit status.
"""
import json
import os
import subprocess
import sys
import tempfile

from checks import check, finish

INMANTA = os.path.abspath(sys.argv[1])
PROJECT_YML = "name: e2e\nmodulepath: libs\ndownloadpath: libs\nrepo: []\n"


def project(main, extra=None):
    d = tempfile.mkdtemp(prefix="inmanta-export-e2e-")
    files = {"project.yml": PROJECT_YML, "main.cf": main}
    files.update(extra or {})
    for path, text in files.items():
        full = os.path.join(d, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        mode = "wb" if isinstance(text, bytes) else "w"
        with open(full, mode, **({} if isinstance(text, bytes) else {"encoding": "utf-8"})) as fd:
            fd.write(text)
    return d


def export(main, extra=None, args=(), env=None):
    """Runs `export -j out.json`; returns (proc, parsed list or None, raw bytes or None, folder)."""
    d = project(main, extra)
    out = os.path.join(d, "out.json")
    full_env = dict(os.environ)
    full_env.update(env or {})
    proc = subprocess.run([INMANTA, "export", "-j", out, *args], cwd=d, capture_output=True, text=True,
                          timeout=120, stdin=subprocess.DEVNULL, env=full_env)
    raw = None
    data = None
    if os.path.exists(out):
        with open(out, "rb") as fd:
            raw = fd.read()
        data = json.loads(raw)
    return proc, data, raw, d


def by_id(data):
    return {r["id"].rsplit(",v=", 1)[0]: r for r in data or []}


E1 = """import std::testing
h1 = std::Host(name="h1", os=std::linux)
h2 = std::Host(name="h2", os=std::linux)
std::Directory(host=h1, path="/etc/app", mode=755, owner="root", group="root")
a = std::File(host=h1, path="/etc/app/a.conf", mode=644, owner="root", group="root", content="hello\\n")
std::ConfigFile(host=h1, path="/etc/app/sub/b.conf", content="b")
std::File(host=h2, path="/etc/motd", mode=600, owner="u", group="g", content="x", purged=true,
          purge_on_delete=true, reload=true)
p = std::Package(host=h1, name="nginx", state="installed")
std::Service(host=h1, name="nginx", state="running", onboot=true, requires=[a, p])
std::Symlink(host=h2, source="/a", target="/b")
std::testing::NullResource(name="n1")
std::AgentConfig(agentname="h1", autostart=true)
std::AgentConfig(agentname="h2")
std::DefaultDirectory(host=h2, path="/etc")
"""

BASE = ["send_event", "receive_events", "references", "mutators", "report_only"]
PURGE = ["purged", "purge_on_delete"]
KEYS = {
    "std::Service": BASE + ["onboot", "state", "name", "reload"],
    "std::File": BASE + PURGE + ["path", "owner", "hash", "group", "permissions", "reload"],
    "std::Directory": BASE + PURGE + ["path", "owner", "group", "permissions", "reload"],
    "std::Package": BASE + ["name", "state", "reload"],
    "std::Symlink": BASE + PURGE + ["source", "target", "reload"],
    "std::testing::NullResource": BASE + ["managed"] + PURGE + ["name", "agentname", "fail"],
    "std::AgentConfig": BASE + PURGE + ["agentname", "uri", "autostart"],
}

# E-1 .. E-4
proc, data, raw, d = export(E1)
res = by_id(data)
check("E-1 exit and summary", proc.returncode == 0 and "= SUCCESS =" in proc.stderr, proc.stderr)
UMASK = os.umask(0o022)
os.umask(UMASK)
MODE = os.stat(os.path.join(d, "out.json")).st_mode & 0o777
check("E-1 file mode as any new file", MODE == 0o666 & ~UMASK, oct(MODE))
check("E-1 ids", set(res) == {
    "std::Service[h1,name=nginx]", "std::File[h1,path=/etc/app/a.conf]", "std::File[h1,path=/etc/app/sub/b.conf]",
    "std::File[h2,path=/etc/motd]", "std::Directory[h1,path=/etc/app]", "std::Directory[h2,path=/etc]",
    "std::Package[h1,name=nginx]", "std::Symlink[h2,target=/b]", "std::testing::NullResource[internal,name=n1]",
    "std::AgentConfig[internal,agentname=h1]"}, sorted(res))
req = {k: set(v["requires"]) for k, v in res.items()}
check("E-2 service requires", req.get("std::Service[h1,name=nginx]") ==
      {"std::Package[h1,name=nginx]", "std::File[h1,path=/etc/app/a.conf]"}, req)
check("E-2 directory before file",
      req.get("std::File[h1,path=/etc/app/a.conf]") == {"std::Directory[h1,path=/etc/app]"}
      and req.get("std::File[h1,path=/etc/app/sub/b.conf]") == {"std::Directory[h1,path=/etc/app]"}
      and req.get("std::File[h2,path=/etc/motd]") == {"std::Directory[h2,path=/etc]"}, req)
check("E-2 others none", all(not v for k, v in req.items() if not k.startswith(("std::Service", "std::File"))), req)
check("E-3 hashes", [res[k]["hash"] for k in ("std::File[h1,path=/etc/app/a.conf]",
                                               "std::File[h1,path=/etc/app/sub/b.conf]",
                                               "std::File[h2,path=/etc/motd]")] ==
      ["f572d396fae9206628714fb2ce00f72e94f2258f", "e9d71f5ee7c92d6dc9e92ffdad17b8bd49418f98",
       "11f6ad8ec52a2984abaafd7c3b516503785c2072"], res)
b = res.get("std::File[h1,path=/etc/app/sub/b.conf]", {})
check("E-3 configfile defaults", (b.get("owner"), b.get("group"), b.get("permissions")) == ("root", "root", 644), b)
motd = res.get("std::File[h2,path=/etc/motd]", {})
check("E-3 motd flags", all(motd.get(k) is True for k in ("send_event", "purged", "purge_on_delete", "reload")), motd)
check("E-3 send_event", all(r["send_event"] == (k.startswith("std::testing") or k == "std::File[h2,path=/etc/motd]")
                            for k, r in res.items()), res)
check("E-3 base fields", all(r["receive_events"] is True and r["report_only"] is False and r["references"] == []
                             and r["mutators"] == [] for r in res.values()), res)
check("E-4 key order", all(list(r) == KEYS[k.split("[")[0]] + ["requires", "id"] for k, r in res.items()),
      [list(r) for r in res.values()])
check("E-4 one line, no newline", raw is not None and b"\n" not in raw and raw.startswith(b"[{\"send_event\": "), raw)
check("E-4 ids end in v=0", all(r["id"].endswith(",v=0") for r in data or []), data)
# X1: the same model twice gives the same bytes
_, _, raw2, _ = export(E1)
check("X1 deterministic bytes", raw == raw2 and raw is not None, "differs")
# E-33: -g
proc, data, raw, d = export(E1, args=["-g"])
dot = open(os.path.join(d, "dependencies.dot"), encoding="utf-8").read() if os.path.exists(
    os.path.join(d, "dependencies.dot")) else ""
lines = dot.splitlines()
check("E-33 dot nodes and edges", lines[:1] == ["digraph G {"] and lines[-1:] == ["}"]
      and sum(1 for x in lines if x.startswith("\t\"") and "->" not in x) == 10
      and sum(1 for x in lines if "->" in x) == 5
      and '\t"std::Service[h1,name=nginx],v=0" -> "std::Package[h1,name=nginx]";' in lines, dot)

# E-5 content assembly, std::file bytes
main = """h = std::Host(name="h", os=std::linux)
f = std::File(host=h, path="/a", mode=644, owner="r", group="r", content="body")
f.prefix_content += std::Content(value="zz")
f.prefix_content += std::Content(value="aa", sorting_key="b")
f.prefix_content += std::Content(value="mm", sorting_key="a")
f.suffix_content += std::Content(value="s2")
f.suffix_content += std::Content(value="s1")
g = std::File(host=h, path="/b", mode=644, owner="r", group="r", content="c", content_seperator="|")
g.prefix_content += std::Content(value="p")
import blobs
std::File(host=h, path="/c", mode=644, owner="r", group="r", content=std::file("blobs/blob.bin"))
"""
blob = b"\x00\xff\x01binary\x00"
import hashlib
proc, data, raw, d = export(main, {"libs/blobs/module.yml": "name: blobs\nversion: 1.0.0\nlicense: ASL\n",
                                   "libs/blobs/model/_init.cf": "", "libs/blobs/files/blob.bin": blob})
res = by_id(data)
check("E-5 prefix/suffix", res.get("std::File[h,path=/a]", {}).get("hash") ==
      "11641025de737359a9f75a3abd947a1f42f0e35c", proc.stderr + str(res))
check("E-5 separator", res.get("std::File[h,path=/b]", {}).get("hash") == "d5b414cf910eb42372502904b341b97108281543",
      res)
check("E-5 std::file raw bytes", res.get("std::File[h,path=/c]", {}).get("hash") == hashlib.sha1(blob).hexdigest(),
      res)

# E-6 / X6: strings are UTF-8, so a literal "é" and "\u00e9" hash alike
main = """h = std::Host(name="h", os=std::linux)
std::File(host=h, path="/a", mode=644, owner="r", group="r", content="é")
std::File(host=h, path="/b", mode=644, owner="r", group="r", content="\\u00e9")
"""
proc, data, raw, d = export(main)
res = by_id(data)
check("E-6/X6 utf-8 content", res.get("std::File[h,path=/a]", {}).get("hash") ==
      res.get("std::File[h,path=/b]", {}).get("hash") == "bf15be717ac1b080b4f1c456692825891ff5073d", res)

# E-7 directory prefix rule
main = """h = std::Host(name="h", os=std::linux)
std::DefaultDirectory(host=h, path="/etc")
std::DefaultDirectory(host=h, path="/etc/app")
std::DefaultDirectory(host=h, path="/etc/ap")
std::ConfigFile(host=h, path="/etc/app/x", content="")
std::ConfigFile(host=h, path="/etc/apple", content="")
std::ConfigFile(host=h, path="/etc", content="")
std::ConfigFile(host=h, path="/etc/", content="")
std::Symlink(host=h, source="/x", target="/etc/app/l")
"""
proc, data, raw, d = export(main)
req = {k: set(v["requires"]) for k, v in by_id(data).items()}
D = lambda p: f"std::Directory[h,path={p}]"
F = lambda p: f"std::File[h,path={p}]"
check("E-7 prefix rule", req.get(F("/etc/app/x")) == {D("/etc"), D("/etc/app"), D("/etc/ap")}
      and req.get(F("/etc/apple")) == {D("/etc"), D("/etc/app"), D("/etc/ap")}
      and req.get(D("/etc/app")) == {D("/etc"), D("/etc/ap")} and req.get(D("/etc/ap")) == {D("/etc")}
      and req.get(F("/etc")) == set() and req.get(F("/etc/")) == {D("/etc")}
      and req.get("std::Symlink[h,target=/etc/app/l]") == set(), req)

# E-8 host requires propagate; provides
main = """import std::testing
h1 = std::Host(name="h1", os=std::linux)
c = std::testing::NullResource(name="c")
d = std::testing::NullResource(name="d")
h1.requires += c
d.provides += c
std::ConfigFile(host=h1, path="/x", content="")
std::ConfigFile(host=h1, path="/y", content="")
"""
proc, data, raw, d = export(main)
req = {k: set(v["requires"]) for k, v in by_id(data).items()}
N = lambda n: f"std::testing::NullResource[internal,name={n}]"
check("E-8 host requires", req.get("std::File[h1,path=/x]") == {N("c")} == req.get("std::File[h1,path=/y]"), req)
check("E-8 provides", req.get(N("c")) == {N("d")}, req)

# E-9 no transitive resolution through plain entities
main = """import std::testing
entity G:
end
implement G using std::none
g = G()
a = std::testing::NullResource(name="a")
b = std::testing::NullResource(name="b")
g.requires += a
b.requires += g
"""
proc, data, raw, d = export(main)
check("E-9 dropped, warning", proc.returncode == 0 and by_id(data).get(N("b"), {}).get("requires") == []
      and "had requirements before flattening" in proc.stderr, proc.stderr + str(data))

# E-10 unknowns
main = """import std::testing
h = std::Host(name="h", os=std::linux)
hu = std::Host(name=std::get_env("INMANTA_E2E_UNSET_1"), os=std::linux)
u = std::get_env("INMANTA_E2E_UNSET_2")
absent = std::ConfigFile(host=h, path=u, content="")
std::ConfigFile(host=hu, path="/on-unknown-host", content="")
std::File(host=h, path="/owner", mode=644, owner=u, group="g", content="")
std::File(host=h, path="/content", mode=644, owner="o", group="g", content=u)
std::File(host=h, path="/mode", mode=std::get_env_int("INMANTA_E2E_UNSET_3"), owner="o", group="g", content="")
n = std::testing::NullResource(name="n", requires=[absent])
"""
proc, data, raw, d = export(main, env={})
res = by_id(data)
check("E-10 skipped", set(res) == {F("/owner"), F("/content"), F("/mode"), N("n")}, sorted(res))
check("E-10 undefined fields", res.get(F("/owner"), {}).get("owner") == "<<undefined>>"
      and res.get(F("/content"), {}).get("hash") == "<<undefined>>"
      and res.get(F("/mode"), {}).get("permissions") == "<<undefined>>", res)
check("E-10 require on skipped dropped", res.get(N("n"), {}).get("requires") == [], res)

# E-11 ignored
main = """import std::testing
x = std::testing::NullResource(name="x", managed=false)
std::testing::NullResource(name="y", requires=[x])
std::AgentConfig(agentname="off")
"""
proc, data, raw, d = export(main)
res = by_id(data)
check("E-11 ignored", set(res) == {N("y")} and res[N("y")]["requires"] == [], res)

# E-12 remote agent config
main = """h1 = std::Host(name="h1", os=std::linux, ip="10.0.0.5", remote_agent=true, remote_user="admin",
                 remote_port=2222)
std::ConfigFile(host=h1, path="/x", content="")
std::AgentConfig(agentname="x", autostart=true, agent="h2", uri="ssh://x")
"""
proc, data, raw, d = export(main)
res = by_id(data)
ac = res.get("std::AgentConfig[internal,agentname=h1]", {})
check("E-12 agent config", ac.get("uri") == "ssh://admin@10.0.0.5:2222?python=python" and ac.get("autostart") is True,
      proc.stderr + str(res))
check("E-12 file requires it", res.get("std::File[h1,path=/x]", {}).get("requires") ==
      ["std::AgentConfig[internal,agentname=h1]"], res)
check("E-12 explicit agent", "std::AgentConfig[h2,agentname=x]" in res, res)

# E-13 packages
main = """h2 = std::Host(name="h2", os=std::linux)
std::Packages(host=h2, name=["a", "b"], state="latest")
"""
proc, data, raw, d = export(main)
res = by_id(data)
check("E-13 packages", {k: v["state"] for k, v in res.items()} ==
      {"std::Package[h2,name=a]": "latest", "std::Package[h2,name=b]": "latest"}, res)


def failure(name, main, message):
    proc, data, raw, d = export(main)
    check(name, proc.returncode == 1 and "= EXPORT FAILURE =" in proc.stderr and f"Error: {message}" in proc.stderr
          and raw is None, f"{proc.returncode} {proc.stderr} {raw}")


# E-14 .. E-16, E-19
failure("E-14 duplicate id", """h = std::Host(name="h", os=std::linux)
std::Symlink(host=h, source="/a", target="/b")
std::Symlink(host=h, source="/c", target="/b")
""", "Resource std::Symlink[h,target=/b] exists more than once in the configuration model")
proc, data, raw, d = export("""import std::testing
a = std::testing::NullResource(name="a")
b = std::testing::NullResource(name="b")
a.requires += b
b.requires += a
""")
check("E-15 cycle", proc.returncode == 1 and "Error: Cycle in dependencies: [" in proc.stderr and N("a") in proc.stderr
      and N("b") in proc.stderr and raw is None, proc.stderr)
failure("E-15 self cycle", """import std::testing
n = std::testing::NullResource(name="self")
n.requires += n
""", "Cycle in dependencies: [std::testing::NullResource[internal,name=self]]")
failure("E-16 value", "import std::testing\nstd::testing::NullResource(name=\"x]y\")\n",
        "Invalid attribute value 'x]y': cannot contain ']'.")
failure("E-16 agent", "import std::testing\nstd::testing::NullResource(agentname=\"a,b\")\n",
        "Invalid agent name 'a,b': cannot contain ','.")
proc, data, raw, d = export("import std::testing\nstd::testing::NullResource(name=\"x,y=z[q\")\n")
check("E-16 accepted", proc.returncode == 0 and N("x,y=z[q") in by_id(data), proc.stderr)
failure("E-19 two sets", """import std::testing
n = std::testing::NullResource(name="n")
std::ResourceSet(name="A", resources=[n])
std::ResourceSet(name="B", resources=[n])
""", f"resource '{N('n')}' can not be part of multiple ResourceSets:")

# E-17 a failed compile creates no -j file (the reference writes `[]`; issue 32 asks for honest
# files), empty model
proc, data, raw, d = export("x = 1 + \"a\"\n")
check("E-17 compile failure", proc.returncode == 1 and raw is None and "= COMPILATION FAILURE =" in proc.stderr
      and sorted(os.listdir(d)) == ["main.cf", "project.yml"],
      f"{proc.returncode} {raw} {proc.stderr}")


def export_over(main, old=b"OLD CONTENT\n"):
    """Runs `export -j out.json` in a project whose out.json already holds `old`; returns
    (proc, the file's bytes after the run, the folder's names)."""
    d = project(main)
    out = os.path.join(d, "out.json")
    with open(out, "wb") as fd:
        fd.write(old)
    proc = subprocess.run([INMANTA, "export", "-j", out], cwd=d, capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)
    with open(out, "rb") as fd:
        return proc, fd.read(), sorted(os.listdir(d))


# an existing -j file survives a failed compile and a failed export phase untouched, and no
# temporary file is left beside it; a successful run replaces it whole
NAMES = ["main.cf", "out.json", "project.yml"]
proc, after, names = export_over("x = 1 + \"a\"\n")
check("E-17 compile failure keeps file", proc.returncode == 1 and after == b"OLD CONTENT\n" and names == NAMES,
      f"{proc.returncode} {after} {names}")
proc, after, names = export_over("import std::testing\nstd::testing::NullResource(agentname=\"a,b\")\n")
check("E-17 export failure keeps file", proc.returncode == 1 and "= EXPORT FAILURE =" in proc.stderr
      and after == b"OLD CONTENT\n" and names == NAMES, f"{proc.returncode} {after} {names}")
proc, after, names = export_over("import std::testing\nstd::testing::NullResource(name=\"n\")\n", b"x" * 100000)
check("E-17 success replaces file", proc.returncode == 0 and after.startswith(b"[") and len(json.loads(after)) == 1
      and names == NAMES, f"{proc.returncode} {after[:80]} {names}")
proc, data, raw, d = export("x = 1\n")
check("E-17 empty model", proc.returncode == 0 and raw == b"[]" and "Empty deployment model." in proc.stderr,
      proc.stderr)

# E-18 JSON encoding
proc, data, raw, d = export("""import std::testing
std::testing::NullResource(name="</tag>")
std::testing::NullResource(name="\\u20ac\\U0001F600\\x01")
""")
check("E-18 escapes", raw is not None and b'"name": "<\\/tag>"' in raw and b'"name": "\\u20ac\\ud83d\\ude00\\u0001"' in raw,
      raw)

# Getters that fall back as the reference's do: an unknown send_event, receive_events or
# report_only exports as false/true/false; an unset optional report_only relation as false.
proc, data, raw, d = export("""import std::testing
h = std::Host(name="h", os=std::linux)
std::ConfigFile(host=h, path="/a", content="x", reload=std::get_env("INMANTA_TEST_UNSET") == "y")
std::testing::NullResource(name="n", receive_events=std::get_env("INMANTA_TEST_UNSET") == "y")
""")
r = by_id(data)
check("unknown event flags fall back", proc.returncode == 0 and r["std::File[h,path=/a]"]["send_event"] is False
      and r["std::File[h,path=/a]"]["reload"] == "<<undefined>>"
      and r["std::testing::NullResource[internal,name=n]"]["receive_events"] is True, proc.stderr)

# The separator is only read when there are Content blocks to join.
proc, data, raw, d = export("""h = std::Host(name="h", os=std::linux)
std::ConfigFile(host=h, path="/a", content="x", content_seperator=std::get_env("INMANTA_TEST_UNSET"))
""")
check("unknown separator without blocks", proc.returncode == 0 and
      by_id(data)["std::File[h,path=/a]"]["hash"] == "11f6ad8ec52a2984abaafd7c3b516503785c2072", proc.stderr)

# Only the value std::file returned is read from disk: text that looks like its marker is text.
proc, data, raw, d = export("""import mymod
h = std::Host(name="h", os=std::linux)
x = std::file("mymod/blob.txt")
std::ConfigFile(host=h, path="/marker", content=x)
std::ConfigFile(host=h, path="/text", content="imp-module-source:file:///etc/hostname")
std::ConfigFile(host=h, path="/copy", content="{{x}}")
""", {"libs/mymod/module.yml": "name: mymod\nversion: 1.0.0\nlicense: ASL\n", "libs/mymod/model/_init.cf": "",
      "libs/mymod/files/blob.txt": "hello\n"})
r = by_id(data)
check("file marker by identity", proc.returncode == 0
      and r["std::File[h,path=/marker]"]["hash"] == "f572d396fae9206628714fb2ce00f72e94f2258f"
      and r["std::File[h,path=/text]"]["hash"] == "dfd36e43df19219fa77358303ef7cfc1b2a3d6fb", proc.stderr)

# An instance anywhere in a field's value is an export failure, not an internal error.
proc, data, raw, d = export("""import std::testing
entity Foo:
end
implement Foo using std::none
entity RoNull extends std::testing::NullResource:
end
RoNull.report_only [0:] -- Foo
implement RoNull using std::none
RoNull(name="ro", report_only=[Foo(), Foo()])
""")
check("instance in a list field", proc.returncode == 1 and "= EXPORT FAILURE =" in proc.stderr and
      "Error: Failed to get attribute 'report_only' for export on 'std::testing::NullResource' (__config__::Foo "
      "(instantiated at ./main.cf:9) is not JSON serializable at path report_only[0])" in proc.stderr, proc.stderr)

# Export plugins (config.export or --export-plugin) run once the resources are made: none exist.
proc, data, raw, d = export("x = 1\n", {".inmanta": "[config]\nexport = bar, baz\n"})
check("config.export", proc.returncode == 1 and "Error: Export function bar does not exist." in proc.stderr
      and raw is None, proc.stderr)
proc, data, raw, d = export("x = 1 + \"a\"\n", args=("--export-plugin", "foo"))
check("a compile failure before the export plugin", proc.returncode == 1 and "= COMPILATION FAILURE =" in proc.stderr
      and "Export function" not in proc.stderr, proc.stderr)

finish()
