#!/usr/bin/env python3
"""End-to-end checks of execution order and messages where the reference (inmanta-core 19) was
found to behave differently from our first reading: each model is compiled by the real binary
(run by ctest with the binary's path)."""
import os
import subprocess
import sys

from checks import check, finish, project

INMANTA = os.path.abspath(sys.argv[1])
PROJECT_YML = "name: semantics\nmodulepath: libs\ndownloadpath: libs\nrepo: []\n"


def compile_model(model, project_extra="", args=()):
    d = project({"project.yml": PROJECT_YML + project_extra, "main.cf": model}, "inmanta-semantics-")
    return subprocess.run([INMANTA, *args, "compile"], cwd=d, capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL)


def error_line(proc):
    for line in proc.stderr.splitlines():
        if line.startswith("Error: "):
            return line[len("Error: "):]
    return ""


# A constructor runs in the unit that reads it and sets that unit's target only after its
# attribute units and implementation units exist: the top-level assignment of 6 (an int) comes
# before the implementation's 12 / 2 (6.0, equal), so the int attribute accepts both.
PAIR_MODEL = """
entity Pair:
    int a
    int b
    int ratio
end
implement Pair using ratio
implementation ratio for Pair:
    self.ratio = a / b
end
"""
proc = compile_model(PAIR_MODEL + "p = Pair(a=12, b=2)\np.ratio = 6\nstd::print(p.ratio)\n")
check("constructor result set after its units", proc.returncode == 0 and proc.stdout == "6\n", proc.stderr)

# Without the earlier int the float from the division is what is validated first.
proc = compile_model(PAIR_MODEL + "Pair(a=12, b=2)\n")
check("division result refused by an int attribute", proc.returncode == 1
      and "Invalid value '6.0', expected int" in proc.stderr, proc.stderr)

# The attribute units of a constructor follow the defaults' declaration order (z before a), an
# argument taking the place of the default it overrides: both wait for v, so z is set first.
proc = compile_model("""
entity A:
    string z = "dz"
    string a = "da"
end
implement A using show
implementation show for A:
    std::print(a + "-a")
    std::print(z + "-z")
end
x = A(a=v, z=v)
v = "value"
""")
check("attribute units in the defaults' order", proc.returncode == 0
      and proc.stdout.split() == ["value-z", "value-a"], proc.stdout + proc.stderr)

# An error computing an assigned value is an error of the assignment (AttributeException).
proc = compile_model("""
entity Site:
end
entity Tier:
    string name
end
entity SubTier extends Tier:
end
index Tier(name)
Site.tier [1] -- Tier
implementation tiers for Site:
    self.tier = Tier(name="edge")
    self.tier = SubTier(name="edge")
end
implement Site using tiers
implement Tier using std::none
implement SubTier using std::none
Site()
""")
err = error_line(proc)
check("constructor failure wrapped by the attribute assignment", proc.returncode == 1
      and err.startswith("AttributeException: Could not set attribute `tier`")
      and "caused by: DuplicateException: Type found in index is not an exact match (original at (./main.cf:12))"
          " (duplicate at (./main.cf:13))" in proc.stderr, proc.stderr)

# Eager promises: an empty optional on the way to the assigned attribute means no promise...
proc = compile_model("""
entity Node:
end
Node.next [0:1] -- Node
implement Node using walk
implementation walk for Node:
    if self.next is defined:
        self.next.label = "x"
        self.next.next.next.label = "y"
    end
end
n = Node()
n.next = null
""")
check("eager promise through an empty optional", proc.returncode == 0, proc.stderr)

# ... but an attribute that does not exist is an error, even in a branch that never runs.
proc = compile_model("""
entity Node:
end
implement Node using walk
implementation walk for Node:
    if false:
        self.missing = Node()
    end
end
Node()
""")
check("eager promise on a missing attribute", proc.returncode == 1
      and "could not find attribute with name: missing in type __config__::Node" in error_line(proc), proc.stderr)

# Messages render values with str(), as the reference's format strings do.
proc = compile_model('flag = "yes"\nif flag and true:\nend\n')
check("and: left value in str form", "Invalid left hand value `yes`: `and` expects a boolean" in error_line(proc),
      proc.stderr)
