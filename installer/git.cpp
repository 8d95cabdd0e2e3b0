// libgit2 is loaded with dlopen() the first time git is needed (installing or updating modules),
// so that no other command maps it and the libraries it brings (krb5, mbedTLS, libssh2, ...):
// the functions used here are looked up into a table of pointers with their own types. The
// headers (libgit2-dev) fix the ABI, so the soname is the one built against.
#include "installer/git.h"

#include <dlfcn.h>
#include <git2.h>

#include <cstdlib>
#include <filesystem>

#if !defined(INMANTA_LIBGIT2_SONAME) || !defined(INMANTA_LIBGIT2_PACKAGE)
#error "INMANTA_LIBGIT2_SONAME and INMANTA_LIBGIT2_PACKAGE must be defined (the libgit2 built against)"
#endif

namespace fs = std::filesystem;

namespace inmanta::installer {

namespace {

#define INMANTA_GIT_FUNCTIONS(X)      \
  X(git_libgit2_init)                 \
  X(git_libgit2_shutdown)             \
  X(git_error_last)                   \
  X(git_clone)                        \
  X(git_repository_open_ext)          \
  X(git_repository_free)              \
  X(git_repository_set_head_detached) \
  X(git_tag_list)                     \
  X(git_strarray_dispose)             \
  X(git_revparse_single)              \
  X(git_object_peel)                  \
  X(git_object_free)                  \
  X(git_commit_free)                  \
  X(git_commit_tree)                  \
  X(git_commit_id)                    \
  X(git_tree_free)                    \
  X(git_tree_entry_bypath)            \
  X(git_tree_entry_free)              \
  X(git_tree_entry_type)              \
  X(git_tree_entry_id)                \
  X(git_blob_lookup)                  \
  X(git_blob_free)                    \
  X(git_blob_rawcontent)              \
  X(git_blob_rawsize)                 \
  X(git_checkout_tree)                \
  X(git_checkout_head)                \
  X(git_remote_lookup)                \
  X(git_remote_free)                  \
  X(git_remote_url)                   \
  X(git_remote_fetch)

// The libgit2 functions this file calls, each with the type its declaration gives it.
struct Libgit2 {
#define INMANTA_GIT_POINTER(name) decltype(&::name) name = nullptr;
  INMANTA_GIT_FUNCTIONS(INMANTA_GIT_POINTER)
#undef INMANTA_GIT_POINTER
  std::string error;  // why the table is empty

