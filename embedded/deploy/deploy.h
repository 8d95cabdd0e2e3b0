// The embedded `inmanta deploy` (orchestrator spec §9.2, decisions D3, D4, D8): in one process,
// the store under the project's data/deploy (SQLite, a lock file), the real REST server on
// 127.0.0.1, the schedulers with the std handlers, the export over HTTP, the release (or the
// dry-run), a full repair unless --incremental, the progress and the report.
#pragma once

#include "embedded/server/launch.h"

namespace inmanta::deploy {

// Runs the deploy the launch describes (launch.deploy set); returns the exit status of D3:
// 0 every resource deployed, 1 an error before deploying (store, lock, server, export),
// 3 the desired state was not reached (or the time-out / Ctrl-C came first).
int runEmbeddedDeploy(const server::ServerLaunch& launch);

}  // namespace inmanta::deploy
