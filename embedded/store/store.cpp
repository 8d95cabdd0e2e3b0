#include "embedded/store/store.h"

#include "embedded/store/postgres_store.h"
#include "embedded/store/sqlite_store.h"

namespace inmanta::store {

std::unique_ptr<Store> Store::open(const StoreConfig& config) {
  switch (config.engine) {
    case Engine::sqlite: return openSqliteStore(config);
    case Engine::postgresql: return openPostgresStore(config);
  }
  throw StoreError("Unknown store engine");
}

namespace {

// the fields `result` sets, but its messages
void applyActionFields(ResourceAction& action, const ActionResult& result) {
  if (result.finished) action.finished = result.finished;
  if (result.status) action.status = result.status;
  if (result.change) action.change = result.change;
  if (result.send_event) action.send_event = result.send_event;
  if (!action.messages.is_array()) action.messages = nlohmann::json::array();
}

}  // namespace

void applyActionResult(ResourceAction& action, const ActionResult& result) {
  applyActionFields(action, result);
  if (result.changes) action.changes = *result.changes;
  if (result.messages.is_array())
    for (const auto& line : result.messages) action.messages.push_back(line);
}

void applyActionResult(ResourceAction& action, ActionResult&& result) {
  applyActionFields(action, result);
  if (result.changes) action.changes = std::move(*result.changes);
  if (result.messages.is_array())
    for (auto& line : result.messages) action.messages.push_back(std::move(line));
}

std::string displayedStatus(const ResourceState* state) {
  if (!state) return "available";
  if (state->orphaned_after) return "orphaned";
  if (state->is_deploying) return "deploying";
  if (state->is_undefined) return "undefined";
  if (state->blocked == "BLOCKED") return "skipped_for_undefined";
  // a new intent not deployed yet (or never deployed) shows as available whatever the last run said
  if (!state->last_deployed_attribute_hash ||
      *state->last_deployed_attribute_hash != state->current_intent_attribute_hash)
    return "available";
  return state->last_non_deploying_status;
}

}  // namespace inmanta::store
