#include "compiler/shared_module.h"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <system_error>

#ifndef INMANTA_MODULE_INSTALL_SUBDIR
#error "INMANTA_MODULE_INSTALL_SUBDIR, INMANTA_MODULE_INSTALL_DIR and INMANTA_MODULE_BUILD_DIR must be defined"
#endif

namespace inmanta::compiler {

namespace fs = std::filesystem;

std::vector<std::string> sharedModuleCandidates(const std::string& fileName, const char* envVar) {
  if (const char* env = std::getenv(envVar); env != nullptr && *env != '\0') return {env};
  std::vector<std::string> out;
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    out.push_back((exe.parent_path() / fileName).string());
    out.push_back((exe.parent_path().parent_path() / INMANTA_MODULE_INSTALL_SUBDIR / fileName).string());
  }
  out.push_back((fs::path(INMANTA_MODULE_INSTALL_DIR) / fileName).string());
  out.push_back((fs::path(INMANTA_MODULE_BUILD_DIR) / fileName).string());
  return out;
}

std::string sharedModuleError(const std::string& what, const std::string& fileName, const std::string& reason) {
  return "cannot load " + what + " (" + fileName + "): " + reason;
}

std::string sharedModuleMismatch(const std::string& what, const std::string& fileName, const SharedModule& module,
                                 const std::string& difference) {
  return sharedModuleError(what, fileName,
                           module.path + " was built for another version of inmanta (" + difference + ")");
}

SharedModule loadSharedModule(const std::string& what, const std::string& fileName, const char* envVar,
                              const char* entry) {
  SharedModule result;
  std::vector<std::string> candidates = sharedModuleCandidates(fileName, envVar);
  for (const std::string& c : candidates) {
    std::error_code ec;
    if (fs::exists(c, ec)) {
      result.path = c;
      break;
    }
  }
  if (result.path.empty()) {
    std::string looked;
    for (const std::string& c : candidates) looked += (looked.empty() ? "" : ", ") + c;
    result.error =
        sharedModuleError(what, fileName, "not found (looked for " + looked + "); " + envVar + " may name it");
    return result;
  }
  void* handle = dlopen(result.path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* reason = dlerror();
    result.error = sharedModuleError(what, fileName, reason != nullptr ? reason : result.path + ": dlopen failed");
    return result;
  }
  result.entry = dlsym(handle, entry);
  if (result.entry == nullptr) result.error = sharedModuleError(what, fileName, result.path + " has no " + entry);
  return result;  // the module stays loaded for the life of the process
}

}  // namespace inmanta::compiler