proc = compile_model('x = not "yes"\n')
check("not: value in str form", "Invalid value `yes`: `not` expects a boolean" in error_line(proc), proc.stderr)
proc = compile_model('if "yes":\nend\n')
check("if: condition in str form",
      "Invalid value `yes`: the condition for an if statement can only be a boolean expression" in error_line(proc),
      proc.stderr)
proc = compile_model('typedef small as string matching self in ["a"] or null\nentity A:\n  small s = "b"\nend\n')
check("typedef or: right value", "Invalid right hand value `null`: `or` expects a boolean" in error_line(proc),
      proc.stderr)

# Casts check their arguments when they run, naming them by value.
proc = compile_model('x = int("4", 5)\n')
check("cast with two arguments", "Illegal arguments '4',5: type cast expects exactly 1 argument" in error_line(proc),
      proc.stderr)

# Index lookups name the attribute given twice.
proc = compile_model("""
entity Item:
    string key
end
index Item(key)
implement Item using std::none
Item(key="a")
x = Item[key="a", **{"key": "b"}]
""")
check("index lookup attribute twice", "Attribute key provided twice in index lookup" in error_line(proc), proc.stderr)

# A for loop over a reference says what it resolves to.
proc = compile_model("""
entity Box:
end
implement Box using std::none
b = Box()
for x in b:
end
""")
check("for over a reference", "Hint: 'b' resolves to '__config__::Box (instantiated at ./main.cf:5)'."
      in error_line(proc), proc.stderr)
proc = compile_model('for x in "abc":\nend\n')
check("for over a value", "Hint: 'abc' is not a list." in error_line(proc), proc.stderr)

# A relation end may not reuse the name of an inherited relation end, whatever the order.
proc = compile_model("""
entity Base:
end
entity Mid extends Base:
end
entity Leaf extends Mid:
end
entity Agent:
end
Agent.leaf [1] -- Leaf.agent [1]
Base.agent [0:1] -- Agent.base [1]
""")
check("relation end clashing with an inherited one", proc.returncode == 1
      and "Attribute name agent is already defined in Base, unable to define relationship" in error_line(proc),
      proc.stderr)

# Relation annotations are evaluated: an unknown name fails, an unknown value is reported per end.
proc = compile_model("""
entity A:
end
entity B:
end
A.b [0:1] missing_annotation B
""")
check("relation annotation not found", proc.returncode == 1 and "variable missing_annotation not found"
      in error_line(proc), proc.stderr)
proc = compile_model("""
entity A:
end
entity B:
end
implement A using std::none
implement B using std::none
A.b [0:1] std::get_env("INMANTA_SEMANTICS_TEST_UNSET") B.a [0:]
A()
""")
check("relation annotation unknown", proc.returncode == 1 and proc.stderr.count(
    "TypingException: Relation annotation can not be Unknown (./main.cf:8)") == 2, proc.stderr)

# Redefinitions, as the reference renders them, with columns. A type defined twice: "original" is
# the new definition; an implementation names the type it is for, as written (the reference's
# test_double_define_implementation). An attribute declared twice, or a relation end named as an
# attribute: reported at the earlier declaration, which is the "original"
# (test_2386_duplicate_attribute_error_message).
for what, model, expected in (
        ("entity defined twice", "entity File:\nend\nentity File:\nend\n",
         "Entity __config__::File is already defined (original at (./main.cf:3:8)) (duplicate at (./main.cf:1:8))"),
        ("implementation defined twice",
         "entity File:\nend\nimplementation file for File:\nend\nimplementation file for File:\nend\n",
         "Implementation __config__::file for type File is already defined"
         " (original at (./main.cf:5:16)) (duplicate at (./main.cf:3:16))"),
        ("attribute declared twice", "entity Test:\n    string test\n    bool test\nend\n",
         "attribute 'test' already exists on entity 'Test' (original at (./main.cf:2:12))"
         " (duplicate at (./main.cf:3:10)) (./main.cf:2)"),
        ("relation end named as an attribute", "entity Test:\n    string test\nend\nTest.test [0:] -- Test\n",
         "attribute 'test' already exists on entity 'Test' (original at (./main.cf:2:12))"
         " (duplicate at (./main.cf:4:6))")):
    proc = compile_model(model)
    check(what, expected in error_line(proc), proc.stderr)

