#include "embedded/agent/python_executors.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <vector>

#include <spdlog/spdlog.h>

#include "embedded/handlers/foreign.h"
#include "util/digest.h"
#include "util/thread_policy.h"

extern char** environ;

namespace inmanta::agent {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

bool isIdentifier(const std::string& part) {
  if (part.empty() || (std::isdigit(static_cast<unsigned char>(part[0])) != 0)) return false;
  for (char c : part)
    if (std::isalnum(static_cast<unsigned char>(c)) == 0 && c != '_') return false;
  return true;
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t at = text.find(separator); at != std::string::npos; at = text.find(separator, start)) {
    parts.push_back(text.substr(start, at - start));
    start = at + 1;
  }
  parts.push_back(text.substr(start));
  return parts;
}

// The modules of a module_version_info whose code an executor loads (not std's), each with its
// files sorted, as one canonical document: its hash names the code set.
json codeModules(const json& info) {
  json modules = json::object();
  if (!info.is_object()) return modules;
  for (const auto& [name, module] : info.items()) {
    if (name == "std" || !module.is_object()) continue;
    json files = json::array();
    if (module.contains("files_in_module") && module["files_in_module"].is_array())
      for (const json& f : module["files_in_module"])
        if (f.is_object())
          files.push_back({{"name", f.value("name", "")},
                           {"hash_value", f.value("hash_value", "")},
                           {"is_byte_code", f.value("is_byte_code", false)}});
    std::sort(files.begin(), files.end(),
              [](const json& a, const json& b) { return a["name"].get<std::string>() < b["name"].get<std::string>(); });
    json requirements = json::array();
    if (module.contains("requirements") && module["requirements"].is_array())
      for (const json& r : module["requirements"])
        if (r.is_string()) requirements.push_back(r);
    modules[name] = json{{"files", std::move(files)}, {"requirements", std::move(requirements)}};
  }
  return modules;
}

}  // namespace

std::optional<std::string> codeFilePath(const std::string& module, const std::string& pythonName, bool byteCode) {
  std::vector<std::string> parts = split(pythonName, '.');
  if (parts.size() < 2 || parts[0] != "inmanta_plugins" || parts[1] != module || !isIdentifier(module))
    return std::nullopt;
  std::string path = module + "/plugins";
  for (size_t i = 2; i < parts.size(); ++i) {
    if (!isIdentifier(parts[i])) return std::nullopt;
    path += "/" + parts[i];
  }
  return path + (byteCode ? "/__init__.pyc" : "/__init__.py");
}

