// A handler whose code lives outside this library: the modules' Python `@provider` classes, which
// the binary's embedded CPython runs (compiler/module_code.h, PythonHandlers). The call crosses as
// JSON text; a call that does not return within the time-out fails the resource and is abandoned
// (Python code cannot be stopped from outside), so a hung handler never hangs the agent.
#pragma once

#include <chrono>
#include <functional>
#include <string>

#include "embedded/handlers/handler.h"

namespace inmanta::handlers {

using ForeignCall = std::function<std::string(const std::string& request)>;

class ForeignHandler : public Handler {
 public:
  ForeignHandler(ForeignCall call, std::chrono::milliseconds timeout) : call_(std::move(call)), timeout_(timeout) {}
  void execute(Context& ctx, const ResourceIntent& resource) override;
  bool canReload() const override { return canReload_; }
  void reload(Context& ctx, const ResourceIntent& resource) override;

 private:
  // Sends the request and records the answer in ctx.
  void run(Context& ctx, const ResourceIntent& resource, const char* action);

  ForeignCall call_;
  std::chrono::milliseconds timeout_;
  bool canReload_ = false;
};

// How many calls were abandoned on their time-out in this process. Such a call may still run
// (a Python thread cannot be stopped), so the process must not wait for it, nor finalise the
// interpreter under it, when it ends.
int abandonedForeignCalls();

// Registers a ForeignHandler for each type.
void registerForeignHandlers(HandlerRegistry& registry, const std::vector<std::string>& types, const ForeignCall& call,
                             std::chrono::milliseconds timeout);

}  // namespace inmanta::handlers