# Implementations run in units of their own, one per implement statement, after the
# constructor's attribute units: `first` sees the default assigned before it runs.
proc = compile_model("""
entity A:
    string name = "n"
end
implement A using first
implement A using second
implementation first for A:
    std::print("first")
end
implementation second for A:
    std::print("second")
end
std::print("before")
A()
std::print("after")
""")
check("implementation order", proc.returncode == 0 and proc.stdout.split() == ["before", "after", "first", "second"],
      proc.stdout + proc.stderr)

# Format specifiers are refused with the wording of Python 3.12 (the reference's interpreter).
proc = compile_model('world = "w"\nx = f"hello {world:invalid_specifier}"\n')
check("f-string invalid specifier", "Invalid f-string: Invalid format specifier 'invalid_specifier' for object of type"
      " 'str'" in error_line(proc), proc.stderr)

# project.yml's relation_precedence_policy orders the freezing of the relations it names.
PRECEDENCE_MODEL = """
entity A:
end
A.xs [0:] -- A
A.ys [0:] -- A
implement A using std::none
a = A()
std::print(std::count(a.xs) + 100)
std::print(std::count(a.ys) + 200)
"""
proc = compile_model(PRECEDENCE_MODEL)
check("freeze order without a policy", proc.returncode == 0 and proc.stdout.split() == ["100", "200"], proc.stderr)
proc = compile_model(PRECEDENCE_MODEL, "relation_precedence_policy:\n  - '__config__::A.ys before __config__::A.xs'\n")
check("freeze order with a policy", proc.returncode == 0 and proc.stdout.split() == ["200", "100"], proc.stderr)
check("policy announced as experimental", "inmanta.execute.scheduler WARNING [EXPERIMENTAL FEATURE] Using the relation"
      " precedence policy defined in the project.yml file to determine list freeze order." in proc.stderr, proc.stderr)
check("policy without -vv: rules not listed", "Loaded relation precedence rule" not in proc.stderr, proc.stderr)
proc = compile_model(PRECEDENCE_MODEL, "relation_precedence_policy:\n  - '__config__::A.ys before __config__::A.xs'\n",
                     ["-vv"])
check("policy rules listed with -vv", "inmanta.execute.scheduler INFO    Loaded relation precedence rule: __config__::A.ys"
      " before __config__::A.xs" in proc.stderr, proc.stderr)
proc = compile_model(PRECEDENCE_MODEL, "relation_precedence_policy:\n  - '__config__::A.ys before __config__::A.zz'\n")
check("policy naming a missing relation", "A relation precedence rule was defined for __config__::A.zz, but entity"
      " __config__::A doesn't have an attribute zz." in error_line(proc), proc.stderr)
proc = compile_model(PRECEDENCE_MODEL, "relation_precedence_policy:\n  - '__config__::A.ys before __config__::A.xs'\n"
                     "  - '__config__::A.xs before __config__::A.ys'\n")
check("policy with a cycle", "A cycle exists in the relation precedence policy" in error_line(proc), proc.stderr)
proc = compile_model(PRECEDENCE_MODEL, "relation_precedence_policy:\n  - '__config__::B.ys before __config__::A.xs'\n")
check("policy naming a missing type", "A relation precedence rule was defined for __config__::B, but no such type"
      " was defined" in error_line(proc), proc.stderr)

# The order of a constructor's argument and default units is planned once per constructor; with
# `**` entries or an implicit inverse index attribute the construction values differ and the
# order is worked out again: still the defaults' order (z before a) for arguments that wait.
ORDER_MODEL = """
entity A:
    string key
    string z = "dz"
    string a = "da"
end
index A(key)
implement A using show
implementation show for A:
    std::print(a + "-a")
    std::print(z + "-z")
end
"""
proc = compile_model(ORDER_MODEL + 'x = A(a=v, z=v, **{"key": "k"})\nv = "value"\n')
check("unit order with ** arguments", proc.returncode == 0 and proc.stdout.split() == ["value-z", "value-a"],
      proc.stdout + proc.stderr)
proc = compile_model("""
entity Box:
end
entity Item:
    string z = "dz"
    string a = "da"
end
Box.item [0:1] -- Item.box [1]
index Item(box)
implement Box using std::none
implement Item using show
implementation show for Item:
    std::print(a + "-a")
    std::print(z + "-z")
end
b = Box()
b.item = Item(a=v, z=v)
v = "value"
""")
check("unit order with an implicit inverse index attribute", proc.returncode == 0
      and proc.stdout.split() == ["value-z", "value-a"], proc.stdout + proc.stderr)

