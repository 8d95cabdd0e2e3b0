// std::Package on Debian — the plain handler `apt`, ours (decision D6): the reference has only a
// yum/dnf handler, so on Debian its agent reports `unavailable`. It follows the shape of std's yum
// handler (orchestrator spec §7.4.5): the `state` change (`latest` counts as `installed`), a
// `version` change for `latest` when an upgrade is available, `purged` for a removal, `created`
// for an installation, `updated` for an upgrade. Available only where dpkg-query, apt-get and
// apt-cache are on the PATH; elsewhere the agent reports `unavailable` as the reference does.
#include "embedded/handlers/crud.h"
#include "embedded/handlers/std_handlers.h"

namespace inmanta::handlers::detail {

namespace {

struct AptTools {
  std::string dpkgQuery;
  std::string aptGet;
  std::string aptCache;
  std::string env;  // apt-get runs under `env DEBIAN_FRONTEND=noninteractive`: no prompt can hang it
};

std::optional<AptTools> findAptTools(Host& host) {
  auto dpkgQuery = findExecutable(host, "dpkg-query");
  auto aptGet = findExecutable(host, "apt-get");
  auto aptCache = findExecutable(host, "apt-cache");
  auto env = findExecutable(host, "env");
  if (!dpkgQuery || !aptGet || !aptCache || !env) return std::nullopt;
  return AptTools{*dpkgQuery, *aptGet, *aptCache, *env};
}

// The value of `key:` in apt-cache policy's output (`  Installed: 1.2-3`), or empty.
std::string policyField(const std::string& policy, const std::string& key) {
  auto at = policy.find(key + ":");
  if (at == std::string::npos) return {};
  auto start = policy.find_first_not_of(' ', at + key.size() + 1);
  auto end = policy.find('\n', start);
  return start == std::string::npos ? std::string() : policy.substr(start, end - start);
}

class AptHandler final : public PlainHandler {
 public:
  explicit AptHandler(const HandlerServices& services)
      : PlainHandler("apt"), host_(*services.host), tools_(findAptTools(host_).value_or(AptTools{})) {}

 private:
  // list_changes is the handler's own, as the reference's yum handler: the wanted state is read
  // from `state`, not compared field by field.
  nlohmann::json checkResource(Context& ctx, const ResourceIntent& desired) override {
    (void)ctx;
    // `${Status}` is `install ok installed` for an installed package, `deinstall ok config-files`
    // for a removed one that kept its configuration; unknown packages exit 1.
    RunResult status = runTool(host_, tools_.dpkgQuery, {"-W", "-f=${Status}", name(desired)});
    bool installed = status.code == 0 && status.out.size() >= 10 &&
                     status.out.compare(status.out.size() - 10, 10, " installed") == 0;
    return {{"state", installed ? "installed" : "removed"}};
  }

  nlohmann::json listChanges(Context& ctx, const ResourceIntent& desired) override {
    std::string wanted = desired.text("state", "installed");
    if (wanted != "installed" && wanted != "removed" && wanted != "latest")
      throw HandlerError("ValueError",
                         "Unknown package state " + pythonRepr(wanted) + " (installed, removed or latest)");
    std::string current = checkResource(ctx, desired)["state"];
    std::string target = wanted == "removed" ? "removed" : "installed";
    nlohmann::json changes = nlohmann::json::object();
    if (current != target) changes["state"] = {{"current", current}, {"desired", target}};
    if (wanted == "latest" && current == "installed") {
      RunResult policy = runTool(host_, tools_.aptCache, {"policy", name(desired)});
      std::string installedVersion = policyField(policy.out, "Installed");
      std::string candidate = policyField(policy.out, "Candidate");
      if (!candidate.empty() && candidate != "(none)" && candidate != installedVersion)
        changes["version"] = {{"current", installedVersion}, {"desired", candidate}};
    }
    return changes;
  }

  void doChanges(Context& ctx, const ResourceIntent& desired, const nlohmann::json& changes) override {
    if (auto state = changes.find("state"); state != changes.end()) {
      if ((*state)["desired"] == "removed") {
        aptGet({"remove", name(desired)});
        ctx.setPurged();
      } else {
        aptGet({"install", name(desired)});  // installs the candidate, which is the latest
        ctx.setCreated();
      }
    } else if (changes.contains("version")) {
      aptGet({"install", "--only-upgrade", name(desired)});
      ctx.setUpdated();
    }
  }

  void aptGet(std::vector<std::string> args) {
    args.insert(args.begin(), {"DEBIAN_FRONTEND=noninteractive", tools_.aptGet, "-y"});
    RunResult result = runTool(host_, tools_.env, args);
    if (result.code != 0)
      throw HandlerError("Exception", "apt-get failed: stdout:" + result.out + " errout: " + result.err);
  }

  static std::string name(const ResourceIntent& desired) { return desired.text("name", desired.id_value); }

  Host& host_;
  AptTools tools_;
};

}  // namespace

void registerPackageHandler(HandlerRegistry& registry) {
  registry.add(
      "std::Package", "apt", [](const HandlerServices& s) { return s.host && findAptTools(*s.host).has_value(); },
      factory<AptHandler>());
}

}  // namespace inmanta::handlers::detail
