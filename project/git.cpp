#include "git.h"

#include <git2.h>

#include <filesystem>

namespace fs = std::filesystem;

namespace inmanta::project {

namespace {

// libgit2 is initialised once per process and shut down at exit.
struct Libgit2 {
  Libgit2() { git_libgit2_init(); }
  ~Libgit2() { git_libgit2_shutdown(); }
};
void ensureInit() { static Libgit2 instance; }

std::string lastError() {
  const git_error* e = git_error_last();
  return e != nullptr && e->message != nullptr ? e->message : "unknown git error";
}

void check(int rc, const std::string& what) {
  if (rc < 0) throw GitError(what + ": " + lastError());
}

template <typename T, void (*Free)(T*)>
struct Owned {
  T* p = nullptr;
  Owned() = default;
  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;
  Owned(Owned&& o) noexcept : p(o.p) { o.p = nullptr; }
  ~Owned() {
    if (p != nullptr) Free(p);
  }
};

}  // namespace

GitRepository::GitRepository(git_repository* repo, std::string path) : repo_(repo), path_(std::move(path)) {}
GitRepository::GitRepository(GitRepository&& o) noexcept : repo_(o.repo_), path_(std::move(o.path_)) { o.repo_ = nullptr; }
GitRepository& GitRepository::operator=(GitRepository&& o) noexcept {
  if (this != &o) {
    if (repo_ != nullptr) git_repository_free(repo_);
    repo_ = o.repo_;
    path_ = std::move(o.path_);
    o.repo_ = nullptr;
  }
  return *this;
}
GitRepository::~GitRepository() {
  if (repo_ != nullptr) git_repository_free(repo_);
}

GitRepository GitRepository::clone(const std::string& url, const std::string& dest) {
  ensureInit();
  git_clone_options options = GIT_CLONE_OPTIONS_INIT;
  options.checkout_opts.checkout_strategy = GIT_CHECKOUT_NONE;
  git_repository* repo = nullptr;
  if (git_clone(&repo, url.c_str(), dest.c_str(), &options) < 0) {
    std::string message = lastError();
    std::error_code ec;
    fs::remove_all(dest, ec);
    throw GitError("cannot clone " + url + ": " + message);
  }
  return GitRepository(repo, dest);
}

std::optional<GitRepository> GitRepository::open(const std::string& path) {
  ensureInit();
  git_repository* repo = nullptr;
  if (git_repository_open_ext(&repo, path.c_str(), GIT_REPOSITORY_OPEN_NO_SEARCH, nullptr) < 0) return std::nullopt;
  return GitRepository(repo, path);
}

std::vector<std::string> GitRepository::tags() const {
  git_strarray names{};
  check(git_tag_list(&names, repo_), "cannot list the tags of " + path_);
  std::vector<std::string> out(names.strings, names.strings + names.count);
  git_strarray_dispose(&names);
  return out;
}

namespace {
Owned<git_commit, git_commit_free> commitOf(git_repository* repo, const std::string& rev, const std::string& path) {
  Owned<git_object, git_object_free> obj;
  check(git_revparse_single(&obj.p, repo, rev.c_str()), "cannot find " + rev + " in " + path);
  Owned<git_commit, git_commit_free> commit;
  git_object* peeled = nullptr;
  check(git_object_peel(&peeled, obj.p, GIT_OBJECT_COMMIT), rev + " in " + path + " is not a commit");
  commit.p = reinterpret_cast<git_commit*>(peeled);
  return commit;
}
}  // namespace

std::optional<std::string> GitRepository::fileAtTag(const std::string& tag, const std::string& file) const {
  auto commit = commitOf(repo_, "refs/tags/" + tag, path_);
  Owned<git_tree, git_tree_free> tree;
  check(git_commit_tree(&tree.p, commit.p), "cannot read the tree of tag " + tag + " in " + path_);
  Owned<git_tree_entry, git_tree_entry_free> entry;
  if (git_tree_entry_bypath(&entry.p, tree.p, file.c_str()) < 0) return std::nullopt;
  if (git_tree_entry_type(entry.p) != GIT_OBJECT_BLOB) return std::nullopt;
  Owned<git_blob, git_blob_free> blob;
  check(git_blob_lookup(&blob.p, repo_, git_tree_entry_id(entry.p)), "cannot read " + file + " at tag " + tag + " in " + path_);
  const char* data = static_cast<const char*>(git_blob_rawcontent(blob.p));
  return std::string(data, data + git_blob_rawsize(blob.p));
}

void GitRepository::checkoutTag(const std::string& tag, bool force) {
  auto commit = commitOf(repo_, "refs/tags/" + tag, path_);
  git_checkout_options options = GIT_CHECKOUT_OPTIONS_INIT;
  options.checkout_strategy = force ? GIT_CHECKOUT_FORCE : GIT_CHECKOUT_SAFE;
  int rc = git_checkout_tree(repo_, reinterpret_cast<git_object*>(commit.p), &options);
  if (rc == GIT_ECONFLICT)
    throw GitError("cannot check out tag " + tag + " in " + path_ + ": local changes would be overwritten (" +
                   lastError() + "); commit, stash or discard them first");
  check(rc, "cannot check out tag " + tag + " in " + path_);
  check(git_repository_set_head_detached(repo_, git_commit_id(commit.p)), "cannot move HEAD to tag " + tag + " in " + path_);
}

std::string GitRepository::checkoutBranch(const std::string& branch, bool force) {
  std::string ref;
  for (const std::string& candidate : {"refs/remotes/origin/" + branch, "refs/heads/" + branch, std::string("refs/remotes/origin/HEAD")}) {
    Owned<git_object, git_object_free> probe;
    if (git_revparse_single(&probe.p, repo_, candidate.c_str()) == 0) {
      ref = candidate;
      break;
    }
  }
  if (ref.empty()) throw GitError("cannot find branch " + branch + " (nor a default branch) in " + path_);
  auto commit = commitOf(repo_, ref, path_);
  git_checkout_options options = GIT_CHECKOUT_OPTIONS_INIT;
  options.checkout_strategy = force ? GIT_CHECKOUT_FORCE : GIT_CHECKOUT_SAFE;
  int rc = git_checkout_tree(repo_, reinterpret_cast<git_object*>(commit.p), &options);
  if (rc == GIT_ECONFLICT)
    throw GitError("cannot check out " + ref + " in " + path_ + ": local changes would be overwritten (" + lastError() +
                   "); commit, stash or discard them first");
  check(rc, "cannot check out " + ref + " in " + path_);
  check(git_repository_set_head_detached(repo_, git_commit_id(commit.p)), "cannot move HEAD to " + ref + " in " + path_);
  return ref;
}

void GitRepository::checkoutHead() {
  git_checkout_options options = GIT_CHECKOUT_OPTIONS_INIT;
  options.checkout_strategy = GIT_CHECKOUT_FORCE;
  check(git_checkout_head(repo_, &options), "cannot check out HEAD in " + path_);
}

void GitRepository::fetch() {
  Owned<git_remote, git_remote_free> remote;
  check(git_remote_lookup(&remote.p, repo_, "origin"), "cannot find the remote origin of " + path_);
  char heads[] = "+refs/heads/*:refs/remotes/origin/*";
  char tagsSpec[] = "+refs/tags/*:refs/tags/*";
  char* specs[] = {heads, tagsSpec};
  git_strarray refspecs{specs, 2};
  git_fetch_options options = GIT_FETCH_OPTIONS_INIT;
  options.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_ALL;
  const char* url = git_remote_url(remote.p);
  check(git_remote_fetch(remote.p, &refspecs, &options, nullptr),
        "cannot fetch " + std::string(url != nullptr ? url : "origin") + " into " + path_);
}

std::string GitRepository::remoteUrl() const {
  Owned<git_remote, git_remote_free> remote;
  if (git_remote_lookup(&remote.p, repo_, "origin") < 0) return {};
  const char* url = git_remote_url(remote.p);
  return url != nullptr ? url : "";
}

}  // namespace inmanta::project
