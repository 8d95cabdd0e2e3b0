#include "project/project.h"

#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <filesystem>

#include "diag/diagnostic.h"

namespace fs = std::filesystem;

namespace inmanta::compiler {

namespace {
[[noreturn]] void projectError(const std::string& file, const YAML::Mark& mark, const std::string& message) {
  std::string where = file;
  if (mark.line >= 0) where += ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
  throw CompileError(Diagnostic(ErrorKind::ProjectException, where + ": " + message));
}

std::string scalar(const std::string& file, const YAML::Node& node, const char* field) {
  if (!node.IsScalar()) projectError(file, node.Mark(), std::string("field '") + field + "': expected a string");
  return node.as<std::string>();
}

std::vector<std::string> stringList(const std::string& file, const YAML::Node& node, const char* field) {
  std::vector<std::string> out;
  if (node.IsNull()) return out;
  if (node.IsScalar()) {
    out.push_back(node.as<std::string>());
    return out;
  }
  if (!node.IsSequence()) projectError(file, node.Mark(), std::string("field '") + field + "': expected a string or a list of strings");
  for (const auto& item : node) out.push_back(scalar(file, item, field));
  return out;
}
}  // namespace

std::optional<std::string> findProjectDir(const std::string& start) {
  std::error_code ec;
  fs::path dir = fs::absolute(start, ec);
  if (ec) return std::nullopt;
  dir = dir.lexically_normal();
  while (true) {
    if (fs::is_regular_file(dir / "project.yml") || fs::is_regular_file(dir / "project.yaml")) {
      std::string s = dir.string();
      if (s.size() > 1 && s.back() == '/') s.pop_back();
      return s;
    }
    if (!dir.has_parent_path() || dir.parent_path() == dir) return std::nullopt;
    dir = dir.parent_path();
  }
}

ProjectConfig loadProjectConfig(const std::string& dir) {
  ProjectConfig config;
  config.dir = dir;
  fs::path base(dir);
  fs::path file = fs::is_regular_file(base / "project.yml") ? base / "project.yml" : base / "project.yaml";
  config.configFile = file.string();
  YAML::Node root;
  try {
    root = YAML::LoadFile(config.configFile);
  } catch (const YAML::BadFile&) {
    throw CompileError(Diagnostic(ErrorKind::ProjectException, config.configFile + ": cannot read the file"));
  } catch (const YAML::Exception& e) {
    projectError(config.configFile, e.mark, e.msg);
  }
  if (root.IsNull()) root = YAML::Node(YAML::NodeType::Map);
  if (!root.IsMap()) projectError(config.configFile, root.Mark(), "expected a mapping of settings");
  if (root["name"]) config.name = scalar(config.configFile, root["name"], "name");
  if (root["description"]) config.description = scalar(config.configFile, root["description"], "description");
  std::vector<std::string> modulepath;
  if (root["modulepath"]) modulepath = stringList(config.configFile, root["modulepath"], "modulepath");
  for (const std::string& p : modulepath) config.modulepath.push_back((base / p).lexically_normal().string());
  if (root["downloadpath"])
    config.downloadpath = (base / scalar(config.configFile, root["downloadpath"], "downloadpath")).lexically_normal().string();
  else if (!config.modulepath.empty())
    config.downloadpath = config.modulepath.front();
  if (root["requires"]) config.requires_ = stringList(config.configFile, root["requires"], "requires");
  return config;
}

std::string bundledStdDir() {
  if (const char* env = std::getenv("INMANTA_STD_PATH"); env != nullptr && *env != '\0') return env;
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    fs::path installed = exe.parent_path().parent_path() / "share/inmanta/modules/std";
    if (fs::is_directory(installed / "model")) return installed.string();
  }
  if (fs::is_directory(fs::path(INMANTA_INSTALL_STD_DIR) / "model")) return INMANTA_INSTALL_STD_DIR;
  return INMANTA_SOURCE_STD_DIR;
}

}  // namespace inmanta::compiler
