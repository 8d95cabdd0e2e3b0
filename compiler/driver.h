// What `inmanta compile` does, as a library call the CLI maps to an exit code.
#pragma once

#include <ostream>
#include <string>

#include "plugin.h"

namespace inmanta::compiler {

struct CompileOptions {
  std::string projectDir;  // empty: search upwards from the current folder
  int verbosity = 0;       // -v, -vv
  bool trace = false;      // -X: also print internal details of failures
  const PluginRegistry* plugins = nullptr;  // the plugins of the modules built into the binary
  // Leave the compile's memory to the operating system at exit instead of freeing it piece by
  // piece (a command-line run ends right after; freeing takes a third of a large compile).
  bool keepMemoryAtExit = false;
};

enum class CompileStatus {
  Success = 0,
  Failed = 1,
  // The model parsed but its semantics are not implemented yet (issue #5): nothing ran.
  NotCompiled = 3,
};

// Runs a compile; diagnostics, warnings and the summary go to `err`, `std::print` output to
// `out`.
CompileStatus runCompile(const CompileOptions& options, std::ostream& out, std::ostream& err);

// The summary header: the text framed by '=' to 79 columns.
std::string banner(const std::string& text);

}  // namespace inmanta::compiler
