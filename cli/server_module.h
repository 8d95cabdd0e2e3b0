// Runs a command of libinmanta_server.so (embedded/server/launch.h): `inmanta server` and
// `inmanta token` load it with dlopen() only when they run.
#pragma once

#include "cli/command.h"
#include "embedded/server/launch.h"

namespace inmanta::cli {

// Fills the global flags into `launch`, loads the module and runs its entry point; returns the
// exit status (`failure` when the module cannot be loaded, the reason on stderr).
int runServerModule(server::ServerLaunch& launch, const GlobalOptions& globals, int failure);

}  // namespace inmanta::cli
