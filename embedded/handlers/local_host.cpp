// LocalHost: the Host of §7.2 on this machine, with POSIX calls. Each primitive is a few system
// calls (10,000 std::File per deploy), user and group names are looked up once, and every error
// reads as the Python exception the reference's I/O raised (host.h).
#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <thread>
#include <unordered_map>

#include "embedded/handlers/host.h"
#include "util/digest.h"
#include "util/thread_policy.h"

extern char** environ;

namespace inmanta::handlers {

namespace {

// Closes a descriptor when it leaves scope (unless released).
class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { reset(); }
  int get() const { return fd_; }
  void reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  int release() { return std::exchange(fd_, -1); }

 private:
  int fd_;
};

std::string parentOf(const std::string& path) {
  auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// The whole content of an open file. `size`: the size fstat gave a regular file (nullopt for
// anything else), read with one byte to spare: a read that stops short having given exactly
// those bytes has met the end, so the usual file takes one read, not a second one to see 0.
std::string readAll(int fd, const std::string& path, std::optional<std::size_t> size) {
  std::string content;
  content.resize(size.value_or(0) + 1);
  std::size_t used = 0;
  while (true) {
    if (used == content.size()) content.resize(content.size() * 2 + 4096);
    std::size_t asked = content.size() - used;
    ssize_t n = ::read(fd, content.data() + used, asked);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw osError(errno, path);
    }
    if (n == 0) break;
    used += static_cast<std::size_t>(n);
    if (size && used == *size && static_cast<std::size_t>(n) < asked) break;
  }
  content.resize(used);
  return content;
}

void writeAll(int fd, const std::string& content, const std::string& path) {
  const char* data = content.data();
  std::size_t left = content.size();
  while (left > 0) {
    ssize_t n = ::write(fd, data, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw osError(errno, path);
    }
    data += n;
    left -= static_cast<std::size_t>(n);
  }
}

// Python's str.strip(): the whitespace at both ends.
std::string strip(std::string text) {
  const char* space = " \t\n\v\f\r";
  auto end = text.find_last_not_of(space);
  if (end == std::string::npos) return {};
  text.erase(end + 1);
  text.erase(0, text.find_first_not_of(space));
  return text;
}

// Removes the folder `name` inside `parentFd` and everything under it, without following
// symlinks (a link inside the tree is removed, never what it points at), as shutil.rmtree does.
void removeTreeAt(int parentFd, const char* name, const std::string& fullPath) {
  int fd = ::openat(parentFd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) throw osError(errno, fullPath);
  DIR* dir = ::fdopendir(fd);
  if (!dir) {
    int error = errno;
    ::close(fd);
    throw osError(error, fullPath);
  }
  std::unique_ptr<DIR, int (*)(DIR*)> closer(dir, ::closedir);
  while (dirent* entry = ::readdir(dir)) {
    if (std::strcmp(entry->d_name, ".") == 0 || std::strcmp(entry->d_name, "..") == 0) continue;
    std::string childPath = fullPath + "/" + entry->d_name;
    bool isDirectory = entry->d_type == DT_DIR;
    if (entry->d_type == DT_UNKNOWN) {  // file systems that do not fill d_type
      struct stat st;
      if (::fstatat(fd, entry->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) throw osError(errno, childPath);
      isDirectory = S_ISDIR(st.st_mode);
    }
    if (isDirectory) removeTreeAt(fd, entry->d_name, childPath);
    else if (::unlinkat(fd, entry->d_name, 0) != 0) throw osError(errno, childPath);
  }
  closer.reset();
  if (::unlinkat(parentFd, name, AT_REMOVEDIR) != 0) throw osError(errno, fullPath);
}

// The environment of a command: ours without PYTHONPATH (a module's Python path must not leak
// into the tools handlers run).
std::vector<std::string> childEnvironment() {
  std::vector<std::string> env;
  for (char** entry = environ; entry && *entry; ++entry)
    if (std::strncmp(*entry, "PYTHONPATH=", 11) != 0) env.emplace_back(*entry);
  return env;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// The process's umask. umask() can only read it by setting it, which races with threads that
// create files meanwhile; Linux shows it in /proc/self/status, so that is read first.
mode_t currentUmask() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("Umask:", 0) == 0) return static_cast<mode_t>(std::stoul(line.substr(6), nullptr, 8));
  mode_t mask = ::umask(022);
  ::umask(mask);
  return mask;
}

// One lookup through a reentrant getpw*_r / getgr*_r call. The strings of `entry` live in a
// thread-local buffer, grown until the entry fits, and stay valid until the next lookup of the
// thread: callers copy what they need at once. False when there is no such entry.
template <typename Call, typename Key, typename Entry>
bool nssLookup(Call call, Key key, Entry& entry) {
  thread_local std::vector<char> buffer(16384);
  Entry* found = nullptr;
  while (call(key, &entry, buffer.data(), buffer.size(), &found) == ERANGE) buffer.resize(buffer.size() * 2);
  return found != nullptr;
}

class LocalHost final : public Host {
 public:
  LocalHost() { newFileMode_ = 0666 & ~currentUmask(); }

