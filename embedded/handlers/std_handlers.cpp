// registerStdHandlers, and the two handlers that touch no machine: std::AgentConfig (agentrest,
// §7.4.6) and std::testing::NullResource (null, §7.4.7).
#include "embedded/handlers/std_handlers.h"

#include "embedded/handlers/crud.h"

namespace inmanta::handlers {

namespace detail {

RunResult runTool(Host& host, const std::string& tool, const std::vector<std::string>& args) {
  RunResult result = host.run(tool, args);
  if (result.code == -1) throw HandlerError("OSError", "Unable to run " + tool + ": " + result.err);
  return result;
}

namespace {

// The entries of the environment setting `autostart_agent_map` (agent name → URI). [QUIRK] as the
// reference, it never sets a change kind: its runs report `nochange` even when they edit the map.
class AgentConfigHandler final : public CrudHandler {
 public:
  explicit AgentConfigHandler(const HandlerServices& services)
      : CrudHandler("agentrest"), settings_(*services.settings) {}

 private:
  static constexpr const char* kSetting = "autostart_agent_map";

  void readResource(Context& ctx, const ResourceIntent& desired, nlohmann::json& current) override {
    (void)ctx;
    map_ = settings_.get(kSetting);
    if (!map_.is_object()) throw HandlerError("Exception", std::string("The setting ") + kSetting + " is not a dict");
    auto entry = map_.find(agentName(desired));
    if (entry == map_.end()) {
      current["purged"] = true;
      return;
    }
    current["uri"] = *entry;
  }

  void createResource(Context& ctx, const ResourceIntent& desired) override { setEntry(ctx, desired); }
  void updateResource(Context& ctx, const nlohmann::json& changes, const ResourceIntent& desired) override {
    (void)changes;
    setEntry(ctx, desired);
  }

  void deleteResource(Context& ctx, const ResourceIntent& desired) override {
    (void)ctx;
    map_.erase(agentName(desired));
    settings_.set(kSetting, map_);
  }

  void setEntry(Context& ctx, const ResourceIntent& desired) {
    (void)ctx;
    map_[agentName(desired)] = desired.attributes.value("uri", nlohmann::json());
    settings_.set(kSetting, map_);
  }

  static std::string agentName(const ResourceIntent& desired) { return desired.text("agentname", desired.id_value); }

  SettingsAccess& settings_;
  nlohmann::json map_;  // read_resource's copy of the setting, which create/update/delete edit
};

// Touches nothing: the item always exists, so a normal run reports no change and a purged one
// `purged: false → true` every time. The scheduler's tests drive failures with `fail`.
class NullHandler final : public CrudHandler {
 public:
  explicit NullHandler(const HandlerServices& services) : CrudHandler("null") { (void)services; }

 private:
  void readResource(Context& ctx, const ResourceIntent& desired, nlohmann::json& current) override {
    (void)ctx, (void)current;
    if (desired.flag("fail")) throw HandlerError("Exception", "This resource is set to fail");
  }
  void createResource(Context& ctx, const ResourceIntent&) override { ctx.setCreated(); }
  void updateResource(Context& ctx, const nlohmann::json&, const ResourceIntent&) override { ctx.setUpdated(); }
  void deleteResource(Context& ctx, const ResourceIntent&) override { ctx.setPurged(); }
};

}  // namespace

}  // namespace detail

void registerStdHandlers(HandlerRegistry& registry) {
  detail::registerPosixHandlers(registry);
  detail::registerServiceHandler(registry);
  detail::registerPackageHandler(registry);
  registry.add(
      "std::AgentConfig", "agentrest", [](const HandlerServices& s) { return s.settings != nullptr; },
      detail::factory<detail::AgentConfigHandler>());
  registry.add(
      "std::testing::NullResource", "null", [](const HandlerServices&) { return true; },
      detail::factory<detail::NullHandler>());
}

}  // namespace inmanta::handlers
