// LocalHost on real files in a temporary folder: the primitives of spec §7.2 with their
// Python-worded errors, the atomic write of D9 (old or new content, also when the writer is
// killed), run() with its timeout, and the std handlers end to end on this machine, including
// std::Service against a stub systemctl on a temporary PATH.
#include <gtest/gtest.h>

#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "embedded/handlers/handler.h"
#include "embedded/handlers/host.h"
#include "embedded/handlers/memory_host.h"
#include "util/digest.h"
#include "util/thread_policy.h"

namespace inmanta::handlers {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void spit(const fs::path& path, const std::string& content) { std::ofstream(path, std::ios::binary) << content; }

unsigned modeOf(const fs::path& path) {
  struct stat st;
  EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

// The names of files whose name marks them as our temporary files.
std::vector<std::string> leftovers(const fs::path& folder) {
  std::vector<std::string> out;
  for (const auto& entry : fs::directory_iterator(folder))
    if (entry.path().filename().string().find(".inmanta-") != std::string::npos) out.push_back(entry.path().filename());
  return out;
}

// Sets an environment variable for the life of the object.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_) ::setenv(name_, old_->c_str(), 1);
    else ::unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

class LocalHostTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "inmanta-handlers-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir = tmpl;
    host = makeLocalHost();
    user = ::getpwuid(::geteuid())->pw_name;
    group = ::getgrgid(::getegid())->gr_name;
  }
  void TearDown() override { fs::remove_all(dir); }

  std::string at(const std::string& name) const { return (dir / name).string(); }

  // The HandlerError the call throws (kind + ": " + message), or "no error".
  template <typename F>
  static std::string errorOf(F call) {
    try {
      call();
    } catch (const HandlerError& e) {
      return e.kind + ": " + e.what();
    }
    return "no error";
  }

  fs::path dir;
  std::unique_ptr<Host> host;
  std::string user, group;
};

// --- reading ------------------------------------------------------------------------------------

TEST_F(LocalHostTest, ExistenceSeesDanglingSymlinksAndIsDirectoryFollowsLinks) {
  fs::create_symlink(at("nowhere"), at("dangling"));
  fs::create_directory(at("d"));
  fs::create_directory_symlink(at("d"), at("to-d"));
  EXPECT_TRUE(host->fileExists(at("dangling")));
  EXPECT_TRUE(host->isSymlink(at("dangling")));
  EXPECT_FALSE(host->fileExists(at("nowhere")));
  EXPECT_TRUE(host->isDirectory(at("to-d")));
  EXPECT_FALSE(host->isDirectory(at("dangling")));
  EXPECT_FALSE(host->isSymlink(at("d")));
}

TEST_F(LocalHostTest, StatGivesNamesAndTheModeDigits) {
  spit(at("f"), "x");
  ::chmod(at("f").c_str(), 0640);
  FileStat st = host->stat(at("f"));
  EXPECT_EQ(st.owner, user);
  EXPECT_EQ(st.group, group);
  EXPECT_EQ(st.permissions, 640);
  ::chmod(at("f").c_str(), 04755);
  EXPECT_EQ(host->stat(at("f")).permissions, 4755);
  EXPECT_EQ(errorOf([&] { host->stat(at("missing")); }),
            "FileNotFoundError: [Errno 2] No such file or directory: '" + at("missing") + "'");
}

TEST_F(LocalHostTest, ReadAndHashAFile) {
  std::string big(100000, 'z');
  spit(at("big"), big);
  EXPECT_EQ(host->readFile(at("big")), big);
  EXPECT_EQ(host->hashFile(at("big")), util::sha1Hex(big));
  spit(at("empty"), "");
  EXPECT_EQ(host->readFile(at("empty")), "");
  fs::create_directory(at("d"));
  EXPECT_EQ(errorOf([&] { host->readFile(at("d")); }),
            "IsADirectoryError: [Errno 21] Is a directory: '" + at("d") + "'");
}

