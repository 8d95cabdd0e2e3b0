// The installer's git access (libgit2): clone, fetch, tags, files at a tag, checkout. Nothing
// else in inmanta-cpp touches git; the compiler never does.
#pragma once

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

struct git_repository;

namespace inmanta::installer {

// A failed git operation; the message names the repository (URL or folder) and libgit2's error.
class GitError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class GitRepository {
 public:
  // Clones `url` (a URL, a file:// URL or a local folder) into `dest` without checking anything
  // out; checkoutTag or checkoutHead follows.
  static GitRepository clone(const std::string& url, const std::string& dest);
  // The repository at `path`, or nullopt when it is not one.
  static std::optional<GitRepository> open(const std::string& path);

  GitRepository(GitRepository&&) noexcept;
  GitRepository& operator=(GitRepository&&) noexcept;
  ~GitRepository();

  std::vector<std::string> tags() const;
  // The content of `file` in the commit `tag` points to; nullopt when that commit has no such file.
  std::optional<std::string> fileAtTag(const std::string& tag, const std::string& file) const;
  // Makes the working tree that of `tag` (detached HEAD). With `force` local changes to tracked
  // files are overwritten (for fresh clones); without, they make it fail and stay as they are.
  void checkoutTag(const std::string& tag, bool force);
  void checkoutHead();
  // Makes the working tree that of branch `branch` as `origin` has it (else the local branch,
  // else origin's default branch), detached; `force` as for checkoutTag. Returns the ref used.
  std::string checkoutBranch(const std::string& branch, bool force);
  // Fetches branches and tags from `origin` (moved tags are updated).
  void fetch();
  // The URL of `origin`, empty without one.
  std::string remoteUrl() const;
  const std::string& path() const { return path_; }

 private:
  GitRepository(git_repository* repo, std::string path);
  git_repository* repo_ = nullptr;
  std::string path_;
};

}  // namespace inmanta::installer
