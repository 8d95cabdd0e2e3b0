// One compile of a project: loading and parsing main.cf and every imported module file
// (spec 3.1). The semantic stages (issue 5) run on what this loads.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "compiler/ast/ast.h"
#include "compiler/diag/diagnostic.h"
#include "compiler/project/project.h"
#include "compiler/source/source.h"

namespace inmanta::compiler {

struct LoadedFile {
  std::string ns;      // `__config__`, `std`, `m::sub`
  std::string module;  // `__config__`, `std`, `m`
  FileId file = kNoFile;
  ast::File* tree = nullptr;
};

// Owns everything of one compile; no global state, so one process can run many.
class CompileSession {
 public:
  explicit CompileSession(ProjectConfig project, WarningSink warnings = {});

  // Parses main.cf and, transitively, every imported module file. Throws CompileError.
  void load();

  const std::vector<LoadedFile>& files() const { return files_; }
  const SourceManager& sources() const { return sources_; }
  const ProjectConfig& project() const { return project_; }
  // module.yml of every module loaded, by the name imports use (the folder name)
  const std::map<std::string, ModuleConfig>& modules() const { return modules_; }
  ast::Context& context() { return ctx_; }
  // Makes another file known to the compile's sources (a module's Python file that an error
  // points into). Throws CompileError when it cannot be read.
  FileId addSourceFile(const std::string& path) { return readFile(path); }

 private:
  // Folder of a module: the first modulepath entry that has it, then the bundled std.
  std::string findModule(const std::string& name) const;
  FileId readFile(const std::string& path);
  std::string displayPath(const std::string& path) const;
  void warnUnmetRequirements();

  ProjectConfig project_;
  WarningSink warnings_;
  SourceManager sources_;
  ast::Context ctx_;
  std::vector<LoadedFile> files_;
  std::map<std::string, ModuleConfig> modules_;
};

}  // namespace inmanta::compiler
