// The line between std::template (template_plugin.cpp in inmanta_std, free of Python) and its
// Jinja2 renderer (modules/python/jinja_engine.cpp), which lives with the embedded CPython in
// libinmanta_python.so. The first render in a process loads that module with dlopen(), so no
// executable links libpython and a process that renders no template never maps it.
//
// Both sides include this header. The module links no compiler library: it reaches the compiler
// through virtual calls (PluginContext, TemplateHost), inline code and exceptions only, and its
// link (-Wl,--no-undefined) fails if it needs anything else.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "compiler/plugin.h"

namespace inmanta::stdmodule {

// Changed whenever this header or a type it passes (Value, PluginContext, the plugin exceptions)
// changes shape: a module built against another version is refused instead of called.
inline constexpr int kTemplateEngineAbi = 3;  // 3: Value has an opaque kind
// The module's entry point (below), looked up with dlsym().
inline constexpr const char* kTemplateEngineEntry = "inmanta_jinja_engine";

// The out-of-line code of the compiler and of inmanta_std that the renderer needs, implemented
// by inmanta_std (each is the function of the same name, see value.h and std_support.h).
class TemplateHost {
 public:
  virtual ~TemplateHost() = default;
  virtual std::string repr(const compiler::runtime::Value& v) const = 0;
  virtual std::string str(const compiler::runtime::Value& v) const = 0;
  virtual std::string printForm(const compiler::runtime::Value& v) const = 0;
  virtual bool pyEquals(const compiler::runtime::Value& a, const compiler::runtime::Value& b) const = 0;
  virtual std::string proxyTypeName(const compiler::runtime::Value& v) const = 0;
  virtual const compiler::runtime::Value* find(const compiler::runtime::ValueDict& dict,
                                               std::string_view key) const = 0;
  // Where `<prefix>/file` templates come from: the module's templates/ folder, the project's for
  // the empty prefix; empty when there is none (reference _get_template_engine).
  virtual std::string templatesFolder(compiler::PluginContext& ctx, const std::string& prefix) const = 0;
};

// The renderer, one per process, never destroyed.
class TemplateEngine {
 public:
  virtual ~TemplateEngine() = default;
  // The Jinja2 template `path` (`module/file`, `./` already resolved); without kwargs its names
  // resolve in the caller's scope. Throws what std::template's plugin throws: CompileError
  // (NotFoundException for an undefined name), PluginFailure named after the Python exception
  // (also when CPython cannot start or jinja2 does not load), PluginSuspend from the context.
  virtual compiler::runtime::Value render(
      compiler::PluginContext& ctx, const std::string& path,
      const std::vector<std::pair<std::string, compiler::runtime::Value>>& kwargs) = 0;
  // True once the module's CPython has been started in this process.
  virtual bool pythonStarted() const = 0;
};

}  // namespace inmanta::stdmodule

// The module's one export: its engine, or null when `abi` is not the module's kTemplateEngineAbi.
// `host` must outlive the process's use of the engine.
extern "C" inmanta::stdmodule::TemplateEngine* inmanta_jinja_engine(int abi,
                                                                    const inmanta::stdmodule::TemplateHost* host);
