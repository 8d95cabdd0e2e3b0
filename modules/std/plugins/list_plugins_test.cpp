// Unit tests of the list, dict, instance and miscellaneous plugins of std (spec A.8).
#include <cmath>
#include <ctime>

#include "modules/std/plugins/plugin_test_support.h"

namespace inmanta::stdmodule::testing {
namespace {

using compiler::PluginSuspend;
using compiler::runtime::repr;

using ListPlugins = StdPluginTest;

// ------------------------------------------------------------------ print, assert, equals

TEST_F(ListPlugins, PrintWritesThePrintForm) {
  call("print", {"hello"});
  call("print", {list({"a", 1})});
  call("print", {Value()});
  call("print", {1.0});
  EXPECT_EQ(ctx.output.str(), "hello\n@['a', 1]\nNone\n1.0\n");
}

TEST_F(ListPlugins, AssertFailsWithAssertionError) {
  EXPECT_TRUE(call("assert", {true}).isNull());
  EXPECT_EQ(failure("assert", {false, "boom"}), "AssertionError: Assertion error: boom");
  EXPECT_EQ(failure("assert", {false}), "AssertionError: Assertion error: ");
}

TEST_F(ListPlugins, EqualsReturnsNullOrFails) {
  EXPECT_TRUE(call("equals", {1, 1.0}).isNull());
  EXPECT_TRUE(call("equals", {list({1, "a"}), list({true, "a"})}).isNull());
  EXPECT_EQ(failure("equals", {1, 2}), "AssertionError: 1 != 2");
  EXPECT_EQ(failure("equals", {1, 2, "desc"}), "AssertionError: 1 != 2: desc");
  EXPECT_EQ(failure("equals", {"a", Value()}), "AssertionError: a != None");
  EXPECT_EQ(failure("equals", {list({1}), true}), "AssertionError: @[1] != True");
}

// The compiler logs the PluginDeprecationWarning of a deprecated plugin on every call (from
// PluginSpec::deprecated); the plugins themselves must not log it a second time.
TEST_F(ListPlugins, DeprecatedPluginsLeaveTheWarningToTheCompiler) {
  FakeInstance a("__config__::A", {{"n", 1}});
  call("equals", {1, 1});
  call("select", {list({instance(a)}), "n"});
  call("filter", {list({}), instance(a)});
  call("dict_get", {dict({{"a", "x"}}), "a"});
  call("contains", {dict({}), "a"});
  call("invert", {true});
  call("to_number", {"1"});
  EXPECT_TRUE(ctx.warnings.empty());
  for (const char* name : {"equals", "select", "filter", "dict_get", "contains", "invert", "to_number"})
    EXPECT_TRUE(spec(name).deprecated) << name;
}

// ------------------------------------------------------------------ sequence, count, len

TEST_F(ListPlugins, SequenceIsARange) {
  EXPECT_EQ(repr(call("sequence", {3})), "[0, 1, 2]");
  EXPECT_EQ(repr(call("sequence", {3, 5})), "[5, 6, 7]");
  EXPECT_EQ(repr(call("sequence", {0})), "[]");
  EXPECT_EQ(repr(call("sequence", {-2})), "[]");
  EXPECT_EQ(repr(call("sequence", {2, -1})), "[-1, 0]");
  EXPECT_EQ(repr(call("sequence", {true})), "[0]");
  EXPECT_TRUE(ctx.warnings.empty());
}

TEST_F(ListPlugins, SequenceOffsetShortensTheRangeAndWarns) {
  EXPECT_EQ(repr(call("sequence", {3, 5, 1})), "[5, 6]");
  EXPECT_EQ(repr(call("sequence", {3, 0, -1})), "[0, 1, 2, 3]");
  ASSERT_EQ(ctx.warnings.size(), 2u);
  EXPECT_NE(ctx.warnings[0].second.find("'offset' parameter"), std::string::npos);
}

TEST_F(ListPlugins, SequenceRefusesAbsurdSizes) {
  EXPECT_EQ(failure("sequence", {int64_t{1} << 40}).substr(0, 12), "MemoryError:");
  EXPECT_EQ(failure("sequence", {5, INT64_MAX - 1}).substr(0, 14), "OverflowError:");
}

TEST_F(ListPlugins, CountCountsEverythingLenIsUnknownWithUnknowns) {
  EXPECT_EQ(call("count", {list({1, Value(), 1})}).asInt(), 3);
  EXPECT_EQ(call("count", {list({1, Value::unknown()})}).asInt(), 2);
  EXPECT_EQ(call("count", {list({})}).asInt(), 0);
  EXPECT_EQ(call("len", {list({"a", "b"})}).asInt(), 2);
  EXPECT_EQ(call("len", {list({})}).asInt(), 0);
  EXPECT_TRUE(call("len", {list({"a", Value::unknown()})}).isUnknown());
}

// ------------------------------------------------------------------ unique, flatten

TEST_F(ListPlugins, UniqueUsesPythonEqualityAndHashing) {
  EXPECT_FALSE(truth("unique", {list({1, 2, 1})}));
  EXPECT_TRUE(truth("unique", {list({"a", "b"})}));
  EXPECT_TRUE(truth("unique", {list({})}));
  EXPECT_FALSE(truth("unique", {list({1, 1.0})}));
  EXPECT_FALSE(truth("unique", {list({true, 1})}));
  EXPECT_TRUE(truth("unique", {list({"1", 1})}));
  EXPECT_FALSE(truth("unique", {list({Value(), Value()})}));
  EXPECT_TRUE(truth("unique", {list({1.5, 2.5})}));
  EXPECT_TRUE(truth("unique", {list({std::nan(""), std::nan("")})}));
}

TEST_F(ListPlugins, UniqueComparesInstancesByIdentity) {
  FakeInstance a("__config__::A", {}), b("__config__::A", {});
  EXPECT_TRUE(truth("unique", {list({instance(a), instance(b)})}));
  EXPECT_FALSE(truth("unique", {list({instance(a), instance(a)})}));
}

TEST_F(ListPlugins, UniqueOfUnhashableElementsIsATypeError) {
  EXPECT_EQ(failure("unique", {list({list({1})})}), "TypeError: unhashable type: 'list'");
  EXPECT_EQ(failure("unique", {list({1, dict({{"a", 1}})})}), "TypeError: unhashable type: 'dict'");
  // a duplicate found before the unhashable element ends the iteration first
  EXPECT_FALSE(truth("unique", {list({1, 1, list({})})}));
}

TEST_F(ListPlugins, UniqueReadingAnUnknownIsUnknown) {
  EXPECT_TRUE(call("unique", {list({1, Value::unknown()})}).isUnknown());
  EXPECT_FALSE(truth("unique", {list({1, 1, Value::unknown()})}));
}

TEST_F(ListPlugins, FlattenConcatenatesTheElements) {
  EXPECT_EQ(repr(call("flatten", {list({list({1, 2}), list({3})})})), "[1, 2, 3]");
  EXPECT_EQ(repr(call("flatten", {list({"ab", "c"})})), "['a', 'b', 'c']");
  EXPECT_EQ(repr(call("flatten", {list({"é"})})), "['é']");
  EXPECT_EQ(repr(call("flatten", {list({dict({{"k", 1}, {"l", 2}})})})), "['k', 'l']");
  EXPECT_EQ(repr(call("flatten", {list({list({list({1})})})})), "[[1]]");
  EXPECT_EQ(repr(call("flatten", {list({})})), "[]");
}

TEST_F(ListPlugins, FlattenOfANonIterableIsATypeError) {
  EXPECT_EQ(failure("flatten", {list({list({1}), 2})}), "TypeError: 'int' object is not iterable");
  EXPECT_EQ(failure("flatten", {list({Value()})}), "TypeError: 'NoneType' object is not iterable");
  FakeInstance a("__config__::A", {});
  EXPECT_EQ(failure("flatten", {list({instance(a)})}), "TypeError: 'DynamicProxy' object is not iterable");
}

TEST_F(ListPlugins, FlattenReadingAnUnknownIsUnknown) {
  EXPECT_TRUE(call("flatten", {list({Value::unknown()})}).isUnknown());
  EXPECT_TRUE(call("flatten", {list({list({1, Value::unknown()})})}).isUnknown());
}

// ------------------------------------------------------------------ at, item

TEST_F(ListPlugins, AtIndexesFromEitherEnd) {
  EXPECT_EQ(call("at", {list({10, 20, 30}), 1}).asInt(), 20);
  EXPECT_EQ(call("at", {list({10, 20, 30}), -1}).asInt(), 30);
  EXPECT_EQ(call("at", {list({10, 20, 30}), -3}).asInt(), 10);
  EXPECT_EQ(call("at", {list({10, 20, 30}), true}).asInt(), 20);
  EXPECT_TRUE(call("at", {list({Value(), 1}), 0}).isNull());
}

TEST_F(ListPlugins, AtOutOfRangeIsAnIndexError) {
  EXPECT_EQ(failure("at", {list({10, 20, 30}), 3}), "IndexError: list index out of range");
  EXPECT_EQ(failure("at", {list({10, 20, 30}), -4}), "IndexError: list index out of range");
  EXPECT_EQ(failure("at", {list({}), 0}), "IndexError: list index out of range");
}

TEST_F(ListPlugins, AtOfAnUnknownElementIsUnknown) {
  EXPECT_TRUE(call("at", {list({Value::unknown(), 1}), 0}).isUnknown());
  EXPECT_EQ(call("at", {list({Value::unknown(), 1}), 1}).asInt(), 1);
}

TEST_F(ListPlugins, ItemIndexesEveryElement) {
  EXPECT_EQ(repr(call("item", {list({"ab", "cd"}), 1})), "['b', 'd']");
  EXPECT_EQ(repr(call("item", {list({list({1, 2}), list({3, 4})}), -1})), "[2, 4]");
  EXPECT_EQ(repr(call("item", {list({}), 5})), "[]");
}

TEST_F(ListPlugins, ItemFailuresArePythonErrors) {
  EXPECT_EQ(failure("item", {list({list({1})}), 1}), "IndexError: list index out of range");
  EXPECT_EQ(failure("item", {list({"a"}), 1}), "IndexError: string index out of range");
  EXPECT_EQ(failure("item", {list({5}), 0}), "TypeError: 'int' object is not subscriptable");
  FakeInstance a("__config__::A", {});
  EXPECT_EQ(failure("item", {list({instance(a)}), 0}), "TypeError: 'DynamicProxy' object is not subscriptable");
}

TEST_F(ListPlugins, ItemOfADictIsACompilerRuntimeException) {
  try {
    call("item", {list({dict({{"a", 1}})}), 0});
    FAIL() << "no error";
  } catch (const compiler::CompileError& e) {
    EXPECT_EQ(e.diagnostic().kind, compiler::ErrorKind::RuntimeException);
    EXPECT_EQ(e.diagnostic().message, "Expected string key, but got 0, {'a': 1} is a dict");
  }
}

TEST_F(ListPlugins, ItemReadingAnUnknownIsUnknown) {
  EXPECT_TRUE(call("item", {list({Value::unknown()}), 0}).isUnknown());
  EXPECT_TRUE(call("item", {list({list({Value::unknown()})}), 0}).isUnknown());
}

// ------------------------------------------------------------------ select, key_sort, filter

TEST_F(ListPlugins, SelectReadsAnAttributeOfEveryElement) {
  FakeInstance a("__config__::Host", {{"name", "a"}, {"ips", list({"10.0.0.1"})}});
  FakeInstance b("__config__::Host", {{"name", "b"}, {"ips", list({})}});
  EXPECT_EQ(repr(call("select", {list({instance(a), instance(b)}), "name"})), "['a', 'b']");
  EXPECT_EQ(repr(call("select", {list({instance(a), instance(b)}), "ips"})), "[['10.0.0.1'], []]");
}

TEST_F(ListPlugins, SelectOfAMissingAttributeIsAnAttributeError) {
  FakeInstance a("__config__::Host", {{"name", "a"}});
  EXPECT_EQ(failure("select", {list({instance(a)}), "zz"}),
            "AttributeError: '__config__::Host' object has no attribute 'zz'");
  EXPECT_EQ(failure("select", {list({"text"}), "zz"}), "AttributeError: 'str' object has no attribute 'zz'");
}

TEST_F(ListPlugins, SelectOfUnknownsIsUnknownAndUnreadySuspends) {
  FakeInstance a("__config__::Host", {{"name", Value::unknown()}});
  EXPECT_TRUE(call("select", {list({instance(a)}), "name"}).isUnknown());
  EXPECT_TRUE(call("select", {list({Value::unknown()}), "name"}).isUnknown());
  FakeInstance b("__config__::Host", {{"name", "b"}});
  b.unready.push_back("name");
  EXPECT_THROW(call("select", {list({instance(b)}), "name"}), PluginSuspend);
}

TEST_F(ListPlugins, KeySortIsStableOnTheKeyAttribute) {
  FakeInstance a("__config__::S", {{"short", "web2"}, {"n", 2}}, 1);
  FakeInstance b("__config__::S", {{"short", "db1"}, {"n", 1}}, 2);
  FakeInstance c("__config__::S", {{"short", "web1"}, {"n", 2.0}}, 3);
  Value items = list({instance(a), instance(b), instance(c)});
  ValueList byName = call("key_sort", {items, "short"}).asList();
  EXPECT_EQ(byName[0].asInstance(), &b);
  EXPECT_EQ(byName[1].asInstance(), &c);
  EXPECT_EQ(byName[2].asInstance(), &a);
  ValueList byNumber = call("key_sort", {items, "n"}).asList();  // 2 == 2.0 keeps their order
  EXPECT_EQ(byNumber[0].asInstance(), &b);
  EXPECT_EQ(byNumber[1].asInstance(), &a);
  EXPECT_EQ(byNumber[2].asInstance(), &c);
  EXPECT_EQ(repr(call("key_sort", {list({}), "n"})), "[]");
}

TEST_F(ListPlugins, KeySortFollowsDottedPaths) {
  FakeInstance h1("__config__::Host", {{"name", "z"}}), h2("__config__::Host", {{"name", "a"}});
  FakeInstance f1("__config__::File", {{"host", instance(h1)}}), f2("__config__::File", {{"host", instance(h2)}});
  ValueList sorted = call("key_sort", {list({instance(f1), instance(f2)}), "host.name"}).asList();
  EXPECT_EQ(sorted[0].asInstance(), &f2);
}

TEST_F(ListPlugins, KeySortFailures) {
  FakeInstance a("__config__::S", {{"k", "x"}}), b("__config__::S", {{"k", 1}}), c("__config__::S", {{"k", Value()}});
  EXPECT_EQ(failure("key_sort", {list({instance(a)}), "zz"}),
            "AttributeError: '__config__::S' object has no attribute 'zz'");
  EXPECT_EQ(failure("key_sort", {list({instance(a), instance(b)}), "k"}),
            "TypeError: '<' not supported between instances of 'int' and 'str'");
  EXPECT_EQ(failure("key_sort", {list({instance(c), instance(c)}), "k"}),
            "TypeError: '<' not supported between instances of 'NoneType' and 'NoneType'");
  EXPECT_EQ(failure("key_sort", {list({instance(a)}), 5}), "TypeError: attribute name must be a string");
  // a single element is never compared
  EXPECT_EQ(call("key_sort", {list({instance(c)}), "k"}).asList().size(), 1u);
}

TEST_F(ListPlugins, KeySortWithUnknownsIsUnknownAndUnreadySuspends) {
  FakeInstance a("__config__::S", {{"k", Value::unknown()}});
  EXPECT_TRUE(call("key_sort", {list({instance(a)}), "k"}).isUnknown());
  FakeInstance b("__config__::S", {{"k", 1}});
  b.unready.push_back("k");
  EXPECT_THROW(call("key_sort", {list({instance(b)}), "k"}), PluginSuspend);
}

TEST_F(ListPlugins, FilterDropsTheInstance) {
  FakeInstance a("__config__::A", {}), b("__config__::A", {});
  ValueList out = call("filter", {list({instance(a), instance(b), 1, instance(a)}), instance(a)}).asList();
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].asInstance(), &b);
  EXPECT_EQ(out[1].asInt(), 1);
  EXPECT_TRUE(call("filter", {list({Value::unknown()}), instance(a)}).isUnknown());
}

