// Executing a defined model (spec 4): what the driver gives the evaluator and gets back. The
// evaluator itself is private to compiler/exec/ (evaluator_impl.h).
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/diag/diagnostic.h"
#include "compiler/model/model.h"
#include "compiler/plugin.h"
#include "compiler/resource_types.h"
#include "compiler/runtime/instance.h"
#include "compiler/source/source.h"

namespace inmanta::compiler::exec {

struct ExecOptions {
  std::ostream* out = nullptr;  // std::print
  WarningSink warn;
  std::string projectDir;
  size_t maxIterations = 100000;
  // Asked every kMemoryCheckEvery instances with the number made so far: the message of a
  // compile that has grown past its memory limit, which then stops with a CompilerException at
  // the latest constructor (a model that constructs instances without end never completes), or
  // nothing. Empty: no limit (the driver reads the limit and the process's size).
  std::function<std::optional<std::string>(size_t instances)> memoryExceeded;
  static constexpr size_t kMemoryCheckEvery = size_t(1) << 16;
  // What plugins may read and call (PluginContext::setting, server, resourceId, log); each may
  // be empty: no settings, no server, no resource types, no log.
  std::function<std::optional<std::string>(std::string_view section, std::string_view key)> settings;
  ServerConnection* server = nullptr;
  const ResourceTypeRegistry* resourceTypes = nullptr;
  // (logger: the reference's logger name, e.g. inmanta_plugins.std for the std plugins)
  std::function<void(std::string_view logger, std::string_view level, const std::string& message)> log;
  // project.yml's relation_precedence_policy rules (`A.x before B.y`)
  std::vector<std::string> relationPrecedencePolicy;
};

class Evaluator;

// One run of a defined model: the statements emitted, the scheduler run, the final checks. It
// owns what the run made (the instances the exporter reads).
class Execution {
 public:
  Execution(model::Model& model, const PluginRegistry& plugins, const SourceManager& sources, ExecOptions options);
  ~Execution();
  Execution(const Execution&) = delete;
  Execution& operator=(const Execution&) = delete;
  // Runs the model. Throws CompileError for the model's errors.
  void run();
  // Every instance made by the run, in creation order (read by the exporter).
  const std::vector<runtime::Instance*>& instances() const;
  // The facts plugins could not get from the server, in the order they were asked.
  const std::vector<UnknownParameter>& unknownParameters() const;
  // Leaves the run's memory to the operating system at exit instead of freeing it piece by piece
  // (a command-line compile ends right after).
  void keepMemoryAtExit() { owned_ = false; }

 private:
  Evaluator* evaluator_;
  bool owned_ = true;  // (false: left to the operating system at exit)
};

}  // namespace inmanta::compiler::exec
