// Shared fixture of the std plugin unit tests: a registry with every std plugin and a fake
// context; calls go through the registry the way the compiler makes them (defaults filled in).
#pragma once

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "compiler/diag/diagnostic.h"
#include "modules/std/plugins/std_plugins.h"
#include "tests/support/fake_plugin_context.h"

namespace inmanta::stdmodule::testing {

using compiler::PluginFailure;
using compiler::PluginSpec;
using compiler::runtime::Value;
using compiler::runtime::ValueDict;
using compiler::runtime::ValueList;
using compiler::testing::FakeInstance;
using compiler::testing::FakePluginContext;
using Kwargs = std::vector<std::pair<std::string, Value>>;

inline Value list(std::initializer_list<Value> items) { return Value(ValueList(items)); }

inline Value dict(std::initializer_list<std::pair<std::string, Value>> items) {
  ValueDict d;
  for (const auto& item : items) d.items.push_back(item);
  return Value(std::move(d));
}

inline Value instance(FakeInstance& i) { return Value(static_cast<compiler::runtime::InstanceBase*>(&i)); }

class StdPluginTest : public ::testing::Test {
 protected:
  StdPluginTest() { registerStdPlugins(registry); }

  const PluginSpec& spec(const std::string& name) {
    const PluginSpec* s = registry.find("std::" + name);
    if (s == nullptr) throw std::runtime_error("no plugin std::" + name);
    return *s;
  }

  // Calls std::<name> with positional arguments; missing trailing ones get their defaults.
  Value call(const std::string& name, std::vector<Value> args, const Kwargs& kwargs = {}) {
    const PluginSpec& s = spec(name);
    for (size_t i = args.size(); i < s.params.size(); ++i) {
      const auto& p = s.params[i];
      if (!p.hasDefault()) throw std::runtime_error("missing argument " + p.name + " for std::" + name);
      args.push_back(p.defaultValue ? *p.defaultValue : Value());
    }
    return s.run(ctx, args, kwargs);
  }

  // The `Type: message` cause of a call that must fail with a PluginFailure.
  std::string failure(const std::string& name, std::vector<Value> args, const Kwargs& kwargs = {}) {
    try {
      Value v = call(name, std::move(args), kwargs);
      return "no failure, returned " + compiler::runtime::repr(v);
    } catch (const PluginFailure& e) {
      return e.pythonType() + ": " + e.message();
    }
  }

  std::string str(const std::string& name, std::vector<Value> args) {
    Value v = call(name, std::move(args));
    if (!v.isString()) return "<not a string: " + compiler::runtime::repr(v) + ">";
    return v.asString();
  }

  bool truth(const std::string& name, std::vector<Value> args) {
    Value v = call(name, std::move(args));
    if (!v.isBool()) throw std::runtime_error("std::" + name + " did not return a bool: " + compiler::runtime::repr(v));
    return v.asBool();
  }

  compiler::PluginRegistry registry;
  FakePluginContext ctx;
};

}  // namespace inmanta::stdmodule::testing
