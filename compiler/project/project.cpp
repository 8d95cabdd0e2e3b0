#include "compiler/project/project.h"

#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>

#include "compiler/diag/diagnostic.h"

namespace fs = std::filesystem;

namespace inmanta::compiler {

namespace {

// Thrown by the field checks; the callers wrap it into the right error kind.
struct FieldError {
  std::string where;    // "FILE:LINE:COL" or "FILE"
  std::string message;  // "field 'x': ..."
  std::string full() const { return where + ": " + message; }
};

class Fields {
 public:
  explicit Fields(std::string file) : file_(std::move(file)) {}

  std::string where(const YAML::Mark& mark) const {
    if (mark.line < 0) return file_;
    return file_ + ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
  }
  [[noreturn]] void fail(const YAML::Node& node, const std::string& field, const std::string& what) const {
    throw FieldError{where(node.Mark()), "field '" + field + "': " + what};
  }

  // a scalar; numbers are coerced to their text (`version: 1.0`), as the reference does
  std::string string(const YAML::Node& node, const std::string& field) const {
    if (!node.IsScalar()) fail(node, field, "expected a string");
    return node.Scalar();
  }
  std::optional<std::string> optionalString(const YAML::Node& node, const std::string& field) const {
    if (node.IsNull()) return std::nullopt;
    return string(node, field);
  }
  bool boolean(const YAML::Node& node, const std::string& field) const {
    bool value = false;
    if (!node.IsScalar() || !YAML::convert<bool>::decode(node, value))
      fail(node, field, "expected a boolean (true or false)");
    return value;
  }
  // a list of strings; a single string and null are accepted
  std::vector<std::pair<std::string, YAML::Node>> stringList(const YAML::Node& node, const std::string& field) const {
    std::vector<std::pair<std::string, YAML::Node>> out;
    if (node.IsNull()) return out;
    if (node.IsScalar()) {
      out.emplace_back(node.Scalar(), node);
      return out;
    }
    if (!node.IsSequence()) fail(node, field, "expected a string or a list of strings");
    size_t i = 0;
    for (const auto& item : node) out.emplace_back(string(item, field + "[" + std::to_string(i++) + "]"), item);
    return out;
  }
  std::vector<RequirementEntry> requirements(const YAML::Node& node, const std::string& field) const {
    std::vector<RequirementEntry> out;
    size_t i = 0;
    for (auto& [text, item] : stringList(node, field)) {
      std::string name = node.IsSequence() ? field + "[" + std::to_string(i) + "]" : field;
      ++i;
      try {
        out.push_back({Requirement::parse(text), text, item.Mark().line + 1});
      } catch (const std::invalid_argument& e) {
        fail(item, name, std::string("invalid module requirement: ") + e.what());
      }
    }
    return out;
  }
  Version version(const YAML::Node& node, const std::string& field) const {
    std::string text = string(node, field);
    auto v = Version::parse(text);
    if (!v) fail(node, field, "Version " + text + " is not PEP440 compliant");
    return *v;
  }
  std::string freezeOperator(const YAML::Node& node) const {
    std::string op = string(node, "freeze_operator");
    if (op != "==" && op != "~=" && op != ">=")
      fail(node, "freeze_operator", "expected one of ==, ~=, >= (got '" + op + "')");
    return op;
  }

  YAML::Node load(const std::string& text) const {
    YAML::Node root;
    try {
      root = YAML::Load(text);
    } catch (const YAML::Exception& e) {
      throw FieldError{where(e.mark), "invalid YAML: " + e.msg};
    }
    if (root.IsNull()) root = YAML::Node(YAML::NodeType::Map);
    if (!root.IsMap()) throw FieldError{where(root.Mark()), "expected a mapping of settings"};
    return root;
  }
  [[noreturn]] void required(const std::string& field) const {
    throw FieldError{file_, "field '" + field + "': Field required"};
  }

  const std::string& file() const { return file_; }

