#include "modules/python/python_runtime.h"

#include <dlfcn.h>
#include <pybind11/embed.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <optional>

#ifndef INMANTA_PYTHON_HOME
#error "INMANTA_PYTHON_HOME must name the prefix of the CPython this library links"
#endif

namespace inmanta::python {

namespace {

std::once_flag startOnce;
std::atomic<bool> started = false;
std::atomic<bool> finalized = false;
std::optional<PythonError> startFailure;     // a failed start is not retried
PyObject* relayedType = nullptr;             // lives as long as the interpreter
INMANTA_MODULE_TLS std::exception_ptr kept;  // relay and callPython run on the same thread

void check(PyStatus status, const char* step) {
  if (PyStatus_Exception(status) != 0)
    throw PythonError("SystemError", std::string("cannot start the embedded Python (") + step +
                                         "): " + (status.err_msg != nullptr ? status.err_msg : "failed"));
}

// Registered with atexit once the interpreter runs: after main returns, nothing uses Python any
// more, so it can end cleanly (Python's own atexit hooks, flushed streams).
void finalizeAtExit() {
  if (!started || finalized) return;
  (void)PyGILState_Ensure();  // never released: the interpreter ends here
  finalized = true;
  py::finalize_interpreter();
}

// libinmanta_python.so, which links this library, is loaded with RTLD_LOCAL, and libpython with
// it. The extension modules Python imports later (markupsafe._speedups, _json, ...) do not link
// libpython: they take its symbols from the global scope, as in the python3 executable. So
// libpython joins the global scope before it starts (the handle is kept for the process).
void exposeLibpython() {
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&Py_InitializeFromConfig), &info) != 0 && info.dli_fname != nullptr)
    (void)dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL);
}

// $XDG_CACHE_HOME/inmanta/pycache, else ~/.cache/inmanta/pycache, when it exists or can be made;
// INMANTA_PYCACHE names another folder, or none when empty.
std::string pycachePrefix() {
  namespace fs = std::filesystem;
  fs::path dir;
  if (const char* own = std::getenv("INMANTA_PYCACHE"); own != nullptr) {
    if (*own == '\0') return {};
    dir = own;
  } else if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg == '/') {
    dir = fs::path(xdg) / "inmanta" / "pycache";
  } else if (const char* home = std::getenv("HOME"); home != nullptr && *home == '/') {
    dir = fs::path(home) / ".cache" / "inmanta" / "pycache";
  } else {
    return {};
  }
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (!fs::is_directory(dir, ec) || access(dir.c_str(), W_OK) != 0) return {};
  return dir.string();
}

void start() {
  exposeLibpython();
  PyPreConfig pre;
  PyPreConfig_InitIsolatedConfig(&pre);
#if defined(__SANITIZE_ADDRESS__)
  // Python's small-object arenas are mmap'ed, so LeakSanitizer cannot see the pointers kept in
  // them; with plain malloc every Python object is visible to the sanitizers
  pre.allocator = PYMEM_ALLOCATOR_MALLOC;
#endif
  check(Py_PreInitialize(&pre), "pre-initialisation");

  // Isolated: PYTHONPATH, PYTHONHOME and the user's site-packages do not change what runs; the
  // home is the prefix of the CPython we link (Debian's, whose dist-packages has python3-jinja2),
  // whatever python3 comes first on PATH
  PyConfig config;
  PyConfig_InitIsolatedConfig(&config);
  config.install_signal_handlers = 0;  // Ctrl-C stays with the compiler
  // Bytecode is cached in the user's cache folder (a mirror of the source tree: never a
  // __pycache__ in system folders or modules' plugins/), so a module's Python code and our own
  // `inmanta` package are compiled once, not on every run; without such a folder nothing is
  // written.
  std::string cache = pycachePrefix();
  config.write_bytecode = cache.empty() ? 0 : 1;
  PyStatus status = cache.empty() ? PyStatus_Ok()
                                  : PyConfig_SetBytesString(&config, &config.pycache_prefix, cache.c_str());
  if (PyStatus_Exception(status) != 0) {
    PyConfig_Clear(&config);
    check(status, "configuration");
  }
  status = PyConfig_SetBytesString(&config, &config.home, INMANTA_PYTHON_HOME);
  if (PyStatus_Exception(status) != 0) {
    PyConfig_Clear(&config);
    check(status, "configuration");
  }
  try {
    py::initialize_interpreter(&config, 0, nullptr, false);  // clears the config
  } catch (const std::exception& e) {
    throw PythonError("SystemError", std::string("cannot start the embedded Python: ") + e.what());
  }
  relayedType = PyErr_NewException("inmanta.RelayedException", PyExc_Exception, nullptr);
  started = true;
  std::atexit(finalizeAtExit);
  (void)PyEval_SaveThread();  // the GIL is free until a Gil takes it
}

}  // namespace

Gil::Gil() {
  std::call_once(startOnce, [] {
    try {
      start();
    } catch (const PythonError& e) {
      startFailure = e;
    }
  });
  if (startFailure) throw *startFailure;
  if (finalized) throw PythonError("RuntimeError", "the embedded Python has already been finalised");
  state_ = PyGILState_Ensure();
}

Gil::~Gil() { PyGILState_Release(state_); }

bool running() { return started && !finalized; }

bool everStarted() { return started; }

PythonError describe(const py::error_already_set& error) {
  std::string type = "Exception";
  std::string message;
  try {
    type = py::str(error.type().attr("__name__"));
    message = py::str(error.value());
  } catch (const py::error_already_set&) {
    message = error.what();  // str() itself failed
  }
  return PythonError(std::move(type), std::move(message));
}

namespace detail {

void keep(std::exception_ptr error) { kept = std::move(error); }

std::exception_ptr takeKept() { return std::exchange(kept, nullptr); }

void raiseRelayed() {
  PyErr_SetString(relayedType, "a C++ exception is on its way to the caller of Python");
  throw py::error_already_set();
}

}  // namespace detail

}  // namespace inmanta::python