// A regular file is read in one go up to the size fstat gives, but a file whose size says
// nothing (the kernel's files under /proc are regular files of size 0) or a pipe is read to its
// end all the same.
TEST_F(LocalHostTest, FilesWhoseSizeSaysNothingAreReadToTheirEnd) {
  std::string status = host->readFile("/proc/self/status");
  EXPECT_NE(status.find("Name:"), std::string::npos);
  EXPECT_NE(status.find("Pid:"), std::string::npos);
  EXPECT_EQ(status.back(), '\n');
  auto existing = host->readExistingFile("/proc/self/status");
  ASSERT_TRUE(existing);
  EXPECT_NE(existing->first.find("Pid:"), std::string::npos);
  ASSERT_EQ(::mkfifo(at("fifo").c_str(), 0600), 0);
  std::thread writer([&] { spit(at("fifo"), std::string(70000, 'p') + "end"); });
  EXPECT_EQ(host->readFile(at("fifo")), std::string(70000, 'p') + "end");
  writer.join();
}

// readExistingFile is the three calls fileExists, readFile and stat in one open: the same answers
// and the same errors, through a symlink too.
TEST_F(LocalHostTest, ReadingAnExistingFileIsExistenceContentAndStat) {
  spit(at("f"), "content\n");
  ::chmod(at("f").c_str(), 0640);
  fs::create_symlink(at("f"), at("link"));
  for (const char* name : {"f", "link"}) {
    auto file = host->readExistingFile(at(name));
    ASSERT_TRUE(file) << name;
    EXPECT_EQ(file->first, "content\n");
    EXPECT_EQ(file->second.owner, user);
    EXPECT_EQ(file->second.group, group);
    EXPECT_EQ(file->second.permissions, 640);
  }
  EXPECT_FALSE(host->readExistingFile(at("missing")));
  EXPECT_FALSE(host->readExistingFile(at("missing/below")));
  fs::create_symlink(at("nowhere"), at("dangling"));  // exists (lstat), but does not read
  EXPECT_EQ(errorOf([&] { host->readExistingFile(at("dangling")); }),
            "FileNotFoundError: [Errno 2] No such file or directory: '" + at("dangling") + "'");
  fs::create_directory(at("d"));
  EXPECT_EQ(errorOf([&] { host->readExistingFile(at("d")); }),
            "IsADirectoryError: [Errno 21] Is a directory: '" + at("d") + "'");
}

// --- the atomic write (D9) ----------------------------------------------------------------------

TEST_F(LocalHostTest, WriteCreatesWithModeAndLeavesNoTemporaryFile) {
  host->writeFileAtomic(at("new"), "content\n", "600", user, group);
  EXPECT_EQ(slurp(at("new")), "content\n");
  EXPECT_EQ(modeOf(at("new")), 0600u);
  host->writeFileAtomic(at("new"), "other\n", "644", "", "");
  EXPECT_EQ(slurp(at("new")), "other\n");
  EXPECT_EQ(modeOf(at("new")), 0644u);
  EXPECT_TRUE(leftovers(dir).empty());
}

// A process killed while it writes a file's content leaves no temporary file: the content goes
// to a file without a name (O_TMPFILE), which is named only when complete, just before the rename.
TEST_F(LocalHostTest, AWriteKilledHalfWayLeavesNothingBehind) {
  const std::string content(128u << 20, 'k');  // long enough to be mid-write at the kill
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::close(ready[0]);
    char go = 'g';
    if (::write(ready[1], &go, 1) != 1) std::_Exit(2);
    host->writeFileAtomic(at("big"), content, "644", "", "");
    std::_Exit(0);
  }
  ::close(ready[1]);
  char go = 0;
  ASSERT_EQ(::read(ready[0], &go, 1), 1);
  ::close(ready[0]);
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  EXPECT_TRUE(leftovers(dir).empty());
  // the kill may also have come after the rename: then the file is whole
  if (fs::exists(at("big"))) {
    EXPECT_EQ(fs::file_size(at("big")), content.size());
  }
}

