// Modules' own Python code in the embedded CPython (compiler/module_code.h): imports each
// module's plugins/ package through our `inmanta` package (pylib/, its `_host` module), reads
// what it registers (plugins, resource types, dependency managers, export hooks) and turns each
// into the compiler's own form, whose calls come back here. The line between the two languages
// is pylib/CONTRACT.md: `_inmanta_native` below is the C++ half.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "compiler/diag/diagnostic.h"
#include "compiler/module_code.h"
#include "modules/python/python_object.h"
#include "modules/python/python_runtime.h"
#include "modules/python/python_values.h"

#if !defined(INMANTA_PYLIB_SOURCE_DIR) || !defined(INMANTA_PYLIB_INSTALL_DIR)
#error "INMANTA_PYLIB_SOURCE_DIR and INMANTA_PYLIB_INSTALL_DIR must name where our inmanta package is"
#endif

namespace inmanta::compiler {

namespace {

namespace py = pybind11;
namespace fs = std::filesystem;
using runtime::Value;
using runtime::ValueDict;
using runtime::ValueList;
using Kwargs = std::vector<std::pair<std::string, Value>>;

// A list, dict or instance of the model held for Python (`_inmanta_native.Value`).
struct Handle {
  Value value;
};

// What the native functions work for: the plugin call running on this thread (its context), or
// the export (the instances and where uploaded files go). Each call into Python sets it and
// restores the previous one when it ends.
struct Scope {
  const ModuleCodeHost* host = nullptr;
  PluginContext* context = nullptr;                            // during a plugin call
  const std::vector<runtime::Instance*>* instances = nullptr;  // during the export
  ExportSink* sink = nullptr;                                  // during the export
  // a resource's getters (exporter.upload_file in get_hash): kept with its fields, which the
  // exporter may compute before it asks for a field (whether to ignore the resource)
  std::map<std::string, std::string>* uploads = nullptr;
  std::optional<CompileError> optionalValue;  // the last OptionalValueException raised to Python
};
INMANTA_MODULE_TLS Scope* scope = nullptr;

// Makes `s` the scope of the native functions until the end of the C++ scope.
class Enter : python::ScopedPointer<Scope> {
 public:
  explicit Enter(Scope& s) : python::ScopedPointer<Scope>(scope, &s) {}
};

Scope& current() {
  if (scope == nullptr) throw std::runtime_error("no plugin call or export is running");
  return *scope;
}

PluginContext& context() {
  Scope& s = current();
  if (s.context == nullptr) throw std::runtime_error("no plugin call is running");
  return *s.context;
}

// What C++ needs of Python, made the first time module code loads, for the life of the
// interpreter.
struct Support {
  py::module_ native;
  py::object handleType;
  py::object unknown;    // _inmanta_native.UNKNOWN
  py::object noneValue;  // inmanta.execute.util.NoneValue(): null as the reference's compiler holds it
  py::object hostModule;
  py::object notFound = py::none(), optionalValue = py::none();  // set by configure()
};
Support* support = nullptr;

[[noreturn]] void raiseClass(const py::object& cls, const std::string& message) {
  if (cls.is_none()) python::raise(PyExc_RuntimeError, message);
  py::object error = cls(message);
  PyErr_SetObject(cls.ptr(), error.ptr());
  throw py::error_already_set();
}

// ------------------------------------------------------------------ values both ways

py::object toRaw(const Value& v) {
  switch (v.type()) {
    case Value::Type::Null: return py::none();
    case Value::Type::Bool: return py::bool_(v.asBool());
    case Value::Type::Int: return py::int_(v.asInt());
    case Value::Type::Float: return py::float_(v.asFloat());
    case Value::Type::String: return py::str(v.asString());
    case Value::Type::List:
    case Value::Type::Dict:
    case Value::Type::Instance: return py::cast(Handle{v});
    case Value::Type::Unknown: return support->unknown;
    case Value::Type::Opaque:  // the object itself (a plugin given it sees it through a proxy)
      if (const py::object* o = python::PythonObject::of(v)) return *o;
      python::raise(PyExc_TypeError, "a value of type " + v.asOpaque().typeName() + " can not be passed to Python");
  }
  throw std::logic_error("unhandled value type");
}

const Value* heldValue(py::handle h) {
  return py::isinstance(h, support->handleType) ? &h.cast<Handle&>().value : nullptr;
}

// Raw form back to a value (CONTRACT.md); a TypeError for anything the model cannot hold.
Value fromRaw(py::handle o) {
  if (o.is(support->unknown)) return Value::unknown();
  return python::toModelValue(o, heldValue, "the model");
}

// A value as the reference's compiler holds it, for the `==` of a Python object with it: null is
// a NoneValue, lists and dicts are Python's.
py::object internalForm(const Value& v) {
  if (v.isNull()) return support->noneValue;
  if (v.isList()) {
    py::list out;
    for (const Value& e : v.asList()) out.append(internalForm(e));
    return out;
  }
  if (v.isDict()) {
    py::dict out;
    for (const auto& [k, e] : v.asDict().items) out[py::str(k)] = internalForm(e);
    return out;
  }
  return toRaw(v);
}

// A plugin's result: as fromRaw, but an object the model has no kind for (at any depth) is kept
// as an opaque value, as the reference keeps it (DynamicProxy.unwrap leaves it as it is).
Value keptValue(py::handle o) {
  if (o.is(support->unknown)) return Value::unknown();
  return python::toModelValue(o, heldValue, "the model", [](py::handle x) {
    return python::PythonObject::make(py::reinterpret_borrow<py::object>(x), internalForm);
  });
}

// ------------------------------------------------------------------ the native functions

const Value& list(const Handle& h) {
  if (!h.value.isList()) python::raise(PyExc_TypeError, "not a list");
  return h.value;
}
const Value& dict(const Handle& h) {
  if (!h.value.isDict()) python::raise(PyExc_TypeError, "not a dict");
  return h.value;
}
const runtime::InstanceBase& instance(const Handle& h) {
  if (!h.value.isInstance()) python::raise(PyExc_TypeError, "not an instance");
  return *h.value.asInstance();
}

std::string kind(const Handle& h) {
  return h.value.isList() ? "list" : h.value.isDict() ? "dict" : h.value.isInstance() ? "instance" : "value";
}

py::object attribute(const Handle& h, const std::string& name) {
  const runtime::InstanceBase& of = instance(h);
  Scope& s = current();
  if (s.context != nullptr) {
    try {
      return toRaw(s.context->attribute(h.value, name));
    } catch (const PluginFailure& f) {
      if (f.pythonType() == "AttributeError") raiseClass(support->notFound, f.message());
      throw;
    } catch (const CompileError& e) {
      if (e.diagnostic().kind != ErrorKind::OptionalValueException) throw;
      s.optionalValue = e;
      raiseClass(support->optionalValue, e.diagnostic().message);
    }
  }
  ModuleCodeHost::Read read = s.host->readAttribute(of, name);
  if (!read.found)
    raiseClass(support->notFound, "Attribute " + name + " does not exist on entity " + s.host->entityName(of));
  if (read.optionalEmpty)
    raiseClass(support->optionalValue, "Optional variable accessed that has no value (attribute `" + name + "` of `" +
                                           s.host->display(of) + "`)");
  return toRaw(read.value);
}

size_t length(const Handle& h) {
  if (h.value.isList()) return h.value.asList().size();
  if (h.value.isDict()) return h.value.asDict().items.size();
  python::raise(PyExc_TypeError, "object has no len()");
}

py::list items(const Handle& h) {
  py::list out;
  for (const Value& v : list(h).asList()) out.append(toRaw(v));
  return out;
}

py::list keys(const Handle& h) {
  py::list out;
  for (const auto& entry : dict(h).asDict().items) out.append(py::str(entry.first));
  return out;
}

py::object get(const Handle& h, const std::string& key) {
  const Value* found = nullptr;
  for (const auto& entry : dict(h).asDict().items)
    if (entry.first == key) {
      found = &entry.second;
      break;
    }
  if (found == nullptr) {
    PyErr_SetObject(PyExc_KeyError, py::str(key).ptr());
    throw py::error_already_set();
  }
  return toRaw(*found);
}

std::string entity(const Handle& h) { return current().host->entityName(instance(h)); }

bool isA(const Handle& h, const std::string& name) { return current().host->isA(instance(h), name); }

size_t identity(const Handle& h) { return reinterpret_cast<size_t>(&instance(h)); }

std::string display(const Handle& h) { return current().host->display(instance(h)); }

py::list parents(const std::string& entity) {
  std::optional<std::vector<std::string>> found = current().host->parents(entity);
  if (!found) raiseClass(support->notFound, "could not find type " + entity);
  py::list out;
  for (const std::string& p : *found) out.append(p);
  return out;
}

// (name, type, is_relation, low, high or None, other end or None) per own attribute of the entity
py::list attributesOf(const std::string& entity) {
  std::optional<std::vector<ModuleCodeHost::AttributeInfo>> found = current().host->attributes(entity);
  if (!found) raiseClass(support->notFound, "could not find type " + entity);
  py::list out;
  for (const ModuleCodeHost::AttributeInfo& a : *found)
    out.append(py::make_tuple(a.name, a.type, a.relation, a.low, a.high ? py::object(py::int_(*a.high)) : py::none(),
                              a.otherEnd.empty() ? py::object(py::none()) : py::object(py::str(a.otherEnd))));
  return out;
}

py::list entityNames() {
  py::list out;
  for (const std::string& name : current().host->entities()) out.append(name);
  return out;
}

py::list instancesOf(const std::string& name) {
  py::list out;
  Scope& s = current();
  if (s.instances == nullptr) return out;
  for (runtime::Instance* i : *s.instances)
    if (s.host->isA(*i, name)) out.append(py::cast(Handle{Value(static_cast<runtime::InstanceBase*>(i))}));
  return out;
}

py::tuple callLocation() {
  PluginContext& c = context();
  SourceLocation at = c.callLocation();
  return py::make_tuple(current().host->locationFile(at), at.line);
}

std::string projectDir() { return context().projectDir(); }

std::string callingModule() { return context().callingModule(); }

std::string callingNamespace() { return context().callingNamespace(); }

py::object moduleDir(const std::string& name) {
  std::string dir = context().moduleDir(name);
  return dir.empty() ? py::object(py::none()) : py::object(py::str(dir));
}

// (outside a plugin call too: module code reads settings when it loads and during the export)
py::object setting(const std::string& section, const std::string& key) {
  Scope& s = current();
  std::optional<std::string> v = s.context != nullptr ? s.context->setting(section, key)
                                                      : s.host->setting(section, key);
  return v ? py::object(py::str(*v)) : py::object(py::none());
}

py::tuple serverCall(const std::string& method, const std::string& path, const std::string& body) {
  ServerConnection* server = context().server();
  if (server == nullptr) return py::make_tuple(0, "Connection refused");
  ServerConnection::Reply reply = server->call(method, path, body);
  return py::make_tuple(reply.status, reply.status == 0 ? reply.transportError : reply.body);
}

void reportUnknown(const std::string& resource, const std::string& parameter, const std::string& source) {
  context().reportUnknown(UnknownParameter{resource, parameter, source});
}

std::string levelName(int level) {
  if (level >= 50) return "CRITICAL";
  if (level >= 40) return "ERROR";
  if (level >= 30) return "WARNING";
  if (level >= 20) return "INFO";
  if (level >= 10) return "DEBUG";
  return "TRACE";
}

void log(const std::string& logger, int level, const std::string& message) {
  if (scope != nullptr && scope->host != nullptr) scope->host->log(logger, levelName(level), message);
}

void uploadFile(const std::string& hash, const py::bytes& content) {
  Scope& s = current();
  if (s.uploads != nullptr) (*s.uploads)[hash] = std::string(content);
  else if (s.sink != nullptr) s.sink->addFile(hash, std::string(content));
  else python::raise(PyExc_RuntimeError, "files can only be uploaded during the export");
}

void configure(const py::kwargs& classes) {
  for (auto [name, cls] : classes) {
    std::string n = py::str(name);
    if (n == "not_found") support->notFound = py::reinterpret_borrow<py::object>(cls);
    else if (n == "optional_value") support->optionalValue = py::reinterpret_borrow<py::object>(cls);
    else python::raise(PyExc_TypeError, "configure() got an unexpected keyword argument '" + n + "'");
  }
}

// The folder of our `inmanta` package: INMANTA_PYLIB when set, else this source tree's (a build
// tree), else the installed one.
std::string pylibDir() {
  if (const char* env = std::getenv("INMANTA_PYLIB"); env != nullptr && *env != '\0') return env;
  std::error_code ec;
  if (fs::is_directory(fs::path(INMANTA_PYLIB_SOURCE_DIR) / "inmanta", ec)) return INMANTA_PYLIB_SOURCE_DIR;
  return INMANTA_PYLIB_INSTALL_DIR;
}

// Puts `dir` on sys.path at `position` unless it is there already.
void addPath(const std::string& dir, size_t position) {
  py::list path = py::module_::import("sys").attr("path");
  for (py::handle p : path)
    if (py::str(p).cast<std::string>() == dir) return;
  path.attr("insert")(position, dir);
}

Support& loadSupport() {
  if (support != nullptr) return *support;
  auto s = std::make_unique<Support>();
  support = s.get();  // (configure() runs during the import below)
  try {
    s->native = py::module_::create_extension_module("_inmanta_native", nullptr, new py::module_::module_def);
    s->handleType = py::class_<Handle>(s->native, "Value");
    s->unknown = py::module_::import("builtins").attr("object")();
    s->native.attr("UNKNOWN") = s->unknown;
    python::defineNative(s->native, "kind", &kind);
    python::defineNative(s->native, "attribute", &attribute);
    python::defineNative(s->native, "length", &length);
    python::defineNative(s->native, "items", &items);
    python::defineNative(s->native, "keys", &keys);
    python::defineNative(s->native, "get", &get);
    python::defineNative(s->native, "entity", &entity);
    python::defineNative(s->native, "is_a", &isA);
    python::defineNative(s->native, "identity", &identity);
    python::defineNative(s->native, "display", &display);
    python::defineNative(s->native, "parents", &parents);
    python::defineNative(s->native, "instances_of", &instancesOf);
    python::defineNative(s->native, "attributes", &attributesOf);
    python::defineNative(s->native, "entities", &entityNames);
    python::defineNative(s->native, "call_location", &callLocation);
    python::defineNative(s->native, "project_dir", &projectDir);
    python::defineNative(s->native, "calling_module", &callingModule);
    python::defineNative(s->native, "call_namespace", &callingNamespace);
    python::defineNative(s->native, "module_dir", &moduleDir);
    python::defineNative(s->native, "setting", &setting);
    python::defineNative(s->native, "server_call", &serverCall);
    python::defineNative(s->native, "report_unknown", &reportUnknown);
    python::defineNative(s->native, "log", &log);
    python::defineNative(s->native, "upload_file", &uploadFile);
    s->native.def("configure", [](const py::kwargs& k) { python::relay([&] { configure(k); }); });
    py::module_::import("sys").attr("modules")["_inmanta_native"] = s->native;
    addPath(pylibDir(), 0);
    s->hostModule = py::module_::import("inmanta._host");
    s->noneValue = py::module_::import("inmanta.execute.util").attr("NoneValue")();
  } catch (...) {
    support = nullptr;
    throw;
  }
  return *s.release();
}

// ------------------------------------------------------------------ the loaded code

ErrorKind kindNamed(std::string_view name) {
#define KIND(n, parent, importance) \
  if (name == #n) return ErrorKind::n;
#include "compiler/diag/error_kinds.def"
#undef KIND
  return ErrorKind::RuntimeException;
}

// The Python objects of one compile's module code; everything C++ made from them refers to this.
struct LoadedCode {
  const ModuleCodeHost* host = nullptr;
  std::function<FileId(const std::string&)> addFile;
  // What a call of one Python plugin needs beside its PluginSpec.
  struct Plugin {
    py::object function;                                    // the registration `inmanta._host.call` runs
    std::vector<std::optional<py::object>> opaqueDefaults;  // per param: a default that is no model value
    std::vector<bool> keywordOnly;                          // per param
    std::vector<std::string> names;                         // per param
    std::string fullName;
  };
  std::vector<Plugin> plugins;          // by index
  std::vector<py::object> exportHooks;  // by index
  py::object dependencyManagers;        // a list, once loaded
  std::vector<py::object> resourceClasses;
  std::unordered_map<std::string, py::object> classOfEntity;

  // The export fields of each resource instance, computed once (by type index).
  struct Fields {
    bool ignored = false;
    std::unordered_map<std::string, Value> values;
    std::map<std::string, std::string> files;  // what the getters uploaded, by hash
  };
  std::vector<std::unordered_map<const runtime::InstanceBase*, Fields>> fieldCache;

  ~LoadedCode() {
    if (python::running()) {
      python::Gil gil;
      plugins.clear();
      exportHooks.clear();
      dependencyManagers = py::object();
      resourceClasses.clear();
      classOfEntity.clear();
    } else {  // the interpreter is gone, and everything with it
      for (Plugin& p : plugins) {
        (void)p.function.release();
        for (auto& o : p.opaqueDefaults)
          if (o) (void)o->release();
      }
      for (auto& h : exportHooks) (void)h.release();
      (void)dependencyManagers.release();
      for (auto& c : resourceClasses) (void)c.release();
      for (auto& [k, c] : classOfEntity) (void)c.release();
    }
  }

  SourceLocation locate(const py::handle& file, const py::handle& line) const {
    if (file.is_none() || !addFile) return {};
    try {
      FileId id = addFile(py::str(file).cast<std::string>());
      if (id == kNoFile) return {};
      return SourceLocation{id, line.is_none() ? 0u : line.cast<uint32_t>(), 0};
    } catch (const CompileError&) {
      return {};
    }
  }

  // The location of a registry entry (its "file" and "line", when it has them).
  SourceLocation locateEntry(const py::dict& entry) const {
    return locate(entry.contains("file") ? py::object(entry["file"]) : py::object(py::none()),
                  entry.contains("line") ? py::object(entry["line"]) : py::object(py::none()));
  }
};

class PythonModuleCode final : public ModuleCode {
 public:
  std::shared_ptr<LoadedCode> loaded = std::make_shared<LoadedCode>();
};

// An ExternalException's cause: `TYPE: message`, with the traceback when there is one.
PluginFailure failure(const py::tuple& result, size_t from) {
  std::string traceback;
  if (result.size() > from + 2 && !result[from + 2].is_none()) traceback = py::str(result[from + 2]);
  return PluginFailure(py::str(result[from]), py::str(result[from + 1]), traceback);
}

Value runPlugin(const std::shared_ptr<LoadedCode>& code, size_t index, PluginContext& ctx,
                const std::vector<Value>& args, const Kwargs& kwargs) {
  python::Gil gil;
  Scope s;
  s.host = code->host;
  s.context = &ctx;
  Enter enter(s);
  const LoadedCode::Plugin& plugin = code->plugins[index];
  py::tuple result;
  try {
    result = python::callPython([&] {
      py::list pyArgs;
      py::dict pyKwargs;
      for (size_t i = 0; i < args.size(); ++i) {
        bool declared = i < plugin.names.size();  // else one of the *args values
        // a default that is no model value (a sentinel object) goes to the plugin as it is
        py::object v = declared && plugin.opaqueDefaults[i] && args[i].isNull() ? *plugin.opaqueDefaults[i]
                                                                                : toRaw(args[i]);
        if (declared && plugin.keywordOnly[i]) pyKwargs[py::str(plugin.names[i])] = v;
        else pyArgs.append(v);
      }
      for (const auto& [name, value] : kwargs) pyKwargs[py::str(name)] = toRaw(value);
      return py::tuple(support->hostModule.attr("call")(plugin.function, pyArgs, pyKwargs));
    });
  } catch (const py::error_already_set& e) {
    python::PythonError error = python::describe(e);
    throw PluginFailure(error.type(), error.message());  // the host itself failed
  }
  std::string tag = py::str(result[0]);
  if (tag == "ok") {
    // (a Python object that is no model value, such as param::report's Result, stays the object:
    // the return type decides, as in the reference, whether the model may hold it)
    try {
      return keptValue(result[1]);
    } catch (const py::error_already_set& e) {
      python::PythonError error = python::describe(e);
      throw PluginFailure(error.type(), error.message());
    }
  }
  if (tag == "unknown") return Value::unknown();
  if (tag == "plugin") throw ExplicitPluginFailure(py::str(result[1]));
  if (tag == "compiler") {
    std::string kindName = py::str(result[1]);
    if (kindName == "OptionalValueException" && s.optionalValue) throw *s.optionalValue;
    SourceLocation at = code->locate(result[3], result[4]);
    throw CompileError(Diagnostic(kindNamed(kindName), py::str(result[2]), at.valid() ? at : ctx.callLocation()));
  }
  throw failure(result, 1);
}

PluginSpec pluginSpec(const std::shared_ptr<LoadedCode>& code, const py::dict& entry) {
  PluginSpec spec;
  spec.ns = py::str(entry["namespace"]);
  spec.name = py::str(entry["name"]);
  size_t index = code->plugins.size();
  LoadedCode::Plugin& plugin = code->plugins.emplace_back();
  plugin.function = entry["function"];
  for (py::handle p : py::list(entry["params"])) {
    py::dict param = py::reinterpret_borrow<py::dict>(p);
    PluginParam out;
    out.name = py::str(param["name"]);
    out.type = py::str(param["type"]);
    out.keywordOnly = param.contains("keyword_only") && param["keyword_only"].cast<bool>();
    plugin.opaqueDefaults.emplace_back();
    plugin.names.push_back(out.name);
    plugin.keywordOnly.push_back(out.keywordOnly);
    if (param.contains("default")) {
      py::object d = param["default"];
      if (d.is_none()) {
        out.defaultIsNone = true;
      } else {
        try {
          out.defaultValue = fromRaw(d);
        } catch (const py::error_already_set&) {
          out.defaultIsNone = true;  // no model value: the plugin gets the object itself
          plugin.opaqueDefaults.back() = d;
        }
      }
    }
    spec.params.push_back(std::move(out));
  }
  auto optionalString = [&](const char* key) -> std::string {
    if (!entry.contains(key) || entry[key].is_none()) return {};
    return py::str(entry[key]);
  };
  spec.varArgsType = optionalString("var_args");
  spec.varKeywordsType = optionalString("var_kwargs");
  spec.varKeywords = !spec.varKeywordsType.empty();
  spec.returnType = optionalString("return_type");
  if (spec.returnType.empty()) spec.returnType = "any";
  plugin.fullName = spec.fullName();
  spec.contextAware = entry.contains("context") && entry["context"].cast<bool>();
  spec.acceptsUnknown = entry.contains("allow_unknown") && entry["allow_unknown"].cast<bool>();
  spec.deprecated = entry.contains("deprecated") && entry["deprecated"].cast<bool>();
  spec.replacedBy = optionalString("replaced_by");
  spec.location = code->locateEntry(entry);
  if (spec.location.valid()) spec.location.col = 1;
  std::weak_ptr<LoadedCode> weak = code;
  spec.run = [weak, index](PluginContext& ctx, const std::vector<Value>& args, const Kwargs& kwargs) -> Value {
    std::shared_ptr<LoadedCode> c = weak.lock();
    if (!c) throw PluginFailure("RuntimeError", "the module code of this plugin is no longer loaded");
    return runPlugin(c, index, ctx, args, kwargs);
  };
  return spec;
}

// The fields of one resource, computed by the class's getters the first time any is asked.
const LoadedCode::Fields& exportFields(LoadedCode& code, size_t type, const runtime::Instance& i) {
  auto& cache = code.fieldCache[type];
  if (auto it = cache.find(&i); it != cache.end()) return it->second;
  python::Gil gil;
  Scope s;
  s.host = code.host;
  LoadedCode::Fields fields;
  s.uploads = &fields.files;
  Enter enter(s);
  py::tuple result = python::callPython([&] {
    return py::tuple(support->hostModule.attr("export_fields")(
        code.resourceClasses[type],
        py::cast(Handle{Value(static_cast<runtime::InstanceBase*>(const_cast<runtime::Instance*>(&i)))})));
  });
  std::string tag = py::str(result[0]);
  if (tag == "ignore") {
    fields.ignored = true;
  } else if (tag == "ok") {
    for (auto [name, raw] : py::reinterpret_borrow<py::dict>(result[1])) {
      try {
        // (an object that is no model value stays one: the export refuses it as the reference's
        // JSON encoder does)
        fields.values.emplace(py::str(name), keptValue(raw));
      } catch (const py::error_already_set& e) {
        throw ResourceError("Failed to get attribute '" + std::string(py::str(name)) + "' for export on '" +
                            code.host->entityName(i) + "' (" + python::describe(e).message() + ")");
      }
    }
  } else {
    // ("error", field, type, message, traceback)
    throw ResourceError("Failed to get attribute '" + std::string(py::str(result[1])) + "' for export on '" +
                        code.host->entityName(i) + "' (" + std::string(py::str(result[2])) + ": " +
                        std::string(py::str(result[3])) + ")");
  }
  return cache.emplace(&i, std::move(fields)).first->second;
}

ResourceTypeSpec resourceSpec(const std::shared_ptr<LoadedCode>& code, const py::dict& entry) {
  ResourceTypeSpec spec;
  spec.entity = py::str(entry["entity"]);
  std::string agent = py::str(entry["agent"]);
  for (size_t start = 0;;) {
    size_t dot = agent.find('.', start);
    spec.agentPath.push_back(agent.substr(start, dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  spec.idAttribute = py::str(entry["id_attribute"]);
  size_t type = code->resourceClasses.size();
  code->resourceClasses.push_back(entry["class"]);
  code->classOfEntity[spec.entity] = entry["class"];
  code->fieldCache.emplace_back();
  LoadedCode* raw = code.get();
  for (py::handle f : py::list(entry["fields"])) {
    std::string name = py::str(f);
    spec.fields.push_back({name, [raw, type, name](const runtime::Instance& i, ExportSink& sink) -> Value {
                             python::Gil gil;
                             Scope s;
                             s.host = raw->host;
                             s.sink = &sink;
                             Enter enter(s);
                             const LoadedCode::Fields& fields = exportFields(*raw, type, i);
                             for (const auto& [hash, content] : fields.files) sink.addFile(hash, content);
                             auto it = fields.values.find(name);
                             return it == fields.values.end() ? Value() : it->second;
                           }});
  }
  spec.ignore = [raw, type](const runtime::Instance& i) { return exportFields(*raw, type, i).ignored; };
  return spec;
}

// The @dependency_manager hooks, run as one manager of the exporter's (they see the resources
// with their fields and change their requires).
DependencyManager dependencyManager(const std::shared_ptr<LoadedCode>& code) {
  LoadedCode* raw = code.get();
  return [raw](std::vector<ResourceRecord*>& resources) {
    python::Gil gil;
    Scope s;
    s.host = raw->host;
    Enter enter(s);
    std::unordered_map<std::string, ResourceRecord*> byId;
    py::dict changed;
    try {
      changed = python::callPython([&] {
        py::list list;
        for (ResourceRecord* r : resources) {
          byId[r->rid] = r;
          py::dict d;
          d["id"] = r->rid;
          d["entity"] = r->type;
          py::dict fields;
          if (r->fields != nullptr)
            for (const auto& [name, value] : *r->fields) fields[py::str(name)] = toRaw(value);
          d["fields"] = fields;
          py::list requires_;
          for (const std::string& q : r->requires_) requires_.append(q);
          d["requires"] = requires_;
          auto cls = raw->classOfEntity.find(r->type);
          d["class"] = cls == raw->classOfEntity.end() ? py::object(py::none()) : cls->second;
          d["handle"] = r->instance != nullptr ? py::cast(Handle{Value(static_cast<runtime::InstanceBase*>(
                                                     const_cast<runtime::Instance*>(r->instance)))})
                                               : py::object(py::none());
          list.append(d);
        }
        return py::dict(support->hostModule.attr("dependency_managers")(raw->dependencyManagers, list));
      });
    } catch (const py::error_already_set& e) {
      python::PythonError error = python::describe(e);
      throw ResourceError("a dependency manager failed: " + error.type() + ": " + error.message());
    }
    for (auto [id, required] : changed) {
      auto it = byId.find(py::str(id));
      if (it == byId.end()) continue;
      std::set<std::string> next;
      for (py::handle q : required) {
        std::string rid = py::str(q);
        if (byId.find(rid) == byId.end())
          throw ResourceError("a dependency manager made " + it->first + " require " + rid +
                              ", which is not a resource of this export");
        next.insert(rid);
      }
      it->second->requires_ = std::move(next);
    }
  };
}

ExportHook exportHook(const std::shared_ptr<LoadedCode>& code, const std::string& name, py::handle function,
                      py::handle types) {
  ExportHook hook;
  hook.name = name;
  for (py::handle t : types) hook.types.push_back(py::str(t));
  LoadedCode* raw = code.get();
  size_t index = code->exportHooks.size();
  code->exportHooks.push_back(py::reinterpret_borrow<py::object>(function));  // released with the code
  hook.run = [raw, index, types = hook.types](const std::vector<runtime::Instance*>& instances, ExportSink& sink) {
    python::Gil gil;
    Scope s;
    s.host = raw->host;
    s.instances = &instances;
    s.sink = &sink;
    Enter enter(s);
    try {
      python::callPython([&] { support->hostModule.attr("export_hook")(raw->exportHooks[index], py::cast(types)); });
    } catch (const py::error_already_set& e) {
      python::PythonError error = python::describe(e);
      throw ResourceError(error.type() + ": " + error.message());
    }
  };
  return hook;
}

// The agent's way into the modules' handlers: inmanta._host.run_handler, under the GIL.
std::function<std::string(const std::string&)> handlerRunner(const std::shared_ptr<LoadedCode>& code) {
  LoadedCode* raw = code.get();
  return [raw](const std::string& request) -> std::string {
    python::Gil gil;
    Scope s;
    s.host = raw->host;
    Enter enter(s);
    try {
      return python::callPython(
          [&] { return std::string(py::str(support->hostModule.attr("run_handler")(py::str(request)))); });
    } catch (const py::error_already_set& e) {
      python::PythonError error = python::describe(e);
      throw std::runtime_error("the handler call failed: " + error.type() + ": " + error.message());
    }
  };
}

class Loader final : public ModuleCodeLoader {
 public:
  std::unique_ptr<ModuleCode> load(const std::vector<PythonModule>& modules, const ModuleCodeSettings& settings,
                                   const ModuleCodeHost& host,
                                   const std::function<FileId(const std::string& path)>& addFile) override {
    auto out = std::make_unique<PythonModuleCode>();
    std::shared_ptr<LoadedCode> code = out->loaded;
    code->host = &host;
    code->addFile = addFile;
    try {
      python::Gil gil;
      Scope s;
      s.host = &host;
      Enter enter(s);
      try {
        python::callPython([&] {
          Support& sup = loadSupport();
          for (size_t i = 0; i < settings.pythonPath.size(); ++i) addPath(settings.pythonPath[i], 1 + i);
          py::list mods, available;
          for (const PythonModule& m : modules) mods.append(py::make_tuple(m.name, m.dir));
          for (const PythonModule& m : settings.available) available.append(py::make_tuple(m.name, m.dir));
          py::dict registry;
          try {
            registry = sup.hostModule.attr("load")(mods, available);
          } catch (py::error_already_set& e) {
            py::object loadError = sup.hostModule.attr("LoadError");
            if (!e.matches(loadError)) throw;
            py::object v = e.value();
            SourceLocation at = code->locate(v.attr("file"), v.attr("line"));
            std::string kindName = py::hasattr(v, "kind") ? std::string(py::str(v.attr("kind"))) : "CompilerException";
            Diagnostic d(kindNamed(kindName), py::str(v.attr("message")), at, false);
            // no line on the traceback (a SyntaxError): the reference names the file at line 0
            d.wholeFile = at.file != kNoFile && at.line == 0;
            throw CompileError(std::move(d));
          }
          for (py::handle p : py::list(registry["plugins"])) {
            auto entry = py::reinterpret_borrow<py::dict>(p);
            // a signature the reference refuses (an argument without annotation): the compile
            // fails before the model runs
            if (entry.contains("error") && !entry["error"].is_none()) {
              SourceLocation at = code->locateEntry(entry);
              py::object error = entry["error"];  // {"kind": ..., "message": ...}, or the message
              ErrorKind kind = ErrorKind::RuntimeException;
              std::string message = py::str(error);
              if (py::isinstance<py::dict>(error)) {
                auto d = py::reinterpret_borrow<py::dict>(error);
                if (d.contains("kind")) kind = kindNamed(std::string(py::str(d["kind"])));
                if (d.contains("message")) message = py::str(d["message"]);
              }
              throw CompileError(Diagnostic(kind, message, at, false));
            }
            out->pluginSpecs.push_back(pluginSpec(code, entry));
          }
          for (py::handle r : py::list(registry["resources"]))
            out->resourceTypes.add(resourceSpec(code, py::reinterpret_borrow<py::dict>(r)));
          code->dependencyManagers = py::list(registry["dependency_managers"]);
          if (py::len(code->dependencyManagers) != 0) out->resourceTypes.addDependencyManager(dependencyManager(code));
          for (auto [name, hook] : py::dict(registry["export_hooks"])) {
            std::string n = py::str(name);
            // (function, [types]) or the function alone
            if (py::isinstance<py::tuple>(hook)) {
              auto pair = py::reinterpret_borrow<py::tuple>(hook);
              out->exportHooks.emplace(n, exportHook(code, n, pair[0], pair[1]));
            } else out->exportHooks.emplace(n, exportHook(code, n, hook, py::tuple()));
          }
          for (py::handle h : py::list(registry["handlers"]))
            out->handlers.types.push_back(py::str(py::reinterpret_borrow<py::dict>(h)["entity"]));
          if (!out->handlers.types.empty()) out->handlers.run = handlerRunner(code);
        });
      } catch (const py::error_already_set& e) {
        python::PythonError error = python::describe(e);
        throw CompileError(Diagnostic(ErrorKind::CompilerException, "Unable to load the Python code of the modules: " +
                                                                        error.type() + ": " + error.message()));
      }
    } catch (const python::PythonError& e) {
      throw CompileError(
          Diagnostic(ErrorKind::CompilerException, "cannot run the modules' Python code: " + e.message()));
    }
    return out;
  }

  bool pythonStarted() const override { return python::everStarted(); }
};

}  // namespace

}  // namespace inmanta::compiler

extern "C" __attribute__((visibility("default"))) inmanta::compiler::ModuleCodeLoader* inmanta_module_code(int abi) {
  if (abi != inmanta::compiler::kModuleCodeAbi) return nullptr;
  static inmanta::compiler::Loader loader;
  return &loader;
}
