#include "embedded/server/services/maintenance.h"

#include <algorithm>
#include <chrono>

namespace inmanta::server {

std::int64_t pruneVersions(Services& services) {
  std::int64_t deleted = 0;
  for (const store::Environment& env : services.store.listEnvironments()) {
    nlohmann::json keep = services.settings.value(env.id, "available_versions_to_keep");
    if (!keep.is_number()) continue;
    deleted += services.store.pruneVersions(env.id, std::max<std::int64_t>(1, keep.get<std::int64_t>()));
  }
  return deleted;
}

std::int64_t pruneResourceActions(Services& services) {
  std::vector<store::Environment> environments = services.store.listEnvironments();
  if (environments.empty()) return 0;
  double days = 0;
  for (const store::Environment& env : environments) {
    nlohmann::json retention = services.settings.value(env.id, "resource_action_logs_retention");
    if (retention.is_number()) days = std::max(days, retention.get<double>());
  }
  auto age = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::duration<double>(days * 86400.0));
  return services.store.pruneResourceActions(store::now() - age);
}

}  // namespace inmanta::server