# Typedef constraints without plugin calls remember the values they accepted, per typedef: a
# value accepted before is accepted again, another is still checked, and what one typedef
# accepted says nothing for another.
proc = compile_model("""
typedef small as int matching self < 10
entity A:
    small s
end
implement A using std::none
A(s=5)
A(s=5)
A(s=50)
""")
check("constraint checked after an accepted value", proc.returncode == 1
      and "caused by: RuntimeException: Invalid value 50, does not match constraint" in proc.stderr, proc.stderr)
proc = compile_model("""
typedef first as string matching self == "a"
typedef second as string matching self == "b"
entity A:
    first x
    second y
end
implement A using std::none
A(x="a", y="a")
""")
check("constraint memo per typedef", proc.returncode == 1
      and "caused by: RuntimeException: Invalid value 'a', does not match constraint `(self == 'b')`" in proc.stderr,
      proc.stderr)

# A relation list keeps each instance once, also past the length where it indexes its members.
proc = compile_model("""
entity Bag:
end
entity Item:
    int n
end
Bag.items [0:] -- Item.bags [0:]
implement Bag using std::none
implement Item using std::none
bag = Bag()
for i in std::sequence(40):
    item = Item(n=i)
    bag.items += item
    bag.items += item
    item.bags += bag
end
for i in std::sequence(40):
    bag.items += Item(n=100 + i)
end
std::print(std::count(bag.items))
""")
check("long relation list de-duplicated", proc.returncode == 0 and proc.stdout.split() == ["80"], proc.stdout + proc.stderr)

# An entity so wide that its last slots lie past what an inline slot can reach from its instance
# (512 KiB: 65535 words) keeps them as slots that know their attribute and owner themselves: their
# values, relation inverses and messages are those of any other slot.
WIDE = "entity Wide:\n" + "".join(f"    int a{i} = {i}\n" for i in range(23000)) + """end
entity Peer:
end
Wide.peers [0:] -- Peer.wide [0:1]
Wide.best [0:1] -- Peer.favourite [0:1]
implement Wide using std::none
implement Peer using std::none
w = Wide()
p = Peer()
w.peers += p
w.best = p
"""
proc = compile_model(WIDE + "std::print(w.a0)\nstd::print(w.a22999)\nstd::print(std::count(w.peers))\n"
                     "std::print(p.wide == w)\nstd::print(p.favourite == w)\n")
check("slots past an instance's first 512 KiB", proc.returncode == 0
      and sorted(proc.stdout.split()) == ["0", "1", "22999", "True", "True"], proc.stdout + proc.stderr)
proc = compile_model(WIDE + "w.a22998 = 5\n")
check("far slot: double set names its value and place", proc.returncode == 1
      and "value set twice:" in proc.stderr and "old value: 22998" in proc.stderr, proc.stderr)
proc = compile_model(WIDE + "w2 = Wide(a22999=\"x\")\n")
check("far slot: its attribute's type check", proc.returncode == 1
      and "Invalid value 'x', expected int" in proc.stderr, proc.stderr)

# An empty optional relation read by an attribute assignment (statement or constructor argument)
# fails the assignment: an AttributeException caused by the OptionalValueException, as the
# reference's SetAttributeHelper (its test_608_opt_to_single).
OPT = """
entity A:
end
entity B:
end
B.a [1] -- A
entity C:
end
C.a [0:1] -- A
implement A using std::none
implement B using std::none
implement C using std::none
c1 = C()
"""
for how, model in (("statement", OPT + "b1 = B()\nb1.a = c1.a\n"), ("constructor argument", OPT + "b1 = B(a=c1.a)\n")):
    proc = compile_model(model)
    check("empty optional read by an assignment: " + how, proc.returncode == 1
          and error_line(proc).startswith("AttributeException: Could not set attribute `a`")
          and "caused by: OptionalValueException: Optional variable accessed that has no value" in proc.stderr,
          proc.stderr)

# A missing index attribute that is a relation is named as a relation.
proc = compile_model("""
entity A: end
entity B: end
implement A using std::none
implement B using std::none
A.b [1] -- B.a [1]
index A(b)
index B(a)
A(b=B())
""")
check("missing index relation in a constructor", proc.returncode == 1
      and "* Missing relation 'a'. The relation __config__::B.a is part of an index." in proc.stderr, proc.stderr)

