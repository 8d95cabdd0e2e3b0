#include "embedded/handlers/crud.h"

namespace inmanta::handlers {

namespace {

// `FileNotFoundError('[Errno 2] No such file or directory: '/x'')`: the reference formats the
// exception's repr, which its recorded runs show with the message between plain quotes.
std::string exceptionText(const std::string& kind, const std::string& message) {
  return message.empty() ? kind + "()" : kind + "('" + message + "')";
}

struct CaughtError {
  std::string kind;
  std::string message;
};

// The kind and message of the exception being handled (call inside a catch block).
CaughtError caughtError() {
  try {
    throw;
  } catch (const HandlerError& e) {
    return {e.kind, e.what()};
  } catch (const SkipResourceForDependencies& e) {
    return {"SkipResourceForDependencies", e.what()};
  } catch (const SkipResource& e) {
    return {"SkipResource", e.what()};
  } catch (const ResourcePurged&) {
    return {"ResourcePurged", ""};
  } catch (const std::exception& e) {
    return {"Exception", e.what()};
  } catch (...) {
    return {"Exception", "an exception that is not a std::exception"};
  }
}

}  // namespace

void HandlerBase::execute(Context& ctx, const ResourceIntent& resource) {
  try {
    step("pre");
    pre(ctx, resource);
    run(ctx, resource);
  } catch (const SkipResourceForDependencies& e) {
    ctx.setStatus(ResultState::skipped_for_dependency);
    ctx.warning("Resource " + resource.resource_id + " was skipped: (" + pythonRepr(e.what()) + ",)");
  } catch (const SkipResource& e) {
    ctx.setStatus(ResultState::skipped);
    ctx.warning("Resource " + resource.resource_id + " was skipped: (" + pythonRepr(e.what()) + ",)");
  } catch (...) {
    ctx.setStatus(ResultState::failed);
    fail(ctx, resource, "during");
  }
  // post always runs; its failure is reported but does not change the result
  try {
    step("post");
    post(ctx, resource);
  } catch (...) {
    fail(ctx, resource, "after");
  }
}

void HandlerBase::reload(Context& ctx, const ResourceIntent& resource) {
  try {
    step("do_reload");
    doReload(ctx, resource);
  } catch (...) {
    ctx.setStatus(ResultState::failed);
    fail(ctx, resource, "during");
  }
}

void HandlerBase::fail(Context& ctx, const ResourceIntent& resource, const char* when) {
  CaughtError error = caughtError();
  std::string exception = exceptionText(error.kind, error.message);
  // Python's traceback names files and lines; ours names the handler and the step that failed.
  std::string traceback = std::string("Traceback (most recent call last):\n  Handler \"") + name_ + "\", in " + step_ +
                          "\n" + error.kind + (error.message.empty() ? "" : ": " + error.message) + "\n";
  ctx.error("An error occurred " + std::string(when) + " deployment of " + resource.resource_id +
                " (exception: " + exception + ")",
            {{"exception", exception}, {"resource_id", resource.resource_id}, {"traceback", std::move(traceback)}});
}

bool HandlerBase::recordAndDecide(Context& ctx, const ResourceIntent& resource, const nlohmann::json& changes) {
  ctx.addChanges(changes);
  // A dry-run of a report_only resource is still a dry-run: its result is `dry` like the others'.
  if (ctx.dryRun()) {
    ctx.setStatus(ResultState::dry);
    return false;
  }
  if (resource.flag("report_only")) {
    if (changes.empty()) {
      ctx.setStatus(ResultState::deployed);
    } else {
      ctx.setStatus(ResultState::non_compliant);
      ctx.info("Resource " + resource.resource_id + " was marked as non-compliant.");
    }
    return false;
  }
  return true;
}

nlohmann::json HandlerBase::genericDiff(const ResourceIntent& desired, const nlohmann::json& current) {
  nlohmann::json changes = nlohmann::json::object();
  for (const auto& [field, value] : current.items()) {
    auto wanted = desired.attributes.find(field);
    if (wanted == desired.attributes.end() || wanted->is_null() || *wanted == value) continue;
    changes[field] = {{"current", value}, {"desired", *wanted}};
  }
  return changes;
}

// --- CRUD ---------------------------------------------------------------------------------------

nlohmann::json CrudHandler::calculateDiff(Context& ctx, const ResourceIntent& desired, const nlohmann::json& current) {
  (void)ctx;
  return genericDiff(desired, current);
}

void CrudHandler::run(Context& ctx, const ResourceIntent& resource) {
  bool desiredPurged = resource.flag("purged");
  // `purged` is false unless read says otherwise, so that a read which cannot observe it still
  // reports a desired purge as a change
  nlohmann::json current = {{"purged", false}};
  nlohmann::json changes = nlohmann::json::object();
  bool gone = false;
  try {
    ctx.debug("Calling read_resource");
    step("read_resource");
    readResource(ctx, resource, current);
    const nlohmann::json& purged = current["purged"];
    gone = purged.is_boolean() && purged.get<bool>();
    if (!gone) {
      step("calculate_diff");
      changes = calculateDiff(ctx, resource, current);
    }
  } catch (const ResourcePurged&) {
    gone = true;
  }
  // already gone is compliant for a purged resource; otherwise the item must be created
  if (gone && !desiredPurged) changes["purged"] = {{"current", true}, {"desired", false}};

  if (!recordAndDecide(ctx, resource, changes)) return;

  if (changes.contains("purged")) {
    if (desiredPurged) {
      ctx.debug("Calling delete_resource");
      step("delete_resource");
      deleteResource(ctx, resource);
    } else {
      ctx.debug("Calling create_resource");
      step("create_resource");
      createResource(ctx, resource);
    }
  } else if (!desiredPurged && !changes.empty()) {
    ctx.debug("Calling update_resource", {{"changes", changes}});
    step("update_resource");
    updateResource(ctx, changes, resource);
  }
  ctx.setStatus(ResultState::deployed);
}

// --- plain --------------------------------------------------------------------------------------

nlohmann::json PlainHandler::listChanges(Context& ctx, const ResourceIntent& desired) {
  step("check_resource");
  return genericDiff(desired, checkResource(ctx, desired));
}

void PlainHandler::run(Context& ctx, const ResourceIntent& resource) {
  step("list_changes");
  nlohmann::json changes = listChanges(ctx, resource);
  if (!recordAndDecide(ctx, resource, changes)) return;
  step("do_changes");
  doChanges(ctx, resource, changes);
  ctx.setStatus(ResultState::deployed);
}

}  // namespace inmanta::handlers
