// What `inmanta compile` does, as a library call the CLI maps to an exit code.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "compiler/module_code.h"
#include "compiler/plugin.h"
#include "compiler/project/project.h"
#include "compiler/resource_types.h"
#include "compiler/runtime/instance.h"

namespace inmanta::compiler {

// What the export phase sees of a successful compile.
struct CompiledModel {
  const std::vector<runtime::Instance*>& instances;
  const ProjectConfig& project;
  const std::vector<UnknownParameter>& unknowns;  // facts the server could not give
  // The resource types of the compile: the built-in modules' (CompileOptions::resourceTypes)
  // and those the modules' Python code registers; null when neither is known.
  const ResourceTypeRegistry* resourceTypes = nullptr;
  // The export hooks of the modules' Python code (`@export`), by name; null when there is none.
  const std::map<std::string, ExportHook>* exportHooks = nullptr;
  // The modules' Python handlers; null when no module has Python code.
  const PythonHandlers* handlers = nullptr;
};

struct CompileOptions {
  std::string projectDir;                   // empty: search upwards from the current folder
  std::string mainFile;                     // the model's main file; empty: main.cf
  int verbosity = 0;                        // -v, -vv
  bool trace = false;                       // -X: also print internal details of failures
  const PluginRegistry* plugins = nullptr;  // the plugins of the modules built into the binary
  // The resource types of those modules: std::getfact computes resource ids with them.
  const ResourceTypeRegistry* resourceTypes = nullptr;
  // The .inmanta settings plugins read (std::environment, server_*); empty: none.
  std::function<std::optional<std::string>(std::string_view section, std::string_view key)> settings;
  // The server plugins ask (std::getfact); null: none, a call fails as a refused connection.
  ServerConnection* server = nullptr;
  // Leave the compile's memory to the operating system at exit instead of freeing it piece by
  // piece (a command-line run ends right after; freeing takes a third of a large compile).
  bool keepMemoryAtExit = false;
  // Runs after a successful compile, before the summary (the export phase); a returned message
  // ends the run with EXPORT FAILURE and `Error: <message>`.
  std::function<std::optional<std::string>(const CompiledModel&)> afterCompile;
  // The `= SUCCESS =` banner at the end (`inmanta deploy` ends with its own report instead).
  bool successBanner = true;
  // Colour on the diagnostics, warnings and banners (the CLI decides it for standard error).
  bool color = false;
  // --json: the warnings and errors as one JSON document (compiler/diag/diagnostics_json.h)
  // written here at the end, and neither they nor the banners as text on `err`; null: as text.
  std::ostream* diagnosticsJson = nullptr;
};

enum class CompileStatus {
  Success = 0,
  Failed = 1,
  // Compiled, but the afterCompile phase failed (exit status 1).
  ExportFailed = 4,
};

// Runs a compile; diagnostics, warnings and the summary go to `err`, `std::print` output to
// `out`.
CompileStatus runCompile(const CompileOptions& options, std::ostream& out, std::ostream& err);

// The summary header (export spec 5.4): `= TEXT =` framed by '=' to 80 columns, rounded down
// to the same number of '=' on both sides (79 columns for SUCCESS, 80 for EXPORT FAILURE).
std::string banner(const std::string& text);

// `NAME(15)LEVEL(8)message`, the reference's console log line (`%(name)-15s%(levelname)-8s`).
std::string logLine(const std::string& logger, const std::string& level, const std::string& message);

}  // namespace inmanta::compiler