 private:
  std::string file_;
};

std::string readText(const std::string& path, ErrorKind kind) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw CompileError(Diagnostic(kind, path + ": cannot read the file"));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

const std::regex& precedenceRule() {
  static const std::regex re(R"(^\s*[^\s.]+\.[^\s.]+\s+before\s+[^\s.]+\.[^\s.]+\s*$)");
  return re;
}

void parseProject(ProjectConfig& config, const Fields& f, const YAML::Node& root) {
  const fs::path base(config.dir);
  bool haveName = false;
  for (const auto& entry : root) {
    std::string key = entry.first.IsScalar() ? entry.first.Scalar() : "";
    const YAML::Node& v = entry.second;
    if (key == "name") {
      config.name = f.string(v, key);
      haveName = true;
    } else if (key == "description") {
      config.description = f.optionalString(v, key).value_or("");
    } else if (key == "author") {
      config.author = f.optionalString(v, key).value_or("");
    } else if (key == "author_email") {
      config.authorEmail = f.optionalString(v, key).value_or("");
      if (!config.authorEmail.empty() && config.authorEmail.find('@') == std::string::npos)
        f.fail(v, key, "expected an email address (got '" + config.authorEmail + "')");
    } else if (key == "license") {
      config.license = f.optionalString(v, key).value_or("");
    } else if (key == "copyright") {
      config.copyright = f.optionalString(v, key).value_or("");
    } else if (key == "modulepath") {
      for (auto& [p, node] : f.stringList(v, key)) {
        if (p.empty()) f.fail(node, key, "an empty folder name");
        config.modulepath.push_back((base / p).lexically_normal().string());
      }
    } else if (key == "downloadpath") {
      if (auto p = f.optionalString(v, key); p && !p->empty()) {
        config.downloadpath = (base / *p).lexically_normal().string();
        config.downloadpathSet = true;
      }
    } else if (key == "repo") {
      std::vector<YAML::Node> items;
      if (v.IsSequence())
        for (const auto& item : v) items.push_back(item);
      else if (!v.IsNull()) items.push_back(v);
      size_t i = 0;
      for (const YAML::Node& item : items) {
        std::string field = "repo[" + std::to_string(i++) + "]";
        RepoEntry repo;
        if (item.IsScalar()) {
          repo.url = item.Scalar();
        } else if (item.IsMap()) {
          if (!item["url"]) f.fail(item, field + ".url", "Field required");
          repo.url = f.string(item["url"], field + ".url");
          if (item["type"]) repo.type = f.string(item["type"], field + ".type");
          if (repo.type != "git" && repo.type != "package")
            f.fail(item["type"], field + ".type", "expected git or package (got '" + repo.type + "')");
          for (const auto& sub : item) {
            std::string subKey = sub.first.IsScalar() ? sub.first.Scalar() : "?";
            if (subKey != "url" && subKey != "type")
              config.warnings.push_back(f.where(sub.first.Mark()) + ": unknown key '" + field + "." + subKey +
                                        "' is ignored");
          }
        } else {
          f.fail(item, field, "expected a URL or a mapping with url and type");
        }
        if (repo.url.empty()) f.fail(item, field, "an empty URL");
        if (repo.type == "package") {
          config.warnings.push_back(
              f.where(item.Mark()) +
              ": repo entries of type package are not supported and are ignored (use pip.index-url)");
          continue;
        }
        size_t braces = 0;
        for (size_t pos = repo.url.find("{}"); pos != std::string::npos; pos = repo.url.find("{}", pos + 2)) ++braces;
        for (size_t pos = repo.url.find("{0}"); pos != std::string::npos; pos = repo.url.find("{0}", pos + 3)) ++braces;
        if (braces > 1) f.fail(item, field, "the URL template '" + repo.url + "' holds more than one {} placeholder");
        config.repos.push_back(std::move(repo));
      }
    } else if (key == "requires") {
      config.requires_ = f.requirements(v, key);
    } else if (key == "install_mode") {
      config.installMode = f.string(v, key);
      if (config.installMode != "release" && config.installMode != "prerelease" && config.installMode != "master")
        f.fail(v, key, "expected release, prerelease or master (got '" + config.installMode + "')");
    } else if (key == "freeze_recursive") {
      config.freezeRecursive = f.boolean(v, key);
    } else if (key == "freeze_operator") {
      config.freezeOperator = f.freezeOperator(v);
    } else if (key == "relation_precedence_policy") {
      for (auto& [rule, node] : f.stringList(v, key))
        if (!std::regex_match(rule, precedenceRule()))
          f.fail(node, key,
                 "invalid rule '" + rule +
                     "': expected '<entity-type>.<relation-name> before <entity-type>.<relation-name>'");
      for (auto& [rule, node] : f.stringList(v, key)) config.relationPrecedencePolicy.push_back(rule);
    } else if (key == "agent_install_dependency_modules") {
      config.agentInstallDependencyModules = f.boolean(v, key);
    } else if (key == "pip") {
      if (v.IsNull()) continue;
      if (!v.IsMap()) f.fail(v, key, "expected a mapping (index-url, extra-index-url, pre, use-system-config)");
      for (const auto& sub : v) {
        std::string subKey = sub.first.IsScalar() ? sub.first.Scalar() : "?";
        std::string norm = subKey;
        for (char& c : norm)
          if (c == '_') c = '-';
        const YAML::Node& sv = sub.second;
        std::string field = "pip." + subKey;
        if (norm == "index-url") {
          config.pip.indexUrl = f.optionalString(sv, field).value_or("");
        } else if (norm == "extra-index-url") {
          for (auto& [url, node] : f.stringList(sv, field)) config.pip.extraIndexUrl.push_back(url);
        } else if (norm == "pre") {
          if (!sv.IsNull()) config.pip.pre = f.boolean(sv, field);
        } else if (norm == "use-system-config") {
          config.pip.useSystemConfig = f.boolean(sv, field);
        } else {
          config.warnings.push_back(f.where(sub.first.Mark()) + ": Found unexpected configuration value '" + field +
                                    "' in 'project.yml'");
        }
      }
    } else if (key == "environment_settings") {
      if (v.IsNull()) continue;
      if (!v.IsMap()) f.fail(v, key, "expected a mapping of setting names to values");
      for (const auto& sub : v) {
        std::string subKey = sub.first.IsScalar() ? sub.first.Scalar() : "?";
        if (!sub.second.IsScalar() && !sub.second.IsMap())
          f.fail(sub.second, key + "." + subKey, "expected a boolean, number, string or mapping");
      }
      config.hasEnvironmentSettings = true;
    } else {
      config.warnings.push_back(f.where(entry.first.Mark()) + ": unknown key '" + key + "' is ignored");
    }
  }
  if (!haveName) f.required("name");
  if (config.name.empty()) f.fail(root["name"], "name", "must not be empty");
  if (config.downloadpath.empty() && !config.modulepath.empty()) config.downloadpath = config.modulepath.front();
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
  Fields f(config.configFile);
  try {
    YAML::Node root = f.load(readText(config.configFile, ErrorKind::ProjectException));
    parseProject(config, f, root);
  } catch (const FieldError& e) {
    // the reference's wording, with the place first
    throw CompileError(
        Diagnostic(ErrorKind::ProjectException,
                   e.where + ": Metadata defined in " + file.filename().string() + " is invalid: " + e.message));
  }
  return config;
}

ModuleConfig parseModuleConfig(const std::string& text, const std::string& file, const std::string& moduleDir) {
  ModuleConfig module;
  module.dir = moduleDir;
  module.file = file;
  Fields f(file);
  try {
    YAML::Node root = f.load(text);
    bool haveName = false, haveVersion = false, haveLicense = false;
    for (const auto& entry : root) {
      std::string key = entry.first.IsScalar() ? entry.first.Scalar() : "";
      const YAML::Node& v = entry.second;
      if (key == "name") {
        module.name = f.string(v, key);
        haveName = true;
      } else if (key == "version") {
        module.version = f.version(v, key);
        haveVersion = true;
      } else if (key == "license") {
        module.license = f.string(v, key);
        haveLicense = true;
      } else if (key == "description") {
        module.description = f.optionalString(v, key).value_or("");
      } else if (key == "compiler_version") {
        if (!v.IsNull()) module.compilerVersion = f.version(v, key);
      } else if (key == "requires") {
        module.requires_ = f.requirements(v, key);
      } else if (key == "freeze_recursive") {
        module.freezeRecursive = f.boolean(v, key);
      } else if (key == "freeze_operator") {
        module.freezeOperator = f.freezeOperator(v);
      } else if (key == "deprecated") {
        if (!v.IsNull()) module.deprecated = f.boolean(v, key);
      }
      // other keys are ignored, as the reference does for module.yml
    }
    if (!haveName) f.required("name");
    if (!haveVersion) f.required("version");
    if (!haveLicense) f.required("license");
  } catch (const FieldError& e) {
    Diagnostic diag(ErrorKind::InvalidModuleException,
                    "The module found at " + moduleDir + " is not a valid V1 module");
    diag.causes.push_back(Diagnostic(ErrorKind::InvalidModuleException, e.full()));
    throw CompileError(std::move(diag));
  }
  return module;
}

ModuleConfig loadModuleConfig(const std::string& moduleDir) {
  std::string file = (fs::path(moduleDir) / "module.yml").string();
  if (!fs::is_regular_file(file)) {
    std::string hint = fs::is_regular_file(fs::path(moduleDir) / "setup.cfg")
                           ? " (it looks like a v2 module, which this toolchain does not load)"
                           : "";
    throw CompileError(Diagnostic(ErrorKind::InvalidModuleException,
                                  "The module found at " + moduleDir + " has no module.yml" + hint));
  }
  return parseModuleConfig(readText(file, ErrorKind::InvalidModuleException), file, moduleDir);
}

void checkCompilerVersion(const ModuleConfig& module) {
  static const Version ours = *Version::parse(kCompilerVersion);
  if (module.compilerVersion && *module.compilerVersion > ours)
    throw CompileError(Diagnostic(ErrorKind::InvalidModuleException,
                                  "module " + module.name + " " + module.version.str() + " (" + module.dir +
                                      ") needs compiler version " + module.compilerVersion->str() +
                                      " or newer; this compiler is " + std::string(kCompilerVersion)));
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

std::string findModuleDir(const ProjectConfig& project, const std::string& name) {
  for (const std::string& dir : project.modulepath) {
    fs::path candidate = fs::path(dir) / name;
    if (fs::is_regular_file(candidate / "module.yml") || fs::is_directory(candidate / "model"))
      return candidate.string();
  }
  if (name == "std") return bundledStdDir();
  return {};
}

std::optional<PrecedenceRule> parsePrecedenceRule(const std::string& text) {
  static const std::regex rule(R"(^\s*([\w:]+)\.(\w+)\s+before\s+([\w:]+)\.(\w+)\s*$)");
  std::smatch m;
  if (!std::regex_match(text, m, rule)) return std::nullopt;
  return PrecedenceRule{m[1], m[2], m[3], m[4]};
}

}  // namespace inmanta::compiler