// ------------------------------------------------------------------ inlineif, attr, getattr, isset, is_unknown

TEST_F(ListPlugins, InlineIfPicksABranch) {
  EXPECT_EQ(str("inlineif", {true, "big", "small"}), "big");
  EXPECT_EQ(str("inlineif", {false, "big", "small"}), "small");
  EXPECT_TRUE(call("inlineif", {false, 1, Value()}).isNull());
}

TEST_F(ListPlugins, AttrReadsAnAttribute) {
  FakeInstance d("__config__::Disk", {{"name", "sda"}, {"label", Value()}, {"size", Value::unknown()}});
  EXPECT_EQ(str("attr", {instance(d), "name"}), "sda");
  EXPECT_TRUE(call("attr", {instance(d), "label"}).isNull());
  EXPECT_TRUE(call("attr", {instance(d), "size"}).isUnknown());
  EXPECT_EQ(failure("attr", {instance(d), "zz"}), "AttributeError: '__config__::Disk' object has no attribute 'zz'");
  EXPECT_EQ(failure("attr", {5, "real2"}), "AttributeError: 'int' object has no attribute 'real2'");
  d.unready.push_back("name");
  EXPECT_THROW(call("attr", {instance(d), "name"}), PluginSuspend);
}

TEST_F(ListPlugins, GetattrReturnsTheValueNotTheDefault) {
  FakeInstance d("__config__::Disk", {{"size", 100}, {"label", Value()}, {"u", Value::unknown()}});
  EXPECT_EQ(call("getattr", {instance(d), "size"}).asInt(), 100);
  EXPECT_TRUE(call("getattr", {instance(d), "label", "none-set"}).isNull());
  // [QUIRK] an unknown value stays unknown whatever no_unknown says
  EXPECT_TRUE(call("getattr", {instance(d), "u", "dflt", true}).isUnknown());
  EXPECT_TRUE(call("getattr", {instance(d), "u", "dflt", false}).isUnknown());
}

