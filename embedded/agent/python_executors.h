// The modules' Python handlers in `inmanta server` (orchestrator spec §7.6): a version stores the
// module code it was exported with (put_version's module_version_info, the files in the file store).
// For a resource whose type no C++ handler serves, the server writes that code out once per set of
// module versions and runs it in an executor process of its own (`inmanta executor --code DIR`,
// cli/executor.cpp), which answers handler calls as JSON lines. One process per code set keeps the
// versions' code apart; a call that does not finish in time stops its process (a hung Python
// handler cannot be stopped otherwise), and the next call starts a new one.
//
// The modules' Python requirements are installed by the executor into a virtual environment of its
// code set, with the version's pip settings (`<code set>/.env`), as the reference's executors do.
// std's code is never loaded: std's types have their C++ handlers (std_handlers.h).
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "embedded/handlers/handler.h"

namespace inmanta::agent {

struct PythonExecutorsConfig {
  std::string codeRoot;    // where the code sets are written: <state_dir>/executors
  std::string executable;  // the `inmanta` binary
  std::chrono::milliseconds callTimeout{std::chrono::minutes(10)};
  // loading the code, with the pip install of its requirements the first time
  std::chrono::milliseconds startTimeout{std::chrono::minutes(10)};
  std::size_t maxProcesses = 8;  // idle ones beyond it are stopped, least recently used first
  // A code set that cannot load (an import error, a pip install that failed: perhaps the index was
  // unreachable) is tried again after this long, not for every resource in between.
  std::chrono::milliseconds retryFailedAfter{std::chrono::minutes(1)};
};

// What a version says of its module code: put_version's module_version_info and pip_config.
struct VersionCode {
  nlohmann::json modules;    // module_version_info (null: none)
  nlohmann::json pipConfig;  // null: pip's defaults
};

// Where a file of the store comes from, by its hash.
using FileSource = std::function<std::optional<std::string>(const std::string& hash)>;

// The folder a code set is written to, relative to its root: `<module>/plugins/<a>/<b>/__init__.py`
// for the Python module `inmanta_plugins.<module>.a.b` (every Python module a package, as the
// reference's executors lay them out). nullopt when the name is not a safe dotted name under
// inmanta_plugins.<module>.
std::optional<std::string> codeFilePath(const std::string& module, const std::string& pythonName, bool byteCode);

class PythonExecutors {
 public:
  PythonExecutors(PythonExecutorsConfig config, FileSource files);
  ~PythonExecutors();  // stops every process
  PythonExecutors(const PythonExecutors&) = delete;
  PythonExecutors& operator=(const PythonExecutors&) = delete;

  // The handler of `type` from the module code of a version (its module_version_info), or nullptr
  // with `why` set: no module code, the code cannot be written or loaded (the reason), or it has
  // no handler for the type. `files`: the file store the handler's get_file reads (may be null).
  std::unique_ptr<handlers::Handler> handlerFor(const VersionCode& code, const std::string& type,
                                                handlers::FileStore* files, std::string& why);

  class Process;

 private:
  std::shared_ptr<Process> processFor(const VersionCode& code, std::string& why);
  // Writes the code set out under codeRoot/<key> unless it is there — the modules' files, and
  // executor.json with their requirements and the pip settings —; the folder, or nullopt with why.
  std::optional<std::string> writeCode(const std::string& key, const nlohmann::json& codeSet, std::string& why);
  void stopIdleBeyondLimit();

  PythonExecutorsConfig config_;
  FileSource files_;
  std::mutex mutex_;                                           // the maps below; never held while a process starts
  std::map<std::string, std::shared_ptr<Process>> processes_;  // by code key
  struct Failure {
    std::string why;
    std::chrono::steady_clock::time_point at;
  };
  std::map<std::string, Failure> failures_;                      // code key → why it could not load, and when
  std::map<std::string, std::shared_ptr<std::mutex>> starting_;  // code key → held while it starts
  std::uint64_t uses_ = 0;
};

}  // namespace inmanta::agent