TEST_F(LocalHostTest, WriteWithoutModeUsesTheUmask) {
  mode_t mask = ::umask(027);
  auto other = makeLocalHost();  // reads the umask when it is made
  ::umask(mask);
  other->writeFileAtomic(at("f"), "x", "", "", "");
  EXPECT_EQ(modeOf(at("f")), 0640u);
}

TEST_F(LocalHostTest, WriteFailuresReadAsPythonAndLeaveNothing) {
  EXPECT_EQ(errorOf([&] { host->writeFileAtomic(at("no/f"), "x", "644", "", ""); }),
            "FileNotFoundError: [Errno 2] No such file or directory: '" + at("no/f") + "'");
  EXPECT_EQ(errorOf([&] { host->writeFileAtomic(at("f"), "x", "644", "no-such-user", ""); }),
            "KeyError: \"getpwnam(): name not found: 'no-such-user'\"");
  EXPECT_EQ(errorOf([&] { host->writeFileAtomic(at("f"), "x", "644", "", "no-such-group"); }),
            "KeyError: \"getgrnam(): name not found: 'no-such-group'\"");
  EXPECT_EQ(errorOf([&] { host->writeFileAtomic(at("f"), "x", "9", "", ""); }),
            "ValueError: invalid literal for int() with base 8: '9'");
  EXPECT_FALSE(fs::exists(at("f")));
  fs::create_directory(at("d"));
  EXPECT_EQ(errorOf([&] { host->writeFileAtomic(at("d"), "x", "644", "", ""); }),
            "IsADirectoryError: [Errno 21] Is a directory: '" + at("d") + "'");
  spit(at("plain"), "p");
  EXPECT_EQ(errorOf([&] { host->writeFileAtomic(at("plain/f"), "x", "644", "", ""); }),
            "NotADirectoryError: [Errno 20] Not a directory: '" + at("plain/f") + "'");
  EXPECT_TRUE(leftovers(dir).empty());
}

TEST_F(LocalHostTest, WriteGoesThroughSymlinksAsOpenDoes) {
  spit(at("real"), "old");
  fs::create_symlink("real", at("link"));
  host->writeFileAtomic(at("link"), "new", "644", "", "");
  EXPECT_TRUE(fs::is_symlink(at("link")));
  EXPECT_EQ(slurp(at("real")), "new");
  fs::create_symlink(at("created-by-write"), at("dangling"));
  host->writeFileAtomic(at("dangling"), "made", "644", "", "");
  EXPECT_EQ(slurp(at("created-by-write")), "made");
}

// std::File's create: a new file as writeFileAtomic writes it, or false and nothing touched when
// anything has the name (a file, a directory, a symlink even dangling, which is not followed), as
// the handler's former fileExists() check answered.
TEST_F(LocalHostTest, CreateWritesOnlyWhereNothingIs) {
  EXPECT_TRUE(host->createFileAtomic(at("new"), "content\n", "600", user, group));
  EXPECT_EQ(slurp(at("new")), "content\n");
  EXPECT_EQ(modeOf(at("new")), 0600u);
  EXPECT_FALSE(host->createFileAtomic(at("new"), "other\n", "644", "", ""));
  EXPECT_EQ(slurp(at("new")), "content\n");
  EXPECT_EQ(modeOf(at("new")), 0600u);
  fs::create_directory(at("d"));
  EXPECT_FALSE(host->createFileAtomic(at("d"), "x", "644", "", ""));
  fs::create_symlink(at("nowhere"), at("dangling"));
  EXPECT_FALSE(host->createFileAtomic(at("dangling"), "x", "644", "", ""));
  EXPECT_FALSE(fs::exists(at("nowhere")));
  EXPECT_EQ(errorOf([&] { host->createFileAtomic(at("no/f"), "x", "644", "", ""); }),
            "FileNotFoundError: [Errno 2] No such file or directory: '" + at("no/f") + "'");
  EXPECT_TRUE(leftovers(dir).empty());
  // the in-memory host's (the default's) answers are the same
  MemoryHost memory;
  memory.addDirectory("/srv");
  EXPECT_TRUE(memory.createFileAtomic("/srv/f", "x", "644", "", ""));
  EXPECT_FALSE(memory.createFileAtomic("/srv/f", "y", "644", "", ""));
  EXPECT_EQ(memory.readFile("/srv/f"), "x");
}