  bool fileExists(const std::string& path) override {
    struct stat st;
    return ::lstat(path.c_str(), &st) == 0;
  }

  bool isSymlink(const std::string& path) override {
    struct stat st;
    return ::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode);
  }

  bool isDirectory(const std::string& path) override {
    struct stat st;
    return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
  }

  FileStat stat(const std::string& path) override {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) throw osError(errno, path);
    return statOf(st);
  }

  std::string hashFile(const std::string& path) override { return util::sha1Hex(readFile(path)); }

  std::string readFile(const std::string& path) override {
    Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (fd.get() < 0) throw osError(errno, path);
    struct stat st;
    return readOpened(fd.get(), path, st);
  }

  std::optional<std::pair<std::string, FileStat>> readExistingFile(const std::string& path) override {
    // one open and fstat instead of lstat, open, fstat and stat. The open does not follow a
    // symlink, so that ENOENT means nothing is there (a new file's first look, one call); a symlink
    // (ELOOP), or a path that does not open otherwise (no access), takes the calls that tell
    // those apart (a dangling symlink is there, but does not read)
    Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
    if (fd.get() < 0 && errno == ENOENT) return std::nullopt;
    if (fd.get() < 0) return Host::readExistingFile(path);
    struct stat st;
    std::string content = readOpened(fd.get(), path, st);
    return std::make_pair(std::move(content), statOf(st));
  }

  // D9: the content goes to a temporary file beside the target, which gets its mode and owner and
  // is then renamed over the target. rename() replaces the name atomically, so a reader or a crash
  // sees the old file or the new one, never a part. There is no fsync: it would cost a disk flush
  // per file, and on ext4 (default data=ordered, auto_da_alloc) a rename that replaces a file
  // already flushes the new data before the rename commits, so even a power loss leaves old or new.
  // The temporary file is made without a name (O_TMPFILE) and gets one only once it is complete:
  // a process killed while writing leaves nothing behind in the folder.
  // Where the file system has no O_TMPFILE (or /proc is not mounted), a named temporary file.
  void writeFileAtomic(const std::string& path, const std::string& content, const std::string& permissions,
                       const std::string& owner, const std::string& group) override {
    writeFile(path, content, permissions, owner, group, false);
  }

  // The new file is named with linkat(), which fails when the name is taken: that is the check
  // that nothing is there, with no lookup of the path before it (a new file took 10 system calls
  // with fileExists and the symlink check, 7 now), and nothing that appears meanwhile is replaced.
  bool createFileAtomic(const std::string& path, const std::string& content, const std::string& permissions,
                        const std::string& owner, const std::string& group) override {
    return writeFile(path, content, permissions, owner, group, true);
  }

  void chmod(const std::string& path, const std::string& permissions) override {
    if (::chmod(path.c_str(), parsePermissions(permissions)) != 0) throw osError(errno, path);
  }

  void chown(const std::string& path, const std::string& owner, const std::string& group) override {
    if (owner.empty() && group.empty()) throw HandlerError("ValueError", "chown needs a user or a group");
    uid_t uid = owner.empty() ? static_cast<uid_t>(-1) : userId(owner);
    gid_t gid = group.empty() ? static_cast<gid_t>(-1) : groupId(group);
    if (::chown(path.c_str(), uid, gid) != 0) throw osError(errno, path);
  }

  void mkdir(const std::string& path) override {
    if (::mkdir(path.c_str(), 0777) != 0) throw osError(errno, path);
  }

  void removeTree(const std::string& path) override {
    struct stat st;
    if (::lstat(path.c_str(), &st) != 0) throw osError(errno, path);
    if (S_ISLNK(st.st_mode)) throw HandlerError("OSError", "Cannot call rmtree on a symbolic link");
    if (!S_ISDIR(st.st_mode)) throw osError(ENOTDIR, path);
    removeTreeAt(AT_FDCWD, path.c_str(), path);
  }

  void remove(const std::string& path) override {
    if (::unlink(path.c_str()) != 0) throw osError(errno, path);
  }

  void symlink(const std::string& source, const std::string& target) override {
    if (::symlink(source.c_str(), target.c_str()) != 0) throw osError(errno, source, target);
  }

  std::string readlink(const std::string& path) override {
    std::string buffer(256, '\0');
    while (true) {
      ssize_t n = ::readlink(path.c_str(), buffer.data(), buffer.size());
      if (n < 0) throw osError(errno, path);
      if (static_cast<std::size_t>(n) < buffer.size()) {
        buffer.resize(static_cast<std::size_t>(n));
        return buffer;
      }
      buffer.resize(buffer.size() * 2);  // possibly truncated: try again with room to spare
    }
  }

  RunResult run(const std::string& command, const std::vector<std::string>& args, int timeoutSeconds) override;

  bool executableExists(const std::string& path) override {
    struct stat st;
    return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
  }

 private:
  // The final path a write to `path` lands on: its symlinks followed (also a dangling one, whose
  // target the write creates). Only the last component matters: the temporary file is made in the
  // same folder as the result, whatever links lead to that folder.
  static std::string followLinks(const std::string& path) {
    std::string current = path;
    for (int hops = 0; hops < 40; ++hops) {
      struct stat st;
      if (::lstat(current.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return current;
      std::string link = readLink(current);
      current = !link.empty() && link.front() == '/' ? link : parentOf(current) + "/" + link;
    }
    throw osError(ELOOP, path);
  }

  static std::string readLink(const std::string& path) {
    char buffer[4096];
    ssize_t n = ::readlink(path.c_str(), buffer, sizeof buffer);
    if (n < 0 || static_cast<std::size_t>(n) == sizeof buffer) throw osError(n < 0 ? errno : ENAMETOOLONG, path);
    return std::string(buffer, static_cast<std::size_t>(n));
  }

  // `.<name>.inmanta-XXXXXX` beside `target`: hidden, and named after what it becomes, so a
  // leftover of a crash is recognisable. A long name falls back to the bare suffix (NAME_MAX).
  // The content, mode and owner of a file being written.
  void completeFile(int fd, const std::string& content, mode_t mode, uid_t uid, gid_t gid, const std::string& path) {
    writeAll(fd, content, path);
    if (::fchmod(fd, mode) != 0) throw osError(errno, path);
    if (uid != static_cast<uid_t>(-1) || gid != static_cast<gid_t>(-1)) setOwner(fd, uid, gid, path);
  }

  // writeFileAtomic, or with `onlyNew` createFileAtomic (false, nothing written, when something
  // has the name already; the name is then not followed as a symlink).
  bool writeFile(const std::string& path, const std::string& content, const std::string& permissions,
                 const std::string& owner, const std::string& group, bool onlyNew) {
    // everything that can fail without touching the disk first
    uid_t uid = owner.empty() ? static_cast<uid_t>(-1) : userId(owner);
    gid_t gid = group.empty() ? static_cast<gid_t>(-1) : groupId(group);
    mode_t mode = permissions.empty() ? newFileMode_ : parsePermissions(permissions);

    // open(path, "wb") writes through a symlink; a new file's name is taken as it is
    std::string target = onlyNew ? path : followLinks(path);
    auto slash = target.rfind('/');
    std::string folder = slash == std::string::npos ? "." : target.substr(0, slash + 1);
    Fd fd(::open(folder.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600));
    if (fd.get() < 0) {
      if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL) throw osError(errno, path);
      return writeThroughNamedTemporary(path, target, content, mode, uid, gid, onlyNew);
    }
    completeFile(fd.get(), content, mode, uid, gid, path);
    // The complete file gets a name: the target's own when nothing has it yet (linkat() never
    // replaces a name, so that is as atomic as a rename, and it saves a temporary name's entry in
    // the folder and the rename: a fifth of a first deploy's file system work), else a temporary
    // name that is then renamed over the target.
    std::string proc = "/proc/self/fd/" + std::to_string(fd.get());
    std::string name = target;
    for (int attempt = 0;; ++attempt) {
      if (::linkat(AT_FDCWD, proc.c_str(), AT_FDCWD, name.c_str(), AT_SYMLINK_FOLLOW) == 0) break;
      if (errno == EEXIST && onlyNew && attempt == 0) return false;  // (the unnamed file goes with fd)
      if (errno == EEXIST && attempt < 100) {
        name = temporaryName(target);
        fillTemplate(name);
        continue;
      }
      if (errno == ENOENT && ::access("/proc/self/fd", F_OK) != 0)  // no /proc here
        return writeThroughNamedTemporary(path, target, content, mode, uid, gid, onlyNew);
      throw osError(errno, path);
    }
    if (::close(fd.release()) != 0) {  // NFS reports write errors here: no half-written file stays
      int error = errno;
      ::unlink(name.c_str());
      throw osError(error, path);
    }
    if (name != target && ::rename(name.c_str(), target.c_str()) != 0) {
      int error = errno;
      ::unlink(name.c_str());
      throw osError(error, path);
    }
    return true;
  }

  // writeFile() where a file cannot be made without a name: a named temporary file, removed again when
  // the write fails (or, `onlyNew`, when the target's name is taken: false).
  bool writeThroughNamedTemporary(const std::string& path, const std::string& target, const std::string& content,
                                  mode_t mode, uid_t uid, gid_t gid, bool onlyNew) {
    std::string temp = temporaryName(target);
    Fd fd(::mkostemp(temp.data(), O_CLOEXEC));
    if (fd.get() < 0) throw osError(errno, path);  // a missing parent reads as open(path) would say
    struct TempRemover {
      const std::string& name;
      bool keep = false;
      ~TempRemover() {
        if (!keep) ::unlink(name.c_str());
      }
    } remover{temp};
    completeFile(fd.get(), content, mode, uid, gid, path);
    if (::close(fd.release()) != 0) throw osError(errno, path);  // NFS reports write errors here
    if (onlyNew) {
      // link() never replaces a name; the temporary name goes with the remover
      if (::link(temp.c_str(), target.c_str()) == 0) return true;
      if (errno == EEXIST) return false;
      throw osError(errno, path);
    }
    if (::rename(temp.c_str(), target.c_str()) != 0) throw osError(errno, path);
    remover.keep = true;
    return true;
  }

  // The XXXXXX of a temporary name, as mkstemp fills them.
  static void fillTemplate(std::string& name) {
    static const char letters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    thread_local std::mt19937 generator{std::random_device{}()};
    std::uniform_int_distribution<std::size_t> pick(0, sizeof letters - 2);
    for (std::size_t i = name.size() - 6; i < name.size(); ++i) name[i] = letters[pick(generator)];
  }

  static std::string temporaryName(const std::string& target) {
    auto slash = target.rfind('/');
    std::string folder = target.substr(0, slash + 1);
    std::string name = target.substr(slash + 1);
    return name.size() > 200 ? folder + ".inmanta-XXXXXX" : folder + "." + name + ".inmanta-XXXXXX";
  }

  // fchown only when the owner or group differs from what the new file got: as a non-root user
  // asking for one's own name then costs nothing and cannot fail.
  static void setOwner(int fd, uid_t uid, gid_t gid, const std::string& path) {
    struct stat st;
    if (::fstat(fd, &st) != 0) throw osError(errno, path);
    bool sameUser = uid == static_cast<uid_t>(-1) || uid == st.st_uid;
    bool sameGroup = gid == static_cast<gid_t>(-1) || gid == st.st_gid;
    if (sameUser && sameGroup) return;
    if (::fchown(fd, uid, gid) != 0) throw osError(errno, path);
  }

  // The content of the file open on `fd` (`path` for errors), with its fstat in `st`.
  static std::string readOpened(int fd, const std::string& path, struct stat& st) {
    if (::fstat(fd, &st) != 0) throw osError(errno, path);
    // a folder opens fine and fails at read with EISDIR, as Python's open(path, "rb").read()
    return readAll(fd, path,
                   S_ISREG(st.st_mode) ? std::optional<std::size_t>(static_cast<std::size_t>(st.st_size))
                                       : std::nullopt);
  }

  FileStat statOf(const struct stat& st) {
    return FileStat{userName(st.st_uid), groupName(st.st_gid), permissionsNumber(st.st_mode)};
  }

  // Name lookups go through NSS (files, LDAP, …), far slower than the system calls of a handler
  // run; cached for the life of the host. A failed lookup is not cached: the name may appear.
  template <typename Map, typename Key, typename Lookup>
  typename Map::mapped_type cached(Map& cache, const Key& key, Lookup lookup) {
    std::lock_guard lock(namesMutex_);
    if (auto it = cache.find(key); it != cache.end()) return it->second;
    return cache[key] = lookup(key);
  }

  std::string userName(uid_t uid) {
    return cached(userNames_, uid, [](uid_t id) {
      passwd entry;
      if (!nssLookup(::getpwuid_r, id, entry)) throw unknownUidError(id);
      return std::string(entry.pw_name);
    });
  }

  std::string groupName(gid_t gid) {
    return cached(groupNames_, gid, [](gid_t id) {
      group entry;
      if (!nssLookup(::getgrgid_r, id, entry)) throw unknownGidError(id);
      return std::string(entry.gr_name);
    });
  }

  uid_t userId(const std::string& name) {
    return cached(userIds_, name, [](const std::string& key) {
      passwd entry;
      if (!nssLookup(::getpwnam_r, key.c_str(), entry)) throw unknownUserError(key);
      return entry.pw_uid;
    });
  }

  gid_t groupId(const std::string& name) {
    return cached(groupIds_, name, [](const std::string& key) {
      group entry;
      if (!nssLookup(::getgrnam_r, key.c_str(), entry)) throw unknownGroupError(key);
      return entry.gr_gid;
    });
  }

  mode_t newFileMode_ = 0644;
  std::mutex namesMutex_;
  std::unordered_map<uid_t, std::string> userNames_;
  std::unordered_map<gid_t, std::string> groupNames_;
  std::unordered_map<std::string, uid_t> userIds_;
  std::unordered_map<std::string, gid_t> groupIds_;
};

