// std::Service — the plain handler `systemd` of std 5.2.8 (orchestrator spec §7.4.4).
//
// systemctl is found on the host's PATH (the end-to-end tests put a stub first on PATH), or is the
// explicit path in INMANTA_SYSTEMCTL; the handler is available when it is found. The reference
// looked only at /usr/bin/systemctl and /bin/systemctl, which a normal PATH includes.
#include "embedded/handlers/crud.h"
#include "embedded/handlers/std_handlers.h"

namespace inmanta::handlers::detail {

namespace {

std::optional<std::string> findSystemctl(Host& host) {
  std::optional<std::string> explicitPath = host.environment("INMANTA_SYSTEMCTL");
  if (explicitPath && !explicitPath->empty()) {
    if (host.executableExists(*explicitPath)) return explicitPath;
    return std::nullopt;
  }
  return findExecutable(host, "systemctl");
}

class SystemdHandler final : public PlainHandler {
 public:
  explicit SystemdHandler(const HandlerServices& services)
      : PlainHandler("systemd"), host_(*services.host), systemctl_(findSystemctl(host_).value_or("systemctl")) {}

  bool canReload() const override { return true; }

 private:
  nlohmann::json checkResource(Context& ctx, const ResourceIntent& desired) override {
    (void)ctx;
    std::string name = desired.text("name", desired.id_value);
    std::string unit = name + ".service";
    // [QUIRK] modern systemd says a unit is missing on stderr, so this only catches old ones;
    // the failure then shows at `start`.
    if (systemctl({"status", unit}).out.find("Loaded: error") != std::string::npos)
      throw HandlerError("Exception", "The " + name + " service does not exist");
    nlohmann::json current = nlohmann::json::object();
    current["state"] = systemctl({"is-active", unit}).code == 0 ? "running" : "stopped";
    current["onboot"] = systemctl({"is-enabled", unit}).code == 0;
    return current;
  }

  void doChanges(Context& ctx, const ResourceIntent& desired, const nlohmann::json& changes) override {
    std::string name = desired.text("name", desired.id_value);
    bool acted = false;
    if (auto state = changes.find("state"); state != changes.end()) {
      act(name, (*state)["desired"] == "stopped" ? "stop" : "start");
      acted = true;
    }
    if (auto onboot = changes.find("onboot"); onboot != changes.end()) {
      act(name, (*onboot)["desired"] == true ? "enable" : "disable");
      acted = true;
    }
    if (acted) ctx.setUpdated();
  }

  void doReload(Context& ctx, const ResourceIntent& desired) override {
    if (desired.text("state") == "stopped") return;  // a stopped service stays stopped
    ctx.info("Reloading service with reload-or-restart");
    systemctl({"reload-or-restart", desired.text("name", desired.id_value) + ".service"});  // result ignored
  }

  // [QUIRK] as the reference, only a stderr starting with `Failed` is a failure: in a container
  // without systemd as PID 1 an action "succeeds" without effect.
  void act(const std::string& name, const std::string& action) {
    RunResult result = systemctl({action, name + ".service"});
    if (result.err.rfind("Failed", 0) == 0)
      throw HandlerError("Exception", "Unable to " + action + " " + name + ": " + result.err);
  }

  RunResult systemctl(const std::vector<std::string>& args) { return runTool(host_, systemctl_, args); }

  Host& host_;
  std::string systemctl_;
};

}  // namespace

void registerServiceHandler(HandlerRegistry& registry) {
  registry.add(
      "std::Service", "systemd", [](const HandlerServices& s) { return s.host && findSystemctl(*s.host).has_value(); },
      factory<SystemdHandler>());
}

}  // namespace inmanta::handlers::detail
