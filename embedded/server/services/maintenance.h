// The server's periodic clean-up (spec §8): versions beyond each environment's
// available_versions_to_keep, and resource actions beyond resource_action_logs_retention.
#pragma once

#include <cstdint>

#include "embedded/server/services/context.h"

namespace inmanta::server {

// Prunes every environment's versions; returns how many were deleted.
std::int64_t pruneVersions(Services& services);
// Deletes resource actions older than the retention; returns how many were deleted. The store
// prunes by age over all environments, so the longest retention of any environment applies to
// all (nothing is deleted that an environment wants kept).
std::int64_t pruneResourceActions(Services& services);

}  // namespace inmanta::server
