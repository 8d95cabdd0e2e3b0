// The project's own shared modules (libinmanta_*.so): code with heavy dependencies that a process
// loads with dlopen() the first time it needs it, so that start-up, and a compile that needs none
// of them, never maps those libraries. They are
//   libinmanta_python.so  std::template's Jinja2 in an embedded CPython (modules/std/plugins/template_engine.h)
//   libinmanta_antlr.so  the ANTLR parser behind the fast path, for syntax errors (parse/antlr_parser.h)
//   libinmanta_rest.so   the exporter's HTTP client, cpp-httplib with OpenSSL (exporter/http_transport.h)
// Each is built beside the binary in a build tree and installed in <libdir>/inmanta; each has an
// environment variable that names it instead. This file finds and loads them; each interface
// header says what its one entry point returns.
#pragma once

#include <string>
#include <vector>

namespace inmanta::compiler {

// Where the module `fileName` may be: $`envVar` alone when set; otherwise beside the executable
// (the build tree's inmanta), in the install's library folder relative to the executable
// (<bin>/../<libdir>/inmanta) and at its configured place (<prefix>/<libdir>/inmanta), and last
// in this build tree's top folder (the test and bench executables live in its subfolders).
std::vector<std::string> sharedModuleCandidates(const std::string& fileName, const char* envVar);

// A module loaded, or why not.
struct SharedModule {
  void* entry = nullptr;  // the address of the entry point; null when loading failed
  std::string path;       // the file that was loaded
  std::string error;      // when `entry` is null: sharedModuleError(...) with the reason
};

// Loads the first of the candidates that exists with dlopen(RTLD_NOW | RTLD_LOCAL) (the module's
// own libraries stay out of the global scope) and looks up its entry point `entry`. The module
// stays loaded for the life of the process. `what` names the module in errors ("the Jinja2 engine
// of std::template").
SharedModule loadSharedModule(const std::string& what, const std::string& fileName, const char* envVar,
                              const char* entry);

// "cannot load <what> (<fileName>): <reason>", the one form of these errors.
std::string sharedModuleError(const std::string& what, const std::string& fileName, const std::string& reason);
// The error for a module whose entry point refused this binary: "... <path> was built for another
// version of inmanta (<difference>)".
std::string sharedModuleMismatch(const std::string& what, const std::string& fileName, const SharedModule& module,
                                 const std::string& difference);

}  // namespace inmanta::compiler
