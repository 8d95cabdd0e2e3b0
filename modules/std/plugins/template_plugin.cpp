// std::template (spec A.8): renders a Jinja2 template with the real Jinja2. The renderer and the
// embedded CPython live in libinmanta_python.so (modules/python/jinja_engine.cpp), which this file
// loads with dlopen() on the first render in the process (template_engine.h; found as the other
// shared modules are, compiler/shared_module.h); until then no Python is mapped, and a process
// that renders no template never loads it.
#include <atomic>
#include <filesystem>
#include <string>
#include <system_error>

#include "compiler/shared_module.h"
#include "modules/std/plugins/std_support.h"
#include "modules/std/plugins/template_engine.h"

#ifndef INMANTA_PYTHON_MODULE_NAME
#error "INMANTA_PYTHON_MODULE_NAME must be defined"
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

// The outcome of loading the module, once per process: the engine, or why there is none.
struct Loaded {
  TemplateEngine* engine = nullptr;
  std::string error;
};

std::atomic<bool> loadAttempted = false;

Loaded load() {
  loadAttempted = true;
  const std::string what = "the Jinja2 engine of std::template";
  compiler::SharedModule module =
      compiler::loadSharedModule(what, INMANTA_PYTHON_MODULE_NAME, "INMANTA_PYTHON_MODULE", kTemplateEngineEntry);
  if (module.entry == nullptr) return {nullptr, module.error};
  using Entry = TemplateEngine* (*)(int, const TemplateHost*);
  TemplateEngine* engine = reinterpret_cast<Entry>(module.entry)(kTemplateEngineAbi, &host);
  if (engine == nullptr)
    return {nullptr,
            compiler::sharedModuleMismatch(what, INMANTA_PYTHON_MODULE_NAME, module,
                                           "engine interface " + std::to_string(kTemplateEngineAbi) + " expected")};
  return {engine, {}};
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
