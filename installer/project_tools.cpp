#include "installer/project_tools.h"

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "installer/installer.h"

namespace fs = std::filesystem;

namespace inmanta::installer {

namespace {

std::string relativeTo(const std::string& path, const std::string& base) {
  std::string r = fs::path(path).lexically_relative(base).string();
  return r.empty() || r.rfind("..", 0) == 0 ? path : r;
}

std::string constraintText(const ModuleStatus& m) {
  std::string out;
  for (const Constraint& c : m.constraints) {
    std::string spec = c.requirement.specifierText();
    if (!spec.empty()) out += (out.empty() ? "" : ",") + spec;
  }
  return out.empty() ? "*" : out;
}

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ProjectError("cannot read " + path);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

void writeFile(const std::string& path, const std::string& text) {
  std::string tmp = path + ".tmp";
  {
    std::ofstream outFile(tmp, std::ios::binary | std::ios::trunc);
    if (!outFile) throw ProjectError("cannot write " + tmp);
    outFile << text;
    if (!outFile.flush()) throw ProjectError("cannot write " + tmp);
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) throw ProjectError("cannot replace " + path + ": " + ec.message());
}

// The text of project.yml with its top-level `requires` replaced by `lines` (other keys,
// comments and layout are kept).
std::string replaceRequires(const std::string& text, const std::vector<std::string>& lines, const std::string& file) {
  std::string block = "requires:\n";
  for (const std::string& l : lines) block += "  - " + l + "\n";
  if (lines.empty()) block = "requires: []\n";
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw ProjectError(file + ":" + std::to_string(e.mark.line + 1) + ": invalid YAML: " + e.msg);
  }
  std::vector<std::string> textLines;
  {
    std::istringstream in(text);
    std::string l;
    while (std::getline(in, l)) textLines.push_back(l);
  }
  int start = -1, end = static_cast<int>(textLines.size());
  bool blockStyle = true;
  for (auto it = root.begin(); it != root.end(); ++it) {
    if (it->first.Mark().column != 0) blockStyle = false;
    if (start >= 0) {
      end = it->first.Mark().line;
      break;
    }
    if (it->first.IsScalar() && it->first.Scalar() == "requires") start = it->first.Mark().line;
  }
  if (!blockStyle) {
    // a flow-style mapping: rewrite it as a whole
    root["requires"] = lines;
    YAML::Emitter emitter;
    emitter << root;
    return std::string(emitter.c_str()) + "\n";
  }
  std::string out;
  if (start < 0) {
    out = text;
    if (!out.empty() && out.back() != '\n') out += "\n";
    return out + block;
  }
  // keep comment and blank lines that precede the next key
  while (end > start + 1) {
    const std::string& l = textLines[end - 1];
    size_t first = l.find_first_not_of(" \t");
    if (first == std::string::npos || l[first] == '#') --end;
    else break;
  }
  for (int i = 0; i < start; ++i) out += textLines[i] + "\n";
  out += block;
  for (int i = end; i < static_cast<int>(textLines.size()); ++i) out += textLines[i] + "\n";
  return out;
}

}  // namespace

void listModules(const ListOptions& options, std::ostream& out, std::ostream& err) {
  InstallOptions install;
  install.projectDir = options.projectDir;
  install.mode = ResolveMode::Inspect;
  ResolveResult r = resolveProject(install, err);
  if (options.json) {
    nlohmann::json rows = nlohmann::json::array();
    for (const ModuleStatus& m : r.modules) {
      nlohmann::json constraints = nlohmann::json::array();
      for (const Constraint& c : m.constraints)
        constraints.push_back({{"requirement", c.requirement.str()}, {"set_by", c.setBy}});
      rows.push_back({{"name", m.name},
                      {"version", m.version.empty() ? nlohmann::json(nullptr) : nlohmann::json(m.version)},
                      {"path", m.dir.empty() ? nlohmann::json(nullptr) : nlohmann::json(m.dir)},
                      {"installed", m.state != ModuleStatus::State::Missing},
                      {"bundled", m.state == ModuleStatus::State::Bundled},
                      {"constraint", constraintText(m)},
                      {"constraints", constraints},
                      {"satisfied", m.satisfied}});
    }
    out << rows.dump(2) << "\n";
    return;
  }
  std::vector<std::vector<std::string>> table{{"Name", "Version", "Path", "Constraint", "Satisfied"}};
  for (const ModuleStatus& m : r.modules) {
    std::string path = m.state == ModuleStatus::State::Missing   ? "(not installed)"
                       : m.state == ModuleStatus::State::Bundled ? "(bundled) " + m.dir
                                                                 : relativeTo(m.dir, r.project.dir);
    table.push_back({m.name, m.version.empty() ? "-" : m.version, path, constraintText(m), m.satisfied ? "yes" : "no"});
  }
  std::vector<size_t> width(table[0].size(), 0);
  for (const auto& row : table)
    for (size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  for (const auto& row : table) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) line += std::string(width[i] - row[i].size() + 2, ' ');
    }
    out << line << "\n";
  }
}