TEST_F(ListPlugins, GetattrOfAMissingAttributeFails) {
  FakeInstance d("__config__::Disk", {});
  // [QUIRK] not the default value
  EXPECT_EQ(failure("getattr", {instance(d), "zz", "dflt"}),
            "AttributeError: '__config__::Disk' object has no attribute 'zz'");
}

TEST_F(ListPlugins, GetattrAcceptsUnknownArguments) {
  EXPECT_TRUE(spec("getattr").acceptsUnknown);
  FakeInstance d("__config__::Disk", {{"size", 100}});
  EXPECT_EQ(call("getattr", {instance(d), "size", Value::unknown(), Value::unknown()}).asInt(), 100);
  EXPECT_EQ(failure("getattr", {Value::unknown(), "size"}), "AttributeError: 'Unknown' object has no attribute 'size'");
  EXPECT_EQ(failure("getattr", {instance(d), Value::unknown()}),
            "TypeError: attribute name must be string, not 'Unknown'");
}

TEST_F(ListPlugins, GetattrLetsCompilerErrorsAndSuspensionsThrough) {
  struct OptionalContext : FakePluginContext {
    Value attribute(const Value&, std::string_view) override {
      throw compiler::CompileError(compiler::Diagnostic(compiler::ErrorKind::OptionalValueException, "empty"));
    }
  } optional;
  FakeInstance d("__config__::Disk", {});
  EXPECT_THROW(spec("getattr").run(optional, {instance(d), "rel", Value(), true}, {}), compiler::CompileError);
  FakeInstance e("__config__::Disk", {{"size", 1}});
  e.unready.push_back("size");
  EXPECT_THROW(call("getattr", {instance(e), "size"}), PluginSuspend);
}

