#include "compiler/compile.h"

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "compiler/parse/parser.h"

namespace fs = std::filesystem;

namespace inmanta::compiler {

CompileSession::CompileSession(ProjectConfig project, WarningSink warnings)
    : project_(std::move(project)), warnings_(std::move(warnings)) {}

std::string CompileSession::displayPath(const std::string& path) const {
  fs::path rel = fs::path(path).lexically_relative(project_.dir);
  std::string r = rel.string();
  if (!r.empty() && r.rfind("..", 0) != 0) return "./" + r;
  return path;
}

FileId CompileSession::readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw CompileError(Diagnostic(ErrorKind::CompilerException, "cannot read " + displayPath(path)));
  // read in one piece (a stream copy through a string stream copies the text twice)
  std::string raw;
  in.seekg(0, std::ios::end);
  std::streamoff size = in.tellg();
  in.seekg(0, std::ios::beg);
  if (size > 0) {
    raw.reserve(static_cast<size_t>(size) + 1);  // the sources add the parsers' final newline in place
    raw.resize(static_cast<size_t>(size));
    in.read(raw.data(), size);
    raw.resize(static_cast<size_t>(in.gcount()));
  } else if (size < 0) {  // not seekable (a pipe): read it as a stream
    in.clear();
    std::ostringstream buffer;
    buffer << in.rdbuf();
    raw = buffer.str();
  }
  if (in.bad()) throw CompileError(Diagnostic(ErrorKind::CompilerException, "cannot read " + displayPath(path)));
  size_t bad = findInvalidUtf8(raw);
  uint32_t badLine = 1, badCol = 1;
  if (bad != std::string::npos) {
    std::string prefix = normaliseNewlines(std::string_view(raw).substr(0, bad));
    size_t lineStart = 0;
    for (size_t i = 0; i < prefix.size(); ++i)
      if (prefix[i] == '\n') {
        ++badLine;
        lineStart = i + 1;
      }
    badCol = static_cast<uint32_t>(codePointCount(std::string_view(prefix).substr(lineStart)) + 1);
  }
  normaliseNewlinesInPlace(raw);  // the text is not copied
  if (sources_.size() >= kMaxFiles)
    throw CompileError(Diagnostic(ErrorKind::CompilerException, "cannot load " + displayPath(path) +
                                                                    ": a project has at most " +
                                                                    std::to_string(kMaxFiles) + " model files"));
  FileId id = sources_.add(path, displayPath(path), std::move(raw));
  if (sources_.file(id).lineCount() > kMaxLines)
    throw CompileError(Diagnostic(ErrorKind::CompilerException, "cannot load " + displayPath(path) +
                                                                    ": a model file has at most " +
                                                                    std::to_string(kMaxLines) + " lines"));
  if (bad != std::string::npos)
    throw CompileError(Diagnostic(ErrorKind::ParserException, "Syntax error: the file is not valid UTF-8 text",
                                  SourceLocation{id, badLine, badCol}));
  return id;
}

std::string CompileSession::findModule(const std::string& name) const { return findModuleDir(project_, name); }

