// libinmanta_python.so: std::template's renderer (spec A.8), the real Jinja2 in the embedded
// CPython (inmanta_python), loaded by inmanta_std on the first render (template_engine.h).
// jinja_support.py holds the Python side; this file gives it the compiler: names resolved in the
// caller's scope, instance attributes, list and dict elements, plugin calls for filters and the
// templates/ folders, each through the PluginContext of the call. Out-of-line compiler code is
// reached through the TemplateHost that inmanta_std hands over.
#include <pybind11/eval.h>
#include <pybind11/pybind11.h>

#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>

#include "compiler/diag/diagnostic.h"
#include "jinja_support_py.h"
#include "modules/python/python_object.h"
#include "modules/python/python_runtime.h"
#include "modules/python/python_values.h"
#include "modules/std/plugins/template_engine.h"

namespace inmanta::stdmodule {

namespace {

namespace py = pybind11;
using compiler::CompileError;
using compiler::Diagnostic;
using compiler::ErrorKind;
using compiler::PluginContext;
using compiler::PluginFailure;
using compiler::runtime::Value;
using compiler::runtime::ValueDict;
using compiler::runtime::ValueList;
using Kwargs = std::vector<std::pair<std::string, Value>>;

const TemplateHost* host = nullptr;  // set by the entry point, before any render

// A compiler value held for Python by a proxy (jinja_support.py's `_Value`).
struct ValueHandle {
  Value value;
};

// An unknown value was read while rendering: the whole result is unknown, as in the reference
// (its proxies raise UnknownException, which the plugin call turns into an unknown result).
struct UnknownRead {};

// The context of the plugin call being rendered on this thread; filters may render other
// templates, so each render restores the previous one when it ends.
INMANTA_MODULE_TLS PluginContext* current = nullptr;

PluginContext& ctx() {
  if (current == nullptr) throw std::logic_error("a std::template native function ran outside a render");
  return *current;
}

// What C++ needs of jinja_support.py. Made once per process, the first time a template renders,
// and never freed: it lives as long as the interpreter.
struct Support {
  py::object handleType, instanceProxy, sequenceProxy, dictProxy, opaqueProxy;
  py::object notFound, missing, undefinedError;
  py::object makeEnvironment, render;
};
Support* support = nullptr;
std::optional<python::PythonError> supportFailure;

// ------------------------------------------------------------------ values both ways

// A Python object the model holds (python_object.h, a plugin's result): the reference's
// template reads it through its Jinja proxy, which prints as `@` + repr and, the object being
// no instance of the model, reads the object's own attributes (std's JinjaDynamicProxy).
constexpr const char* kOpaqueProxySource = R"(
class OpaqueProxy:
    __slots__ = ("_object",)

    def __init__(self, o):
        object.__setattr__(self, "_object", o)

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        value = getattr(self._object, name)
        if value is None or isinstance(value, (str, tuple, int, float, bool, list, dict)):
            return value
        return OpaqueProxy(value)

    def __setattr__(self, name, value):
        raise Exception("Readonly object")

    def __repr__(self):
        return "@" + repr(self._object)

    def __eq__(self, other):
        return self._object == (other._object if isinstance(other, OpaqueProxy) else other)