// One executor process: a socket to it, the types it has handlers for, one call at a time.
class PythonExecutors::Process {
 public:
  Process(const std::string& executable, const std::string& codeDir, std::chrono::milliseconds startTimeout) {
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
      throw std::runtime_error(std::string("cannot make a socket for the executor: ") + std::strerror(errno));
    socket_ = fds[0];
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
    std::vector<std::string> args{executable, "executor", "--code", codeDir};
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    // a group of its own: stopping a hung call stops what the handler started too
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attributes, 0);
    int error;
    {
      util::NormalScheduling normal;  // not a worker's policy (thread_policy.h)
      error = posix_spawn(&pid_, executable.c_str(), &actions, &attributes, argv.data(), environ);
    }
    posix_spawnattr_destroy(&attributes);
    posix_spawn_file_actions_destroy(&actions);
    close(fds[1]);
    if (error != 0) {
      close(socket_);
      socket_ = -1;
      throw std::runtime_error("cannot start the executor " + executable + ": " + std::strerror(error));
    }
    std::string hello;
    if (!readLine(hello, startTimeout)) {
      stop();
      throw std::runtime_error("the executor did not start within " +
                               std::to_string(std::chrono::duration_cast<std::chrono::seconds>(startTimeout).count()) +
                               " s");
    }
    json answer = json::parse(hello, nullptr, false);
    if (answer.is_object() && answer.contains("error")) {
      loadError_ = answer["error"].is_string() ? answer["error"].get<std::string>() : answer["error"].dump();
      stop();
      return;
    }
    if (!answer.is_object() || !answer.contains("handlers") || !answer["handlers"].is_array()) {
      stop();
      throw std::runtime_error("the executor answered something else than its handlers: " + hello.substr(0, 200));
    }
    for (const json& type : answer["handlers"])
      if (type.is_string()) types_.insert(type.get<std::string>());
  }
  ~Process() { stop(); }
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;

  const std::string& loadError() const { return loadError_; }
  bool serves(const std::string& type) const { return types_.count(type) != 0; }
  bool alive() {
    std::lock_guard<std::mutex> lock(mutex_);
    return socket_ >= 0;
  }
  bool busy() {
    std::unique_lock<std::mutex> lock(mutex_, std::try_to_lock);
    return !lock.owns_lock();
  }

  // One handler call; throws std::runtime_error when the process cannot answer (then it is stopped).
  std::string call(const std::string& request, std::chrono::milliseconds timeout) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (socket_ < 0) throw std::runtime_error("the executor process has stopped");
    std::string line = request + "\n";
    for (size_t sent = 0; sent < line.size();) {
      ssize_t n = send(socket_, line.data() + sent, line.size() - sent, MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        stopLocked();
        throw std::runtime_error("the executor process has stopped");
      }
      sent += static_cast<size_t>(n);
    }
    std::string answer;
    if (!readLine(answer, timeout)) {
      bool died = closed_;
      stopLocked();
      if (died) throw std::runtime_error("the executor process ended during the handler call");
      throw std::runtime_error("the handler did not finish within " +
                               std::to_string(std::chrono::duration_cast<std::chrono::seconds>(timeout).count()) +
                               " s; its executor process was stopped");
    }
    return answer;
  }

  std::uint64_t lastUse = 0;

 private:
  // Reads up to a newline within `timeout`; false on time-out, end of stream or error.
  bool readLine(std::string& line, std::chrono::milliseconds timeout) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      if (size_t end = buffer_.find('\n'); end != std::string::npos) {
        line = buffer_.substr(0, end);
        buffer_.erase(0, end + 1);
        return true;
      }
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return false;
      pollfd p{socket_, POLLIN, 0};
      int ready = poll(&p, 1, static_cast<int>(std::min<std::int64_t>(left.count(), 60000)));
      if (ready < 0 && errno == EINTR) continue;
      if (ready < 0) {
        closed_ = true;
        return false;
      }
      if (ready == 0) continue;
      char chunk[65536];
      ssize_t n = recv(socket_, chunk, sizeof chunk, 0);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        closed_ = true;
        return false;
      }
      buffer_.append(chunk, static_cast<size_t>(n));
    }
  }
  void stop() {
    std::lock_guard<std::mutex> lock(mutex_);
    stopLocked();
  }
  // Closing the socket ends a waiting executor; one still in a handler call is killed.
  void stopLocked() {
    if (socket_ >= 0) close(socket_);
    socket_ = -1;
    if (pid_ <= 0) return;
    // what the handlers started and left behind goes with the process
    struct Group {
      pid_t id;
      ~Group() { kill(-id, SIGKILL); }
    } group{pid_};
    for (int i = 0; i < 20; ++i) {
      if (waitpid(pid_, nullptr, WNOHANG) == pid_) {
        pid_ = -1;
        return;
      }
      usleep(10000);
    }
    kill(-pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }

  std::mutex mutex_;
  int socket_ = -1;
  pid_t pid_ = -1;
  std::string buffer_;
  bool closed_ = false;  // the process closed its end (it ended)
  std::set<std::string> types_;
  std::string loadError_;
};

PythonExecutors::PythonExecutors(PythonExecutorsConfig config, FileSource files)
    : config_(std::move(config)), files_(std::move(files)) {}

PythonExecutors::~PythonExecutors() {
  std::lock_guard<std::mutex> lock(mutex_);
  processes_.clear();
}