# A constructor that lacks an index attribute and that no assigned-to relation can complete is
# refused before the model runs (the reference's normalisation), even in a branch that never runs.
proc = compile_model("""
entity A:
    string name
end
index A(name)
std::print("ran")
if false:
    x = A()
end
""")
check("missing index attribute refused before running", proc.returncode == 1 and proc.stdout == ""
      and error_line(proc).startswith("IndexAttributeMissingInConstructorException: Invalid Constructor call:")
      and "(./main.cf:8)" in proc.stderr, proc.stdout + proc.stderr)
# ... as is one lacking two, even where an assigned relation's inverse could give one of them
proc = compile_model("""
entity H:
end
entity F:
    string path
    string mode
end
H.files [0:] -- F.host [1]
index F(host, path, mode)
implement H using std::none
implement F using std::none
h = H()
h.files += F(path="/a")
""")
check("two missing index attributes refused before running", proc.returncode == 1
      and error_line(proc).startswith("IndexAttributeMissingInConstructorException")
      and "* Missing relation 'host'" in proc.stderr and "* Missing attribute 'mode'" in proc.stderr, proc.stderr)
# ... while one that the inverse gives, in a list, a conditional or a comprehension, is fine
# (hosts and their files, indexed by host and path; `h` a host: line 11)
FILES_MODEL = """
entity H:
end
entity F:
    string path
end
H.files [0:] -- F.host [1]
index F(host, path)
implement H using std::none
implement F using std::none
h = H()
"""
proc = compile_model(FILES_MODEL + """h.files += F(path="/a")
h.files = [F(path="/b"), true ? F(path="/c") : null]
h.files = [F(path=p) for p in ["/d"]]
g = H(files=F(path="/e"))
std::print(std::len(h.files))
""")
check("index attribute given by the inverse", proc.returncode == 0 and proc.stdout == "4\n", proc.stderr)

# An attribute named `self` holds the instance itself (spec 3.7 [QUIRK]): it needs no value and
# cannot be given one.
SELF_MODEL = """
entity A:
    string self
    string name
end
implement A using std::none
b = A(name="b")
std::print(b.self == b)
"""
proc = compile_model(SELF_MODEL)
check("attribute named self is the instance", proc.returncode == 0 and proc.stdout == "True\n", proc.stderr)
proc = compile_model(SELF_MODEL + 'a = A(self="x", name="a")\n')
check("attribute named self cannot be set", proc.returncode == 1
      and "caused by: DoubleSetException: value set twice:" in proc.stderr and "(set at None)" in proc.stderr,
      proc.stderr)

# Only `self` is bound in a typedef's constraint, not the typedef's own name (spec 3.6).
proc = compile_model("""
typedef port_nr as int matching port_nr > 0
entity A:
    port_nr v
end
implement A using std::none
A(v=5)
""")
check("typedef name in its constraint", proc.returncode == 1
      and "caused by: NotFoundException: Unable to resolve `port_nr`: a type constraint can not reference variables."
      " (./main.cf:2:33)" in proc.stderr, proc.stderr)

# Chains as long as a tree is deep are refused with a located error instead of exhausting the
# stack: operators, conditional expressions, `elif`s; shorter ones compile.
for what, model in (("operators", "x = " + " + ".join(["1"] * 30000) + "\n"),
                    ("and", "x = " + " and ".join(["true"] * 20000) + "\n"),
                    ("conditionals", "c = true\nx = " + "c ? 1 : " * 50000 + "2\n"),
                    ("elifs", "if false:\nend\n".replace("end\n", "elif false:\n" * 5000 + "end\n"))):
    proc = compile_model(model)
    check("long chain refused: " + what, proc.returncode == 1
          and error_line(proc).startswith("ParserException: Syntax error: expression or `elif` chain too long"),
          proc.stderr[-500:])
proc = compile_model("x = " + " + ".join(["1"] * 900) + "\nstd::print(x)\n")
check("chain of 900 operators", proc.returncode == 0 and proc.stdout == "900\n", proc.stderr[-500:])

# Modules load as the reference loads them: imports on a stack (a file's last import first), the
# files then grouped by module in the order of their first load; top-level statements are
# emitted in that order, and the last failing import of a file is the one reported.
def module_files(names, extra):
    files = {"project.yml": PROJECT_YML, **extra}
    for name in names:
        files[f"libs/{name}/module.yml"] = f"name: {name}\nversion: 1.0.0\nlicense: ASL\n"
    return files


