// Modules' own Python code (their `plugins/` packages): plugins, resource types, dependency
// managers and export hooks written in Python, run by the embedded CPython of
// libinmanta_python.so (modules/python/module_code.cpp). The compiler loads that module with
// dlopen() only when an imported module has Python code, so a compile of a model whose modules
// have none starts no Python.
//
// Both sides include this header. The shared module links no compiler library: it reaches the
// compiler through the virtual calls of ModuleCodeHost and PluginContext, inline code and
// exceptions only.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/plugin.h"
#include "compiler/resource_types.h"
#include "compiler/runtime/instance.h"

namespace inmanta::compiler {

// Changed whenever this header or a type it passes changes shape: a shared module built against
// another version is refused instead of called.
inline constexpr int kModuleCodeAbi = 5;  // 5: Value has an opaque kind (python_object.h)
// The shared module's entry point, looked up with dlsym().
inline constexpr const char* kModuleCodeEntry = "inmanta_module_code";

// An imported module whose plugins/ folder holds Python code.
struct PythonModule {
  std::string name;  // the name imports use: `ip`
  std::string dir;   // its folder
};

// Where the code runs and what it may read.
struct ModuleCodeSettings {
  std::string projectDir;
  // Extra folders for the Python path, after our own `inmanta` package and before the system's:
  // the project's virtual environment's site-packages.
  std::vector<std::string> pythonPath;
  // The other modules of the module path, which module code may import without the model
  // importing them (`from inmanta_plugins.other import x`), as the reference's module finder
  // allows.
  std::vector<PythonModule> available;
};

// An `@export` hook (`inmanta export -e NAME`, or the settings' config.export list).
struct ExportHook {
  std::string name;
  std::vector<std::string> types;  // the entities whose instances it is given
  // Runs the hook after the resources are made; files it uploads go to `sink`. Throws
  // ResourceError with the hook's failure.
  std::function<void(const std::vector<runtime::Instance*>& instances, ExportSink& sink)> run;
};

// The modules' handlers (`@provider` classes), which the agent of `inmanta deploy` runs.
struct PythonHandlers {
  std::vector<std::string> types;  // the resource types that have one
  // One handler call; request and answer are JSON texts (inmanta._host.run_handler: the request
  // {"resource": {"id": rvid, attributes…}, "dry_run", "action": "execute"|"reload"}, the answer
  // {"status", "change", "changes", "logs": [{"level", "msg", "kwargs"}], "can_reload"}). A
  // handler's failure is in the answer; throws std::runtime_error only when the call itself
  // cannot be made. Callable from any thread.
  std::function<std::string(const std::string& request)> run;
};

// What the modules' Python code adds to a compile. Destroyed before the compile's model.
class ModuleCode {
 public:
  virtual ~ModuleCode() = default;
  std::vector<PluginSpec> pluginSpecs;  // the Python plugins, in definition order
  PluginRegistry plugins;               // the same, registered by the compiler
  ResourceTypeRegistry resourceTypes;   // the @resource types and the @dependency_manager hooks
  std::map<std::string, ExportHook> exportHooks;
  PythonHandlers handlers;
};

// The out-of-line code of the compiler the shared module needs, implemented by the compiler.
class ModuleCodeHost {
 public:
  virtual ~ModuleCodeHost() = default;
  virtual std::string repr(const runtime::Value& v) const = 0;
  virtual std::string display(const runtime::InstanceBase& instance) const = 0;
  // Reading the model after the compile (the export phase): the attribute of an instance, with
  // `found` false when the entity has no such attribute and `optionalEmpty` true for an optional
  // relation without value.
  struct Read {
    runtime::Value value;
    bool found = true;
    bool optionalEmpty = false;
  };
  virtual Read readAttribute(const runtime::InstanceBase& instance, std::string_view name) const = 0;
  virtual std::string entityName(const runtime::InstanceBase& instance) const = 0;
  // Whether the instance's entity is `entity` or a subtype of it.
  virtual bool isA(const runtime::InstanceBase& instance, std::string_view entity) const = 0;
  // The direct parents of an entity (`std::File`: `std::PurgeableResource`, ...), by full name;
  // nothing when no entity has that name (or before the model is defined).
  virtual std::optional<std::vector<std::string>> parents(std::string_view entity) const = 0;
  // An entity's own attributes and relation ends, in declaration order (the reference's
  // Entity.get_attributes(), which export hooks such as graph's read); nothing when no entity has
  // that name (or before the model is defined).
  struct AttributeInfo {
    std::string name;
    std::string type;  // as the model writes it: `string`, `int[]`, `string?`; a relation's entity
    bool relation = false;
    std::int64_t low = 0;              // relations: the multiplicity
    std::optional<std::int64_t> high;  // nullopt: no upper bound
    std::string otherEnd;              // a bidirectional relation's name on the other entity
  };
  virtual std::optional<std::vector<AttributeInfo>> attributes(std::string_view entity) const = 0;
  // The full names of every entity of the model.
  virtual std::vector<std::string> entities() const = 0;
  // Called by the compiler once the model is defined (the entities `parents` reads).
  virtual void setModel(const model::Model* model) = 0;
  // A setting of the .inmanta files / environment (`config`, `environment`), or nothing.
  virtual std::optional<std::string> setting(std::string_view section, std::string_view key) const = 0;
  // The file of a location, as the compile's messages name it, and its line.
  virtual std::string locationFile(SourceLocation at) const = 0;
  // A log line of a module's Python logger (`inmanta_plugins.ip`, "WARNING"), by verbosity.
  virtual void log(std::string_view logger, std::string_view level, const std::string& message) const = 0;
};

// Loads modules' Python code (implemented by the shared module).
class ModuleCodeLoader {
 public:
  virtual ~ModuleCodeLoader() = default;
  // Imports every module's plugins/ package as `inmanta_plugins.<name>` and reads what it
  // registers. `host` must outlive the returned code. Throws CompileError: the reference's
  // "Unable to load all plug-ins for module M" located in the Python file (`addFile` makes a
  // file known to the compile's sources and gives its id), or why Python could not start.
  virtual std::unique_ptr<ModuleCode> load(const std::vector<PythonModule>& modules, const ModuleCodeSettings& settings,
                                           const ModuleCodeHost& host,
                                           const std::function<FileId(const std::string& path)>& addFile) = 0;
  // True once the shared module's CPython has been started in this process.
  virtual bool pythonStarted() const = 0;
};

// The modules of a compile that have Python code: `dir`/plugins holds a `.py` file. `builtIn`
// says which modules the binary implements itself (std), whose Python code is never loaded.
std::vector<PythonModule> modulesWithPythonCode(const std::vector<PythonModule>& imported,
                                                const std::function<bool(const std::string&)>& builtIn);

// The site-packages folders of the virtual environment `<dir>/.env` (a project's, where `inmanta
// project install` puts what the modules' requirements.txt name, or an executor's code set's).
std::vector<std::string> projectSitePackages(const std::string& dir);

// The loader of this process (the shared module, loaded on first use). Throws CompileError when
// it cannot be loaded.
ModuleCodeLoader& moduleCodeLoader();

// The compiler's ModuleCodeHost; `log` shows a module's log lines.
std::unique_ptr<ModuleCodeHost> makeModuleCodeHost(
    const SourceManager& sources,
    std::function<std::optional<std::string>(std::string_view section, std::string_view key)> settings,
    std::function<void(std::string_view logger, std::string_view level, const std::string& message)> log);

}  // namespace inmanta::compiler

// The shared module's one export: its loader, or null when `abi` is not its kModuleCodeAbi.
extern "C" inmanta::compiler::ModuleCodeLoader* inmanta_module_code(int abi);