TEST_F(ListPlugins, IssetAndIsUnknown) {
  EXPECT_TRUE(truth("isset", {1}));
  EXPECT_TRUE(truth("isset", {false}));
  EXPECT_FALSE(truth("isset", {Value()}));
  EXPECT_TRUE(truth("is_unknown", {Value::unknown()}));
  EXPECT_FALSE(truth("is_unknown", {list({Value::unknown()})}));
  EXPECT_FALSE(truth("is_unknown", {Value()}));
  EXPECT_TRUE(spec("is_unknown").acceptsUnknown);
  EXPECT_FALSE(spec("isset").acceptsUnknown);
}

// ------------------------------------------------------------------ is_instance, familyof, type, objid

TEST_F(ListPlugins, IsInstanceAsksTheContext) {
  FakeInstance d("__config__::Disk", {});
  d.isA = {"std::Entity"};
  EXPECT_TRUE(truth("is_instance", {instance(d), "__config__::Disk"}));
  EXPECT_TRUE(truth("is_instance", {instance(d), "std::Entity"}));
  EXPECT_FALSE(truth("is_instance", {instance(d), "std::Resource"}));
  EXPECT_EQ(failure("is_instance", {instance(d), "Disk"}).substr(0, 15), "AttributeError:");
  EXPECT_FALSE(truth("is_instance", {list({}), "std::Entity"}));
  EXPECT_EQ(failure("is_instance", {5, "std::Entity"}),
            "AttributeError: 'int' object has no attribute '_get_instance'");
  EXPECT_TRUE(spec("is_instance").contextAware);
}