TEST_F(LocalHostTest, ReadersSeeTheOldOrTheNewContentNeverAPart) {
  const std::string a(200000, 'a'), b(300000, 'b');
  host->writeFileAtomic(at("f"), a, "644", "", "");
  std::atomic<bool> done{false};
  std::atomic<int> torn{0}, reads{0};
  std::thread reader([&] {
    while (!done) {
      std::string seen = slurp(at("f"));
      if (seen != a && seen != b) ++torn;
      ++reads;
    }
  });
  for (int i = 0; i < 200; ++i) host->writeFileAtomic(at("f"), i % 2 ? a : b, "644", "", "");
  done = true;
  reader.join();
  EXPECT_EQ(torn, 0);
  EXPECT_GT(reads, 0);
}

TEST_F(LocalHostTest, AWriterKilledMidWriteLeavesTheOldOrTheNewContent) {
  const std::string a(4 << 20, 'a'), b(6 << 20, 'b');
  host->writeFileAtomic(at("f"), a, "644", "", "");
  for (int round = 0; round < 5; ++round) {
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      auto child = makeLocalHost();
      for (int i = 0;; ++i) child->writeFileAtomic(at("f"), i % 2 ? a : b, "644", "", "");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20 + 15 * round));
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    std::string seen = slurp(at("f"));
    EXPECT_TRUE(seen == a || seen == b) << "round " << round << ": " << seen.size() << " bytes";
  }
}

// --- changing metadata and the tree -------------------------------------------------------------

TEST_F(LocalHostTest, ChmodAndChown) {
  spit(at("f"), "x");
  host->chmod(at("f"), "751");
  EXPECT_EQ(modeOf(at("f")), 0751u);
  EXPECT_EQ(errorOf([&] { host->chmod(at("f"), "rw"); }), "ValueError: invalid literal for int() with base 8: 'rw'");
  EXPECT_EQ(errorOf([&] { host->chmod(at("missing"), "644"); }),
            "FileNotFoundError: [Errno 2] No such file or directory: '" + at("missing") + "'");
  host->chown(at("f"), user, group);  // one's own names always work
  host->chown(at("f"), "", group);
  EXPECT_EQ(errorOf([&] { host->chown(at("f"), "no-such-user", ""); }),
            "KeyError: \"getpwnam(): name not found: 'no-such-user'\"");
  EXPECT_EQ(errorOf([&] { host->chown(at("f"), "", ""); }), "ValueError: chown needs a user or a group");
}

TEST_F(LocalHostTest, MkdirIsOneLevel) {
  host->mkdir(at("d"));
  EXPECT_TRUE(fs::is_directory(at("d")));
  EXPECT_EQ(errorOf([&] { host->mkdir(at("d")); }), "FileExistsError: [Errno 17] File exists: '" + at("d") + "'");
  EXPECT_EQ(errorOf([&] { host->mkdir(at("x/y")); }),
            "FileNotFoundError: [Errno 2] No such file or directory: '" + at("x/y") + "'");
}

TEST_F(LocalHostTest, RemoveTreeRemovesEverythingBelowButNotWhatLinksPointAt) {
  fs::create_directories(at("tree/a/b"));
  spit(at("tree/a/b/f"), "x");
  spit(at("tree/g"), "y");
  fs::create_directory(at("outside"));
  spit(at("outside/keep"), "k");
  fs::create_directory_symlink(at("outside"), at("tree/a/link"));
  host->removeTree(at("tree"));
  EXPECT_FALSE(fs::exists(at("tree")));
  EXPECT_EQ(slurp(at("outside/keep")), "k");

  EXPECT_EQ(errorOf([&] { host->removeTree(at("tree")); }),
            "FileNotFoundError: [Errno 2] No such file or directory: '" + at("tree") + "'");
  EXPECT_EQ(errorOf([&] { host->removeTree(at("outside/keep")); }),
            "NotADirectoryError: [Errno 20] Not a directory: '" + at("outside/keep") + "'");
  fs::create_directory_symlink(at("outside"), at("link"));
  EXPECT_EQ(errorOf([&] { host->removeTree(at("link")); }), "OSError: Cannot call rmtree on a symbolic link");
  EXPECT_TRUE(fs::exists(at("outside/keep")));
}