void CompileSession::load() {
  // As the reference (spec 3.1, 4.1): main.cf, then the imports on a stack, last pushed first
  // loaded; a file's imports are pushed in source order after an implicit `import std` (none in
  // std's own files); importing a::b::c loads a, a::b and a::b::c. The files are then kept
  // grouped by module, the modules in the order they were first loaded: their definitions are
  // registered, and their top-level statements emitted, in that order. So the last failing
  // import of a file is the one reported.
  struct Pending {
    std::string ns;
    const ast::Import* importedAt;  // null for the implicit std
  };
  std::vector<Pending> stack;
  auto pushImports = [&](const ast::File* tree, const std::string& module) {
    if (module != "std") stack.push_back({"std", nullptr});
    for (const ast::Stmt* stmt : tree->statements)
      if (stmt->kind == ast::Kind::Import) {
        auto* imp = static_cast<const ast::Import*>(stmt);
        stack.push_back({std::string(imp->module.text()), imp});
      }
  };

  std::string mainPath = (fs::path(project_.dir) / project_.mainFile).string();
  if (!fs::is_regular_file(mainPath))
    throw CompileError(
        Diagnostic(ErrorKind::CompilerException, "the project has no " + project_.mainFile + ": " + mainPath));
  FileId mainId = readFile(mainPath);
  files_.push_back({"__config__", "__config__", mainId, parseFile(ctx_, sources_, mainId, warnings_)});
  pushImports(files_.front().tree, "__config__");

  std::map<std::string, std::set<std::string>> done;        // per module: its namespaces loaded
  std::map<std::string, std::vector<LoadedFile>> byModule;  // their files, in load order
  std::vector<std::string> moduleOrder;                     // modules, by first load
  while (!stack.empty()) {
    Pending next = stack.back();
    stack.pop_back();
    std::string module = next.ns.substr(0, next.ns.find("::"));
    if (done[module].count(next.ns) != 0) continue;
    std::string root = findModule(module);
    auto failLoading = [&](Diagnostic cause) {
      Diagnostic diag(ErrorKind::ModuleLoadingException, "Failed to load module " + next.ns,
                      next.importedAt ? next.importedAt->loc() : SourceLocation{});
      diag.causes.push_back(std::move(cause));
      throw CompileError(std::move(diag));
    };
    if (!root.empty() && !modules_.count(module)) {
      // spec/export.md 4.4: module.yml is validated when the module is first imported
      try {
        ModuleConfig config = loadModuleConfig(root);
        checkCompilerVersion(config);
        modules_.emplace(module, std::move(config));
      } catch (const CompileError& e) {
        failLoading(e.diagnostic());
      }
    }
    // the namespace and its parents, outermost first
    for (size_t end = 0; end != std::string::npos;) {
      end = next.ns.find("::", end == 0 ? 0 : end + 2);
      std::string ns = next.ns.substr(0, end);
      if (done[module].count(ns) != 0) continue;
      fs::path file;
      if (!root.empty()) {
        fs::path model = fs::path(root) / "model";
        fs::path sub;
        size_t pos = module.size();
        while (pos < ns.size()) {
          size_t start = pos + 2;
          size_t stop = ns.find("::", start);
          sub /= ns.substr(start, stop == std::string::npos ? std::string::npos : stop - start);
          pos = stop == std::string::npos ? ns.size() : stop;
        }
        if (sub.empty()) file = model / "_init.cf";
        else if (fs::is_directory(model / sub)) file = model / sub / "_init.cf";
        else file = model / (sub.string() + ".cf");
      }
      if (root.empty() || !fs::is_regular_file(file)) {
        std::string where = next.importedAt ? sources_.format(next.importedAt->loc(), false) : std::string("main.cf");
        Diagnostic cause(ErrorKind::ModuleNotFoundException, "");
        if (root.empty()) {
          std::string searched;
          for (const std::string& dir : project_.modulepath) searched += (searched.empty() ? "" : ", ") + dir;
          cause.message = "could not find module " + module + " (imported at " + where + "); searched " +
                          (searched.empty() ? std::string("no folders: project.yml sets no modulepath") : searched) +
                          "; `inmanta project install` fetches missing modules from the project's repo entries";
        } else {
          cause.message = "could not find module " + ns + " (imported at " + where + "): " + module + " (" + root +
                          ") has no file " + file.string();
        }
        failLoading(std::move(cause));
      }
      FileId id = readFile(file.string());
      ast::File* tree = parseFile(ctx_, sources_, id, warnings_);
      done[module].insert(ns);
      if (byModule.find(module) == byModule.end()) moduleOrder.push_back(module);
      byModule[module].push_back({ns, module, id, tree});
      pushImports(tree, module);
    }
  }
  for (const std::string& module : moduleOrder)
    for (LoadedFile& f : byModule[module]) files_.push_back(std::move(f));
  ctx_.forgetStrings();
  sources_.releaseTexts();
  warnUnmetRequirements();
}

// The compile uses what is installed; a version the constraints rule out is worth a warning
// (`inmanta project install` refuses it, `inmanta project update` moves it). No git access here.
void CompileSession::warnUnmetRequirements() {
  if (!warnings_) return;
  auto check = [&](const RequirementEntry& r, const std::string& setBy) {
    auto it = modules_.find(r.requirement.name);
    if (it == modules_.end() || r.requirement.contains(it->second.version, true)) return;
    Diagnostic d(ErrorKind::CompilerException, "module " + it->first + " " + it->second.version.str() + " (" +
                                                   displayPath(it->second.dir) + ") does not satisfy `" +
                                                   r.requirement.str() + "` (set by " + setBy +
                                                   "); `inmanta project update` moves it to an allowed version");
    d.warningName = "ModuleVersionWarning";
    warnings_(d);
  };
  for (const RequirementEntry& r : project_.requires_)
    check(r, displayPath(project_.configFile) + ":" + std::to_string(r.line));
  for (const auto& [name, config] : modules_)
    for (const RequirementEntry& r : config.requires_)
      check(r, "module " + name + " " + config.version.str() + ", " + displayPath(config.file) + ":" +
                   std::to_string(r.line));
}

}  // namespace inmanta::compiler