// A context whose empty `family` relations are frozen empty: reading one is an
// OptionalValueException, as in the reference.
struct OsContext : FakePluginContext {
  Value attribute(const Value& obj, std::string_view name) override {
    auto* fake = dynamic_cast<FakeInstance*>(obj.asInstance());
    if (name == "family" && fake->attributes().count("family") == 0)
      throw compiler::CompileError(compiler::Diagnostic(compiler::ErrorKind::OptionalValueException, "no family"));
    return FakePluginContext::attribute(obj, name);
  }
};

class FamilyOf : public StdPluginTest {
 protected:
  bool familyof(FakeInstance& os, const std::string& family) {
    Value v = spec("familyof").run(osCtx, {instance(os), Value(family)}, {});
    return v.asBool();
  }
  OsContext osCtx;
  FakeInstance unix_{"std::OS", {{"name", "unix"}}};
  FakeInstance linux_{"std::OS", {{"name", "linux"}, {"family", instance(unix_)}}};
  FakeInstance debian_{"std::OS", {{"name", "debian"}, {"family", instance(linux_)}}};
  FakeInstance ubuntu_{"std::OS", {{"name", "ubuntu"}, {"family", instance(debian_)}}};
};

TEST_F(FamilyOf, MatchesTheNameAndTheChainButNotTheRoot) {
  EXPECT_TRUE(familyof(linux_, "linux"));
  EXPECT_FALSE(familyof(linux_, "unix"));  // [QUIRK] the root is never compared
  EXPECT_TRUE(familyof(debian_, "linux"));
  EXPECT_TRUE(familyof(debian_, "debian"));
  EXPECT_FALSE(familyof(debian_, "unix"));
  EXPECT_TRUE(familyof(ubuntu_, "linux"));
  EXPECT_FALSE(familyof(ubuntu_, "unix"));
  EXPECT_TRUE(familyof(unix_, "unix"));
  EXPECT_FALSE(familyof(ubuntu_, "windows"));
}