TEST_F(LocalHostTest, RemoveSymlinkAndReadlink) {
  spit(at("f"), "x");
  host->symlink(at("f"), at("l"));
  EXPECT_EQ(host->readlink(at("l")), at("f"));
  EXPECT_EQ(errorOf([&] { host->symlink(at("f"), at("l")); }),
            "FileExistsError: [Errno 17] File exists: '" + at("f") + "' -> '" + at("l") + "'");
  EXPECT_EQ(errorOf([&] { host->readlink(at("f")); }), "OSError: [Errno 22] Invalid argument: '" + at("f") + "'");
  host->remove(at("l"));
  EXPECT_FALSE(fs::exists(at("l")));
  EXPECT_TRUE(fs::exists(at("f")));
  fs::create_directory(at("d"));
  EXPECT_EQ(errorOf([&] { host->remove(at("d")); }), "IsADirectoryError: [Errno 21] Is a directory: '" + at("d") + "'");
}

// --- run ----------------------------------------------------------------------------------------

TEST_F(LocalHostTest, RunCapturesStrippedOutputAndTheExitCode) {
  RunResult r = host->run("sh", {"-c", "echo '  out  '; echo err >&2; exit 3"});
  EXPECT_EQ(r.out, "out");
  EXPECT_EQ(r.err, "err");
  EXPECT_EQ(r.code, 3);
}

TEST_F(LocalHostTest, RunHandlesLargeOutputOnBothStreams) {
  RunResult r =
      host->run("sh", {"-c", "head -c 1000000 /dev/zero | tr '\\0' o; head -c 1000000 /dev/zero | tr '\\0' e >&2"});
  EXPECT_EQ(r.out.size(), 1000000u);
  EXPECT_EQ(r.err.size(), 1000000u);
  EXPECT_EQ(r.code, 0);
}

TEST_F(LocalHostTest, RunDropsPythonPath) {
  ScopedEnv pythonPath("PYTHONPATH", "/somewhere");
  ScopedEnv other("INMANTA_TEST_VALUE", "kept");
  RunResult r = host->run("sh", {"-c", "echo ${PYTHONPATH-unset} $INMANTA_TEST_VALUE"});
  EXPECT_EQ(r.out, "unset kept");
}

TEST_F(LocalHostTest, RunStartsToolsWithTheNormalSchedulingPolicy) {
  // the scheduler's workers run with SCHED_BATCH (util/thread_policy.h); what a handler starts
  // does not inherit it. (/proc/PID/stat's 41st field is the policy: 0 normal, 3 batch.)
  std::string policyOfTool, policyOfPlainChild;
  std::thread worker([&] {
    ASSERT_TRUE(util::useBatchScheduling());
    policyOfTool = host->run("sh", {"-c", "cut -d' ' -f41 /proc/$$/stat"}).out;
    // what a plain popen() of the worker starts takes the worker's policy
    if (FILE* pipe = ::popen("cut -d' ' -f41 /proc/$$/stat", "r")) {
      char line[16] = {};
      if (std::fgets(line, sizeof line, pipe) != nullptr) policyOfPlainChild = line;
      ::pclose(pipe);
    }
    EXPECT_TRUE(util::batchScheduling());  // the worker keeps its own
  });
  worker.join();
  EXPECT_EQ(policyOfTool, "0");
  EXPECT_EQ(policyOfPlainChild, "3\n");
}

TEST_F(LocalHostTest, RunOfAMissingCommandReportsMinusOne) {
  RunResult r = host->run(at("no-such-tool"), {});
  EXPECT_EQ(r.code, -1);
  EXPECT_EQ(r.err, "[Errno 2] No such file or directory: '" + at("no-such-tool") + "'");
}