d = project(module_files("abc", {"main.cf": 'import a\nimport b\nstd::print("main")\n',
                                 "libs/a/model/_init.cf": 'std::print("a")\n',
                                 "libs/b/model/_init.cf": 'import c\nstd::print("b")\n',
                                 "libs/c/model/_init.cf": 'std::print("c")\n'}), "inmanta-semantics-")
proc = subprocess.run([INMANTA, "compile"], cwd=d, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
check("modules in the reference's load order", proc.returncode == 0 and proc.stdout.split() == ["main", "b", "c", "a"],
      proc.stdout + proc.stderr)
d = project(module_files(["bad", "bad2"], {"main.cf": "import nomod\nimport bad\nimport bad2\n",
                                           "libs/bad/model/_init.cf": "x = = 1\n",
                                           "libs/bad2/model/_init.cf": "y = = 1\n"}), "inmanta-semantics-")
proc = subprocess.run([INMANTA, "compile"], cwd=d, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
check("last failing import reported", proc.returncode == 1
      and error_line(proc).startswith("ParserException: Syntax error at token = (./libs/bad2/model/_init.cf:1:6)"),
      proc.stderr)

# A constructor's index matching takes an int given for a float attribute as a float (the
# reference's lookup_index); the matched instance keeps its float (1 == 1.0: no double set).
proc = compile_model("""
entity A:
    float f
end
index A(f)
implement A using std::none
a = A(f=1.0)
b = A(f=1)
std::print(a == b)
""")
check("int matches a float index attribute", proc.returncode == 0 and proc.stdout == "True\n", proc.stderr)
# A short index lookup through a name that is no attribute: not a relation (TypingException).
proc = compile_model(FILES_MODEL + """x = h.nope[path="/a"]
""")
check("short index lookup through an unknown name", proc.returncode == 1 and error_line(proc) ==
      "TypingException: short index lookup is only possible on relations, None is an attribute (./main.cf:12)",
      proc.stderr)

# Two parents' attributes of one name must have the same type (the reference's DefineEntity);
# a child's own attribute takes the place of a parent's relation of that name.
proc = compile_model("""
entity P1:
    int v = 1
end
entity P2:
    int? v = 2
end
entity C extends P2, P1: end
implement C using std::none
c = C()
""")
check("parents with incompatible attributes", proc.returncode == 1
      and error_line(proc).startswith("DuplicateException: Incompatible attributes (./main.cf:6:10)"), proc.stderr)
proc = compile_model("""
entity B: end
entity P: end
P.x [0:] -- B
entity C extends P:
    string x
end
implement B using std::none
implement C using std::none
c = C(x="hello")
std::print(c.x)
""")
check("own attribute over a parent's relation", proc.returncode == 0 and proc.stdout == "hello\n", proc.stderr)

# A default that a constraint refuses is reported at the attribute; an error of the constraint's
# own expression where that expression is written (the reference's Entity.normalize).
for constraint, where in (("self > 5", "(./main.cf:4)"), ("self == x", "(./main.cf:2:35)"),
                          ("self > 0 and 1", "(./main.cf:2)")):
    proc = compile_model(f"""
typedef t as int matching {constraint}
entity A:
    t v = 1
end
""")
    check("default refused by " + constraint, proc.returncode == 1 and where in error_line(proc), proc.stderr)

# The reference's lexer counts no line for a newline between `matching` and the regex's `/`:
# later locations are numbered as it numbers them, and the diagnostic shows the line they name.
proc = compile_model("""typedef t as string matching
  /^a/
entity A:
  t v
end
implement A using std::none
A(v="b")
""")
check("lines after a regex on the next line", proc.returncode == 1
      and "instantiated at ./main.cf:6)` (./main.cf:6)\n    A(v=\"b\")\n" in proc.stderr, proc.stderr)

# Unknowns have an identity, as the reference's Unknown objects: two different unknowns are two
# index keys and differ on a second assignment; the same one read twice is the same key.
proc = compile_model("""
entity A:
    string name
    string v
end
index A(name)
implement A using std::none
a = A(name=std::get_env("INMANTA_TEST_UNSET_1"), v="1")
b = A(name=std::get_env("INMANTA_TEST_UNSET_2"), v="2")
std::print(a == b)
u = std::get_env("INMANTA_TEST_UNSET_3")
c = A(name=u, v="3")
d = A(name=u)
std::print(c == d)
""")
check("unknowns compared by identity", proc.returncode == 0 and proc.stdout == "False\nTrue\n", proc.stdout + proc.stderr)
proc = compile_model("""
entity A:
    string v
end
implement A using std::none
a = A(v=std::get_env("INMANTA_TEST_UNSET_1"))
a.v = std::get_env("INMANTA_TEST_UNSET_1")
""")
check("two unknowns set twice", proc.returncode == 1 and "caused by: DoubleSetException" in proc.stderr
      and "(./main.cf:7)" in proc.stderr, proc.stderr)

# A plugin called in a typedef constraint with an unknown argument fails (direct execution);
# an instance in an index key is shown as instances are (spec 9.7).
proc = compile_model("""
typedef t as string matching std::upper(std::get_env("INMANTA_TEST_UNSET_1")) == self
entity A:
    t v
end
implement A using std::none
A(v="x")
""")
check("unknown argument in a constraint", proc.returncode == 1 and
      "caused by: RuntimeException: Received unknown value during direct execution (./main.cf:2:30)" in proc.stderr,
      proc.stderr)
proc = compile_model("""
entity H:
end
entity S:
    string name
end
S.host [1] -- H
index S(host, name)
implement H using std::none
implement S using std::none
h = H()
x = S[host=h, name="pg"]
""")
check("instance in a missed index key", proc.returncode == 1 and error_line(proc) ==
      "NotFoundException: No match in index on type __config__::S with key "
      "host=__config__::H (instantiated at ./main.cf:11), name='pg' (./main.cf:12)", proc.stderr)

# A value refused by an attribute's type is an error of the assignment: the cause has its location.
proc = compile_model("""
entity A:
    number[] ns
end
implement A using std::none
a = A()
a.ns = null
""")
check("refused value located at its assignment", proc.returncode == 1 and
      "caused by: TypingException: Invalid value 'null', expected number[] (./main.cf:7)" in proc.stderr, proc.stderr)

# A value that is not a list, for a list type, is the reference's TypingException (its List
# types); for a dict type a RuntimeException.
proc = compile_model("""
entity A:
    string[] v
    dict d = {}
end
implement A using std::none
a = A(v="x")
""")
check("non-list for a list attribute", proc.returncode == 1
      and "caused by: TypingException: Invalid value 'x', expected string[]" in proc.stderr, proc.stderr)
proc = compile_model('std::print(std::count("abc"))\n')
check("non-list for a list parameter", proc.returncode == 1
      and "caused by: TypingException: Invalid value 'abc', expected list" in proc.stderr, proc.stderr)
proc = compile_model("""
entity A:
    dict d
end
implement A using std::none
a = A(d="x")
""")
check("non-dict for a dict attribute", proc.returncode == 1
      and "caused by: RuntimeException: Invalid value 'x', expected dict" in proc.stderr, proc.stderr)

# Plugin arguments are checked in the reference's order: too many, missing (listed "'a' and
# 'b'"), the positional values' types, then each keyword argument in call order.
for model, expected in (
        ('x = std::upper(1, zz=2)', "PluginTypeException: Value 1 for argument string of plugin std::upper"),
        ('x = std::replace("a", new=1, old=2)', "PluginTypeException: Value 1 for argument new of plugin std::replace"),
        ('x = std::replace("a")', "RuntimeException: std::replace() missing 2 required positional arguments: 'old' and 'new'"),
        ('x = std::upper("a", zz=2)', "RuntimeException: std::upper() got an unexpected keyword argument: 'zz'"),
        ('u = std::get_env("INMANTA_TEST_UNSET")\nx = std::upper(**u)',
         "TypingException: The ** operator can only be applied to dictionaries")):
    proc = compile_model(model + "\n")
    check("plugin arguments: " + model, proc.returncode == 1 and error_line(proc).startswith(expected), proc.stderr)
# std::is_instance with a typedef's name is false; a deprecated plugin's warning says what replaces it.
proc = compile_model("""
entity A:
end
implement A using std::none
std::print(std::is_instance(A(), "std::ipv4_address"))
std::print(std::select([], "a"))
""")
check("is_instance of a typedef, deprecation hint", proc.returncode == 0 and proc.stdout == "False\n@[]\n"
      and "PluginDeprecationWarning: Plugin 'std::select' is deprecated. It should be replaced by 'using a list "
      "comprehension'." in proc.stderr, proc.stdout + proc.stderr)

finish()
