// The std handlers of spec §7.4 on a MemoryHost: every observed outcome the spec lists (changes
// exactly as the reference reports them, change kinds, results, error texts).
#include <gtest/gtest.h>

#include "embedded/handlers/handler.h"
#include "embedded/handlers/memory_host.h"
#include "util/digest.h"

namespace inmanta::handlers {
namespace {

using nlohmann::json;

class MemoryFileStore final : public FileStore {
 public:
  std::optional<std::string> get(const std::string& hash) override {
    auto it = files.find(hash);
    if (it == files.end()) return std::nullopt;
    return it->second;
  }
  bool has(const std::string& hash) override {
    ++lookups;
    return files.count(hash) != 0;
  }
  void put(const std::string& hash, const std::string& content) override { files[hash] = content; }
  std::string add(const std::string& content) {
    std::string hash = util::sha1Hex(content);
    files[hash] = content;
    return hash;
  }
  std::map<std::string, std::string> files;
  int lookups = 0;
};

class MemorySettings final : public SettingsAccess {
 public:
  json get(const std::string& name) override { return values.value(name, json()); }
  void set(const std::string& name, const json& value) override { values[name] = value; }
  json values = json::object();
};

// A MemoryHost whose fileExists answers can be changed between two calls of one run: what another
// process does between a handler's read and its write.
class RacingHost final : public Host {
 public:
  explicit RacingHost(MemoryHost& inner) : inner_(inner) {}
  std::function<void(int call)> beforeFileExists = [](int) {};

  bool fileExists(const std::string& path) override {
    beforeFileExists(++fileExistsCalls_);
    return inner_.fileExists(path);
  }
  bool isSymlink(const std::string& path) override { return inner_.isSymlink(path); }
  bool isDirectory(const std::string& path) override { return inner_.isDirectory(path); }
  FileStat stat(const std::string& path) override { return inner_.stat(path); }
  std::string hashFile(const std::string& path) override { return inner_.hashFile(path); }
  std::string readFile(const std::string& path) override { return inner_.readFile(path); }
  void writeFileAtomic(const std::string& path, const std::string& content, const std::string& permissions,
                       const std::string& owner, const std::string& group) override {
    inner_.writeFileAtomic(path, content, permissions, owner, group);
  }
  void chmod(const std::string& path, const std::string& permissions) override { inner_.chmod(path, permissions); }
  void chown(const std::string& path, const std::string& owner, const std::string& group) override {
    inner_.chown(path, owner, group);
  }
  void mkdir(const std::string& path) override { inner_.mkdir(path); }
  void removeTree(const std::string& path) override { inner_.removeTree(path); }
  void remove(const std::string& path) override { inner_.remove(path); }
  void symlink(const std::string& source, const std::string& target) override { inner_.symlink(source, target); }
  std::string readlink(const std::string& path) override { return inner_.readlink(path); }
  RunResult run(const std::string& command, const std::vector<std::string>& args, int timeoutSeconds) override {
    return inner_.run(command, args, timeoutSeconds);
  }
  bool executableExists(const std::string& path) override { return inner_.executableExists(path); }

 private:
  MemoryHost& inner_;
  int fileExistsCalls_ = 0;
};

// The resource of type `type` whose id attribute is `idAttribute` = `idValue`, with the common
// attributes every exported resource carries.
ResourceIntent resource(const std::string& type, const std::string& idAttribute, const std::string& idValue,
                        json attributes, const std::string& agent = "localhost") {
  ResourceIntent r;
  r.type = type;
  r.agent = agent;
  r.id_attribute = idAttribute;
  r.id_value = idValue;
  r.resource_id = type + "[" + agent + "," + idAttribute + "=" + idValue + "]";
  r.version = 1;
  r.attributes = {{idAttribute, idValue},   {"requires", json::array()}, {"send_event", false},
                  {"receive_events", true}, {"report_only", false},      {"purged", false}};
  for (auto& [key, value] : attributes.items()) r.attributes[key] = value;
  return r;
}

class StdHandlers : public ::testing::Test {
 protected:
  StdHandlers() : host("deployer", "staff") {
    registerStdHandlers(registry);
    host.addDirectory("/srv");
    host.addExecutable("/usr/bin/ln");
  }

