#include "installer/python_env.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

namespace fs = std::filesystem;

namespace inmanta::installer {

namespace {

std::string trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t\r\f\v");
  if (b == std::string_view::npos) return "";
  size_t e = s.find_last_not_of(" \t\r\f\v");
  return std::string(s.substr(b, e - b + 1));
}

std::string join(const std::vector<std::string>& items, const std::string& sep) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : sep) + s;
  return out;
}

bool isNameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.'; }

// The PEP 508 name at the start of `text` (letters and digits at both ends), or empty; `end` is
// where it stops.
std::string leadingName(const std::string& text, size_t& end) {
  end = 0;
  while (end < text.size() && isNameChar(text[end])) ++end;
  while (end > 0 && !std::isalnum(static_cast<unsigned char>(text[end - 1]))) --end;
  if (end == 0 || !std::isalnum(static_cast<unsigned char>(text[0]))) return "";
  return text.substr(0, end);
}

std::string relativeToProject(const std::string& path, const std::string& projectDir) {
  std::string r = fs::path(path).lexically_relative(projectDir).string();
  return r.empty() || r.rfind("..", 0) == 0 ? path : r;
}

std::string describe(const PythonRequirement& r) {
  return "`" + r.text + "` (" + r.owner + ", " + r.file + ":" + std::to_string(r.line) + ")";
}

// The last `count` non-blank lines of `output`, indented.
std::string lastLines(const std::string& output, size_t count) {
  std::vector<std::string> lines;
  std::istringstream in(output);
  for (std::string line; std::getline(in, line);)
    if (!trim(line).empty()) lines.push_back(line);
  size_t from = lines.size() > count ? lines.size() - count : 0;
  std::string out;
  for (size_t i = from; i < lines.size(); ++i) out += "\n  " + lines[i];
  return out;
}

std::string readFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ProjectError("cannot read " + path.string() + ": " + std::strerror(errno));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// What pip's output says went wrong, in the reference's words (env.py, Pip._process_return), with
// the requirements it names; empty when it says nothing we recognise.
std::string pipFailureSummary(const std::string& output, const ProcessSpec& command,
                              const std::vector<PythonRequirement>& requirements) {
  static const std::regex notFound(R"(No matching distribution found for (\S+))");
  std::vector<std::string> missing;
  std::string indexes;
  std::vector<std::string> conflicts;
  std::istringstream in(output);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_search(line, m, notFound)) missing.push_back(m[1]);
    if (line.find("versions have conflicting dependencies") != std::string::npos) conflicts.push_back(trim(line));
    if (line.find("Looking in indexes:") != std::string::npos) indexes = trim(line);
  }
  if (!missing.empty()) {
    auto given = [&](const char* flag) {
      return std::find(command.argv.begin(), command.argv.end(), flag) != command.argv.end();
    };
    std::string where = !given("--no-index")
                            ? (indexes.empty() ? "They were not found at PyPI."
                                               : "They were not found in the given indexes (" + indexes + ").")
                        : given("--find-links")
                            ? "No indexes were used, only the --find-links locations."
                            : "No indexes were used (pip.index_url in project.yml sets one; --find-links DIR "
                              "installs from a folder of packages).";
    std::vector<std::string> named;
    for (const std::string& spec : missing) {
      size_t end = 0;
      std::string name = canonicalPackageName(leadingName(spec, end));
      std::vector<std::string> who;
      for (const PythonRequirement& r : requirements)
        if (r.name == name) who.push_back(describe(r));
      named.push_back(who.empty() ? spec : join(who, ", "));
    }
    return "Packages " + join(missing, ", ") + " were not found. " + where + "\nrequired by: " + join(named, "; ");
  }
  if (!conflicts.empty()) return join(conflicts, "\n");
  return "";
}

}  // namespace

