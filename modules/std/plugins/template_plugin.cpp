// std::template (spec A.8): renders a Jinja2 template with the real Jinja2. The renderer and the
// embedded CPython live in libinmanta_jinja.so (modules/python/jinja_engine.cpp), which this file
// loads with dlopen() on the first render in the process (template_engine.h); until then no
// Python is mapped, and a process that renders no template never loads it.
#include <dlfcn.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "std_support.h"
#include "template_engine.h"

#ifndef INMANTA_JINJA_MODULE_NAME
#error "INMANTA_JINJA_MODULE_NAME, INMANTA_JINJA_INSTALL_SUBDIR, INMANTA_JINJA_INSTALL_DIR and INMANTA_JINJA_BUILD_PATH must be defined"
#endif

namespace inmanta::stdmodule {

namespace {

namespace fs = std::filesystem;

// The compiler code the module calls back (it links no compiler library).
class Host final : public TemplateHost {
 public:
  std::string repr(const Value& v) const override { return runtime::repr(v); }
  std::string str(const Value& v) const override { return runtime::str(v); }
  std::string printForm(const Value& v) const override { return runtime::printForm(v); }
  bool pyEquals(const Value& a, const Value& b) const override { return runtime::pyEquals(a, b); }
  std::string proxyTypeName(const Value& v) const override { return stdmodule::proxyTypeName(v); }
  const Value* find(const ValueDict& dict, std::string_view key) const override { return dict.find(key); }
  std::string templatesFolder(PluginContext& ctx, const std::string& prefix) const override {
    if (prefix.empty()) return pathJoin(ctx.projectDir(), "templates");
    std::string dir = ctx.moduleDir(prefix);
    if (dir.empty()) return {};
    std::string folder = pathJoin(dir, "templates");
    std::error_code ec;
    return fs::is_directory(folder, ec) ? folder : std::string();
  }
};

const Host host;

// Where the module may be: $INMANTA_JINJA_MODULE alone when set; otherwise beside the executable
// (the build tree's inmanta), in the install's library folder relative to the executable and at
// its configured place, and last where this build tree puts it (the test and bench executables
// in its subfolders).
std::vector<std::string> moduleCandidates() {
  if (const char* env = std::getenv("INMANTA_JINJA_MODULE"); env != nullptr && *env != '\0') return {env};
  std::vector<std::string> out;
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    out.push_back((exe.parent_path() / INMANTA_JINJA_MODULE_NAME).string());
    out.push_back((exe.parent_path().parent_path() / INMANTA_JINJA_INSTALL_SUBDIR / INMANTA_JINJA_MODULE_NAME).string());
  }
  out.push_back((fs::path(INMANTA_JINJA_INSTALL_DIR) / INMANTA_JINJA_MODULE_NAME).string());
  out.push_back(INMANTA_JINJA_BUILD_PATH);
  return out;
}

// The outcome of loading the module, once per process: the engine, or why there is none.
struct Loaded {
  TemplateEngine* engine = nullptr;
  std::string error;
};

std::atomic<bool> loadAttempted = false;

Loaded load() {
  loadAttempted = true;
  std::vector<std::string> candidates = moduleCandidates();
  std::string path;
  for (const std::string& c : candidates) {
    std::error_code ec;
    if (fs::exists(c, ec)) {
      path = c;
      break;
    }
  }
  const std::string what = "cannot load the Jinja2 engine of std::template (" INMANTA_JINJA_MODULE_NAME "): ";
  if (path.empty()) {
    std::string looked;
    for (const std::string& c : candidates) looked += (looked.empty() ? "" : ", ") + c;
    return {nullptr, what + "not found (looked for " + looked + "); INMANTA_JINJA_MODULE may name it"};
  }
  // RTLD_LOCAL: the module's copy of pybind11 and its Python stay out of the global scope
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* reason = dlerror();
    return {nullptr, what + (reason != nullptr ? reason : path + ": dlopen failed")};
  }
  using Entry = TemplateEngine* (*)(int, const TemplateHost*);
  auto entry = reinterpret_cast<Entry>(dlsym(handle, kTemplateEngineEntry));
  if (entry == nullptr) return {nullptr, what + path + " has no " + kTemplateEngineEntry};
  TemplateEngine* engine = entry(kTemplateEngineAbi, &host);
  if (engine == nullptr)
    return {nullptr, what + path + " was built for another version of inmanta (engine interface " +
                         std::to_string(kTemplateEngineAbi) + " expected)"};
  return {engine, {}};  // the module stays loaded for the life of the process
}

const Loaded& loaded() {
  static const Loaded result = load();
  return result;
}

}  // namespace

Value renderTemplate(PluginContext& context, const std::string& path, const Kwargs& kwargs) {
  const Loaded& l = loaded();
  if (l.engine == nullptr) throw PluginFailure("ImportError", l.error);
  return l.engine->render(context, path, kwargs);
}

bool templateEngineLoaded() { return loadAttempted && loaded().engine != nullptr; }

bool templatePythonStarted() { return templateEngineLoaded() && loaded().engine->pythonStarted(); }

}  // namespace inmanta::stdmodule