TEST_F(LocalHostTest, RunKillsAToolThatHangsAndWhatItStarted) {
  auto start = std::chrono::steady_clock::now();
  // the background sleep keeps the pipes open: the timeout must not wait for it
  EXPECT_EQ(errorOf([&] {
              host->run("sh", {"-c", "sleep 30 & echo started; sleep 30"}, 1);
            }),
            "TimeoutError: sh did not finish within 1 s");
  auto took = std::chrono::steady_clock::now() - start;
  EXPECT_LT(took, std::chrono::seconds(5));
}

TEST_F(LocalHostTest, ExecutablesAndThePath) {
  spit(at("tool"), "#!/bin/sh\n");
  EXPECT_FALSE(host->executableExists(at("tool")));
  ::chmod(at("tool").c_str(), 0755);
  EXPECT_TRUE(host->executableExists(at("tool")));
  EXPECT_FALSE(host->executableExists(dir.string()));
  ScopedEnv path("PATH", "relative:" + dir.string() + ":/usr/bin");
  EXPECT_EQ(findExecutable(*host, "tool"), at("tool"));
  EXPECT_EQ(findExecutable(*host, "no-such-tool"), std::nullopt);
}

// --- the std handlers on this machine -----------------------------------------------------------

class StoreOfFiles final : public FileStore {
 public:
  std::optional<std::string> get(const std::string& hash) override {
    auto it = files.find(hash);
    return it == files.end() ? std::nullopt : std::optional<std::string>(it->second);
  }
  bool has(const std::string& hash) override { return files.count(hash) != 0; }
  void put(const std::string& hash, const std::string& content) override { files[hash] = content; }
  std::map<std::string, std::string> files;
};

class LocalHandlers : public LocalHostTest {
 protected:
  void SetUp() override {
    LocalHostTest::SetUp();
    registerStdHandlers(registry);
  }

  Context execute(const std::string& type, const std::string& idAttribute, const std::string& idValue, json attributes,
                  bool dryRun = false) {
    ResourceIntent r;
    r.type = type;
    r.agent = "localhost";
    r.id_attribute = idAttribute;
    r.id_value = idValue;
    r.resource_id = type + "[localhost," + idAttribute + "=" + idValue + "]";
    r.version = 1;
    r.attributes = std::move(attributes);
    r.attributes[idAttribute] = idValue;
    std::string why;
    Context ctx(dryRun);
    auto handler = registry.find(type, HandlerServices{host.get(), &store, nullptr}, why);
    if (!handler) {
      ADD_FAILURE() << why;
      return ctx;
    }
    handler->execute(ctx, r);
    if (lastHandler) *lastHandler = std::move(handler);
    return ctx;
  }

  json fileAttributes(const std::string& content, int permissions = 644) {
    std::string hash = util::sha1Hex(content);
    store.files[hash] = content;
    return {{"hash", hash}, {"owner", user}, {"group", group}, {"permissions", permissions}, {"purged", false}};
  }

  StoreOfFiles store;
  HandlerRegistry registry;
  std::unique_ptr<Handler>* lastHandler = nullptr;
};

TEST_F(LocalHandlers, FilesAreCreatedLeftAloneAndRepaired) {
  for (int i = 0; i < 100; ++i) {
    Context ctx = execute("std::File", "path", at("f" + std::to_string(i)), fileAttributes("n" + std::to_string(i)));
    ASSERT_EQ(ctx.change(), Change::created);
  }
  auto before = fs::last_write_time(at("f7"));
  for (int i = 0; i < 100; ++i) {
    Context ctx = execute("std::File", "path", at("f" + std::to_string(i)), fileAttributes("n" + std::to_string(i)));
    ASSERT_EQ(ctx.change(), Change::nochange) << ctx.changes();
  }
  EXPECT_EQ(fs::last_write_time(at("f7")), before);  // O-17: an unchanged run touches nothing

  spit(at("f7"), "by hand");
  ::chmod(at("f7").c_str(), 0600);
  Context repaired = execute("std::File", "path", at("f7"), fileAttributes("n7"));
  EXPECT_EQ(repaired.change(), Change::updated);
  EXPECT_EQ(repaired.changes()["permissions"], json({{"current", 600}, {"desired", 644}}));
  EXPECT_EQ(slurp(at("f7")), "n7");
  EXPECT_EQ(modeOf(at("f7")), 0644u);
  EXPECT_TRUE(leftovers(dir).empty());
}