TEST_F(FamilyOf, NullFamilyEndsTheChainAndCyclesStop) {
  FakeInstance orphan("std::OS", {{"name", "x"}, {"family", Value()}});
  EXPECT_FALSE(familyof(orphan, "y"));
  FakeInstance a("std::OS", {{"name", "a"}}), b("std::OS", {{"name", "b"}, {"family", instance(a)}});
  a.attributes()["family"] = instance(b);
  EXPECT_FALSE(familyof(a, "c"));
  EXPECT_TRUE(familyof(a, "b"));
}

TEST_F(FamilyOf, UnknownsAndUnreadyAttributes) {
  FakeInstance u("std::OS", {{"name", Value::unknown()}});
  EXPECT_TRUE(spec("familyof").run(osCtx, {instance(u), Value("x")}, {}).isUnknown());
  FakeInstance v("std::OS", {{"name", "v"}, {"family", Value::unknown()}});
  EXPECT_TRUE(spec("familyof").run(osCtx, {instance(v), Value("x")}, {}).isUnknown());
  FakeInstance w("std::OS", {{"name", "w"}});
  w.unready.push_back("name");
  EXPECT_THROW(spec("familyof").run(osCtx, {instance(w), Value("x")}, {}), PluginSuspend);
}

TEST_F(ListPlugins, TypeAlwaysFails) {
  FakeInstance d("__config__::Disk", {});
  EXPECT_EQ(failure("type", {instance(d)}).substr(0, 15), "AttributeError:");
  EXPECT_EQ(failure("type", {1}).substr(0, 15), "AttributeError:");
}