void freezeProject(const FreezeOptions& options, std::ostream& out, std::ostream& err) {
  InstallOptions install;
  install.projectDir = options.projectDir;
  install.mode = ResolveMode::Inspect;
  ResolveResult r = resolveProject(install, err);
  std::string op = options.op.value_or(r.project.freezeOperator);
  if (op != "==" && op != "~=" && op != ">=")
    throw ProjectError("freeze operator must be ==, ~= or >= (got '" + op + "')");
  bool recursive = options.recursive.value_or(r.project.freezeRecursive);
  std::vector<std::string> names;
  if (recursive)
    for (const ModuleStatus& m : r.modules) names.push_back(m.name);
  else names = r.mainImports;
  std::sort(names.begin(), names.end());
  std::vector<std::string> lines;
  for (const std::string& name : names) {
    auto it = std::find_if(r.modules.begin(), r.modules.end(), [&](const ModuleStatus& m) { return m.name == name; });
    if (it == r.modules.end() || it->state == ModuleStatus::State::Missing)
      throw ProjectError("module " + name +
                         " is not installed, so its version cannot be frozen; run `inmanta project install` first");
    lines.push_back(name + " " + op + " " + it->version);
  }
  std::string text = replaceRequires(readFile(r.project.configFile), lines, r.project.configFile);
  if (options.outFile == "-") {
    out << text;
  } else {
    std::string target = options.outFile.empty() ? r.project.configFile : options.outFile;
    writeFile(target, text);
    err << "froze " << lines.size() << " module" << (lines.size() == 1 ? "" : "s") << " into " << target << "\n";
  }
}

std::string initProject(const std::string& name, const std::string& outputDir) {
  if (name.empty() || name.find('/') != std::string::npos || name == "." || name == "..")
    throw ProjectError("project name '" + name + "' must be a plain folder name");
  fs::path dir = fs::path(outputDir.empty() ? "." : outputDir) / name;
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_empty(dir, ec))
    throw ProjectError("cannot create project " + name + ": " + dir.string() + " exists and is not empty");
  fs::create_directories(dir, ec);
  if (ec) throw ProjectError("cannot create " + dir.string() + ": " + ec.message());
  YAML::Emitter quotedName;
  quotedName << YAML::DoubleQuoted << name;
  writeFile((dir / "project.yml").string(),
            "name: " + std::string(quotedName.c_str()) +
                "\n"
                "description: \"\"\n"
                "# folders searched for modules, in order; `inmanta project install` puts modules in downloadpath\n"
                "modulepath: libs\n"
                "downloadpath: libs\n"
                "# where modules come from: {} is replaced by the module name\n"
                "repo:\n"
                "  - url: https://github.com/inmanta/{}.git\n"
                "    type: git\n"
                "# version constraints on modules, e.g. `- mymodule ~= 1.2`\n"
                "requires: []\n");
  writeFile((dir / "main.cf").string(), "# The model of " + name + ". `inmanta compile` compiles it.\n");
  writeFile((dir / ".gitignore").string(), ".inmanta\nlibs/\ndata/\n.env/\n");
  return dir.string();
}

}  // namespace inmanta::installer