std::string canonicalPackageName(std::string_view name) {
  std::string out;
  bool separator = false;
  for (char c : name) {
    if (c == '-' || c == '_' || c == '.') {
      separator = true;
      continue;
    }
    if (separator && !out.empty()) out += '-';
    separator = false;
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

std::vector<PythonRequirement> parseRequirementsTxt(const std::string& text, const std::string& file,
                                                    const std::string& owner) {
  std::vector<PythonRequirement> out;
  std::string buffer;
  int bufferLine = 0;
  auto add = [&](const std::string& entry, int line) {
    std::string req = trim(entry);
    size_t end = 0;
    std::string name = leadingName(req, end);
    size_t next = req.find_first_not_of(" \t", end);
    bool ok = !name.empty() &&
              (next == std::string::npos || std::string_view("[(<>=!~@;").find(req[next]) != std::string_view::npos);
    if (!ok) {
      std::string hint = !req.empty() && req[0] == '-'
                             ? ": pip options are not accepted here (project.yml's pip section sets the index)"
                             : ": expected a package name with optional extras, version, URL and markers (PEP 508)";
      throw ProjectError(file + ":" + std::to_string(line) + ": invalid requirement '" + req + "' in " + owner +
                         "'s requirements.txt" + hint);
    }
    out.push_back(PythonRequirement{req, canonicalPackageName(name), file, line, owner});
  };
  std::istringstream in(text);
  int lineNumber = 0;
  for (std::string raw; std::getline(in, raw);) {
    ++lineNumber;
    std::string line = trim(raw);
    // the reference's order: blank and comment lines out, ` #` comments cut, then continuations
    if (line.empty() || line[0] == '#') continue;
    size_t comment = line.find(" #");
    if (comment != std::string::npos) line = line.substr(0, comment);
    if (!line.empty() && line.back() == '\\') {
      if (buffer.empty()) bufferLine = lineNumber;
      buffer += line.substr(0, line.size() - 1);
      continue;
    }
    if (!buffer.empty()) {
      add(buffer + line, bufferLine);
      buffer.clear();
    } else {
      add(line, lineNumber);
    }
  }
  if (!trim(buffer).empty()) add(buffer, bufferLine);
  return out;
}

std::string notInstalledReason(const std::string& name) {
  if (name == "inmanta" || name == "inmanta-core" || name == "inmanta-service-orchestrator")
    return "inmanta-cpp takes its place";
  if (name.rfind("inmanta-module-", 0) == 0)
    return "a v2 inmanta module, not a Python library: modules come from the model's imports";
  return "";
}

PythonRequirements collectPythonRequirements(const ResolveResult& resolved) {
  const std::string& projectDir = resolved.project.dir;
  std::vector<std::pair<fs::path, std::string>> files{{fs::path(projectDir) / "requirements.txt", "the project"}};
  for (const ModuleStatus& m : resolved.modules)  // sorted by name
    if (m.imported && m.name != "std" && !m.dir.empty())
      files.emplace_back(fs::path(m.dir) / "requirements.txt", "module " + m.name);
  PythonRequirements out;
  std::set<std::string> seen;
  for (const auto& [path, owner] : files) {
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) continue;
    for (PythonRequirement& r :
         parseRequirementsTxt(readFile(path), relativeToProject(path.string(), projectDir), owner)) {
      std::string reason = notInstalledReason(r.name);
      if (!reason.empty()) out.skipped.emplace_back(std::move(r), std::move(reason));
      else if (seen.insert(r.text).second) out.install.push_back(std::move(r));
    }
  }
  return out;
}

ProcessSpec pipInstallCommand(const std::string& python, const compiler::ProjectConfig::Pip& pip,
                              const PipOptions& options, const std::vector<PythonRequirement>& requirements) {
  ProcessSpec spec;
  spec.argv = {python, "-m", "pip", "install", "--disable-pip-version-check"};
  if (options.upgrade) spec.argv.insert(spec.argv.end(), {"--upgrade", "--upgrade-strategy", "eager"});
  if (options.pre || pip.pre.value_or(false)) spec.argv.emplace_back("--pre");
  for (const PythonRequirement& r : requirements) spec.argv.push_back(r.text);
  // the reference's PipConfig.get_index_args(): without an index and the system's configuration,
  // no index at all
  if (!pip.indexUrl.empty()) spec.argv.insert(spec.argv.end(), {"--index-url", pip.indexUrl});
  if (options.noIndex || (pip.indexUrl.empty() && !pip.useSystemConfig)) spec.argv.emplace_back("--no-index");
  for (const std::string& url : pip.extraIndexUrl) spec.argv.insert(spec.argv.end(), {"--extra-index-url", url});
  for (const std::string& dir : options.findLinks) spec.argv.insert(spec.argv.end(), {"--find-links", dir});
  // PipConfig.get_environment_variables()
  if (!pip.useSystemConfig) {
    for (const char* key : {"PIP_EXTRA_INDEX_URL", "PIP_INDEX_URL", "PIP_PRE", "PIP_NO_INDEX"})
      spec.env[key] = std::nullopt;
    spec.env["PIP_CONFIG_FILE"] = "/dev/null";  // no configuration file at all
  }
  if (pip.pre) spec.env["PIP_PRE"] = *pip.pre ? "True" : "False";
  return spec;
}

ProcessResult runProcess(const ProcessSpec& spec) {
  ProcessResult result;
  if (spec.argv.empty()) return result;
  std::map<std::string, std::string> vars;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string_view entry(*e);
    size_t eq = entry.find('=');
    if (eq != std::string_view::npos) vars[std::string(entry.substr(0, eq))] = std::string(entry.substr(eq + 1));
  }
  for (const auto& [key, value] : spec.env) {
    if (value) vars[key] = *value;
    else vars.erase(key);
  }
  std::vector<std::string> envStrings;
  for (const auto& [key, value] : vars) envStrings.push_back(key + "=" + value);
  std::vector<char*> envp;
  for (std::string& s : envStrings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = spec.argv;
  std::vector<char*> argv;
  for (std::string& s : args) argv.push_back(s.data());
  argv.push_back(nullptr);

  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    result.output = std::string("cannot make a pipe: ") + std::strerror(errno);
    return result;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
  pid_t pid = 0;
  int rc = ::posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[1]);
  if (rc != 0) {
    ::close(fds[0]);
    result.output = "cannot run " + spec.argv[0] + ": " + std::strerror(rc);
    return result;
  }
  char chunk[4096];
  for (;;) {
    ssize_t n = ::read(fds[0], chunk, sizeof chunk);
    if (n > 0) result.output.append(chunk, static_cast<size_t>(n));
    else if (n == 0 || errno != EINTR) break;
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

std::string embeddedPythonInterpreter() { return INMANTA_EMBEDDED_PYTHON; }

std::string ensurePythonEnvironment(const fs::path& env, const std::string& label, std::ostream& progress,
                                    const ProcessRunner& run) {
  fs::path python = env / "bin" / "python";
  std::string interpreter = embeddedPythonInterpreter();
  std::string pythonName = fs::path(interpreter).filename().string();  // python3.11
  std::error_code ec;
  if (!fs::exists(python, ec)) {
    if (fs::exists(env, ec) && !fs::is_empty(env, ec))
      throw ProjectError("the folder " + env.string() + " exists but is not a Python environment (no bin/python): " +
                         "remove it, and the next install makes one");
    ProcessResult made =
        run(ProcessSpec{{interpreter, "-m", "venv", "--system-site-packages", "--without-pip", env.string()}, {}});
    if (made.exitCode != 0 || !fs::exists(python, ec))
      throw ProjectError("cannot create " + label + " with " + interpreter +
                         " (the Python the compile embeds):" + lastLines(made.output, 10));
    // as the reference's environments: `pip` runs the environment's python (and the system's pip)
    fs::path pipStub = env / "bin" / "pip";
    std::ofstream(pipStub) << "#!/bin/sh\nexec \"$(dirname \"$0\")/python\" -m pip \"$@\"\n";
    fs::permissions(pipStub,
                    fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec | fs::perms::others_read |
                        fs::perms::others_exec,
                    ec);
    progress << "created " << label << " (" << pythonName << ", with the system's packages)\n";
  } else if (pythonName.rfind("python3.", 0) == 0 && !fs::is_directory(env / "lib" / pythonName, ec)) {
    throw ProjectError(label + " is not made for " + pythonName +
                       ", the Python the compile embeds: remove it, and the next install makes it again");
  }
  return python.string();
}

void pipInstallInto(const std::string& python, const std::string& label, const compiler::ProjectConfig::Pip& pip,
                    const PipOptions& options, const std::vector<PythonRequirement>& requirements,
                    std::ostream& progress, const ProcessRunner& run) {
  std::vector<std::string> texts;
  for (const PythonRequirement& r : requirements) texts.push_back(r.text);
  progress << "installing Python requirements into " << label << " with pip: " << join(texts, ", ") << "\n";
  ProcessSpec command = pipInstallCommand(python, pip, options, requirements);
  ProcessResult result = run(command);
  if (result.exitCode == 0) {
    std::istringstream in(result.output);
    for (std::string line; std::getline(in, line);)
      if (line.rfind("Successfully installed", 0) == 0 || line.rfind("Requirement already satisfied", 0) == 0 ||
          line.rfind("Ignoring ", 0) == 0)
        progress << "  " << line << "\n";
    return;
  }
  if (result.output.find("No module named pip") != std::string::npos)
    throw ProjectError("cannot install the Python requirements: pip is not available to " + python +
                       " (with the system's packages): install Debian's python3-pip");
  std::vector<std::string> all;
  for (const PythonRequirement& r : requirements) all.push_back(describe(r));
  std::string summary = pipFailureSummary(result.output, command, requirements);
  throw ProjectError("pip could not install the Python requirements into " + label + " (" +
                     (result.exitCode < 0 ? std::string("it did not run to its end")
                                          : "exit status " + std::to_string(result.exitCode)) +
                     "): " + (summary.empty() ? join(all, ", ") : summary) +
                     "\npip's last lines:" + lastLines(result.output, 12));
}

void installPythonRequirements(const ResolveResult& resolved, const PipOptions& options, std::ostream& progress,
                               const ProcessRunner& run) {
  PythonRequirements reqs = collectPythonRequirements(resolved);
  for (const auto& [r, reason] : reqs.skipped)
    progress << "Python requirement " << describe(r) << " is not installed: " << reason << "\n";
  if (reqs.install.empty()) return;
  std::string python = ensurePythonEnvironment(fs::path(resolved.project.dir) / ".env",
                                               "the project's Python environment .env", progress, run);
  pipInstallInto(python, ".env", resolved.project.pip, options, reqs.install, progress, run);
}

}  // namespace inmanta::installer
