// `inmanta executor --code DIR` (hidden): the process in which `inmanta server` runs the modules'
// Python handlers (orchestrator spec §7.6: every handler runs in an executor on the server's host).
// The server writes the Python files a version was exported with under DIR — one folder per module,
// `DIR/<module>/plugins/...`, as a module's checkout has them — and starts this command with pipes.
// It loads every module's `plugins/` package as the compile does (compiler/module_code.h), then
// speaks JSON lines: first one line `{"handlers": [types]}` (or `{"error": "..."}` and exit 1), then
// one answer line per request line (inmanta._host.run_handler), until stdin closes.
//
// One process per set of module code keeps the versions' code apart and lets the server stop a
// handler that hangs, which a thread of its own interpreter could not. The modules' Python
// requirements (DIR/executor.json, with the version's pip settings) are installed into DIR/.env
// before the code loads, the first time, as the reference's executors install theirs.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "compiler/diag/diagnostic.h"
#include "compiler/module_code.h"
#include "compiler/source/source.h"
#include "installer/installer.h"
#include "installer/python_env.h"

namespace inmanta::cli {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// The protocol's channel: the original stdout. Module code that prints writes to stderr instead
// (fd 1 becomes a copy of fd 2), so a print() never breaks a line of the protocol.
class Channel {
 public:
  Channel() {
    std::fflush(stdout);
    int fd = dup(STDOUT_FILENO);
    if (fd >= 0) out_ = fdopen(fd, "w");
    dup2(STDERR_FILENO, STDOUT_FILENO);
  }
  ~Channel() {
    if (out_ != nullptr) std::fclose(out_);
  }
  Channel(const Channel&) = delete;
  Channel& operator=(const Channel&) = delete;
  bool send(const std::string& line) {
    if (out_ == nullptr) return false;
    return std::fputs(line.c_str(), out_) >= 0 && std::fputc('\n', out_) != EOF && std::fflush(out_) == 0;
  }

 private:
  FILE* out_ = nullptr;
};

// put_version's pip_config as project.yml's pip settings.
compiler::ProjectConfig::Pip pipSettings(const json& config) {
  compiler::ProjectConfig::Pip pip;
  if (!config.is_object()) return pip;
  if (config.contains("index-url") && config["index-url"].is_string()) pip.indexUrl = config["index-url"];
  if (config.contains("extra-index-url") && config["extra-index-url"].is_array())
    for (const json& url : config["extra-index-url"])
      if (url.is_string()) pip.extraIndexUrl.push_back(url);
  if (config.contains("pre") && config["pre"].is_boolean()) pip.pre = config["pre"].get<bool>();
  pip.useSystemConfig = config.value("use-system-config", false);
  return pip;
}

// Installs the code set's requirements into DIR/.env once (a marker names what was installed);
// returns the Python path it adds. Throws installer::ProjectError.
std::vector<std::string> installRequirements(const fs::path& dir) {
  std::ifstream in(dir / "executor.json");
  if (!in) return {};
  json config = json::parse(in, nullptr, false);
  if (!config.is_object() || !config.contains("requirements") || !config["requirements"].is_array()) return {};
  std::vector<installer::PythonRequirement> requirements;
  for (const json& entry : config["requirements"]) {
    std::string module = entry.value("module", "?");
    for (installer::PythonRequirement& r :
         installer::parseRequirementsTxt(entry.value("requirement", ""), "the requirements of module " + module,
                                         "module " + module))
      if (installer::notInstalledReason(r.name).empty()) requirements.push_back(std::move(r));
  }
  if (requirements.empty()) return {};
  fs::path env = dir / ".env";
  std::string wanted;
  for (const installer::PythonRequirement& r : requirements) wanted += r.text + "\n";
  std::ifstream marker(env / "inmanta-installed");
  std::string installed(std::istreambuf_iterator<char>(marker), {});
  if (installed != wanted) {
    const std::string label = "the executor's Python environment " + env.string();
    std::string python = installer::ensurePythonEnvironment(env, label, std::cerr);
    installer::pipInstallInto(python, label, pipSettings(config.value("pip_config", json())), {}, requirements,
                              std::cerr);
    std::ofstream(env / "inmanta-installed") << wanted;
  }
  return compiler::projectSitePackages(dir.string());
}

class ExecutorCommand : public Command {
 public:
  CLI::App* add(CLI::App& app, GlobalOptions&) override {
    CLI::App* cmd = app.add_subcommand("executor", "Run modules' Python handlers for the server (internal)");
    cmd->group("");  // not listed: the server starts it
    cmd->add_option("--code", codeDir_, "The folder with one folder per module (<module>/plugins/...)")->required();
    return cmd;
  }

  int run(const GlobalOptions&) override {
    Channel channel;
    std::vector<compiler::PythonModule> modules;
    std::error_code ec;
    for (const fs::directory_entry& entry : fs::directory_iterator(codeDir_, ec))
      if (entry.is_directory() && fs::is_directory(entry.path() / "plugins"))
        modules.push_back({entry.path().filename().string(), entry.path().string()});
    if (ec) {
      channel.send(json{{"error", "cannot read the code folder " + codeDir_ + ": " + ec.message()}}.dump());
      return 1;
    }
    std::sort(modules.begin(), modules.end(),
              [](const compiler::PythonModule& a, const compiler::PythonModule& b) { return a.name < b.name; });

    compiler::SourceManager sources;
    auto host = compiler::makeModuleCodeHost(
        sources, [](std::string_view, std::string_view) { return std::optional<std::string>(); },
        [](std::string_view logger, std::string_view level, const std::string& message) {
          std::cerr << level << " " << logger << " " << message << "\n";
        });
    std::unique_ptr<compiler::ModuleCode> code;
    try {
      compiler::ModuleCodeSettings settings;
      settings.projectDir = codeDir_;
      settings.pythonPath = installRequirements(codeDir_);
      code = compiler::moduleCodeLoader().load(modules, settings, *host, [&sources](const std::string& path) {
        std::ifstream in(path, std::ios::binary);  // for the line a load error shows
        return sources.add(path, path, std::string(std::istreambuf_iterator<char>(in), {}));
      });
    } catch (const compiler::CompileError& e) {
      channel.send(json{{"error", compiler::renderDiagnostic(e.diagnostic(), sources)}}.dump());
      return 1;
    } catch (const std::exception& e) {
      channel.send(json{{"error", e.what()}}.dump());
      return 1;
    }
    if (!channel.send(json{{"handlers", code->handlers.types}}.dump())) return 1;
    for (std::string request; std::getline(std::cin, request);) {
      if (request.empty()) continue;
      std::string answer;
      try {
        answer = code->handlers.run ? code->handlers.run(request)
                                    : json{{"status", "unavailable"}, {"logs", json::array()}}.dump();
      } catch (const std::exception& e) {
        answer = json{{"status", "failed"},
                      {"logs", json::array({{{"level", "ERROR"}, {"msg", e.what()}, {"kwargs", json::object()}}})}}
                     .dump();
      }
      if (!channel.send(answer)) return 1;
    }
    // The handlers' threads and the interpreter are left to the process's end.
    std::fflush(nullptr);
    std::_Exit(0);
  }

 private:
  std::string codeDir_;
};

}  // namespace

std::unique_ptr<Command> makeExecutorCommand() { return std::make_unique<ExecutorCommand>(); }

}  // namespace inmanta::cli