  // One execute of the type's handler; fails the test when the type has no available handler.
  Context execute(const ResourceIntent& r, bool dryRun = false, Host* on = nullptr) {
    Context ctx(dryRun);
    std::string why;
    auto handler = registry.find(r.type, services(on), why);
    if (!handler) {
      ADD_FAILURE() << "no handler for " << r.type << ": " << why;
      return ctx;
    }
    handler->execute(ctx, r);
    return ctx;
  }

  HandlerServices services(Host* on = nullptr) { return HandlerServices{on ? on : &host, &files, &settings}; }

  ResourceIntent file(const std::string& path, const std::string& content, json extra = json::object()) {
    json attributes = {{"hash", files.add(content)}, {"owner", "deployer"}, {"group", "staff"},
                       {"permissions", 644},         {"reload", false},     {"purge_on_delete", false}};
    for (auto& [key, value] : extra.items()) attributes[key] = value;
    return resource("std::File", "path", path, attributes);
  }

  static std::string errorOf(const Context& ctx) {
    for (const auto& line : ctx.logs())
      if (line.level == "ERROR") return line.kwargs["exception"];
    return "";
  }

  MemoryHost host;
  MemoryFileStore files;
  MemorySettings settings;
  HandlerRegistry registry;
};

// --- std::File (§7.4.1) -------------------------------------------------------------------------

TEST_F(StdHandlers, FileFreshPathIsCreatedWithModeAndOwner) {
  Context ctx = execute(file("/srv/a.conf", "hello\n"));
  EXPECT_EQ(ctx.status(), ResultState::deployed);
  EXPECT_EQ(ctx.change(), Change::created);
  EXPECT_EQ(ctx.changes(), json::parse(R"({"purged": {"current": true, "desired": false}})"));
  auto node = host.node("/srv/a.conf");
  ASSERT_TRUE(node);
  EXPECT_EQ(node->content, "hello\n");
  EXPECT_EQ(node->mode, 0644u);
  EXPECT_EQ(node->owner, "deployer");
  EXPECT_EQ(node->group, "staff");
}

TEST_F(StdHandlers, FileSameAgainIsNoChangeWithoutStoreLookups) {
  execute(file("/srv/a.conf", "hello\n"));
  std::size_t writes = host.modifications();
  files.lookups = 0;
  Context ctx = execute(file("/srv/a.conf", "hello\n"));
  EXPECT_EQ(ctx.status(), ResultState::deployed);
  EXPECT_EQ(ctx.change(), Change::nochange);
  EXPECT_EQ(ctx.changes(), json::object());
  EXPECT_EQ(host.modifications(), writes);
  EXPECT_EQ(files.lookups, 0);
}

TEST_F(StdHandlers, FileDriftOfContentAndModeIsRepairedAndTheOldContentUploaded) {
  host.addFile("/srv/a.conf", "changed by hand\n", 0600);
  Context ctx = execute(file("/srv/a.conf", "hello\n"));
  std::string onDisk = util::sha1Hex("changed by hand\n");
  json expected = {{"hash", {{"current", onDisk}, {"desired", util::sha1Hex("hello\n")}}},
                   {"permissions", {{"current", 600}, {"desired", 644}}}};
  EXPECT_EQ(ctx.changes(), expected);
  EXPECT_EQ(ctx.change(), Change::updated);
  EXPECT_EQ(ctx.status(), ResultState::deployed);
  EXPECT_EQ(host.node("/srv/a.conf")->content, "hello\n");
  EXPECT_EQ(host.node("/srv/a.conf")->mode, 0644u);
  EXPECT_EQ(files.files.at(onDisk), "changed by hand\n");  // for the backup and the dry-run diff
}

TEST_F(StdHandlers, FileContentUpdateKeepsTheOldModeWhenTheModelSetsNone) {
  host.addFile("/srv/a.conf", "old\n", 0640);
  Context ctx = execute(file("/srv/a.conf", "new\n", {{"permissions", nullptr}}));
  EXPECT_EQ(ctx.change(), Change::updated);
  EXPECT_EQ(host.node("/srv/a.conf")->content, "new\n");
  EXPECT_EQ(host.node("/srv/a.conf")->mode, 0640u);
}

TEST_F(StdHandlers, FileOwnerChangeOnlyChownsIt) {
  host.addUser("web");
  host.addFile("/srv/a.conf", "hello\n", 0644);
  Context ctx = execute(file("/srv/a.conf", "hello\n", {{"owner", "web"}}));
  EXPECT_EQ(ctx.changes(), json::parse(R"({"owner": {"current": "deployer", "desired": "web"}})"));
  EXPECT_EQ(ctx.change(), Change::updated);
  EXPECT_EQ(host.node("/srv/a.conf")->owner, "web");
}

TEST_F(StdHandlers, FilePurgedIsRemovedThenNoChange) {
  host.addFile("/srv/a.conf", "hello\n");
  Context ctx = execute(file("/srv/a.conf", "hello\n", {{"purged", true}}));
  EXPECT_EQ(ctx.changes(), json::parse(R"({"purged": {"current": false, "desired": true}})"));
  EXPECT_EQ(ctx.change(), Change::purged);
  EXPECT_FALSE(host.node("/srv/a.conf"));
  Context again = execute(file("/srv/a.conf", "hello\n", {{"purged", true}}));
  EXPECT_EQ(again.changes(), json::object());
  EXPECT_EQ(again.change(), Change::nochange);
  EXPECT_EQ(again.status(), ResultState::deployed);
}

TEST_F(StdHandlers, FileDryRunOfAFreshPathWritesNothing) {
  Context ctx = execute(file("/srv/a.conf", "hello\n"), true);
  EXPECT_EQ(ctx.status(), ResultState::dry);
  EXPECT_EQ(ctx.changes(), json::parse(R"({"purged": {"current": true, "desired": false}})"));
  EXPECT_EQ(host.modifications(), 0u);
  EXPECT_FALSE(host.node("/srv/a.conf"));
}

TEST_F(StdHandlers, FileDryRunOfADriftedFileUploadsTheCurrentContentButWritesNothing) {
  host.addFile("/srv/a.conf", "by hand\n");
  Context ctx = execute(file("/srv/a.conf", "hello\n"), true);
  EXPECT_EQ(ctx.status(), ResultState::dry);
  EXPECT_TRUE(ctx.changes().contains("hash"));
  EXPECT_EQ(host.node("/srv/a.conf")->content, "by hand\n");
  EXPECT_EQ(host.modifications(), 0u);
  EXPECT_EQ(files.files.count(util::sha1Hex("by hand\n")), 1u);  // [QUIRK] of the reference
}

TEST_F(StdHandlers, FileUnderAMissingParentFails) {
  Context ctx = execute(file("/nope/a.conf", "x\n"));
  EXPECT_EQ(ctx.status(), ResultState::failed);
  EXPECT_EQ(errorOf(ctx), "FileNotFoundError('[Errno 2] No such file or directory: '/nope/a.conf'')");
  EXPECT_EQ(ctx.changes(), json::parse(R"({"purged": {"current": true, "desired": false}})"));
}

TEST_F(StdHandlers, FileUnderAPlainFileFails) {
  host.addFile("/srv/hello.txt", "hi\n");
  Context ctx = execute(file("/srv/hello.txt/inside", "x\n"));
  EXPECT_EQ(ctx.status(), ResultState::failed);
  EXPECT_EQ(errorOf(ctx), "NotADirectoryError('[Errno 20] Not a directory: '/srv/hello.txt/inside'')");
}

TEST_F(StdHandlers, FileOverADirectoryFailsAtRead) {
  host.addDirectory("/srv/dir");
  Context ctx = execute(file("/srv/dir", "x\n"));
  EXPECT_EQ(ctx.status(), ResultState::failed);
  EXPECT_EQ(errorOf(ctx), "IsADirectoryError('[Errno 21] Is a directory: '/srv/dir'')");
}

TEST_F(StdHandlers, FileWithAnUnknownOwnerFailsAsTheReferenceAndWritesNothing) {
  Context ctx = execute(file("/srv/bad-owner.conf", "w\n", {{"owner", "no-such-user"}}));
  EXPECT_EQ(ctx.status(), ResultState::failed);
  // the text of the reference's recorded run (fixtures/deploy-failure.json)
  EXPECT_EQ(errorOf(ctx), "KeyError('\"getpwnam(): name not found: 'no-such-user'\"')");
  EXPECT_FALSE(host.node("/srv/bad-owner.conf"));  // D9: the owner is set before the file appears
}

TEST_F(StdHandlers, FileContentMissingFromTheStoreFails) {
  ResourceIntent r = file("/srv/a.conf", "x\n");
  files.files.clear();
  Context ctx = execute(r);
  EXPECT_EQ(ctx.status(), ResultState::failed);
  EXPECT_EQ(errorOf(ctx), "Exception('The file store has no file with hash '" + r.text("hash") + "'')");
}

TEST_F(StdHandlers, FileContentWithAWrongHashFails) {
  ResourceIntent r = file("/srv/a.conf", "x\n");
  files.files[r.text("hash")] = "tampered\n";
  Context ctx = execute(r);
  EXPECT_EQ(ctx.status(), ResultState::failed);
  EXPECT_EQ(errorOf(ctx),
            "Exception('File hash was " + util::sha1Hex("tampered\n") + " expected " + r.text("hash") + "')");
  EXPECT_FALSE(host.node("/srv/a.conf"));
}

TEST_F(StdHandlers, FileCreatedMeanwhileIsNotOverwritten) {
  RacingHost racing(host);
  racing.beforeFileExists = [&](int call) {
    if (call == 2) host.addFile("/srv/a.conf", "theirs\n");  // between read and create
  };
  Context ctx = execute(file("/srv/a.conf", "ours\n"), false, &racing);
  EXPECT_EQ(ctx.status(), ResultState::failed);
  EXPECT_EQ(errorOf(ctx), "Exception('Cannot create file /srv/a.conf, because it already exists.')");
  EXPECT_EQ(host.node("/srv/a.conf")->content, "theirs\n");
}

TEST_F(StdHandlers, FileRemovedMeanwhileIsNotUpdated) {
  host.addFile("/srv/a.conf", "old\n");
  RacingHost racing(host);
  racing.beforeFileExists = [&](int call) {
    if (call == 2) host.remove("/srv/a.conf");  // between read and update
  };
  Context ctx = execute(file("/srv/a.conf", "new\n"), false, &racing);
  EXPECT_EQ(ctx.status(), ResultState::failed);
  EXPECT_EQ(errorOf(ctx), "Exception('Cannot update file /srv/a.conf because it doesn't exist')");
  EXPECT_FALSE(host.node("/srv/a.conf"));
}

TEST_F(StdHandlers, FileReportOnlyDriftIsNonCompliant) {
  host.addFile("/srv/a.conf", "by hand\n");
  Context ctx = execute(file("/srv/a.conf", "hello\n", {{"report_only", true}}));
  EXPECT_EQ(ctx.status(), ResultState::non_compliant);
  EXPECT_EQ(host.node("/srv/a.conf")->content, "by hand\n");
}

// --- std::Directory (§7.4.2) --------------------------------------------------------------------

ResourceIntent directory(const std::string& path, json extra = json::object()) {
  json attributes = {
      {"owner", "deployer"}, {"group", "staff"}, {"permissions", 750}, {"reload", false}, {"purge_on_delete", false}};
  for (auto& [key, value] : extra.items()) attributes[key] = value;
  return resource("std::Directory", "path", path, attributes);
}

TEST_F(StdHandlers, DirectoryCreateAgainDriftAndPurge) {
  Context created = execute(directory("/srv/demo"));
  EXPECT_EQ(created.change(), Change::created);
  EXPECT_EQ(created.changes(), json::parse(R"({"purged": {"current": true, "desired": false}})"));
  EXPECT_EQ(host.node("/srv/demo")->mode, 0750u);
  EXPECT_EQ(host.node("/srv/demo")->kind, MemoryHost::Node::Kind::directory);

  EXPECT_EQ(execute(directory("/srv/demo")).change(), Change::nochange);

  host.chmod("/srv/demo", "700");
  Context drift = execute(directory("/srv/demo"));
  EXPECT_EQ(drift.changes(), json::parse(R"({"permissions": {"current": 700, "desired": 750}})"));
  EXPECT_EQ(drift.change(), Change::updated);
  EXPECT_EQ(host.node("/srv/demo")->mode, 0750u);

  host.addFile("/srv/demo/inner/file", "x");
  Context purged = execute(directory("/srv/demo", {{"purged", true}}));
  EXPECT_EQ(purged.change(), Change::purged);
  EXPECT_FALSE(host.node("/srv/demo"));
  EXPECT_FALSE(host.node("/srv/demo/inner/file"));
  EXPECT_TRUE(host.node("/srv"));
}

TEST_F(StdHandlers, DirectoryUnderAMissingParentFails) {
  Context ctx = execute(directory("/srv/a/b"));
  EXPECT_EQ(ctx.status(), ResultState::failed);
  EXPECT_EQ(errorOf(ctx), "FileNotFoundError('[Errno 2] No such file or directory: '/srv/a/b'')");
}

TEST_F(StdHandlers, DirectoryOverAPlainFileOnlyFixesItsModeAsTheReference) {
  host.addFile("/srv/plain", "x", 0600);
  Context ctx = execute(directory("/srv/plain"));
  EXPECT_EQ(ctx.change(), Change::updated);
  EXPECT_EQ(host.node("/srv/plain")->kind, MemoryHost::Node::Kind::file);
  EXPECT_EQ(host.node("/srv/plain")->mode, 0750u);
}

// --- std::Symlink (§7.4.3) ----------------------------------------------------------------------

ResourceIntent symlinkTo(const std::string& target, const std::string& source, json extra = json::object()) {
  json attributes = {{"source", source}, {"reload", false}, {"purge_on_delete", false}};
  for (auto& [key, value] : extra.items()) attributes[key] = value;
  return resource("std::Symlink", "target", target, attributes);
}

TEST_F(StdHandlers, SymlinkCreateAgainRetargetAndPurge) {
  Context created = execute(symlinkTo("/srv/link", "/etc/hostname"));
  EXPECT_EQ(created.change(), Change::created);
  EXPECT_EQ(host.readlink("/srv/link"), "/etc/hostname");  // dangling is fine

  EXPECT_EQ(execute(symlinkTo("/srv/link", "/etc/hostname")).change(), Change::nochange);

  Context retarget = execute(symlinkTo("/srv/link", "/etc/hosts"));
  EXPECT_EQ(retarget.changes(), json::parse(R"({"source": {"current": "/etc/hostname", "desired": "/etc/hosts"}})"));
  EXPECT_EQ(retarget.change(), Change::updated);
  EXPECT_EQ(host.readlink("/srv/link"), "/etc/hosts");

  Context purged = execute(symlinkTo("/srv/link", "/etc/hosts", {{"purged", true}}));
  EXPECT_EQ(purged.changes(), json::parse(R"({"purged": {"current": false, "desired": true}})"));
  EXPECT_EQ(purged.change(), Change::purged);
  EXPECT_FALSE(host.node("/srv/link"));
}

TEST_F(StdHandlers, SymlinkOverARegularFileFailsAndLeavesTheFile) {
  host.addFile("/srv/target", "keep\n");
  Context ctx = execute(symlinkTo("/srv/target", "/etc/hosts"));
  EXPECT_EQ(ctx.status(), ResultState::failed);
  EXPECT_EQ(errorOf(ctx),
            "Exception('The target of resource std::Symlink[localhost,target=/srv/target],v=1 already exists but is "
            "not a symlink.')");
  EXPECT_EQ(host.node("/srv/target")->content, "keep\n");
}

TEST_F(StdHandlers, SymlinkIsUnavailableWithoutLn) {
  MemoryHost bare;
  std::string why;
  EXPECT_EQ(registry.find("std::Symlink", services(&bare), why), nullptr);
  EXPECT_EQ(why, "no handler for std::Symlink is available on this machine (tried: posix_symlink)");
}

// --- std::Service (§7.4.4) ----------------------------------------------------------------------

// A systemctl that keeps the state of the units it knows and answers as systemd does.
struct FakeSystemd {
  std::map<std::string, bool> running, enabled;
  std::string failStart;  // a stderr for `start`, e.g. "Failed to start x.service: Unit x.service not found."

