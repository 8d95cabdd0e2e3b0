// std plugins: lists, dicts, instances and other helpers (spec Appendix A.8).
//
// The reference hands lists, dicts and instances to plugins wrapped in proxies; reading an
// unknown through a proxy (iterating a list, indexing, reading an attribute) aborts the plugin
// and makes its result unknown. The plugins below reproduce that element by element, in the
// order the reference reads them.
#include <cmath>
#include <cstring>
#include <ctime>
#include <set>
#include <unordered_set>

#include "compiler/diag/diagnostic.h"
#include "modules/std/plugins/std_plugins.h"
#include "modules/std/plugins/std_support.h"

namespace inmanta::stdmodule {

namespace {

// An element read through a proxy is unknown: the whole call is unknown.
struct UnknownRead {};

const Value& readElement(const Value& v) {
  if (v.isUnknown()) throw UnknownRead{};
  return v;
}

// Runs a plugin body, turning an unknown read into an unknown result.
template <typename F>
Value unknownAware(F&& body) {
  try {
    return body();
  } catch (const UnknownRead&) {
    return Value::unknown();
  }
}

// The value of `name` on an instance, as a DynamicProxy attribute read (`getattr(obj, name)`).
Value readAttribute(PluginContext& ctx, const Value& obj, const std::string& name) {
  if (!obj.isInstance()) fail("AttributeError", "'" + proxyTypeName(obj) + "' object has no attribute '" + name + "'");
  return ctx.attribute(obj, name);
}

bool isOptionalValueError(const compiler::CompileError& e) {
  return e.diagnostic().kind == compiler::ErrorKind::OptionalValueException;
}

// Python `<` between two values read from the model (key_sort): numbers with numbers, strings
// with strings, lists lexicographically; anything else is a TypeError.
std::string lessTypeName(const Value& v) {
  switch (v.type()) {
    case Value::Type::List: return "list";
    case Value::Type::Dict: return "dict";
    case Value::Type::Instance: return "Instance";
    default: return proxyTypeName(v);
  }
}

bool pyLess(const Value& a, const Value& b) {
  if (a.isNumber() && b.isNumber()) {
    if (a.isFloat() || b.isFloat()) {
      if (a.isFloat() && b.isFloat()) return a.asFloat() < b.asFloat();
      // exact comparison of an int with a float, as Python does
      long double x = a.isFloat() ? static_cast<long double>(a.asFloat()) : static_cast<long double>(a.toInt());
      long double y = b.isFloat() ? static_cast<long double>(b.asFloat()) : static_cast<long double>(b.toInt());
      return x < y;
    }
    return a.toInt() < b.toInt();
  }
  if (a.isString() && b.isString()) return a.asString() < b.asString();  // UTF-8 byte order = code point order
  if (a.isList() && b.isList()) {
    const ValueList& x = a.asList();
    const ValueList& y = b.asList();
    for (size_t i = 0; i < x.size() && i < y.size(); ++i)
      if (!runtime::pyEquals(x[i], y[i])) return pyLess(x[i], y[i]);
    return x.size() < y.size();
  }
  fail("TypeError", "'<' not supported between instances of '" + lessTypeName(a) + "' and '" + lessTypeName(b) + "'");
}

// A stable merge sort on Python's `<` (as sorted() uses only `<`), safe for comparators that
// are not a strict weak order (nan) and for comparisons that throw.
void stableSort(std::vector<size_t>& order, const std::vector<Value>& keys) {
  if (order.size() < 2) return;
  std::vector<size_t> buffer(order.size());
  for (size_t width = 1; width < order.size(); width *= 2) {
    for (size_t lo = 0; lo < order.size(); lo += 2 * width) {
      size_t mid = std::min(lo + width, order.size());
      size_t hi = std::min(lo + 2 * width, order.size());
      size_t i = lo, j = mid, k = lo;
      while (i < mid && j < hi) buffer[k++] = pyLess(keys[order[j]], keys[order[i]]) ? order[j++] : order[i++];
      while (i < mid) buffer[k++] = order[i++];
      while (j < hi) buffer[k++] = order[j++];
    }
    order.swap(buffer);
  }
}

// The identity Python's set() uses for a hashable value: equal numbers (1, 1.0, True) share a
// key; lists and dicts are unhashable.
std::string hashKey(const Value& v, size_t position) {
  switch (v.type()) {
    case Value::Type::Null: return "N";
    case Value::Type::Bool:
    case Value::Type::Int: return "n" + std::to_string(v.toInt());
    case Value::Type::Float: {
      double d = v.asFloat();
      if (std::isnan(d)) return "nan" + std::to_string(position);  // nan is not equal to itself
      if (d == std::trunc(d) && d >= -9223372036854775808.0 && d < 9223372036854775808.0)
        return "n" + std::to_string(static_cast<int64_t>(d));
      uint64_t bits = 0;
      std::memcpy(&bits, &d, sizeof bits);
      return "f" + std::to_string(bits);
    }
    case Value::Type::String: return "s" + v.asString();
    case Value::Type::Instance: return "i" + std::to_string(reinterpret_cast<uintptr_t>(v.asInstance()));
    // (by identity: the object's own __hash__ is not consulted)
    case Value::Type::Opaque: return "o" + std::to_string(reinterpret_cast<uintptr_t>(v.sharedIdentity()));
    case Value::Type::List: fail("TypeError", "unhashable type: 'list'");
    case Value::Type::Dict: fail("TypeError", "unhashable type: 'dict'");
    case Value::Type::Unknown: throw UnknownRead{};
  }
  return {};
}

// Python obj[index] for an element of std::item.
Value indexElement(const Value& obj, const Value& index) {
  switch (obj.type()) {
    case Value::Type::List: {
      const ValueList& l = obj.asList();
      int64_t i = index.toInt();
      auto n = static_cast<int64_t>(l.size());
      if (i < 0) i += n;
      if (i < 0 || i >= n) fail("IndexError", "list index out of range");
      return readElement(l[static_cast<size_t>(i)]);
    }
    case Value::Type::String: {
      const std::string& s = obj.asString();
      std::vector<size_t> offsets = codePointOffsets(s);
      auto n = static_cast<int64_t>(offsets.size() - 1);
      int64_t i = index.toInt();
      if (i < 0) i += n;
      if (i < 0 || i >= n) fail("IndexError", "string index out of range");
      auto k = static_cast<size_t>(i);
      return Value(s.substr(offsets[k], offsets[k + 1] - offsets[k]));
    }
    case Value::Type::Dict:
      // the reference's DictProxy refuses non-string keys with a compiler RuntimeException
      throw compiler::CompileError(compiler::Diagnostic(compiler::ErrorKind::RuntimeException,
                                                        "Expected string key, but got " + runtime::str(index) + ", " +
                                                            runtime::repr(obj) + " is a dict"));
    case Value::Type::Unknown: throw UnknownRead{};
    default: fail("TypeError", "'" + proxyTypeName(obj) + "' object is not subscriptable");
  }
}

// The elements Python's iter() yields for one element of std::flatten.
void iterateInto(const Value& v, ValueList& out) {
  switch (v.type()) {
    case Value::Type::List:
      for (const Value& e : v.asList()) out.push_back(readElement(e));
      return;
    case Value::Type::String: {
      const std::string& s = v.asString();
      std::vector<size_t> offsets = codePointOffsets(s);
      for (size_t k = 0; k + 1 < offsets.size(); ++k)
        out.emplace_back(s.substr(offsets[k], offsets[k + 1] - offsets[k]));
      return;
    }
    case Value::Type::Dict:  // iterating a dict yields its keys
      for (const auto& item : v.asDict().items) out.emplace_back(item.first);
      return;
    case Value::Type::Unknown: throw UnknownRead{};
    default: fail("TypeError", "'" + proxyTypeName(v) + "' object is not iterable");
  }
}

// std::key_sort's attrgetter(key): a dotted path of attribute names.
Value attrgetter(PluginContext& ctx, const Value& item, const std::string& path) {
  Value current = readElement(item);
  size_t pos = 0;
  while (true) {
    size_t dot = path.find('.', pos);
    std::string name = path.substr(pos, dot == std::string::npos ? std::string::npos : dot - pos);
    current = readElement(readAttribute(ctx, current, name));
    if (dot == std::string::npos) return current;
    pos = dot + 1;
  }
}

constexpr int64_t kMaxSequence = 10'000'000;

}  // namespace

void registerListPlugins(PluginRegistry& registry) {
  addPlugin(registry, "sequence",
            {param("i", "int"), param("start", "int", Value(0)), param("offset", "int", Value(0))}, "list",
            [](PluginContext& ctx, const Args& a, const Kwargs&) {
              // list(range(start, int(i) + start - offset))
              int64_t start = a[1].toInt();
              int64_t offset = a[2].toInt();
              if (offset != 0)
                ctx.warn("Warning",
                         "The 'offset' parameter in the 'sequence' plugin is deprecated and will be removed in a "
                         "future version.");
              __int128 end = static_cast<__int128>(a[0].toInt()) + start - offset;
              ValueList out;
              if (end <= start) return Value(std::move(out));
              if (end - start > kMaxSequence)
                fail("MemoryError", "std::sequence of more than " + std::to_string(kMaxSequence) + " elements");
              if (end - 1 > static_cast<__int128>(INT64_MAX))
                fail("OverflowError", "sequence element out of the 64-bit range");
              for (int64_t v = start; v < end; ++v) out.emplace_back(v);
              return Value(std::move(out));
            });
  addPlugin(registry, "count", {param("item_list", "list")}, "int", [](PluginContext&, const Args& a, const Kwargs&) {
    return Value(static_cast<int64_t>(a[0].asList().size()));
  });
  addPlugin(registry, "len", {param("item_list", "list")}, "int", [](PluginContext&, const Args& a, const Kwargs&) {
    for (const Value& e : a[0].asList())
      if (e.isUnknown()) return Value::unknown();
    return Value(static_cast<int64_t>(a[0].asList().size()));
  });
  addPlugin(registry, "unique", {param("item_list", "list")}, "bool", [](PluginContext&, const Args& a, const Kwargs&) {
    return unknownAware([&] {
      std::unordered_set<std::string> seen;
      const ValueList& items = a[0].asList();
      for (size_t i = 0; i < items.size(); ++i)
        if (!seen.insert(hashKey(items[i], i)).second) return Value(false);
      return Value(true);
    });
  });
  addPlugin(registry, "flatten", {param("item_list", "list")}, "list",
            [](PluginContext&, const Args& a, const Kwargs&) {
              return unknownAware([&] {
                ValueList out;
                for (const Value& e : a[0].asList()) iterateInto(e, out);
                return Value(std::move(out));
              });
            });
  addPlugin(registry, "at", {param("objects", "list"), param("index", "int")}, "any",
            [](PluginContext&, const Args& a, const Kwargs&) {
              return unknownAware([&] { return indexElement(a[0], a[1]); });
            });
  addPlugin(registry, "item", {param("objects", "list"), param("index", "int")}, "list",
            [](PluginContext&, const Args& a, const Kwargs&) {
              return unknownAware([&] {
                ValueList out;
                for (const Value& obj : a[0].asList()) out.push_back(indexElement(readElement(obj), a[1]));
                return Value(std::move(out));
              });
            });
  addPlugin(registry, "select", {param("objects", "list"), param("attr", "string")}, "list",
            [](PluginContext& ctx, const Args& a, const Kwargs&) {
              return unknownAware([&] {
                ValueList out;
                for (const Value& obj : a[0].asList())
                  out.push_back(readElement(readAttribute(ctx, readElement(obj), a[1].asString())));
                return Value(std::move(out));
              });
            },
            {.deprecated = true, .replacedBy = "using a list comprehension"});
  addPlugin(registry, "key_sort", {param("items", "list"), param("key", "any")}, "list",
            [](PluginContext& ctx, const Args& a, const Kwargs&) {
              if (!a[1].isString()) fail("TypeError", "attribute name must be a string");
              return unknownAware([&] {
                const ValueList& items = a[0].asList();
                std::vector<Value> keys;
                for (const Value& item : items) keys.push_back(attrgetter(ctx, item, a[1].asString()));
                std::vector<size_t> order(items.size());
                for (size_t i = 0; i < order.size(); ++i) order[i] = i;
                stableSort(order, keys);
                ValueList out;
                for (size_t i : order) out.push_back(items[i]);
                return Value(std::move(out));
              });
            });
  addPlugin(registry, "filter", {param("values", "list"), param("not_item", "std::Entity")}, "list",
            [](PluginContext&, const Args& a, const Kwargs&) {
              return unknownAware([&] {
                ValueList out;
                for (const Value& v : a[0].asList())
                  if (!runtime::pyEquals(readElement(v), a[1])) out.push_back(v);
                return Value(std::move(out));
              });
            },
            {.deprecated = true, .replacedBy = "using a list comprehension"});
  addPlugin(registry, "inlineif", {param("conditional", "bool"), param("a", "any"), param("b", "any")}, "any",
            [](PluginContext&, const Args& a, const Kwargs&) { return a[0].asBool() ? a[1] : a[2]; });
  addPlugin(registry, "attr", {param("obj", "any"), param("attr", "string")}, "any",
            [](PluginContext& ctx, const Args& a, const Kwargs&) { return readAttribute(ctx, a[0], a[1].asString()); });
  // spec A.8 [QUIRK]: a missing attribute fails (AttributeError) rather than giving the default,
  // and an unknown attribute value is unknown whatever no_unknown says.
  addPlugin(registry, "getattr",
            {param("entity", "std::Entity"), param("attribute_name", "string"), paramNone("default_value", "any"),
             param("no_unknown", "bool", Value(true))},
            "any",
            [](PluginContext& ctx, const Args& a, const Kwargs&) {
              if (!a[1].isString())
                fail("TypeError", "attribute name must be string, not '" + proxyTypeName(a[1]) + "'");
              const std::string& name = a[1].asString();
              if (a[0].isUnknown()) fail("AttributeError", "'Unknown' object has no attribute '" + name + "'");
              return readAttribute(ctx, a[0], name);
            },
            {.acceptsUnknown = true});
  addPlugin(registry, "isset", {param("value", "any")}, "bool",
            [](PluginContext&, const Args& a, const Kwargs&) { return Value(!a[0].isNull()); });
  addPlugin(registry, "is_unknown", {param("value", "any")}, "bool",
            [](PluginContext&, const Args& a, const Kwargs&) { return Value(a[0].isUnknown()); },
            {.acceptsUnknown = true});
  addPlugin(registry, "is_instance", {param("obj", "any"), param("cls", "string")}, "bool",
            [](PluginContext& ctx, const Args& a, const Kwargs&) {
              const Value& obj = a[0];
              // a list or dict is never an entity instance (the reference validates the raw value
              // against the type and gets a RuntimeException)
              if (obj.isList() || obj.isDict()) return Value(false);
              if (!obj.isInstance())
                fail("AttributeError", "'" + proxyTypeName(obj) + "' object has no attribute '_get_instance'");
              return Value(ctx.isInstanceOf(obj, a[1].asString()));
            },
            {.contextAware = true});
  // spec A.8 [QUIRK]: the root of the family chain is never compared
  addPlugin(registry, "familyof", {param("member", "std::OS"), param("family", "string")}, "bool",
            [](PluginContext& ctx, const Args& a, const Kwargs&) {
              return unknownAware([&] {
                const std::string& family = a[1].asString();
                auto nameIs = [&](const Value& os) {
                  Value name = readElement(readAttribute(ctx, os, "name"));
                  return name.isString() && name.asString() == family;
                };
                if (nameIs(a[0])) return Value(true);
                Value parent = a[0];
                std::set<const void*> visited;
                while (visited.insert(parent.asInstance()).second) {
                  Value next;
                  try {
                    next = readElement(readAttribute(ctx, parent, "family"));
                  } catch (const compiler::CompileError& e) {
                    if (isOptionalValueError(e)) return Value(false);
                    throw;
                  }
                  if (next.isNull()) return Value(false);
                  if (nameIs(parent)) return Value(true);
                  if (!next.isInstance())
                    fail("AttributeError", "'" + proxyTypeName(next) + "' object has no attribute 'family'");
                  parent = next;
                }
                return Value(false);  // a cycle in the family chain (the reference loops forever)
              });
            });
  addPlugin(registry, "type", {param("obj", "any")}, "any", [](PluginContext&, const Args& a, const Kwargs&) -> Value {
    // the reference reads obj.value.type(), which no value supports
    fail("AttributeError", "'" + proxyTypeName(a[0]) + "' object has no attribute 'value'");
  });
  // decision 9.7: the instance's rendering followed by its creation ordinal
  addPlugin(registry, "objid", {param("value", "any")}, "string", [](PluginContext& ctx, const Args& a, const Kwargs&) {
    if (!a[0].isInstance())
      fail("AttributeError", "'" + proxyTypeName(a[0]) + "' object has no attribute '_get_instance'");
    return Value(a[0].asInstance()->display() + " #" + std::to_string(ctx.instanceOrdinal(a[0])));
  });
  addPlugin(registry, "timestamp", {paramNone("dummy", "any")}, "int",
            [](PluginContext&, const Args&, const Kwargs&) { return Value(static_cast<int64_t>(std::time(nullptr))); });
  addPlugin(registry, "dict_get", {param("dct", "dict"), param("key", "string")}, "string",
            [](PluginContext&, const Args& a, const Kwargs&) {
              const Value* v = a[0].asDict().find(a[1].asString());
              if (v == nullptr) fail("KeyError", runtime::pyReprString(a[1].asString()));
              return *v;
            },
            {.deprecated = true, .replacedBy = "using the `<dict>[<key>]` construct"});
  addPlugin(registry, "contains", {param("dct", "dict"), param("key", "string")}, "bool",
            [](PluginContext&, const Args& a, const Kwargs&) {
              // Mapping.__contains__ reads the value: an unknown value makes the answer unknown
              const Value* v = a[0].asDict().find(a[1].asString());
              if (v == nullptr) return Value(false);
              return v->isUnknown() ? Value::unknown() : Value(true);
            },
            {.deprecated = true, .replacedBy = "the `<key> in <dict>` construct"});
  addPlugin(registry, "invert", {param("value", "bool")}, "bool",
            [](PluginContext&, const Args& a, const Kwargs&) { return Value(!a[0].asBool()); },
            {.deprecated = true, .replacedBy = "the `not` unary operator"});
  addPlugin(registry, "to_number", {param("value", "any")}, "number",
            [](PluginContext&, const Args& a, const Kwargs&) { return Value(pyIntOf(a[0])); }, {.deprecated = true});
  addPlugin(registry, "equals", {param("arg1", "any"), param("arg2", "any"), paramNone("desc", "string")}, "",
            [](PluginContext&, const Args& a, const Kwargs&) {
              if (!runtime::pyEquals(a[0], a[1])) {
                std::string message = proxyStr(a[0]) + " != " + proxyStr(a[1]);
                if (!a[2].isNull()) message += ": " + a[2].asString();
                fail("AssertionError", message);
              }
              return Value();
            },
            {.deprecated = true, .replacedBy = "the `==` binary operator"});
}

}  // namespace inmanta::stdmodule
