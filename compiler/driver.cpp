#include "compiler/driver.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <string_view>

#include <unistd.h>

#include "compiler/compile.h"
#include "compiler/diag/diagnostics_json.h"
#include "compiler/diag/warning_report.h"
#include "compiler/exec/evaluator.h"
#include "compiler/project/project.h"
#include "compiler/sema/define.h"

namespace inmanta::compiler {

namespace {
// The positive whole number (at most `largest`) in the environment variable `name`, or nothing
// when it is unset or empty; any other text is a CompilerException that says what is wanted
// (`what`: "whole number", "whole number of MiB").
std::optional<size_t> positiveFromEnvironment(const char* name, const char* what, size_t largest = SIZE_MAX) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return std::nullopt;
  std::string_view text(value);
  size_t number = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), number);
  if (ec != std::errc() || end != text.data() + text.size() || number == 0 || number > largest)
    throw CompileError(Diagnostic(ErrorKind::CompilerException, std::string(name) + " must be a positive " + what +
                                                                    ", got '" + std::string(text) + "'"));
  return number;
}

// Every module folder (one with module.yml) on the module path; the first of a name wins.
std::vector<PythonModule> modulesOnPath(const std::vector<std::string>& modulepath) {
  std::vector<PythonModule> out;
  std::set<std::string> seen;
  for (const std::string& dir : modulepath) {
    std::error_code ec;
    std::vector<std::filesystem::path> found;
    for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
      if (std::filesystem::is_regular_file(it->path() / "module.yml", ec)) found.push_back(it->path());
    std::sort(found.begin(), found.end());
    for (const auto& p : found)
      if (seen.insert(p.filename().string()).second) out.push_back({p.filename().string(), p.string()});
  }
  return out;
}

// The message of a compile over `limit` bytes of resident memory after `instances` instances, or
// nothing (the resident size is the second number of Linux's /proc/self/statm, in pages).
std::optional<std::string> memoryExceeded(size_t limit, size_t instances) {
  std::ifstream statm("/proc/self/statm");
  size_t size = 0;
  size_t resident = 0;
  if (!(statm >> size >> resident)) return std::nullopt;
  size_t bytes = resident * static_cast<size_t>(sysconf(_SC_PAGESIZE));
  if (bytes <= limit) return std::nullopt;
  constexpr size_t kMiB = size_t(1) << 20;
  return "Could not complete model: the compile uses " + std::to_string(bytes / kMiB) +
         " MiB of memory, over its limit of " + std::to_string(limit / kMiB) + " MiB, after constructing " +
         std::to_string(instances) +
         " instances, the latest here.\nA model that constructs instances without end never completes (an "
         "implementation "
         "that constructs an instance of its own entity, for example). INMANTA_MAX_MEMORY sets the limit, in MiB (by "
         "default half of the machine's memory).";
}
}  // namespace

std::string banner(const std::string& text) {
  constexpr size_t kWidth = 80;
  std::string middle = "= " + text + " =";
  if (middle.size() >= kWidth) return middle;
  size_t side = (kWidth - middle.size()) / 2;
  return std::string(side, '=') + middle + std::string(side, '=');
}

std::string logLine(const std::string& logger, const std::string& level, const std::string& message) {
  std::string out = logger;
  out.resize(std::max<size_t>(out.size() + 1, 15), ' ');  // a longer name keeps one space
  std::string lvl = level;
  lvl.resize(std::max<size_t>(lvl.size(), 8), ' ');
  return out + lvl + message;
}

namespace {

// Whether a file of the compile lies in the std module shipped with the binary (not a std in the
// project's libs/): the user cannot act on warnings about it. Asked once per file.
class BundledStdFiles {
 public:
  bool operator()(const SourceManager& sources, FileId file) {
    auto [it, added] = known_.try_emplace(file, false);
    if (added) {
      std::error_code ec;
      std::filesystem::path path = std::filesystem::weakly_canonical(sources.file(file).path, ec);
      if (!ec)
        it->second = std::mismatch(stdDir_.begin(), stdDir_.end(), path.begin(), path.end()).first == stdDir_.end();
    }
    return it->second;
  }

 private:
  std::filesystem::path stdDir_ = canonicalOrSelf(bundledStdDir());
  std::map<FileId, bool> known_;

  static std::filesystem::path canonicalOrSelf(const std::filesystem::path& path) {
    std::error_code ec;
    std::filesystem::path canonical = std::filesystem::weakly_canonical(path, ec);
    return ec ? path : canonical;
  }
};

}  // namespace

