#include "compiler/module_code.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "compiler/diag/diagnostic.h"
#include "compiler/shared_module.h"

#ifndef INMANTA_PYTHON_MODULE_NAME
#error "INMANTA_PYTHON_MODULE_NAME must name the shared module of modules' Python code"
#endif

namespace inmanta::compiler {

namespace fs = std::filesystem;

namespace {

// Whether a folder holds a `.py` file, at any depth.
bool holdsPython(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return false;
  for (fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
       !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".py" && it->is_regular_file(ec)) return true;
  return false;
}

class CompilerHost final : public ModuleCodeHost {
 public:
  CompilerHost(const SourceManager& sources,
               std::function<std::optional<std::string>(std::string_view, std::string_view)> settings,
               std::function<void(std::string_view, std::string_view, const std::string&)> log)
      : sources_(sources), settings_(std::move(settings)), log_(std::move(log)) {}

  std::optional<std::string> setting(std::string_view section, std::string_view key) const override {
    if (!settings_) return std::nullopt;
    return settings_(section, key);
  }

  std::optional<std::vector<std::string>> parents(std::string_view entity) const override {
    const model::Entity* found = entityNamed(entity);
    if (found == nullptr) return std::nullopt;
    std::vector<std::string> out;
    for (const model::Entity* parent : found->parents) out.push_back(parent->fullName);
    return out;
  }

  std::optional<std::vector<AttributeInfo>> attributes(std::string_view entity) const override {
    const model::Entity* found = entityNamed(entity);
    if (found == nullptr) return std::nullopt;
    std::vector<AttributeInfo> out;
    for (const model::Attribute* a : found->own) {
      AttributeInfo info;
      info.name = a->name;
      info.type = a->type != nullptr ? a->type->name() : "any";
      info.relation = a->isRelation;
      if (a->isRelation) {
        info.low = a->multiplicity.low;
        info.high = a->multiplicity.high;
        if (a->inverse != nullptr) info.otherEnd = a->inverse->name;
      }
      out.push_back(std::move(info));
    }
    return out;
  }

  std::vector<std::string> entities() const override {
    std::vector<std::string> out;
    if (model_ == nullptr) return out;
    for (const auto& e : model_->entities()) out.push_back(e->fullName);
    return out;
  }

  void setModel(const model::Model* model) override { model_ = model; }

  std::string locationFile(SourceLocation at) const override {
    if (at.file == kNoFile || at.file >= sources_.size()) return {};
    return sources_.file(at.file).path;
  }

  std::string repr(const runtime::Value& v) const override { return runtime::repr(v); }
  std::string display(const runtime::InstanceBase& instance) const override { return instance.display(); }

  Read readAttribute(const runtime::InstanceBase& base, std::string_view name) const override {
    const auto& instance = static_cast<const runtime::Instance&>(base);
    Read out;
    runtime::Variable* slot = instance.slot(name);
    if (slot == nullptr) {
      out.found = false;
      return out;
    }
    if (!slot->isReady()) {
      out.value = slot->current();
      return out;
    }
    try {
      out.value = slot->get();
    } catch (const CompileError&) {
      out.optionalEmpty = true;  // an optional relation frozen without value
    }
    return out;
  }

  std::string entityName(const runtime::InstanceBase& base) const override {
    return static_cast<const runtime::Instance&>(base).entity->fullName;
  }

  bool isA(const runtime::InstanceBase& base, std::string_view entity) const override {
    for (const model::Entity* e : static_cast<const runtime::Instance&>(base).entity->lineage())
      if (e->fullName == entity) return true;
    return false;
  }

  void log(std::string_view logger, std::string_view level, const std::string& message) const override {
    if (log_) log_(logger, level, message);
  }

 private:
  const model::Entity* entityNamed(std::string_view entity) const {
    if (model_ == nullptr) return nullptr;
    size_t sep = entity.rfind("::");
    if (sep == std::string_view::npos) return nullptr;
    const model::Namespace* ns = model_->findNamespace(entity.substr(0, sep));
    if (ns == nullptr) return nullptr;
    auto it = ns->definitions.find(entity.substr(sep + 2));
    return it == ns->definitions.end() ? nullptr : it->second.entity();
  }

  const model::Model* model_ = nullptr;
  const SourceManager& sources_;
  std::function<std::optional<std::string>(std::string_view, std::string_view)> settings_;
  std::function<void(std::string_view, std::string_view, const std::string&)> log_;
};

ModuleCodeLoader* loadLoader(std::string& error) {
  const std::string what = "the Python runtime of modules' plugins";
  SharedModule module = loadSharedModule(what, INMANTA_PYTHON_MODULE_NAME, "INMANTA_PYTHON_MODULE", kModuleCodeEntry);
  if (module.entry == nullptr) {
    error = module.error;
    return nullptr;
  }
  using Entry = ModuleCodeLoader* (*)(int);
  ModuleCodeLoader* loader = reinterpret_cast<Entry>(module.entry)(kModuleCodeAbi);
  if (loader == nullptr)
    error = sharedModuleMismatch(what, INMANTA_PYTHON_MODULE_NAME, module,
                                 "module code interface " + std::to_string(kModuleCodeAbi) + " expected");
  return loader;
}

}  // namespace

std::vector<PythonModule> modulesWithPythonCode(const std::vector<PythonModule>& imported,
                                                const std::function<bool(const std::string&)>& builtIn) {
  std::vector<PythonModule> out;
  for (const PythonModule& m : imported)
    if (!builtIn(m.name) && holdsPython(fs::path(m.dir) / "plugins")) out.push_back(m);
  return out;
}

ModuleCodeLoader& moduleCodeLoader() {
  static std::string error;
  static ModuleCodeLoader* loader = loadLoader(error);
  if (loader == nullptr) throw CompileError(Diagnostic(ErrorKind::CompilerException, error));
  return *loader;
}

std::vector<std::string> projectSitePackages(const std::string& projectDir) {
  std::vector<std::string> out;
  std::error_code ec;
  std::filesystem::path lib = std::filesystem::path(projectDir) / ".env" / "lib";
  for (std::filesystem::directory_iterator it(lib, ec), end; !ec && it != end; it.increment(ec)) {
    std::filesystem::path site = it->path() / "site-packages";
    if (it->path().filename().string().rfind("python3", 0) == 0 && std::filesystem::is_directory(site, ec))
      out.push_back(site.string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::unique_ptr<ModuleCodeHost> makeModuleCodeHost(
    const SourceManager& sources,
    std::function<std::optional<std::string>(std::string_view section, std::string_view key)> settings,
    std::function<void(std::string_view logger, std::string_view level, const std::string& message)> log) {
  return std::make_unique<CompilerHost>(sources, std::move(settings), std::move(log));
}

}  // namespace inmanta::compiler