    def __hash__(self):
        return hash(self._object)
)";

// DynamicProxy.return_value: scalars as Python values, containers and instances as proxies.
py::object toPython(const Value& v) {
  switch (v.type()) {
    case Value::Type::Null: return py::none();
    case Value::Type::Bool: return py::bool_(v.asBool());
    case Value::Type::Int: return py::int_(v.asInt());
    case Value::Type::Float: return py::float_(v.asFloat());
    case Value::Type::String: return py::str(v.asString());
    case Value::Type::List: return support->sequenceProxy(py::cast(ValueHandle{v}));
    case Value::Type::Dict: return support->dictProxy(py::cast(ValueHandle{v}));
    case Value::Type::Instance: return support->instanceProxy(py::cast(ValueHandle{v}));
    case Value::Type::Unknown: throw UnknownRead{};
    case Value::Type::Opaque:
      if (const py::object* o = python::PythonObject::of(v)) return support->opaqueProxy(*o);
      throw std::logic_error("an opaque value of no Python object");
  }
  throw std::logic_error("unhandled value type");
}

bool isProxy(py::handle o) {
  return py::isinstance(o, support->instanceProxy) || py::isinstance(o, support->sequenceProxy) ||
         py::isinstance(o, support->dictProxy);
}

const Value& proxied(py::handle o) { return o.attr("_value").cast<ValueHandle&>().value; }

// A Python value handed to a plugin (a filter's arguments): proxies give back their value.
Value fromPython(py::handle o) {
  return python::toModelValue(
      o, [](py::handle h) -> const Value* { return isProxy(h) ? &proxied(h) : nullptr; }, "a plugin");
}

// ------------------------------------------------------------------ the native functions

py::object lookup(const std::string& name) {
  try {
    return toPython(ctx().variable(name));
  } catch (const CompileError& e) {
    // reference ResolverContext: a name the scope does not have is Jinja's to resolve; an empty
    // optional relation is missing
    if (e.diagnostic().kind == ErrorKind::NotFoundException) return support->notFound;
    if (e.diagnostic().kind == ErrorKind::OptionalValueException) return support->missing;
    throw;
  }
}

py::object attribute(const ValueHandle& h, const std::string& name) {
  try {
    return toPython(ctx().attribute(h.value, name));
  } catch (const PluginFailure& f) {
    if (f.pythonType() == "AttributeError") return support->notFound;  // no such attribute
    throw;
  } catch (const CompileError& e) {
    if (e.diagnostic().kind == ErrorKind::OptionalValueException) return support->notFound;
    throw;
  }
}

// list[i], list[a:b] and dict[key], with the reference proxies' errors.
py::object item(const ValueHandle& h, py::handle key) {
  const Value& v = h.value;
  if (v.isList()) {
    const ValueList& list = v.asList();
    if (PyUnicode_Check(key.ptr()))
      throw CompileError(Diagnostic(ErrorKind::RuntimeException, "can not get a attribute " + key.cast<std::string>() +
                                                                     ", " + host->repr(v) + " is a list"));
    if (PySlice_Check(key.ptr())) {
      size_t start = 0, stop = 0, step = 0, length = 0;
      if (!py::reinterpret_borrow<py::slice>(key).compute(list.size(), &start, &stop, &step, &length))
        throw py::error_already_set();
      ValueList out;
      for (size_t i = 0, at = start; i < length; ++i, at += step) out.push_back(list[at]);
      return toPython(Value(std::move(out)));
    }
    if (!PyLong_Check(key.ptr()))
      python::raise(PyExc_TypeError, "list indices must be integers or slices, not " +
                                         std::string(py::str(key.get_type().attr("__name__"))));
    auto size = static_cast<long long>(list.size());
    int overflow = 0;
    long long i = PyLong_AsLongLongAndOverflow(key.ptr(), &overflow);
    if (overflow != 0) python::raise(PyExc_IndexError, "cannot fit 'int' into an index-sized integer");
    if (i < 0) i += size;
    if (i < 0 || i >= size) python::raise(PyExc_IndexError, "list index out of range");
    return toPython(list[static_cast<size_t>(i)]);
  }
  if (v.isDict()) {
    if (!PyUnicode_Check(key.ptr()))
      throw CompileError(Diagnostic(ErrorKind::RuntimeException, "Expected string key, but got " +
                                                                     std::string(py::str(key)) + ", " + host->repr(v) +
                                                                     " is a dict"));
    const Value* found = host->find(v.asDict(), key.cast<std::string>());
    if (found == nullptr) {
      PyErr_SetObject(PyExc_KeyError, key.ptr());
      throw py::error_already_set();
    }
    return toPython(*found);
  }
  python::raise(PyExc_TypeError, "'" + host->proxyTypeName(v) + "' object is not subscriptable");
}

size_t length(const ValueHandle& h) {
  if (h.value.isList()) return h.value.asList().size();
  if (h.value.isDict()) return h.value.asDict().items.size();
  python::raise(PyExc_TypeError, "object of type '" + host->proxyTypeName(h.value) + "' has no len()");
}

py::list keys(const ValueHandle& h) {
  py::list out;
  if (!h.value.isDict())
    python::raise(PyExc_TypeError, "'" + host->proxyTypeName(h.value) + "' object is not a mapping");
  for (const auto& entry : h.value.asDict().items) out.append(py::str(entry.first));
  return out;
}

bool equals(const ValueHandle& h, py::handle other) {
  Value rhs;
  try {
    rhs = fromPython(other);
  } catch (const py::error_already_set&) {
    return false;  // not a value of the model: unequal
  }
  if (h.value.isUnknown() || rhs.isUnknown()) return false;
  return host->pyEquals(h.value, rhs);
}

size_t hashOf(const ValueHandle& h) {
  if (!h.value.isInstance()) python::raise(PyExc_TypeError, "unhashable type: '" + host->proxyTypeName(h.value) + "'");
  return std::hash<const void*>()(h.value.asInstance());
}

py::object callPlugin(const std::string& name, const py::tuple& args) {
  std::vector<Value> values;
  for (py::handle a : args) values.push_back(fromPython(a));
  return toPython(ctx().callPlugin(name, values));
}

// Where `<prefix>/file` templates come from: the module's templates/ folder when it has one, the
// project's templates/ folder for the empty prefix (reference _get_template_engine).
py::object templatesFolder(const std::string& prefix) {
  std::string folder = host->templatesFolder(ctx(), prefix);
  if (folder.empty()) return py::none();
  return py::str(folder);
}

Support& loadSupport() {
  if (support != nullptr) return *support;
  if (supportFailure) throw *supportFailure;
  try {
    auto s = std::make_unique<Support>();
    py::module_ m = py::reinterpret_steal<py::module_>(PyModule_New("inmanta_plugins.std"));
    if (!m) throw py::error_already_set();
    m.attr("__builtins__") = py::module_::import("builtins");
    s->handleType = py::class_<ValueHandle>(m, "_Value");
    python::defineNative(m, "_lookup", &lookup);
    python::defineNative(m, "_attribute", &attribute);
    python::defineNative(m, "_item", &item);
    python::defineNative(m, "_length", &length);
    python::defineNative(m, "_keys", &keys);
    python::defineNative(m, "_equals", &equals);
    python::defineNative(m, "_hash", &hashOf);
    python::defineNative(m, "_call_plugin", &callPlugin);
    python::defineNative(m, "_templates_folder", &templatesFolder);
    m.def("_repr", [](const ValueHandle& h) { return host->printForm(h.value); });
    m.def("_display", [](const ValueHandle& h) {
      return h.value.isInstance() ? h.value.asInstance()->display() : host->str(h.value);
    });
    py::exec(kJinjaSupportSource, m.attr("__dict__"));
    py::exec(kOpaqueProxySource, m.attr("__dict__"));
    s->opaqueProxy = m.attr("OpaqueProxy");
    s->instanceProxy = m.attr("JinjaDynamicProxy");
    s->sequenceProxy = m.attr("SequenceProxy");
    s->dictProxy = m.attr("DictProxy");
    s->notFound = m.attr("_NOT_FOUND");
    s->missing = py::module_::import("jinja2.runtime").attr("missing");
    s->undefinedError = py::module_::import("jinja2.exceptions").attr("UndefinedError");
    s->makeEnvironment = m.attr("make_environment");
    s->render = m.attr("render");
    support = s.release();
    return *support;
  } catch (py::error_already_set& e) {
    supportFailure = python::describe(e);  // e.g. jinja2 is not installed: every call says so
    throw *supportFailure;
  }
}

// The Jinja environment of one compile (the reference's engine and template caches), released
// with the compile.
class CompileTemplates {
 public:
  explicit CompileTemplates(py::object state) : state_(std::move(state)) {}
  ~CompileTemplates() {
    if (python::running()) {
      python::Gil gil;
      state_ = py::object();
    } else {
      (void)state_.release();  // the interpreter is gone, and everything with it
    }
  }
  CompileTemplates(const CompileTemplates&) = delete;
  CompileTemplates& operator=(const CompileTemplates&) = delete;
  const py::object& state() const { return state_; }

