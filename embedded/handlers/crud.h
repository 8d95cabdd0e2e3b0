// The two execute flows of the reference's handlers (orchestrator spec §7.1), as base classes:
// CrudHandler (read → diff → create/update/delete, for purgeable types) and PlainHandler
// (check → diff → do_changes). A std handler only writes its steps; the flows own the order of
// the steps, the DEBUG lines, report_only, dry-runs and the mapping of exceptions onto results.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "embedded/handlers/handler.h"

namespace inmanta::handlers {

// What both flows share: pre/post around the body, and every exception of a step turned into a
// result and a log line.
class HandlerBase : public Handler {
 public:
  void execute(Context& ctx, const ResourceIntent& resource) final;
  // An exception of doReload fails the run, as an exception of the reference's do_reload fails
  // the deploy it belongs to.
  void reload(Context& ctx, const ResourceIntent& resource) final;

 protected:
  explicit HandlerBase(const char* name) : name_(name) {}

  virtual void pre(Context& ctx, const ResourceIntent& resource) { (void)ctx, (void)resource; }
  virtual void post(Context& ctx, const ResourceIntent& resource) { (void)ctx, (void)resource; }
  virtual void doReload(Context& ctx, const ResourceIntent& resource) { (void)ctx, (void)resource; }
  // The flow between pre and post.
  virtual void run(Context& ctx, const ResourceIntent& resource) = 0;

  // Records `changes` and decides what happens to them: a dry-run ends `dry`, a report_only
  // resource ends `non_compliant` (with changes) or `deployed` (without); in both cases nothing
  // may change and the result is false. True: the caller applies the changes and ends `deployed`.
  static bool recordAndDecide(Context& ctx, const ResourceIntent& resource, const nlohmann::json& changes);

  // The generic diff (§7.1): a change for every observed field whose desired value is not null and
  // differs. `current` holds only the fields the handler observed; the reference's copy of the
  // desired resource holds the others, which never differ from themselves.
  static nlohmann::json genericDiff(const ResourceIntent& desired, const nlohmann::json& current);

  // The step running now, named as the reference's method for the traceback of a failure.
  void step(const char* name) { step_ = name; }

 private:
  void fail(Context& ctx, const ResourceIntent& resource, const char* what);

  const char* name_;
  const char* step_ = "execute";
};

class CrudHandler : public HandlerBase {
 protected:
  using HandlerBase::HandlerBase;

  // Sets in `current` the fields it can observe (it starts as {"purged": false}); when the item
  // does not exist, sets "purged" to true and returns, or throws ResourcePurged as the reference's
  // handlers do (the same outcome: no calculateDiff; the std handlers return, as the unwinding
  // took a twentieth of the run of a new file).
  virtual void readResource(Context& ctx, const ResourceIntent& desired, nlohmann::json& current) = 0;
  virtual nlohmann::json calculateDiff(Context& ctx, const ResourceIntent& desired, const nlohmann::json& current);
  virtual void createResource(Context& ctx, const ResourceIntent& desired) = 0;
  virtual void updateResource(Context& ctx, const nlohmann::json& changes, const ResourceIntent& desired) = 0;
  virtual void deleteResource(Context& ctx, const ResourceIntent& desired) = 0;

 private:
  void run(Context& ctx, const ResourceIntent& resource) final;
};

class PlainHandler : public HandlerBase {
 protected:
  using HandlerBase::HandlerBase;

  // The observed values of the fields it can see.
  virtual nlohmann::json checkResource(Context& ctx, const ResourceIntent& desired) = 0;
  // name → {"current", "desired"}; by default checkResource and the generic diff.
  virtual nlohmann::json listChanges(Context& ctx, const ResourceIntent& desired);
  // Called with every run's changes, also none; it sets the change kind itself.
  virtual void doChanges(Context& ctx, const ResourceIntent& desired, const nlohmann::json& changes) = 0;

 private:
  void run(Context& ctx, const ResourceIntent& resource) final;
};

}  // namespace inmanta::handlers
