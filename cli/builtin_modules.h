// The modules compiled into the binary (today std): their plugins and resource types, registered
// once for every command that compiles.
#pragma once

#include "cli/command.h"
#include "compiler/plugin.h"
#include "compiler/resource_types.h"
#include "exporter/export.h"

namespace inmanta::cli {

// Registers the plugins and the resource types of the built-in modules.
void registerBuiltinModules(compiler::PluginRegistry& plugins, compiler::ResourceTypeRegistry& types);

// The built-in modules of one compile, and what `export` and `deploy` set up before theirs: the
// global flags, the modules registered, huge pages, the compile's memory left to the system at exit.
struct BuiltinModules {
  compiler::PluginRegistry plugins;
  compiler::ResourceTypeRegistry types;
};
void prepareExportCompile(exporter::ExportOptions& options, BuiltinModules& modules, const GlobalOptions& globals);

}  // namespace inmanta::cli