// --- run ----------------------------------------------------------------------------------------

// A started child: its pid and the read ends of its stdout and stderr.
struct Child {
  pid_t pid = -1;
  int out = -1;
  int err = -1;
};

// Starts `command` (looked up on PATH when it has no slash) in its own process group, stdin from
// /dev/null, stdout and stderr into pipes. Returns the errno of a failed start, 0 on success.
int spawn(const std::string& command, const std::vector<std::string>& args, Child& child) {
  int outPipe[2], errPipe[2];
  if (::pipe2(outPipe, O_CLOEXEC) != 0) return errno;
  if (::pipe2(errPipe, O_CLOEXEC) != 0) {
    int error = errno;
    ::close(outPipe[0]), ::close(outPipe[1]);
    return error;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1);
  posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  // Its own process group, so that a timeout kills the tool and whatever it started. A signal
  // mask or an ignored SIGPIPE of ours must not reach the tool.
  sigset_t none, pipeSignal;
  sigemptyset(&none);
  sigemptyset(&pipeSignal);
  sigaddset(&pipeSignal, SIGPIPE);
  posix_spawnattr_setpgroup(&attributes, 0);
  posix_spawnattr_setsigmask(&attributes, &none);
  posix_spawnattr_setsigdefault(&attributes, &pipeSignal);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

  std::vector<std::string> argvStrings;
  argvStrings.reserve(args.size() + 1);
  argvStrings.push_back(command);
  argvStrings.insert(argvStrings.end(), args.begin(), args.end());
  std::vector<std::string> envStrings = childEnvironment();
  std::vector<char*> argv = pointers(argvStrings);
  std::vector<char*> envp = pointers(envStrings);
  int error;
  {
    util::NormalScheduling normal;  // the tool runs with the normal policy, not a worker's (thread_policy.h)
    error = ::posix_spawnp(&child.pid, command.c_str(), &actions, &attributes, argv.data(), envp.data());
  }
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  ::close(outPipe[1]);
  ::close(errPipe[1]);
  if (error != 0) {
    ::close(outPipe[0]), ::close(errPipe[0]);
    return error;
  }
  child.out = outPipe[0];
  child.err = errPipe[0];
  return 0;
}