TEST_F(LocalHandlers, DirectoryAndSymlinkOnDisk) {
  Context d = execute("std::Directory", "path", at("demo"),
                      {{"owner", user}, {"group", group}, {"permissions", 750}, {"purged", false}});
  EXPECT_EQ(d.change(), Change::created);
  EXPECT_EQ(modeOf(at("demo")), 0750u);
  Context f = execute("std::File", "path", at("demo/hello.txt"), fileAttributes("hello\n"));
  EXPECT_EQ(f.change(), Change::created);
  Context l = execute("std::Symlink", "target", at("link"), {{"source", at("demo/hello.txt")}, {"purged", false}});
  EXPECT_EQ(l.change(), Change::created);
  EXPECT_EQ(slurp(at("link")), "hello\n");
  // O-39: a symlink over a regular file fails and leaves the file
  spit(at("plain"), "keep");
  Context over = execute("std::Symlink", "target", at("plain"), {{"source", at("demo")}, {"purged", false}});
  EXPECT_EQ(over.status(), ResultState::failed);
  EXPECT_EQ(slurp(at("plain")), "keep");
  // O-21: purge
  Context gone = execute("std::Directory", "path", at("demo"), {{"purged", true}});
  EXPECT_EQ(gone.change(), Change::purged);
  EXPECT_FALSE(fs::exists(at("demo")));
}

// A stub systemctl that records its arguments and keeps a unit's state in files.
TEST_F(LocalHandlers, ServiceAgainstAStubSystemctlOnThePath) {
  fs::create_directory(at("bin"));
  spit(at("bin/systemctl"),
       "#!/bin/sh\n"
       "state=\"" +
           at("state") +
           "\"\n"
           "echo \"$@\" >> \"" +
           at("calls") +
           "\"\n"
           "case \"$1\" in\n"
           "  status) echo \"Loaded: loaded\"; exit 0;;\n"
           "  is-active) test -e \"$state.running\";;\n"
           "  is-enabled) test -e \"$state.enabled\";;\n"
           "  start) touch \"$state.running\";;\n"
           "  stop) rm -f \"$state.running\";;\n"
           "  enable) touch \"$state.enabled\";;\n"
           "  disable) rm -f \"$state.enabled\";;\n"
           "esac\n");
  ::chmod(at("bin/systemctl").c_str(), 0755);
  ScopedEnv path("PATH", at("bin") + ":/usr/bin:/bin");
  ScopedEnv noOverride("INMANTA_SYSTEMCTL", "");

  json attributes = {{"state", "running"}, {"onboot", true}};
  std::unique_ptr<Handler> handler;
  lastHandler = &handler;
  Context first = execute("std::Service", "name", "nginx", attributes);
  EXPECT_EQ(first.changes(), json::parse(R"({"state": {"current": "stopped", "desired": "running"},
                                             "onboot": {"current": false, "desired": true}})"));
  EXPECT_EQ(first.change(), Change::updated);
  EXPECT_EQ(execute("std::Service", "name", "nginx", attributes).change(), Change::nochange);

  ResourceIntent r;
  r.resource_id = "std::Service[localhost,name=nginx]";
  r.attributes = attributes;
  r.attributes["name"] = "nginx";
  Context reload(false);
  ASSERT_TRUE(handler);
  handler->reload(reload, r);
  std::string calls = slurp(at("calls"));
  EXPECT_NE(calls.find("start nginx.service\nenable nginx.service\n"), std::string::npos) << calls;
  EXPECT_EQ(calls.substr(calls.size() - std::string("reload-or-restart nginx.service\n").size()),
            "reload-or-restart nginx.service\n");
}

}  // namespace
}  // namespace inmanta::handlers
