// Inside the handlers library: the registrations of the std handlers, one per source file, which
// registerStdHandlers (std_handlers.cpp) calls, and what several of them share.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "embedded/handlers/handler.h"
#include "embedded/handlers/host.h"

namespace inmanta::handlers::detail {

void registerPosixHandlers(HandlerRegistry& registry);   // File, Directory, Symlink
void registerServiceHandler(HandlerRegistry& registry);  // Service (systemd)
void registerPackageHandler(HandlerRegistry& registry);  // Package (apt, ours: D6)

// The factory of a handler class constructed from the services.
template <typename H>
HandlerRegistry::Factory factory() {
  return [](const HandlerServices& services) { return std::make_unique<H>(services); };
}

// Runs a tool of a handler. A tool that could not be started is an error, as the reference's
// subprocess call raised; its exit status is the caller's to judge.
RunResult runTool(Host& host, const std::string& tool, const std::vector<std::string>& args);

}  // namespace inmanta::handlers::detail
