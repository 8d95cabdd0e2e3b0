#include "compiler/exec/plugin_context.h"

#include <algorithm>

#include "compiler/sema/typecheck.h"

namespace inmanta::compiler::exec {

// ------------------------------------------------------------------ plugins

Value Evaluator::callPlugin(const PluginSpec& plugin, SourceLocation at, const std::vector<Value>& positional,
                            const std::vector<std::pair<std::string, Value>>& named, bool nested,
                            const ast::Call* written) {
  const std::string full = plugin.fullName();
  size_t positionalParams = 0;
  for (const PluginParam& p : plugin.params)
    if (!p.keywordOnly) ++positionalParams;
  if (positional.size() > positionalParams && plugin.varArgsType.empty())
    fail(ErrorKind::RuntimeException,
         full + "() takes " + std::to_string(positionalParams) + " positional arguments but " +
             std::to_string(positional.size()) + " were given",
         at, true);
  // as the reference's Plugin.check_args: (1) too many positional arguments (above), (2) the
  // missing ones, positional then keyword-only, (3) the types of the positional values in order,
  // (4) each keyword argument in call order: its name, whether it was given positionally too,
  // its type
  auto named_ = [&](const std::string& name) {
    return std::any_of(named.begin(), named.end(), [&](const auto& n) { return n.first == name; });
  };
  std::vector<std::string> missingPositional, missingKeyword;
  for (size_t i = 0, position = 0; i < plugin.params.size(); ++i) {
    const PluginParam& p = plugin.params[i];
    bool hasDefault = p.defaultValue.has_value() || p.defaultIsNone;
    if (!p.keywordOnly) {
      if (position >= positional.size() && !named_(p.name) && !hasDefault) missingPositional.push_back(p.name);
      ++position;
    } else if (!named_(p.name) && !hasDefault) {
      missingKeyword.push_back(p.name);
    }
  }
  for (const auto& [missing, sort] :
       {std::pair{&missingPositional, "positional"}, std::pair{&missingKeyword, "keyword-only"}}) {
    if (missing->empty()) continue;
    std::string names;
    for (size_t i = 0; i < missing->size(); ++i)
      names += (i == 0 ? "" : i + 1 == missing->size() ? " and " : ", ") + ("'" + (*missing)[i] + "'");
    fail(ErrorKind::RuntimeException,
         full + "() missing " + std::to_string(missing->size()) + " required " + sort + " argument" +
             (missing->size() > 1 ? "s" : "") + ": " + names,
         at, true);
  }
  bool anyUnknown = false;
  // where the model wrote the i-th positional and the j-th named argument (the named ones of a
  // `**dict` and a nested call's have no place of their own)
  auto positionalAt = [written](size_t i) {
    return written != nullptr && i < written->args.size() ? written->args[i]->loc() : SourceLocation{};
  };
  auto namedAt = [written](size_t j) {
    return written != nullptr && j < written->named.kwargs.size() ? written->named.kwargs[j].name.loc
                                                                  : SourceLocation{};
  };
  auto check = [&](const PluginParam& p, const Value& v, SourceLocation argument) {
    if (v.isUnknown()) {
      anyUnknown = true;
      return;
    }
    if (auto err = sema::validatePluginType(model_, model_.findNamespace(plugin.ns), p.type, v,
                                            [this](const model::Typedef& t, const Value& x) {
                                              return checkConstraint(t, x);
                                            })) {
      Diagnostic d(ErrorKind::PluginTypeException,
                   "Value " + runtime::repr(v) + " for argument " + p.name + " of plugin " + full +
                       " has incompatible type. Expected type: " + p.type,
                   argument.valid() ? argument : at, true);
      if (argument.valid()) d.notes.push_back({"in this plugin call", at});
      d.causes.push_back(*err);
      throw CompileError(std::move(d));
    }
  };
  std::vector<std::optional<Value>> bound(plugin.params.size());
  std::vector<Value> varArgs;  // the positional values beyond the declared ones (*args)
  for (size_t i = 0; i < positional.size(); ++i) {
    if (i >= positionalParams) {
      check(PluginParam{"*args", plugin.varArgsType, std::nullopt}, positional[i], positionalAt(i));
      varArgs.push_back(positional[i]);
      continue;
    }
    check(plugin.params[i], positional[i], positionalAt(i));
    bound[i] = positional[i];
  }
  std::vector<std::pair<std::string, Value>> extra;
  for (size_t j = 0; j < named.size(); ++j) {
    const std::string& name = named[j].first;  // (not a structured binding: the lambda below reads it)
    const Value& value = named[j].second;
    auto it =
        std::find_if(plugin.params.begin(), plugin.params.end(), [&](const PluginParam& p) { return p.name == name; });
    if (it == plugin.params.end()) {
      if (!plugin.varKeywords)
        fail(ErrorKind::RuntimeException, full + "() got an unexpected keyword argument: '" + name + "'", at, true);
      if (!plugin.varKeywordsType.empty())
        check(PluginParam{name, plugin.varKeywordsType, std::nullopt}, value, namedAt(j));
      if (value.isUnknown()) anyUnknown = true;
      extra.emplace_back(name, value);
      continue;
    }
    size_t index = static_cast<size_t>(it - plugin.params.begin());
    if (!it->keywordOnly && index < positional.size())
      fail(ErrorKind::RuntimeException, full + "() got multiple values for argument '" + name + "'", at, true);
    check(*it, value, namedAt(j));
    bound[index] = value;
  }
  std::vector<Value> args;
  args.reserve(plugin.params.size());
  for (size_t i = 0; i < plugin.params.size(); ++i) {
    if (bound[i]) args.push_back(*bound[i]);
    else if (plugin.params[i].defaultValue) args.push_back(*plugin.params[i].defaultValue);
    else args.push_back(Value());  // (a None default)
  }
  for (Value& v : varArgs) args.push_back(std::move(v));
  if (anyUnknown && !plugin.acceptsUnknown) return Value::unknown();
  if (plugin.deprecated)
    context_->warn("PluginDeprecationWarning",
                   "Plugin '" + full + "' is deprecated." +
                       (plugin.replacedBy.empty() ? std::string()
                                                  : " It should be replaced by '" + plugin.replacedBy + "'."));
  Value result;
  try {
    result = plugin.run(*context_, args, extra);
  } catch (const PluginSuspend& suspend) {
    if (nested) throw;
    throw runtime::UnsetSignal{static_cast<Variable*>(suspend.variable())};  // run again once it is ready
  } catch (const PluginFailure& f) {
    if (nested) throw;  // a plugin calling another sees the callee's failure as it is
    Diagnostic d(ErrorKind::ExternalException, "Exception in plugin " + full, at, true);
    d.nativeCause = f.pythonType() + ": " + f.message();
    d.nativeTrace = f.traceback();
    throw CompileError(std::move(d));
  } catch (const ExplicitPluginFailure& f) {
    if (nested) throw;
    throw CompileError(Diagnostic(ErrorKind::ExplicitPluginException,
                                  "PluginException in plugin " + full + ": " + f.message(), at, true));
  } catch (const CompileError& e) {
    if (nested) throw;
    Diagnostic d(ErrorKind::WrappingRuntimeException, "Exception in plugin " + full, at, true);
    d.causes.push_back(e.diagnostic());
    throw CompileError(std::move(d));
  }
  // an unknown the plugin made gets an identity of the compile's own (a plugin of a shared module
  // counts its unknowns apart); one of its arguments handed back stays the same unknown
  if (result.isUnknown() && std::none_of(args.begin(), args.end(), [&](const Value& a) {
        return a.isUnknown() && a.unknownId() == result.unknownId();
      }))
    result = Value::unknown();
  if (!plugin.returnType.empty() && plugin.returnType != "null" && plugin.returnType != "any" && !result.isUnknown()) {
    if (auto err = sema::validatePluginType(model_, model_.findNamespace(plugin.ns), plugin.returnType, result,
                                            [this](const model::Typedef& t, const Value& x) {
                                              return checkConstraint(t, x);
                                            })) {
      Diagnostic d(ErrorKind::PluginTypeException,
                   "Return value " + runtime::str(result) + " of plugin " + full +
                       " has incompatible type. Expected type: " + plugin.returnType,
                   at, true);
      d.causes.push_back(*err);
      throw CompileError(std::move(d));
    }
  }
  return result;
}

}  // namespace inmanta::compiler::exec
