// The machine as handlers see it (orchestrator spec §7.2): the local I/O primitives of the std
// handlers. LocalHost is the real machine; MemoryHost (memory_host.h) an in-memory fake for unit
// tests of handlers and of the scheduler.
//
// Every failure throws HandlerError whose kind and message read as the Python exception the
// reference's I/O would raise, e.g. kind `FileNotFoundError`, message
// `[Errno 2] No such file or directory: '/x/y'`.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "embedded/handlers/handler.h"

namespace inmanta::handlers {

struct FileStat {
  std::string owner;    // user name
  std::string group;    // group name
  int permissions = 0;  // the last four octal digits read as decimal: 0644 → 644, 04755 → 4755
};

struct RunResult {
  std::string out;  // stdout, stripped
  std::string err;  // stderr, stripped
  int code = 0;     // exit status; -1 when the command could not be started
};

class Host {
 public:
  virtual ~Host() = default;

  // true when `path` exists or is a dangling symlink (lstat)
  virtual bool fileExists(const std::string& path) = 0;
  virtual bool isSymlink(const std::string& path) = 0;
  virtual bool isDirectory(const std::string& path) = 0;  // follows symlinks
  // stat following symlinks; an unknown uid/gid is an error
  virtual FileStat stat(const std::string& path) = 0;
  virtual std::string hashFile(const std::string& path) = 0;  // lowercase hex SHA-1
  virtual std::string readFile(const std::string& path) = 0;
  // What std::File's read_resource reads: nothing when nothing is at `path` (fileExists), else the
  // file's content and stat (following symlinks), failing as readFile and stat do. The default
  // calls those three; LocalHost opens the file once (an unchanged re-run reads 10,000 files).
  virtual std::optional<std::pair<std::string, FileStat>> readExistingFile(const std::string& path);
  // Writes `content` so that `path` has either its old or its new content at every instant (D9):
  // a temporary file in the same folder, mode `permissions` (an octal string like "644") and
  // owner/group (names, empty = leave) set on it, then renamed over `path`. The parent must exist.
  virtual void writeFileAtomic(const std::string& path, const std::string& content, const std::string& permissions,
                               const std::string& owner, const std::string& group) = 0;
  // std::File's create: writeFileAtomic of a new file, only when nothing is at `path` (not even a
  // dangling symlink, which is not followed); false, nothing written, when something is. The
  // default asks fileExists first; LocalHost lets the naming of the finished file fail instead.
  virtual bool createFileAtomic(const std::string& path, const std::string& content, const std::string& permissions,
                                const std::string& owner, const std::string& group);
  virtual void chmod(const std::string& path, const std::string& permissions) = 0;  // "644", octal
  virtual void chown(const std::string& path, const std::string& owner, const std::string& group) = 0;
  virtual void mkdir(const std::string& path) = 0;       // one level
  virtual void removeTree(const std::string& path) = 0;  // recursive
  virtual void remove(const std::string& path) = 0;      // a file or a symlink
  virtual void symlink(const std::string& source, const std::string& target) = 0;
  virtual std::string readlink(const std::string& path) = 0;
  // Runs `command` with `args`, no shell, the environment without PYTHONPATH; a command running
  // longer than `timeoutSeconds` is killed and reported as an error.
  virtual RunResult run(const std::string& command, const std::vector<std::string>& args, int timeoutSeconds = 600) = 0;
  // Whether an executable exists at this absolute path.
  virtual bool executableExists(const std::string& path) = 0;
  // A variable of the environment handlers see (PATH, INMANTA_SYSTEMCTL); the process's own by
  // default, a table on MemoryHost so that tests do not depend on the machine's PATH.
  virtual std::optional<std::string> environment(const std::string& name);
};

// Where the executable `name` is on the host's PATH, as a shell would find it.
std::optional<std::string> findExecutable(Host& host, const std::string& name);

// --- the errors every host raises, worded as Python's -------------------------------------------

// An OSError subclass chosen by errno, e.g. kind `FileNotFoundError`, message
// `[Errno 2] No such file or directory: '/x'` (with `otherPath`: `… '/x' -> '/y'`, as os.symlink).
HandlerError osError(int error, const std::string& path);
HandlerError osError(int error, const std::string& path, const std::string& otherPath);
// pwd.getpwnam / grp.getgrnam of a missing name: KeyError("getpwnam(): name not found: 'u'")
HandlerError unknownUserError(const std::string& name);
HandlerError unknownGroupError(const std::string& name);
// pwd.getpwuid / grp.getgrgid of an id without a name
HandlerError unknownUidError(unsigned uid);
HandlerError unknownGidError(unsigned gid);
// "644" → 0644, "4755" → 04755, as int(text, 8); anything else is a ValueError.
unsigned parsePermissions(const std::string& text);
// 0644 → 644: the mode's last four octal digits read as a decimal number (FileStat::permissions).
int permissionsNumber(unsigned mode);

// The real machine.
std::unique_ptr<Host> makeLocalHost();

}  // namespace inmanta::handlers
