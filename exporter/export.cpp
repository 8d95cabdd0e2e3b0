#include "export.h"

#include <fstream>

#include "json.h"
#include "resources.h"

namespace inmanta::exporter {

std::string logLine(const std::string& logger, const std::string& level, const std::string& message) {
  std::string out = logger;
  out.resize(std::max<size_t>(out.size(), 15), ' ');
  std::string lvl = level;
  lvl.resize(std::max<size_t>(lvl.size(), 8), ' ');
  return out + lvl + message;
}

std::string dependencyGraph(const std::vector<Resource>& resources) {
  std::string out = "digraph G {\n";
  for (const Resource& r : resources) out += "\t\"" + r.rid + ",v=0\";\n";
  for (const Resource& r : resources)
    for (const std::string& req : r.requires_) out += "\t\"" + r.rid + ",v=0\" -> \"" + req + "\";\n";
  return out + "}\n";
}

namespace {

bool writeFile(const std::string& path, const std::string& text, std::ostream& err) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (file) file << text;
  if (!file) {
    err << logLine("exporter", "ERROR", "Unable to write " + path) << "\n";
    return false;
  }
  return true;
}

}  // namespace

int runExport(const ExportOptions& options, std::ostream& out, std::ostream& err) {
  static const compiler::ResourceTypeRegistry kNoTypes;
  const compiler::ResourceTypeRegistry& types = options.types ? *options.types : kNoTypes;
  compiler::CompileOptions compile = options.compile;
  compile.afterCompile = [&](const compiler::CompiledModel& model) -> std::optional<std::string> {
    ResourceSet set;
    try {
      set = buildResources(model.instances, types);
    } catch (const ExportError& e) {
      return std::string(e.what());
    }
    for (const auto& w : set.warnings) err << logLine("exporter", "WARNING", w) << "\n";
    if (options.compile.verbosity >= 2)
      for (const auto& i : set.infos) err << logLine("exporter", "INFO", i) << "\n";
    if (set.resources.empty()) err << logLine("exporter", "WARNING", "Empty deployment model.") << "\n";
    if (options.dependencyGraph && !writeFile("dependencies.dot", dependencyGraph(set.resources), err))
      return std::string("Unable to write dependencies.dot");
    if (!options.jsonFile.empty()) {
      if (!writeFile(options.jsonFile, resourcesJson(set.resources), err)) {
        return "Unable to write the export to " + options.jsonFile;
      }
    }
    return std::nullopt;
  };
  compiler::CompileStatus status = compiler::runCompile(compile, out, err);
  if (status == compiler::CompileStatus::Success) return 0;
  // a compile that failed still leaves `[]` in the -j file (2.2)
  if ((status == compiler::CompileStatus::Failed || status == compiler::CompileStatus::NotCompiled) &&
      !options.jsonFile.empty())
    writeFile(options.jsonFile, "[]", err);
  return 1;
}

}  // namespace inmanta::exporter