// Reads from `fd` into `into`; false at the end of the stream.
bool drain(int fd, std::string& into) {
  char buffer[16384];
  ssize_t n = ::read(fd, buffer, sizeof buffer);
  if (n < 0) return errno == EINTR || errno == EAGAIN;
  into.append(buffer, static_cast<std::size_t>(n));
  return n > 0;
}

RunResult LocalHost::run(const std::string& command, const std::vector<std::string>& args, int timeoutSeconds) {
  using Clock = std::chrono::steady_clock;
  auto deadline = Clock::now() + std::chrono::seconds(timeoutSeconds > 0 ? timeoutSeconds : 0);
  bool limited = timeoutSeconds > 0;
  auto remainingMs = [&]() -> int {
    if (!limited) return -1;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    return left > 0 ? static_cast<int>(left) : 0;
  };

  Child child;
  if (int error = spawn(command, args, child); error != 0) {
    HandlerError failure = osError(error, command);
    return RunResult{"", failure.what(), -1};
  }
  Fd out(child.out), err(child.err);
  auto timeout = [&]() -> HandlerError {
    ::kill(-child.pid, SIGKILL);
    ::waitpid(child.pid, nullptr, 0);
    return HandlerError("TimeoutError", command + " did not finish within " + std::to_string(timeoutSeconds) + " s");
  };

  RunResult result;
  pollfd fds[2] = {{child.out, POLLIN, 0}, {child.err, POLLIN, 0}};
  int open = 2;
  while (open > 0) {
    int ready = ::poll(fds, 2, remainingMs());
    if (ready < 0 && errno != EINTR) throw osError(errno, command);
    if (ready == 0) throw timeout();
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      if (!drain(fds[i].fd, i == 0 ? result.out : result.err)) {
        fds[i].fd = -1;  // poll ignores negative descriptors
        --open;
      }
    }
  }
  // Both streams are closed; the tool normally has exited too. Wait within the deadline.
  int status = 0;
  std::chrono::milliseconds pause(1);
  while (true) {
    pid_t done = ::waitpid(child.pid, &status, WNOHANG);
    if (done == child.pid) break;
    if (done < 0 && errno != EINTR) throw osError(errno, command);
    if (limited && remainingMs() == 0) throw timeout();
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(50));
  }
  // as Python's returncode: the exit status, or minus the signal that ended the tool
  result.code = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
  result.out = strip(std::move(result.out));
  result.err = strip(std::move(result.err));
  return result;
}

}  // namespace

std::unique_ptr<Host> makeLocalHost() { return std::make_unique<LocalHost>(); }

}  // namespace inmanta::handlers
