// What every host shares: the Python-worded errors (so LocalHost and MemoryHost fail alike) and
// the PATH lookup.
#include "embedded/handlers/host.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string_view>

namespace inmanta::handlers {

std::optional<std::string> Host::environment(const std::string& name) {
  const char* value = std::getenv(name.c_str());
  if (!value) return std::nullopt;
  return std::string(value);
}

std::optional<std::pair<std::string, FileStat>> Host::readExistingFile(const std::string& path) {
  if (!fileExists(path)) return std::nullopt;
  std::string content = readFile(path);
  return std::make_pair(std::move(content), stat(path));
}

bool Host::createFileAtomic(const std::string& path, const std::string& content, const std::string& permissions,
                            const std::string& owner, const std::string& group) {
  if (fileExists(path)) return false;
  writeFileAtomic(path, content, permissions, owner, group);
  return true;
}

std::optional<std::string> findExecutable(Host& host, const std::string& name) {
  std::string path = host.environment("PATH").value_or("/usr/local/bin:/usr/bin:/bin");
  std::string_view rest = path;
  while (true) {
    auto colon = rest.find(':');
    std::string_view dir = rest.substr(0, colon);
    // an empty entry means the current folder, which a daemon's handlers must not search
    if (!dir.empty() && dir.front() == '/') {
      std::string candidate = std::string(dir) + "/" + name;
      if (host.executableExists(candidate)) return candidate;
    }
    if (colon == std::string_view::npos) return std::nullopt;
    rest.remove_prefix(colon + 1);
  }
}

namespace {

// The OSError subclass Python raises for an errno (PEP 3151).
const char* osErrorKind(int error) {
  switch (error) {
    case ENOENT: return "FileNotFoundError";
    case EEXIST: return "FileExistsError";
    case EISDIR: return "IsADirectoryError";
    case ENOTDIR: return "NotADirectoryError";
    case EACCES:
    case EPERM: return "PermissionError";
    case EINTR: return "InterruptedError";
    case ECHILD: return "ChildProcessError";
    case ETIMEDOUT: return "TimeoutError";
    default: return "OSError";
  }
}

std::string errnoPrefix(int error) { return "[Errno " + std::to_string(error) + "] " + std::strerror(error); }

}  // namespace

HandlerError osError(int error, const std::string& path) {
  return HandlerError(osErrorKind(error), errnoPrefix(error) + ": " + pythonRepr(path));
}

HandlerError osError(int error, const std::string& path, const std::string& otherPath) {
  return HandlerError(osErrorKind(error),
                      errnoPrefix(error) + ": " + pythonRepr(path) + " -> " + pythonRepr(otherPath));
}

// A KeyError's text is the repr of its argument, so the message carries its own quotes.
HandlerError unknownUserError(const std::string& name) {
  return HandlerError("KeyError", pythonRepr("getpwnam(): name not found: " + pythonRepr(name)));
}

HandlerError unknownGroupError(const std::string& name) {
  return HandlerError("KeyError", pythonRepr("getgrnam(): name not found: " + pythonRepr(name)));
}

HandlerError unknownUidError(unsigned uid) {
  return HandlerError("KeyError", pythonRepr("getpwuid(): uid not found: " + std::to_string(uid)));
}

HandlerError unknownGidError(unsigned gid) {
  return HandlerError("KeyError", pythonRepr("getgrgid(): gid not found: " + std::to_string(gid)));
}

unsigned parsePermissions(const std::string& text) {
  unsigned mode = 0;
  bool valid = !text.empty() && text.size() <= 8;  // more digits cannot fit the range check below
  for (char c : text) {
    if (c < '0' || c > '7') {
      valid = false;
      break;
    }
    mode = mode * 8 + static_cast<unsigned>(c - '0');
  }
  if (!valid) throw HandlerError("ValueError", "invalid literal for int() with base 8: " + pythonRepr(text));
  if (mode > 07777) throw HandlerError("ValueError", "permissions out of range: " + pythonRepr(text));
  return mode;
}

int permissionsNumber(unsigned mode) {
  mode &= 07777;
  int number = 0;
  int scale = 1;
  for (; mode != 0; mode /= 8, scale *= 10) number += static_cast<int>(mode % 8) * scale;
  return number;
}

}  // namespace inmanta::handlers
