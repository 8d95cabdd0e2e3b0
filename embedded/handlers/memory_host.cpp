#include "embedded/handlers/memory_host.h"

#include <algorithm>
#include <cerrno>

#include "util/digest.h"

namespace inmanta::handlers {

namespace {

using Kind = MemoryHost::Node::Kind;

std::string join(const std::string& folder, const std::string& name) {
  return folder == "/" ? "/" + name : folder + "/" + name;
}

std::string parentOf(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == 0 || slash == std::string::npos ? "/" : path.substr(0, slash);
}

// The components of a path, in order; empty ones (`//`, a trailing `/`) dropped.
std::vector<std::string> components(const std::string& path) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= path.size()) {
    auto slash = path.find('/', start);
    if (slash == std::string::npos) slash = path.size();
    if (slash > start) out.push_back(path.substr(start, slash - start));
    start = slash + 1;
  }
  return out;
}

}  // namespace

MemoryHost::MemoryHost(std::string user, std::string group) : user_(std::move(user)), group_(std::move(group)) {
  users_ = {"root", user_};
  groups_ = {"root", group_};
  nodes_["/"] = newNode(Kind::directory, 0755);
  nodes_["/"].owner = nodes_["/"].group = "root";
}

MemoryHost::Node MemoryHost::newNode(Node::Kind kind, unsigned mode) const {
  Node node;
  node.kind = kind;
  node.owner = user_;
  node.group = group_;
  node.mode = mode;
  return node;
}

std::string MemoryHost::resolve(const std::string& path, bool followLast) const {
  if (path.empty() || path.front() != '/') throw osError(ENOENT, path);  // handlers use absolute paths
  std::vector<std::string> pending = components(path);
  std::reverse(pending.begin(), pending.end());  // a stack: the next component at the back
  std::string current = "/";
  int hops = 0;
  while (!pending.empty()) {
    std::string name = std::move(pending.back());
    pending.pop_back();
    if (name == ".") continue;
    if (name == "..") {
      current = parentOf(current);
      continue;
    }
    std::string next = join(current, name);
    bool last = pending.empty();
    auto it = nodes_.find(next);
    if (it == nodes_.end()) {
      if (last) return next;
      throw osError(ENOENT, path);
    }
    const Node& node = it->second;
    if (node.kind == Kind::symlink && (!last || followLast)) {
      if (++hops > 40) throw osError(ELOOP, path);
      std::vector<std::string> link = components(node.target);
      pending.insert(pending.end(), link.rbegin(), link.rend());
      if (!node.target.empty() && node.target.front() == '/') current = "/";
      continue;
    }
    if (!last && node.kind != Kind::directory) throw osError(ENOTDIR, path);
    current = std::move(next);
  }
  return current;
}

MemoryHost::Node& MemoryHost::existing(const std::string& path, bool followLast) {
  auto it = nodes_.find(resolve(path, followLast));
  if (it == nodes_.end()) throw osError(ENOENT, path);
  return it->second;
}

void MemoryHost::checkNames(const std::string& owner, const std::string& group) const {
  if (!owner.empty() && !users_.count(owner)) throw unknownUserError(owner);
  if (!group.empty() && !groups_.count(group)) throw unknownGroupError(group);
}

// --- setting the scene --------------------------------------------------------------------------

void MemoryHost::addUser(const std::string& name) {
  std::lock_guard lock(mutex_);
  users_.insert(name);
}

void MemoryHost::addGroup(const std::string& name) {
  std::lock_guard lock(mutex_);
  groups_.insert(name);
}

void MemoryHost::addParents(const std::string& path) {
  std::string current = "/";
  std::vector<std::string> names = components(path);
  for (std::size_t i = 0; i + 1 < names.size(); ++i) {
    current = join(current, names[i]);
    nodes_.try_emplace(current, newNode(Kind::directory, 0755));
  }
}