std::optional<std::string> PythonExecutors::writeCode(const std::string& key, const json& codeSet, std::string& why) {
  const json& modules = codeSet["modules"];
  fs::path target = fs::path(config_.codeRoot) / key;
  std::error_code ec;
  if (fs::is_directory(target, ec)) return target.string();
  // written beside and renamed whole: a half-written set is never loaded
  fs::path partial = fs::path(config_.codeRoot) / (key + ".partial-" + std::to_string(getpid()));
  fs::remove_all(partial, ec);
  fs::create_directories(partial, ec);
  if (ec) {
    why = "cannot make the folder " + partial.string() + ": " + ec.message();
    return std::nullopt;
  }
  for (const auto& [module, entry] : modules.items()) {
    for (const json& file : entry["files"]) {
      const std::string name = file["name"].get<std::string>();
      std::optional<std::string> relative = codeFilePath(module, name, file["is_byte_code"].get<bool>());
      if (!relative) {
        why = "module " + module + " has a file named '" + name +
              "', which is not a Python module of inmanta_plugins." + module;
        fs::remove_all(partial, ec);
        return std::nullopt;
      }
      std::optional<std::string> content = files_(file["hash_value"].get<std::string>());
      if (!content) {
        why = "the file " + name + " of module " + module + " (" + file["hash_value"].get<std::string>() +
              ") is not in the file store";
        fs::remove_all(partial, ec);
        return std::nullopt;
      }
      fs::path path = partial / *relative;
      fs::create_directories(path.parent_path(), ec);
      std::ofstream out(path, std::ios::binary);
      out << *content;
      if (!out.flush()) {
        why = "cannot write " + path.string();
        fs::remove_all(partial, ec);
        return std::nullopt;
      }
    }
    // every folder of the package a package, as Python's imports want it
    for (auto it = fs::recursive_directory_iterator(partial / module / "plugins", ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
      if (it->is_directory() && !fs::exists(it->path() / "__init__.py") && !fs::exists(it->path() / "__init__.pyc"))
        std::ofstream(it->path() / "__init__.py").flush();
    if (!fs::exists(partial / module / "plugins" / "__init__.py") &&
        !fs::exists(partial / module / "plugins" / "__init__.pyc"))
      std::ofstream(partial / module / "plugins" / "__init__.py").flush();
  }
  // what the executor installs before it loads the code (cli/executor.cpp)
  json requirements = json::array();
  for (const auto& [module, entry] : modules.items())
    for (const json& r : entry["requirements"]) requirements.push_back({{"module", module}, {"requirement", r}});
  std::ofstream(partial / "executor.json")
      << json{{"requirements", requirements}, {"pip_config", codeSet["pip_config"]}}.dump(2);
  fs::rename(partial, target, ec);
  if (ec && !fs::is_directory(target)) {
    why = "cannot rename " + partial.string() + " to " + target.string() + ": " + ec.message();
    fs::remove_all(partial, ec);
    return std::nullopt;
  }
  if (ec) fs::remove_all(partial, ec);  // another server process wrote the same set first
  return target.string();
}

void PythonExecutors::stopIdleBeyondLimit() {
  while (processes_.size() > config_.maxProcesses) {
    auto oldest = processes_.end();
    for (auto it = processes_.begin(); it != processes_.end(); ++it)
      if (!it->second->busy() && (oldest == processes_.end() || it->second->lastUse < oldest->second->lastUse))
        oldest = it;
    if (oldest == processes_.end()) return;  // all busy
    processes_.erase(oldest);
  }
}

std::shared_ptr<PythonExecutors::Process> PythonExecutors::processFor(const VersionCode& code, std::string& why) {
  json modules = codeModules(code.modules);
  if (modules.empty()) {
    why = "its version has no module code (module_version_info) besides std's";
    return nullptr;
  }
  // the code set: the modules' files and requirements, and how pip installs them
  const json codeSet{{"modules", std::move(modules)}, {"pip_config", code.pipConfig}};
  const std::string key = util::sha1Hex(codeSet.dump());
  // What this code set has: a process, a recent failure, or neither (then it is started).
  auto known = [&]() -> std::optional<std::shared_ptr<Process>> {
    if (auto failed = failures_.find(key); failed != failures_.end()) {
      if (std::chrono::steady_clock::now() - failed->second.at < config_.retryFailedAfter) {
        why = failed->second.why;
        return nullptr;
      }
      failures_.erase(failed);
    }
    auto found = processes_.find(key);
    if (found != processes_.end() && found->second->alive()) {
      found->second->lastUse = ++uses_;
      return found->second;
    }
    return std::nullopt;
  };
  std::shared_ptr<std::mutex> starting;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (std::optional<std::shared_ptr<Process>> process = known()) return *process;
    std::shared_ptr<std::mutex>& slot = starting_[key];
    if (!slot) slot = std::make_shared<std::mutex>();
    starting = slot;
  }
  // One start per code set at a time (it may install requirements for minutes), while the other
  // code sets' calls go on.
  std::lock_guard<std::mutex> startLock(*starting);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (std::optional<std::shared_ptr<Process>> process = known()) return *process;  // started meanwhile
  }
  std::optional<std::string> dir = writeCode(key, codeSet, why);
  if (!dir) return nullptr;
  std::shared_ptr<Process> process;
  try {
    process = std::make_shared<Process>(config_.executable, *dir, config_.startTimeout);
  } catch (const std::exception& e) {
    why = e.what();
    return nullptr;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (!process->loadError().empty()) {
    why = "the module code of its version cannot be loaded: " + process->loadError();
    failures_[key] = Failure{why, std::chrono::steady_clock::now()};
    spdlog::error("The executor for {} cannot load its module code: {}", *dir, process->loadError());
    return nullptr;
  }
  process->lastUse = ++uses_;
  processes_[key] = process;
  stopIdleBeyondLimit();
  return process;
}

std::unique_ptr<handlers::Handler> PythonExecutors::handlerFor(const VersionCode& code, const std::string& type,
                                                               handlers::FileStore* files, std::string& why) {
  std::shared_ptr<Process> process = processFor(code, why);
  if (!process) return nullptr;
  if (!process->serves(type)) {
    why = "the module code of its version has no handler for " + type;
    return nullptr;
  }
  std::chrono::milliseconds timeout = config_.callTimeout;
  handlers::ForeignCall call = [process, timeout](const std::string& request) {
    return process->call(request, timeout);
  };
  // the process's own time-out stops a hung call first; the handler's is a last resort
  return std::make_unique<handlers::ForeignHandler>(std::move(call), timeout + std::chrono::seconds(30), files);
}

}  // namespace inmanta::agent
