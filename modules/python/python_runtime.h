// The process's embedded CPython (pybind11), for plugins that run Python libraries (std::template
// runs the real Jinja2). It is linked into libinmanta_python.so, which executables load only when
// they render a template. Linking or loading it starts nothing: the interpreter starts when the
// first `Gil` is taken, once per process, and is finalised at exit. In between the GIL is free,
// so any thread may take a `Gil`; all Python work happens while one is held.
#pragma once

#include <pybind11/pybind11.h>

#include <exception>
#include <string>
#include <type_traits>
#include <utility>

namespace inmanta::python {

namespace py = pybind11;

// Holds the GIL for its scope, starting the interpreter first when this is the first use in the
// process. Throws PythonError when CPython cannot start.
class Gil {
 public:
  Gil();
  ~Gil();
  Gil(const Gil&) = delete;
  Gil& operator=(const Gil&) = delete;

 private:
  PyGILState_STATE state_;
};

// True once the interpreter has been started in this process, and until it is finalised.
bool running();
// True when the interpreter was ever started in this process (`inmanta --version` and compiles
// without templates never start it).
bool everStarted();

// A Python exception as the reference reports a plugin's failure: the class name
// (`TemplateNotFound`) and str() of the exception. Also thrown when CPython cannot start.
class PythonError : public std::exception {
 public:
  PythonError(std::string type, std::string message) : type_(std::move(type)), message_(std::move(message)) {}
  const std::string& type() const { return type_; }
  const std::string& message() const { return message_; }
  const char* what() const noexcept override { return message_.c_str(); }

 private:
  std::string type_;
  std::string message_;
};

// The class name and message of a Python exception caught as error_already_set (GIL held).
PythonError describe(const py::error_already_set& error);

// ------------------------------------------------------------------ C++ exceptions across Python

// A C++ exception must not unwind through Python frames. C++ code that Python calls runs its body
// through `relay`: a Python error passes as it is; any other exception is kept aside and Python
// sees a `RelayedException` instead, which no Python code is expected to catch. The C++ code that
// called into Python does so through `callPython`, which rethrows the kept exception, so a
// PluginSuspend or a compiler error raised deep inside a Jinja render reaches the compiler intact.
namespace detail {
void keep(std::exception_ptr error);
std::exception_ptr takeKept();
[[noreturn]] void raiseRelayed();
}  // namespace detail

template <class F>
auto relay(F&& body) -> decltype(body()) {
  try {
    return body();
  } catch (py::error_already_set&) {
    throw;
  } catch (py::builtin_exception&) {
    throw;  // pybind11's TypeError, KeyError, ...: Python exceptions written in C++
  } catch (...) {
    detail::keep(std::current_exception());
  }
  detail::raiseRelayed();
}

// Runs `call` (Python work, GIL held) and rethrows the C++ exception a `relay` kept during it:
// when Python raised, and also when Python code swallowed the RelayedException.
template <class F>
auto callPython(F&& call) -> decltype(call()) {
  (void)detail::takeKept();  // a stale one belongs to no one
  try {
    if constexpr (std::is_void_v<decltype(call())>) {
      call();
      if (std::exception_ptr kept = detail::takeKept()) std::rethrow_exception(kept);
    } else {
      auto result = call();
      if (std::exception_ptr kept = detail::takeKept()) std::rethrow_exception(kept);
      return result;
    }
  } catch (py::error_already_set&) {
    if (std::exception_ptr kept = detail::takeKept()) std::rethrow_exception(kept);
    throw;
  }
}

// ------------------------------------------------------------------ helpers of the native modules

// The thread-local variables of libinmanta_python.so use the initial-exec model: they take static
// TLS when the module is loaded, not dynamic TLS blocks, which LeakSanitizer's thread scan misreads
// for a module loaded with dlopen() ("DTLS at 0xc20": a crash of its tracer at exit).
#define INMANTA_MODULE_TLS __attribute__((tls_model("initial-exec"))) thread_local

// Raises a Python exception of `type` from C++ code that Python called.
[[noreturn]] inline void raise(PyObject* type, const std::string& message) {
  PyErr_SetString(type, message.c_str());
  throw py::error_already_set();
}

// The class name of a Python object's type (`Result`).
inline std::string typeName(py::handle o) { return py::str(o.get_type().attr("__name__")); }

// Defines a native function whose C++ exceptions travel back to the caller of Python (`relay`).
template <class R, class... A>
void defineNative(py::module_& m, const char* name, R (*fn)(A...)) {
  m.def(name, [fn](A... args) -> R { return relay([&]() -> R { return fn(std::forward<A>(args)...); }); });
}

// Sets a thread-local pointer for a scope and puts back the one before (a render inside a
// render, a plugin called by a plugin).
template <class T>
class ScopedPointer {
 public:
  ScopedPointer(T*& slot, T* value) : slot_(slot), previous_(slot) { slot_ = value; }
  ~ScopedPointer() { slot_ = previous_; }
  ScopedPointer(const ScopedPointer&) = delete;
  ScopedPointer& operator=(const ScopedPointer&) = delete;

 private:
  T*& slot_;
  T* previous_;
};

}  // namespace inmanta::python