void MemoryHost::addDirectory(const std::string& path, unsigned mode) {
  std::lock_guard lock(mutex_);
  addParents(path);
  nodes_[path] = newNode(Kind::directory, mode);
}

void MemoryHost::addFile(const std::string& path, const std::string& content, unsigned mode) {
  std::lock_guard lock(mutex_);
  addParents(path);
  Node node = newNode(Kind::file, mode);
  node.content = content;
  nodes_[path] = std::move(node);
}

void MemoryHost::addSymlink(const std::string& path, const std::string& target) {
  std::lock_guard lock(mutex_);
  addParents(path);
  Node node = newNode(Kind::symlink, 0777);
  node.target = target;
  nodes_[path] = std::move(node);
}

void MemoryHost::addExecutable(const std::string& path) { addFile(path, "#!/bin/sh\n", 0755); }

void MemoryHost::setEnvironment(const std::string& name, const std::string& value) {
  std::lock_guard lock(mutex_);
  environment_[name] = value;
}

void MemoryHost::script(const std::string& commandLine, RunResult result) {
  std::lock_guard lock(mutex_);
  scripts_[commandLine] = std::move(result);
}

void MemoryHost::onRun(RunHandler handler) {
  std::lock_guard lock(mutex_);
  runHandler_ = std::move(handler);
}

std::optional<MemoryHost::Node> MemoryHost::node(const std::string& path) const {
  std::lock_guard lock(mutex_);
  try {
    auto it = nodes_.find(resolve(path, false));
    if (it != nodes_.end()) return it->second;
  } catch (const HandlerError&) {
    // a missing or non-folder parent: there is no such node
  }
  return std::nullopt;
}

std::vector<MemoryHost::Call> MemoryHost::calls() const {
  std::lock_guard lock(mutex_);
  return calls_;
}

std::size_t MemoryHost::modifications() const {
  std::lock_guard lock(mutex_);
  return modifications_;
}

// --- Host ---------------------------------------------------------------------------------------

bool MemoryHost::fileExists(const std::string& path) { return node(path).has_value(); }

bool MemoryHost::isSymlink(const std::string& path) {
  auto found = node(path);
  return found && found->kind == Kind::symlink;
}

bool MemoryHost::isDirectory(const std::string& path) {
  std::lock_guard lock(mutex_);
  try {
    return existing(path, true).kind == Kind::directory;
  } catch (const HandlerError&) {
    return false;
  }
}

FileStat MemoryHost::stat(const std::string& path) {
  std::lock_guard lock(mutex_);
  const Node& found = existing(path, true);
  return FileStat{found.owner, found.group, permissionsNumber(found.mode)};
}

std::string MemoryHost::hashFile(const std::string& path) { return util::sha1Hex(readFile(path)); }

std::string MemoryHost::readFile(const std::string& path) {
  std::lock_guard lock(mutex_);
  const Node& found = existing(path, true);
  if (found.kind == Kind::directory) throw osError(EISDIR, path);
  return found.content;
}

void MemoryHost::writeFileAtomic(const std::string& path, const std::string& content, const std::string& permissions,
                                 const std::string& owner, const std::string& group) {
  std::lock_guard lock(mutex_);
  checkNames(owner, group);
  unsigned mode = permissions.empty() ? 0644 : parsePermissions(permissions);  // 0644: the usual umask 022
  std::string target = resolve(path, true);
  auto it = nodes_.find(target);
  if (it != nodes_.end() && it->second.kind == Kind::directory) throw osError(EISDIR, path);
  Node node = newNode(Kind::file, mode);
  node.content = content;
  if (!owner.empty()) node.owner = owner;
  if (!group.empty()) node.group = group;
  nodes_[target] = std::move(node);
  ++modifications_;
}

void MemoryHost::chmod(const std::string& path, const std::string& permissions) {
  std::lock_guard lock(mutex_);
  unsigned mode = parsePermissions(permissions);
  existing(path, true).mode = mode;
  ++modifications_;
}