 private:
  py::object state_;
};

const py::object& compileTemplates(PluginContext& context, Support& s) {
  std::shared_ptr<void>& slot = context.compileState("std::template");
  if (!slot) {
    py::list names;
    for (const std::string& n : context.pluginNames()) names.append(py::str(n));
    slot = std::make_shared<CompileTemplates>(s.makeEnvironment(names));
  }
  return static_cast<CompileTemplates*>(slot.get())->state();
}

Value renderTemplate(PluginContext& context, const std::string& path, const Kwargs& kwargs) {
  try {
    python::Gil gil;
    python::ScopedPointer<PluginContext> call(current, &context);
    Support* s = nullptr;
    try {
      return python::callPython([&]() -> Value {
        s = &loadSupport();
        const py::object& state = compileTemplates(context, *s);
        py::object variables = py::none();
        if (!kwargs.empty()) {
          py::dict d;
          for (const auto& [name, value] : kwargs) d[py::str(name)] = toPython(value);
          variables = d;
        }
        return Value(s->render(state, path, variables).cast<std::string>());
      });
    } catch (const UnknownRead&) {
      return Value::unknown();
    } catch (const py::error_already_set& e) {
      python::PythonError error = python::describe(e);
      // reference: `except UndefinedError as e: raise NotFoundException(ctx.owner, None, e.message)`
      if (s != nullptr && e.matches(s->undefinedError))
        throw CompileError(Diagnostic(ErrorKind::NotFoundException, error.message(), context.callLocation()));
      throw PluginFailure(error.type(), error.message());
    }
  } catch (const python::PythonError& e) {
    throw PluginFailure(e.type(), e.message());  // Python could not start or jinja2 did not load
  }
}

class JinjaEngine final : public TemplateEngine {
 public:
  Value render(PluginContext& context, const std::string& path, const Kwargs& kwargs) override {
    return renderTemplate(context, path, kwargs);
  }
  bool pythonStarted() const override { return python::everStarted(); }
};

}  // namespace

}  // namespace inmanta::stdmodule

extern "C" __attribute__((visibility("default"))) inmanta::stdmodule::TemplateEngine* inmanta_jinja_engine(
    int abi, const inmanta::stdmodule::TemplateHost* callbacks) {
  namespace stdmodule = inmanta::stdmodule;
  if (abi != stdmodule::kTemplateEngineAbi || callbacks == nullptr) return nullptr;
  static stdmodule::JinjaEngine engine;
  stdmodule::host = callbacks;
  return &engine;
}