TEST_F(ListPlugins, ObjidIsTheRenderingWithTheOrdinal) {
  FakeInstance d("__config__::Disk", {}, 7);
  EXPECT_EQ(str("objid", {instance(d)}), "__config__::Disk (instantiated at ./main.cf:1) #7");
  EXPECT_EQ(failure("objid", {1}), "AttributeError: 'int' object has no attribute '_get_instance'");
  EXPECT_EQ(failure("objid", {"a"}), "AttributeError: 'str' object has no attribute '_get_instance'");
}

TEST_F(ListPlugins, TimestampIsTheCurrentUnixTime) {
  int64_t before = static_cast<int64_t>(std::time(nullptr));
  int64_t t = call("timestamp", {}).asInt();
  EXPECT_GE(t, before);
  EXPECT_LE(t, static_cast<int64_t>(std::time(nullptr)));
  EXPECT_EQ(call("timestamp", {"ignored"}).type(), Value::Type::Int);
}

// ------------------------------------------------------------------ dict_get, contains, invert, to_number

TEST_F(ListPlugins, DictGetAndContains) {
  EXPECT_EQ(str("dict_get", {dict({{"a", "x"}}), "a"}), "x");
  EXPECT_EQ(call("dict_get", {dict({{"a", 1}}), "a"}).asInt(), 1);  // the compiler checks the return type
  EXPECT_EQ(failure("dict_get", {dict({{"a", "x"}}), "b"}), "KeyError: 'b'");
  EXPECT_EQ(failure("dict_get", {dict({}), "it's"}), "KeyError: \"it's\"");
  EXPECT_TRUE(truth("contains", {dict({{"mode", "raid1"}}), "mode"}));
  EXPECT_FALSE(truth("contains", {dict({{"mode", "raid1"}}), "level"}));
  EXPECT_TRUE(truth("contains", {dict({{"n", Value()}}), "n"}));
  // Mapping.__contains__ reads the value
  EXPECT_TRUE(call("contains", {dict({{"u", Value::unknown()}}), "u"}).isUnknown());
}

TEST_F(ListPlugins, InvertNegates) {
  EXPECT_TRUE(truth("invert", {false}));
  EXPECT_FALSE(truth("invert", {true}));
}

TEST_F(ListPlugins, ToNumberIsPythonInt) {
  EXPECT_EQ(call("to_number", {"12"}).asInt(), 12);
  EXPECT_EQ(call("to_number", {" -7 "}).asInt(), -7);
  EXPECT_EQ(call("to_number", {"1_000"}).asInt(), 1000);
  EXPECT_EQ(call("to_number", {"٣"}).asInt(), 3);
  EXPECT_EQ(call("to_number", {3.7}).asInt(), 3);
  EXPECT_EQ(call("to_number", {-3.7}).asInt(), -3);
  EXPECT_EQ(call("to_number", {true}).asInt(), 1);
  EXPECT_EQ(call("to_number", {42}).asInt(), 42);
}

TEST_F(ListPlugins, ToNumberFailuresArePythonErrors) {
  EXPECT_EQ(failure("to_number", {"1.5"}), "ValueError: invalid literal for int() with base 10: '1.5'");
  EXPECT_EQ(failure("to_number", {""}), "ValueError: invalid literal for int() with base 10: ''");
  EXPECT_EQ(failure("to_number", {"1__0"}), "ValueError: invalid literal for int() with base 10: '1__0'");
  EXPECT_EQ(failure("to_number", {Value()}),
            "TypeError: int() argument must be a string, a bytes-like object or a real number, not 'NoneType'");
  EXPECT_EQ(failure("to_number", {std::nan("")}), "ValueError: cannot convert float NaN to integer");
  EXPECT_EQ(failure("to_number", {HUGE_VAL}), "OverflowError: cannot convert float infinity to integer");
  EXPECT_EQ(failure("to_number", {"99999999999999999999"}).substr(0, 14), "OverflowError:");
  EXPECT_EQ(failure("to_number", {1e300}).substr(0, 14), "OverflowError:");
}

}  // namespace
}  // namespace inmanta::stdmodule::testing
