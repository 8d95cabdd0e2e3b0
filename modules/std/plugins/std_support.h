// Helpers shared by the std plugins: building plugin specs, Python-compatible text handling
// (UTF-8 code points, str.isspace, int()), and the Python view of values that plugins expose
// in their error messages.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "compiler/plugin.h"

namespace inmanta::stdmodule {

namespace runtime = compiler::runtime;
using compiler::PluginContext;
using compiler::PluginFailure;
using compiler::PluginParam;
using compiler::PluginRegistry;
using compiler::PluginSpec;
using runtime::Value;
using runtime::ValueDict;
using runtime::ValueList;
using Args = std::vector<Value>;
using Kwargs = std::vector<std::pair<std::string, Value>>;
using RunFn = std::function<Value(PluginContext&, const Args&, const Kwargs&)>;

// The groups of std plugins, each in its own file.
void registerStringPlugins(PluginRegistry& registry);      // string_plugins.cpp
void registerListPlugins(PluginRegistry& registry);        // list_plugins.cpp
void registerNetworkPlugins(PluginRegistry& registry);     // network_plugins.cpp
void registerValidationPlugins(PluginRegistry& registry);  // validate_type.cpp
void registerSystemPlugins(PluginRegistry& registry);      // system_plugins.cpp

// std::template's rendering (template_plugin.cpp): the Jinja2 template `path` (`module/file`,
// `./` already resolved) in the embedded CPython of libinmanta_python.so, loaded by the first
// call; without kwargs the template's names resolve in the caller's scope. An undefined name is a
// CompileError NotFoundException; other failures are PluginFailures named after the Python
// exception (TemplateNotFound, ...), an ImportError when the module cannot be loaded.
Value renderTemplate(PluginContext& ctx, const std::string& path, const Kwargs& kwargs);
// Whether this process has loaded libinmanta_python.so, and started its CPython.
bool templateEngineLoaded();
bool templatePythonStarted();

// ------------------------------------------------------------------ plugin specs

// A required parameter.
PluginParam param(std::string name, std::string type);
// A parameter with a default value.
PluginParam param(std::string name, std::string type, Value defaultValue);
// A `T = None` parameter (spec 4.13): null default, explicit null still rejected unless T allows it.
PluginParam paramNone(std::string name, std::string type);

// Options of a plugin besides its signature.
struct PluginFlags {
  bool acceptsUnknown = false;
  bool contextAware = false;
  bool deprecated = false;
  bool varKeywords = false;
  // What the reference's deprecation warning recommends instead ("It should be replaced by
  // '<replacedBy>'."; PluginSpec::replacedBy).
  const char* replacedBy = "";
};

void addPlugin(PluginRegistry& registry, std::string name, std::vector<PluginParam> params, std::string returnType,
               RunFn run, PluginFlags flags = {});

// ------------------------------------------------------------------ UTF-8 text as code points

std::u32string decodeUtf8(std::string_view s);
std::string encodeUtf8(std::u32string_view s);
void appendUtf8(std::string& out, char32_t cp);
// Number of code points (Python len of a str).
size_t codePointCount(std::string_view s);
// Byte offset of every code point, plus the total size at the end.
std::vector<size_t> codePointOffsets(std::string_view s);

// Python str.isspace for one code point (Unicode White_Space as CPython defines it).
bool pyIsSpace(char32_t cp);
// Python str.strip() without arguments.
std::string_view pyStrip(std::string_view s);

// Python str.upper / str.lower / str.capitalize: full Unicode case mappings.
enum class CaseMode { Upper, Lower, Capitalize };
std::string caseMap(const std::string& s, CaseMode mode);

// Python int(str): surrounding whitespace, a sign, digits (any Unicode decimal digit) with
// single underscores between them. Overflow of int64 is reported separately (spec 9.2).
enum class IntParse { Ok, Invalid, Overflow };
IntParse pyParseInt(std::string_view s, int64_t& out);
// Python int(x) as plugins apply it to a plugin value (to_number, get_env_int): the failures
// carry the Python exception and message.
int64_t pyIntOf(const Value& v);

// ------------------------------------------------------------------ the Python view of values

// The Python class name of a value as a plugin sees it (the reference wraps lists, dicts and
// instances in proxies): NoneType, bool, int, float, str, SequenceProxy, DictProxy, DynamicProxy.
std::string proxyTypeName(const Value& v);
// Python str() of a value as a plugin sees it: `None`, `True`, text verbatim, `@[...]` for
// proxied lists, dicts and instances (the DynamicProxy repr).
std::string proxyStr(const Value& v);

[[noreturn]] void fail(std::string pythonType, std::string message);

// ------------------------------------------------------------------ files

// Python os.path.join of two parts (an absolute second part replaces the first).
std::string pathJoin(const std::string& a, const std::string& b);
// Python os.path.normpath.
std::string normPath(const std::string& path);
// Python os.path.abspath (relative paths resolve against the process's working directory).
std::string absPath(const std::string& path);

}  // namespace inmanta::stdmodule
