// MemoryHost: an in-memory machine for the unit tests of handlers and of the scheduler — files,
// folders and symlinks with owner, group and mode, known user and group names, environment
// variables, and commands whose results a test scripts. It fails as LocalHost does (the same
// Python-worded errors, host.h) and is safe to share between the scheduler's worker threads.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "embedded/handlers/host.h"

namespace inmanta::handlers {

class MemoryHost final : public Host {
 public:
  struct Node {
    enum class Kind { file, directory, symlink };
    Kind kind = Kind::file;
    std::string content;  // a file's
    std::string target;   // a symlink's
    std::string owner;
    std::string group;
    unsigned mode = 0644;
  };
  struct Call {
    std::string command;
    std::vector<std::string> args;
  };
  using RunHandler = std::function<RunResult(const std::string& command, const std::vector<std::string>& args)>;

  // `user` and `group` own what the handlers create, as the user running the agent would; they
  // and `root` are known names. The root folder exists.
  explicit MemoryHost(std::string user = "root", std::string group = "root");

  // --- setting the scene (parents are created as needed, owned by the host's user) ---
  void addUser(const std::string& name);
  void addGroup(const std::string& name);
  void addDirectory(const std::string& path, unsigned mode = 0755);
  void addFile(const std::string& path, const std::string& content, unsigned mode = 0644);
  void addSymlink(const std::string& path, const std::string& target);
  void addExecutable(const std::string& path);
  void setEnvironment(const std::string& name, const std::string& value);
  // The result of one exact command line (the command and its arguments joined by spaces).
  void script(const std::string& commandLine, RunResult result);
  // The fallback for commands without a script; without one they exit 127 like an unknown command.
  void onRun(RunHandler handler);

  // --- looking at the result ---
  std::optional<Node> node(const std::string& path) const;  // without following a last symlink
  std::vector<Call> calls() const;
  // How many calls changed the file system (writes, chmod, chown, mkdir, removals, symlinks):
  // a dry-run must leave it unchanged.
  std::size_t modifications() const;

  // --- Host ---
  bool fileExists(const std::string& path) override;
  bool isSymlink(const std::string& path) override;
  bool isDirectory(const std::string& path) override;
  FileStat stat(const std::string& path) override;
  std::string hashFile(const std::string& path) override;
  std::string readFile(const std::string& path) override;
  void writeFileAtomic(const std::string& path, const std::string& content, const std::string& permissions,
                       const std::string& owner, const std::string& group) override;
  void chmod(const std::string& path, const std::string& permissions) override;
  void chown(const std::string& path, const std::string& owner, const std::string& group) override;
  void mkdir(const std::string& path) override;
  void removeTree(const std::string& path) override;
  void remove(const std::string& path) override;
  void symlink(const std::string& source, const std::string& target) override;
  std::string readlink(const std::string& path) override;
  RunResult run(const std::string& command, const std::vector<std::string>& args, int timeoutSeconds = 600) override;
  bool executableExists(const std::string& path) override;
  std::optional<std::string> environment(const std::string& name) override;

 private:
  // The path of the entry `path` names with its symlinks resolved (the last one only when
  // `followLast`); a missing last component is returned as it is, a missing or non-folder parent
  // is an error. Callers hold the mutex.
  std::string resolve(const std::string& path, bool followLast) const;
  // resolve, then the node, which must exist
  Node& existing(const std::string& path, bool followLast);
  void addParents(const std::string& path);
  void checkNames(const std::string& owner, const std::string& group) const;
  Node newNode(Node::Kind kind, unsigned mode) const;

  mutable std::mutex mutex_;
  std::string user_;
  std::string group_;
  std::set<std::string> users_;
  std::set<std::string> groups_;
  std::map<std::string, Node> nodes_;  // by normalised absolute path; "/" is the root folder
  std::map<std::string, std::string> environment_;
  std::map<std::string, RunResult> scripts_;
  RunHandler runHandler_;
  std::vector<Call> calls_;
  std::size_t modifications_ = 0;
};

}  // namespace inmanta::handlers