CompileStatus runCompile(const CompileOptions& options, std::ostream& out, std::ostream& err) {
  std::unique_ptr<CompileSession> session;
  // printed before the summary banner, whichever it is; the bundled std's only with -v
  WarningReport warnings;
  const Style style(options.color);
  DiagnosticsDocument document;  // with --json, what is printed as text without it
  const bool json = options.diagnosticsJson != nullptr;
  auto printWarnings = [&] {
    if (json) document.addWarnings(warnings.take(options.verbosity >= 1));
    else warnings.print(err, options.verbosity >= 1, style);
  };
  auto finish = [&](CompileStatus status) {
    if (json) *options.diagnosticsJson << document.dump(status == CompileStatus::Success) << std::flush;
    return status;
  };
  try {
    std::string start = options.projectDir.empty() ? std::filesystem::current_path().string() : options.projectDir;
    auto dir = findProjectDir(start);
    if (!dir)
      throw CompileError(
          Diagnostic(ErrorKind::ProjectException, "no project.yml found in " + start + " or any folder above it"));
    auto warn = [&warnings, &session, inBundledStd = BundledStdFiles()](const Diagnostic& d) mutable {
      std::string kind = !d.warningName.empty()                 ? d.warningName
                         : d.kind == ErrorKind::ParserException ? "ParserWarning"
                                                                : "CompilerRuntimeWarning";
      std::string place;
      bool bundled = false;
      WarningReport::Position position;
      if (session && d.location.valid()) {
        place = session->sources().format(d.location, d.showColumn);
        bundled = inBundledStd(session->sources(), d.location.file);
        position = {session->sources().file(d.location.file).display, d.location.line,
                    d.showColumn ? d.location.col : 0};
      }
      warnings.add(kind, d.message, place, bundled, std::move(position));
    };
    ProjectConfig project = loadProjectConfig(*dir);
    if (!options.mainFile.empty()) project.mainFile = options.mainFile;
    for (const std::string& w : project.warnings) {
      if (json) document.addWarnings({{"ProjectConfigurationWarning", w, {WarningReport::Place{}}}});
      else err << style.warning("ProjectConfigurationWarning") << ": " << w << "\n";
    }
    session = std::make_unique<CompileSession>(std::move(project), warn);
#if !defined(__SANITIZE_ADDRESS__)
    if (options.keepMemoryAtExit) session->context().arena.keepObjects();  // the syntax trees live until exit
#endif
    session->load();
    static const PluginRegistry kNoPlugins;
    const PluginRegistry* plugins = options.plugins ? options.plugins : &kNoPlugins;
    const ResourceTypeRegistry* resourceTypes = options.resourceTypes;
    auto log = [&err, &options](std::string_view logger, std::string_view level, const std::string& message) {
      // warnings always, info from -vv, debug from -vvv, as the reference's console log
      int needed = level == "WARNING" || level == "ERROR" || level == "CRITICAL" ? 0 : level == "INFO" ? 2 : 3;
      if (options.verbosity >= needed) err << logLine(std::string(logger), std::string(level), message) << "\n";
    };
    // the modules' Python code: plugins, resource types, dependency managers, export hooks
    std::unique_ptr<ModuleCodeHost> codeHost;
    std::unique_ptr<ModuleCode> code;
    ResourceTypeRegistry mergedTypes;
    {
      std::vector<PythonModule> imported;
      for (const auto& [name, config] : session->modules()) imported.push_back({name, config.dir});
      std::vector<PythonModule> withCode = modulesWithPythonCode(imported, [plugins](const std::string& name) {
        return name == "std" || !plugins->inNamespace(name).empty();
      });
      if (!withCode.empty()) {
        ModuleCodeSettings settings;
        settings.projectDir = session->project().dir;
        settings.pythonPath = projectSitePackages(session->project().dir);
        settings.available = modulesOnPath(session->project().modulepath);
        codeHost = makeModuleCodeHost(session->sources(), options.settings, log);
        code = moduleCodeLoader().load(withCode, settings, *codeHost,
                                       [&session](const std::string& path) { return session->addSourceFile(path); });
        for (PluginSpec& spec : code->pluginSpecs) code->plugins.add(std::move(spec));
        code->plugins.setFallback(plugins);
        plugins = &code->plugins;
        if (resourceTypes != nullptr) mergedTypes = *resourceTypes;
        for (const ResourceTypeSpec& t : code->resourceTypes.types()) mergedTypes.add(t);
        for (const DependencyManager& m : code->resourceTypes.managers()) mergedTypes.addDependencyManager(m);
        resourceTypes = &mergedTypes;
      }
    }
    auto modelOwner = std::make_unique<model::Model>();
    model::Model& model = *modelOwner;
    sema::defineModel(model, session->files(), *plugins, session->sources(), warn);
    if (codeHost) codeHost->setModel(&model);
    exec::ExecOptions execOptions;
    execOptions.out = &out;
    execOptions.warn = warn;
    execOptions.projectDir = session->project().dir;
    execOptions.settings = options.settings;
    execOptions.server = options.server;
    execOptions.resourceTypes = resourceTypes;
    execOptions.relationPrecedencePolicy = session->project().relationPrecedencePolicy;
    execOptions.log = log;
    // the scheduler's round limit, as the reference reads it (spec 4.7)
    if (auto rounds = positiveFromEnvironment("INMANTA_MAX_ITERATIONS", "whole number"))
      execOptions.maxIterations = *rounds;
    // the memory a compile may take before it is stopped as one that never completes (a model
    // that constructs instances without end): INMANTA_MAX_MEMORY in MiB, by default half of the
    // machine's memory (the rest stays for the machine: a compile of a million services takes
    // about 10 GB)
    size_t maxMemory = 0;
    if (auto mib = positiveFromEnvironment("INMANTA_MAX_MEMORY", "whole number of MiB", SIZE_MAX >> 20))
      maxMemory = *mib << 20;
    else if (long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGESIZE); pages > 0 && pageSize > 0)
      maxMemory = static_cast<size_t>(pages) / 2 * static_cast<size_t>(pageSize);
    if (maxMemory != 0)
      execOptions.memoryExceeded = [maxMemory](size_t instances) { return memoryExceeded(maxMemory, instances); };
    exec::Execution evaluator(model, *plugins, session->sources(), execOptions);
#if !defined(__SANITIZE_ADDRESS__)
    if (options.keepMemoryAtExit) {
      // released on purpose: the process ends right after the compile
      (void)modelOwner.release();
      evaluator.keepMemoryAtExit();
    }
#endif
    evaluator.run();
    out.flush();
    printWarnings();
    if (options.afterCompile) {
      if (std::optional<std::string> failure = options.afterCompile(
              CompiledModel{evaluator.instances(), session->project(), evaluator.unknownParameters(), resourceTypes,
                            code ? &code->exportHooks : nullptr, code ? &code->handlers : nullptr})) {
        printWarnings();
        if (json) document.addFailure("ExportFailure", *failure);
        else
          err << "\n"
              << style.error(banner("EXPORT FAILURE")) << "\n"
              << style.error("Error:") << " " << *failure << "\n";
        return finish(CompileStatus::ExportFailed);
      }
    }
    printWarnings();
    if (options.successBanner && !json) err << "\n" << style.success(banner("SUCCESS")) << "\n";
#if !defined(__SANITIZE_ADDRESS__)
    if (options.keepMemoryAtExit) (void)session.release();
#endif
    return finish(CompileStatus::Success);
  } catch (const CompileError& e) {
    printWarnings();
    static const SourceManager kNoSources;
    const SourceManager& sources = session ? session->sources() : kNoSources;
    if (json) {
      document.addError(e.diagnostic(), sources);
    } else {
      err << "\n" << style.error(banner("COMPILATION FAILURE")) << "\n";
      err << style.error("Error:") << " " << renderDiagnostic(e.diagnostic(), sources, style);
    }
    if (options.trace) {  // -X: the Python tracebacks of the failure's causes
      std::vector<const Diagnostic*> todo{&e.diagnostic()};
      while (!todo.empty()) {
        const Diagnostic* d = todo.back();
        todo.pop_back();
        if (!d->nativeTrace.empty()) err << "\n" << d->nativeTrace << (d->nativeTrace.back() == '\n' ? "" : "\n");
        for (auto it = d->causes.rbegin(); it != d->causes.rend(); ++it) todo.push_back(&*it);
      }
    }
    return finish(CompileStatus::Failed);
  } catch (const std::exception& e) {
    // A failure of ours, not of the model: without --json the command's own handler prints it
    // (`Error: InternalError: ...`); with it, the document must still be the one thing on stdout.
    if (!json) throw;
    printWarnings();
    document.addFailure("InternalError", e.what());
    return finish(CompileStatus::Failed);
  }
}

}  // namespace inmanta::compiler