  // Loaded and initialised once per process (shut down at exit); $INMANTA_LIBGIT2 may name the
  // library to load instead.
  Libgit2() {
    const char* env = std::getenv("INMANTA_LIBGIT2");
    const std::string file = env != nullptr && *env != '\0' ? env : INMANTA_LIBGIT2_SONAME;
    void* handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* reason = dlerror();
      error = "cannot load libgit2, which installing modules from git needs (" +
              std::string(reason != nullptr ? reason : file + ": dlopen failed") +
              "); install " INMANTA_LIBGIT2_SONAME " (Debian package " INMANTA_LIBGIT2_PACKAGE
              ") or name the library with INMANTA_LIBGIT2";
      return;
    }
    const char* missing = nullptr;
#define INMANTA_GIT_RESOLVE(name)                                   \
  name = reinterpret_cast<decltype(&::name)>(dlsym(handle, #name)); \
  if (name == nullptr && missing == nullptr) missing = #name;
    INMANTA_GIT_FUNCTIONS(INMANTA_GIT_RESOLVE)
#undef INMANTA_GIT_RESOLVE
    if (missing != nullptr) {
      error = "cannot use libgit2 (" + file + "): it has no " + missing + " (built against " INMANTA_LIBGIT2_SONAME ")";
      git_libgit2_init = nullptr;  // unusable; the library stays mapped
      return;
    }
    git_libgit2_init();
  }
  ~Libgit2() {
    if (git_libgit2_init != nullptr) git_libgit2_shutdown();
  }
  Libgit2(const Libgit2&) = delete;
  Libgit2& operator=(const Libgit2&) = delete;
};

// The table, loaded on first use; throws GitError when libgit2 cannot be used.
const Libgit2& git() {
  static const Libgit2 instance;
  if (instance.git_libgit2_init == nullptr) throw GitError(instance.error);
  return instance;
}

std::string lastError() {
  const git_error* e = git().git_error_last();
  return e != nullptr && e->message != nullptr ? e->message : "unknown git error";
}

void check(int rc, const std::string& what) {
  if (rc < 0) throw GitError(what + ": " + lastError());
}

// Owns a libgit2 object; `Free` is the table's function that frees it.
template <typename T, auto Free>
struct Owned {
  T* p = nullptr;
  Owned() = default;
  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;
  Owned(Owned&& o) noexcept : p(o.p) { o.p = nullptr; }
  ~Owned() {
    if (p != nullptr) (git().*Free)(p);
  }
};

}  // namespace

GitRepository::GitRepository(git_repository* repo, std::string path) : repo_(repo), path_(std::move(path)) {}
GitRepository::GitRepository(GitRepository&& o) noexcept : repo_(o.repo_), path_(std::move(o.path_)) {
  o.repo_ = nullptr;
}
GitRepository& GitRepository::operator=(GitRepository&& o) noexcept {
  if (this != &o) {
    if (repo_ != nullptr) git().git_repository_free(repo_);
    repo_ = o.repo_;
    path_ = std::move(o.path_);
    o.repo_ = nullptr;
  }
  return *this;
}
GitRepository::~GitRepository() {
  if (repo_ != nullptr) git().git_repository_free(repo_);
}

GitRepository GitRepository::clone(const std::string& url, const std::string& dest) {
  git_clone_options options = GIT_CLONE_OPTIONS_INIT;
  options.checkout_opts.checkout_strategy = GIT_CHECKOUT_NONE;
  git_repository* repo = nullptr;
  if (git().git_clone(&repo, url.c_str(), dest.c_str(), &options) < 0) {
    std::string message = lastError();
    std::error_code ec;
    fs::remove_all(dest, ec);
    throw GitError("cannot clone " + url + ": " + message);
  }
  return GitRepository(repo, dest);
}

std::optional<GitRepository> GitRepository::open(const std::string& path) {
  git_repository* repo = nullptr;
  if (git().git_repository_open_ext(&repo, path.c_str(), GIT_REPOSITORY_OPEN_NO_SEARCH, nullptr) < 0)
    return std::nullopt;
  return GitRepository(repo, path);
}

std::vector<std::string> GitRepository::tags() const {
  git_strarray names{};
  check(git().git_tag_list(&names, repo_), "cannot list the tags of " + path_);
  std::vector<std::string> out(names.strings, names.strings + names.count);
  git().git_strarray_dispose(&names);
  return out;
}

namespace {
Owned<git_commit, &Libgit2::git_commit_free> commitOf(git_repository* repo, const std::string& rev,
                                                      const std::string& path) {
  Owned<git_object, &Libgit2::git_object_free> obj;
  check(git().git_revparse_single(&obj.p, repo, rev.c_str()), "cannot find " + rev + " in " + path);
  Owned<git_commit, &Libgit2::git_commit_free> commit;
  git_object* peeled = nullptr;
  check(git().git_object_peel(&peeled, obj.p, GIT_OBJECT_COMMIT), rev + " in " + path + " is not a commit");
  commit.p = reinterpret_cast<git_commit*>(peeled);
  return commit;
}
}  // namespace

std::optional<std::string> GitRepository::fileAtTag(const std::string& tag, const std::string& file) const {
  auto commit = commitOf(repo_, "refs/tags/" + tag, path_);
  Owned<git_tree, &Libgit2::git_tree_free> tree;
  check(git().git_commit_tree(&tree.p, commit.p), "cannot read the tree of tag " + tag + " in " + path_);
  Owned<git_tree_entry, &Libgit2::git_tree_entry_free> entry;
  if (git().git_tree_entry_bypath(&entry.p, tree.p, file.c_str()) < 0) return std::nullopt;
  if (git().git_tree_entry_type(entry.p) != GIT_OBJECT_BLOB) return std::nullopt;
  Owned<git_blob, &Libgit2::git_blob_free> blob;
  check(git().git_blob_lookup(&blob.p, repo_, git().git_tree_entry_id(entry.p)),
        "cannot read " + file + " at tag " + tag + " in " + path_);
  const char* data = static_cast<const char*>(git().git_blob_rawcontent(blob.p));
  return std::string(data, data + git().git_blob_rawsize(blob.p));
}

void GitRepository::checkoutTag(const std::string& tag, bool force) {
  auto commit = commitOf(repo_, "refs/tags/" + tag, path_);
  git_checkout_options options = GIT_CHECKOUT_OPTIONS_INIT;
  options.checkout_strategy = force ? GIT_CHECKOUT_FORCE : GIT_CHECKOUT_SAFE;
  int rc = git().git_checkout_tree(repo_, reinterpret_cast<git_object*>(commit.p), &options);
  if (rc == GIT_ECONFLICT)
    throw GitError("cannot check out tag " + tag + " in " + path_ + ": local changes would be overwritten (" +
                   lastError() + "); commit, stash or discard them first");
  check(rc, "cannot check out tag " + tag + " in " + path_);
  check(git().git_repository_set_head_detached(repo_, git().git_commit_id(commit.p)),
        "cannot move HEAD to tag " + tag + " in " + path_);
}

std::string GitRepository::checkoutBranch(const std::string& branch, bool force) {
  std::string ref;
  for (const std::string& candidate :
       {"refs/remotes/origin/" + branch, "refs/heads/" + branch, std::string("refs/remotes/origin/HEAD")}) {
    Owned<git_object, &Libgit2::git_object_free> probe;
    if (git().git_revparse_single(&probe.p, repo_, candidate.c_str()) == 0) {
      ref = candidate;
      break;
    }
  }
  if (ref.empty()) throw GitError("cannot find branch " + branch + " (nor a default branch) in " + path_);
  auto commit = commitOf(repo_, ref, path_);
  git_checkout_options options = GIT_CHECKOUT_OPTIONS_INIT;
  options.checkout_strategy = force ? GIT_CHECKOUT_FORCE : GIT_CHECKOUT_SAFE;
  int rc = git().git_checkout_tree(repo_, reinterpret_cast<git_object*>(commit.p), &options);
  if (rc == GIT_ECONFLICT)
    throw GitError("cannot check out " + ref + " in " + path_ + ": local changes would be overwritten (" + lastError() +
                   "); commit, stash or discard them first");
  check(rc, "cannot check out " + ref + " in " + path_);
  check(git().git_repository_set_head_detached(repo_, git().git_commit_id(commit.p)),
        "cannot move HEAD to " + ref + " in " + path_);
  return ref;
}

void GitRepository::checkoutHead() {
  git_checkout_options options = GIT_CHECKOUT_OPTIONS_INIT;
  options.checkout_strategy = GIT_CHECKOUT_FORCE;
  check(git().git_checkout_head(repo_, &options), "cannot check out HEAD in " + path_);
}

void GitRepository::fetch() {
  Owned<git_remote, &Libgit2::git_remote_free> remote;
  check(git().git_remote_lookup(&remote.p, repo_, "origin"), "cannot find the remote origin of " + path_);
  char heads[] = "+refs/heads/*:refs/remotes/origin/*";
  char tagsSpec[] = "+refs/tags/*:refs/tags/*";
  char* specs[] = {heads, tagsSpec};
  git_strarray refspecs{specs, 2};
  git_fetch_options options = GIT_FETCH_OPTIONS_INIT;
  options.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_ALL;
  const char* url = git().git_remote_url(remote.p);
  check(git().git_remote_fetch(remote.p, &refspecs, &options, nullptr),
        "cannot fetch " + std::string(url != nullptr ? url : "origin") + " into " + path_);
}

std::string GitRepository::remoteUrl() const {
  Owned<git_remote, &Libgit2::git_remote_free> remote;
  if (git().git_remote_lookup(&remote.p, repo_, "origin") < 0) return {};
  const char* url = git().git_remote_url(remote.p);
  return url != nullptr ? url : "";
}

}  // namespace inmanta::installer