void MemoryHost::chown(const std::string& path, const std::string& owner, const std::string& group) {
  std::lock_guard lock(mutex_);
  if (owner.empty() && group.empty()) throw HandlerError("ValueError", "chown needs a user or a group");
  checkNames(owner, group);
  Node& found = existing(path, true);
  if (!owner.empty()) found.owner = owner;
  if (!group.empty()) found.group = group;
  ++modifications_;
}

void MemoryHost::mkdir(const std::string& path) {
  std::lock_guard lock(mutex_);
  std::string target = resolve(path, false);
  if (nodes_.count(target)) throw osError(EEXIST, path);
  nodes_[target] = newNode(Kind::directory, 0755);
  ++modifications_;
}

void MemoryHost::removeTree(const std::string& path) {
  std::lock_guard lock(mutex_);
  std::string target = resolve(path, false);
  auto it = nodes_.find(target);
  if (it == nodes_.end()) throw osError(ENOENT, path);
  if (it->second.kind == Kind::symlink) throw HandlerError("OSError", "Cannot call rmtree on a symbolic link");
  if (it->second.kind != Kind::directory) throw osError(ENOTDIR, path);
  if (target == "/") throw osError(EBUSY, path);
  // everything whose path starts with `<folder>/` (a contiguous run of the sorted map), then the folder
  std::string prefix = target + "/";
  auto first = nodes_.lower_bound(prefix);
  auto last = first;
  while (last != nodes_.end() && last->first.compare(0, prefix.size(), prefix) == 0) ++last;
  nodes_.erase(first, last);
  nodes_.erase(target);
  ++modifications_;
}

void MemoryHost::remove(const std::string& path) {
  std::lock_guard lock(mutex_);
  std::string target = resolve(path, false);
  auto it = nodes_.find(target);
  if (it == nodes_.end()) throw osError(ENOENT, path);
  if (it->second.kind == Kind::directory) throw osError(EISDIR, path);
  nodes_.erase(it);
  ++modifications_;
}

void MemoryHost::symlink(const std::string& source, const std::string& target) {
  std::lock_guard lock(mutex_);
  std::string where = resolve(target, false);
  if (nodes_.count(where)) throw osError(EEXIST, source, target);
  Node node = newNode(Kind::symlink, 0777);
  node.target = source;
  nodes_[where] = std::move(node);
  ++modifications_;
}

std::string MemoryHost::readlink(const std::string& path) {
  std::lock_guard lock(mutex_);
  const Node& found = existing(path, false);
  if (found.kind != Kind::symlink) throw osError(EINVAL, path);
  return found.target;
}

RunResult MemoryHost::run(const std::string& command, const std::vector<std::string>& args, int timeoutSeconds) {
  (void)timeoutSeconds;  // scripted results are immediate; a handler that hangs is a LocalHost test
  RunHandler handler;
  {
    std::lock_guard lock(mutex_);
    calls_.push_back(Call{command, args});
    std::string line = command;
    for (const auto& arg : args) line += " " + arg;
    if (auto it = scripts_.find(line); it != scripts_.end()) return it->second;
    handler = runHandler_;
  }
  // outside the lock: the handler may use the host (a stub that writes a file)
  if (handler) return handler(command, args);
  return RunResult{"", command + ": command not found", 127};
}

bool MemoryHost::executableExists(const std::string& path) {
  std::lock_guard lock(mutex_);
  try {
    const Node& found = existing(path, true);
    return found.kind == Kind::file && (found.mode & 0111) != 0;
  } catch (const HandlerError&) {
    return false;
  }
}

std::optional<std::string> MemoryHost::environment(const std::string& name) {
  std::lock_guard lock(mutex_);
  if (auto it = environment_.find(name); it != environment_.end()) return it->second;
  return std::nullopt;
}

}  // namespace inmanta::handlers