  RunResult operator()(const std::string&, const std::vector<std::string>& args) {
    const std::string& verb = args.at(0);
    const std::string& unit = args.at(1);
    if (verb == "status") return {running[unit] ? "Active: active (running)" : "Active: inactive (dead)", "", 0};
    if (verb == "is-active") return {running[unit] ? "active" : "inactive", "", running[unit] ? 0 : 3};
    if (verb == "is-enabled") return {enabled[unit] ? "enabled" : "disabled", "", enabled[unit] ? 0 : 1};
    if (verb == "start" && !failStart.empty()) return {"", failStart, 1};
    if (verb == "start" || verb == "stop") running[unit] = verb == "start";
    if (verb == "enable" || verb == "disable") enabled[unit] = verb == "enable";
    return {"", "", 0};
  }
};

ResourceIntent service(const std::string& name, const std::string& state, bool onboot) {
  return resource("std::Service", "name", name, {{"state", state}, {"onboot", onboot}, {"reload", false}});
}

class ServiceHandler : public StdHandlers {
 protected:
  ServiceHandler() {
    host.addExecutable("/opt/stub/systemctl");
    host.setEnvironment("PATH", "/opt/stub:/usr/bin");
    host.onRun([this](const std::string& command, const std::vector<std::string>& args) {
      EXPECT_EQ(command, "/opt/stub/systemctl");
      return systemd(command, args);
    });
  }
  std::vector<std::string> verbs() const {
    std::vector<std::string> out;
    for (const auto& call : host.calls()) out.push_back(call.args.at(0) + " " + call.args.at(1));
    return out;
  }
  FakeSystemd systemd;
};

TEST_F(ServiceHandler, StoppedDisabledServiceIsStartedAndEnabled) {
  Context ctx = execute(service("nginx", "running", true));
  EXPECT_EQ(ctx.changes(), json::parse(R"({"state": {"current": "stopped", "desired": "running"},
                                           "onboot": {"current": false, "desired": true}})"));
  EXPECT_EQ(ctx.change(), Change::updated);
  EXPECT_EQ(ctx.status(), ResultState::deployed);
  EXPECT_EQ(verbs(),
            (std::vector<std::string>{"status nginx.service", "is-active nginx.service", "is-enabled nginx.service",
                                      "start nginx.service", "enable nginx.service"}));
  Context again = execute(service("nginx", "running", true));
  EXPECT_EQ(again.changes(), json::object());
  EXPECT_EQ(again.change(), Change::nochange);
}

TEST_F(ServiceHandler, RunningServiceIsStopped) {
  systemd.running["db.service"] = true;
  Context ctx = execute(service("db", "stopped", false));
  EXPECT_EQ(ctx.changes(), json::parse(R"({"state": {"current": "running", "desired": "stopped"}})"));
  EXPECT_FALSE(systemd.running["db.service"]);
}

TEST_F(ServiceHandler, DryRunOnlyChecks) {
  Context ctx = execute(service("nginx", "running", false), true);
  EXPECT_EQ(ctx.status(), ResultState::dry);
  EXPECT_EQ(verbs().size(), 3u);
  EXPECT_FALSE(systemd.running["nginx.service"]);
}

TEST_F(ServiceHandler, AFailedStartFailsTheRun) {
  systemd.failStart = "Failed to start nope.service: Unit nope.service not found.";
  Context ctx = execute(service("nope", "running", false));
  EXPECT_EQ(ctx.status(), ResultState::failed);
  EXPECT_EQ(errorOf(ctx),
            "Exception('Unable to start nope: Failed to start nope.service: Unit nope.service not found.')");
}

TEST_F(ServiceHandler, ALoadErrorMeansTheServiceDoesNotExist) {
  host.script("/opt/stub/systemctl status old.service", {"Loaded: error (Reason: No such file or directory)", "", 3});
  Context ctx = execute(service("old", "running", false));
  EXPECT_EQ(ctx.status(), ResultState::failed);
  EXPECT_EQ(errorOf(ctx), "Exception('The old service does not exist')");
}

TEST_F(ServiceHandler, ReloadRestartsARunningServiceOnly) {
  std::string why;
  auto handler = registry.find("std::Service", services(), why);
  ASSERT_TRUE(handler) << why;
  EXPECT_TRUE(handler->canReload());
  Context ctx(false);
  handler->reload(ctx, service("nginx", "running", true));
  ASSERT_EQ(ctx.logs().size(), 1u);
  EXPECT_EQ(ctx.logs()[0].msg, "Reloading service with reload-or-restart");
  EXPECT_EQ(verbs(), (std::vector<std::string>{"reload-or-restart nginx.service"}));

  Context stopped(false);
  handler->reload(stopped, service("nginx", "stopped", true));
  EXPECT_EQ(verbs().size(), 1u);
}

TEST_F(ServiceHandler, SystemctlComesFromInmantaSystemctlOrThePath) {
  std::string why;
  host.setEnvironment("PATH", "/usr/bin");
  EXPECT_EQ(registry.find("std::Service", services(), why), nullptr);
  EXPECT_EQ(why, "no handler for std::Service is available on this machine (tried: systemd)");
  host.setEnvironment("INMANTA_SYSTEMCTL", "/opt/stub/systemctl");
  EXPECT_NE(registry.find("std::Service", services(), why), nullptr);
  host.setEnvironment("INMANTA_SYSTEMCTL", "/opt/none/systemctl");
  EXPECT_EQ(registry.find("std::Service", services(), why), nullptr);
}

// --- std::Package (§7.4.5, ours on Debian: D6) --------------------------------------------------

ResourceIntent package(const std::string& name, const std::string& state) {
  return resource("std::Package", "name", name, {{"state", state}, {"reload", false}});
}

class PackageHandler : public StdHandlers {
 protected:
  PackageHandler() {
    for (const char* tool : {"dpkg-query", "apt-get", "apt-cache", "env"})
      host.addExecutable(std::string("/usr/bin/") + tool);
    host.setEnvironment("PATH", "/usr/bin");
  }
  void installed(const std::string& name) {
    host.script("/usr/bin/dpkg-query -W -f=${Status} " + name, {"install ok installed", "", 0});
  }
  std::string lastCommand() const {
    auto calls = host.calls();
    std::string line = calls.back().command;
    for (const auto& arg : calls.back().args) line += " " + arg;
    return line;
  }
};

TEST_F(PackageHandler, MissingPackageIsInstalled) {
  host.script("/usr/bin/dpkg-query -W -f=${Status} htop", {"", "dpkg-query: no packages found matching htop", 1});
  host.script("/usr/bin/env DEBIAN_FRONTEND=noninteractive /usr/bin/apt-get -y install htop", {"done", "", 0});
  Context ctx = execute(package("htop", "installed"));
  EXPECT_EQ(ctx.changes(), json::parse(R"({"state": {"current": "removed", "desired": "installed"}})"));
  EXPECT_EQ(ctx.change(), Change::created);
  EXPECT_EQ(ctx.status(), ResultState::deployed);
  EXPECT_EQ(lastCommand(), "/usr/bin/env DEBIAN_FRONTEND=noninteractive /usr/bin/apt-get -y install htop");
}

TEST_F(PackageHandler, InstalledPackageIsRemoved) {
  installed("htop");
  host.script("/usr/bin/env DEBIAN_FRONTEND=noninteractive /usr/bin/apt-get -y remove htop", {"", "", 0});
  Context ctx = execute(package("htop", "removed"));
  EXPECT_EQ(ctx.changes(), json::parse(R"({"state": {"current": "installed", "desired": "removed"}})"));
  EXPECT_EQ(ctx.change(), Change::purged);
}

TEST_F(PackageHandler, RemovedWithConfigFilesCountsAsRemoved) {
  host.script("/usr/bin/dpkg-query -W -f=${Status} htop", {"deinstall ok config-files", "", 0});
  Context ctx = execute(package("htop", "removed"));
  EXPECT_EQ(ctx.changes(), json::object());
  EXPECT_EQ(ctx.change(), Change::nochange);
}

TEST_F(PackageHandler, LatestUpgradesWhenTheCandidateIsNewer) {
  installed("curl");
  host.script("/usr/bin/apt-cache policy curl",
              {"curl:\n  Installed: 7.88.1-10\n  Candidate: 7.88.1-10+deb12u5\n  Version table:", "", 0});
  host.script("/usr/bin/env DEBIAN_FRONTEND=noninteractive /usr/bin/apt-get -y install --only-upgrade curl",
              {"", "", 0});
  Context ctx = execute(package("curl", "latest"));
  EXPECT_EQ(ctx.changes(), json::parse(R"({"version": {"current": "7.88.1-10", "desired": "7.88.1-10+deb12u5"}})"));
  EXPECT_EQ(ctx.change(), Change::updated);

  host.script("/usr/bin/apt-cache policy curl", {"curl:\n  Installed: 7.88.1-10\n  Candidate: 7.88.1-10", "", 0});
  EXPECT_EQ(execute(package("curl", "latest")).changes(), json::object());
}

TEST_F(PackageHandler, AFailingAptGetFailsTheRun) {
  host.script("/usr/bin/env DEBIAN_FRONTEND=noninteractive /usr/bin/apt-get -y install nope",
              {"Reading package lists...", "E: Unable to locate package nope", 100});
  host.script("/usr/bin/dpkg-query -W -f=${Status} nope", {"", "", 1});
  Context ctx = execute(package("nope", "installed"));
  EXPECT_EQ(ctx.status(), ResultState::failed);
  EXPECT_EQ(errorOf(ctx),
            "Exception('apt-get failed: stdout:Reading package lists... errout: E: Unable to locate package nope')");
}

TEST_F(PackageHandler, UnavailableWithoutApt) {
  MemoryHost bare;
  bare.setEnvironment("PATH", "/usr/bin");
  std::string why;
  EXPECT_EQ(registry.find("std::Package", services(&bare), why), nullptr);
  EXPECT_EQ(why, "no handler for std::Package is available on this machine (tried: apt)");
}

// --- std::AgentConfig (§7.4.6) ------------------------------------------------------------------

ResourceIntent agentConfig(const std::string& name, const std::string& uri, bool purged = false) {
  return resource("std::AgentConfig", "agentname", name, {{"uri", uri}, {"autostart", true}, {"purged", purged}},
                  "internal");
}

TEST_F(StdHandlers, AgentConfigEditsTheAutostartMapWithoutAChangeKind) {
  settings.values["autostart_agent_map"] = {{"internal", "local:"}};
  Context created = execute(agentConfig("web1", "ssh://root@10.0.0.1:22?python=python3"));
  EXPECT_EQ(created.changes(), json::parse(R"({"purged": {"current": true, "desired": false}})"));
  EXPECT_EQ(created.change(), Change::nochange);  // [QUIRK] of the reference
  EXPECT_EQ(created.status(), ResultState::deployed);
  EXPECT_EQ(settings.values["autostart_agent_map"],
            json::parse(R"({"internal": "local:", "web1": "ssh://root@10.0.0.1:22?python=python3"})"));

  Context updated = execute(agentConfig("web1", "local:"));
  EXPECT_EQ(updated.changes(),
            json::parse(R"({"uri": {"current": "ssh://root@10.0.0.1:22?python=python3", "desired": "local:"}})"));
  EXPECT_EQ(settings.values["autostart_agent_map"]["web1"], "local:");

  Context purged = execute(agentConfig("web1", "local:", true));
  EXPECT_EQ(purged.changes(), json::parse(R"({"purged": {"current": false, "desired": true}})"));
  EXPECT_EQ(settings.values["autostart_agent_map"], json::parse(R"({"internal": "local:"})"));
}

TEST_F(StdHandlers, AgentConfigNeedsTheSettings) {
  std::string why;
  HandlerServices none{&host, &files, nullptr};
  EXPECT_EQ(registry.find("std::AgentConfig", none, why), nullptr);
}

// --- std::testing::NullResource (§7.4.7) --------------------------------------------------------

ResourceIntent nullResource(json extra = json::object()) {
  json attributes = {{"agentname", "internal"}, {"fail", false}, {"send_event", true}};
  for (auto& [key, value] : extra.items()) attributes[key] = value;
  return resource("std::testing::NullResource", "name", "null", attributes, "internal");
}

TEST_F(StdHandlers, NullResourceReportsNoChangeAndPurgedEveryTime) {
  Context normal = execute(nullResource());
  EXPECT_EQ(normal.changes(), json::object());
  EXPECT_EQ(normal.change(), Change::nochange);
  EXPECT_EQ(normal.status(), ResultState::deployed);
  for (int run = 0; run < 2; ++run) {
    Context purged = execute(nullResource({{"purged", true}}));
    EXPECT_EQ(purged.changes(), json::parse(R"({"purged": {"current": false, "desired": true}})"));
    EXPECT_EQ(purged.change(), Change::purged);
  }
  EXPECT_EQ(host.modifications(), 0u);
}

TEST_F(StdHandlers, NullResourceFailsOnRequestAlsoInADryRun) {
  for (bool dryRun : {false, true}) {
    Context ctx = execute(nullResource({{"fail", true}}), dryRun);
    EXPECT_EQ(ctx.status(), ResultState::failed);
    EXPECT_EQ(errorOf(ctx), "Exception('This resource is set to fail')");
  }
}

TEST_F(StdHandlers, EveryStdTypeIsRegistered) {
  for (const char* type : {"std::File", "std::Directory", "std::Symlink", "std::Service", "std::Package",
                           "std::AgentConfig", "std::testing::NullResource"})
    EXPECT_TRUE(registry.knows(type)) << type;
}

}  // namespace
}  // namespace inmanta::handlers
