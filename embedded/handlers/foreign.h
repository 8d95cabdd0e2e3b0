// A handler whose code lives outside this library: the modules' Python `@provider` classes, which
// the binary's embedded CPython runs (compiler/module_code.h, PythonHandlers) or an executor process
// of the server (agent/python_executors.h). The call crosses as JSON text; a call that does not
// return within the time-out fails the resource and is abandoned (Python code cannot be stopped
// from outside), so a hung handler never hangs the agent.
//
// Files of the file store cross with the call, as the call is one JSON text each way: the request
// carries (base64, "files") every file an attribute of the resource names by its hash (a 40-digit
// SHA-1, as std::File's `hash`), which the handler's get_file/stat_file read; the answer's
// "uploads" (hash → base64) are the files its upload_file stored.
#pragma once

#include <chrono>
#include <functional>
#include <string>

#include "embedded/handlers/handler.h"

namespace inmanta::handlers {

using ForeignCall = std::function<std::string(const std::string& request)>;

class ForeignHandler : public Handler {
 public:
  // `files`: the file store (may be null: no files cross).
  ForeignHandler(ForeignCall call, std::chrono::milliseconds timeout, FileStore* files = nullptr)
      : call_(std::move(call)), timeout_(timeout), files_(files) {}
  void execute(Context& ctx, const ResourceIntent& resource) override;
  bool canReload() const override { return canReload_; }
  void reload(Context& ctx, const ResourceIntent& resource) override;

 private:
  // Sends the request and records the answer in ctx.
  void run(Context& ctx, const ResourceIntent& resource, const char* action);

  ForeignCall call_;
  std::chrono::milliseconds timeout_;
  FileStore* files_;
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
