// What every service and route shares: the store, the options, auth, and the services that other
// areas call (the settings, read by the versions' auto_deploy). A route file gets it in its
// add…Routes(Router&, Services&) and creates its own area's service from it when no other area
// needs that service; one that others need becomes a member here.
#pragma once

#include <atomic>
#include <chrono>
#include <string>
#include <vector>

#include "embedded/server/auth.h"
#include "embedded/server/options.h"
#include "embedded/server/services/agents.h"
#include "embedded/server/services/environments.h"
#include "embedded/server/services/projects.h"
#include "embedded/server/services/resources.h"
#include "embedded/server/services/settings.h"
#include "embedded/store/store.h"

namespace inmanta::server {

struct Services {
  Services(store::Store& theStore, const ServerOptions& theOptions, const Auth& theAuth, std::string ourVersion)
      : store(theStore),
        options(theOptions),
        auth(theAuth),
        version(std::move(ourVersion)),
        projects(theStore),
        settings(theStore),
        environments(theStore, settings) {}

  store::Store& store;
  const ServerOptions& options;
  const Auth& auth;
  std::string version;  // ours, for serverstatus
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
  // For serverstatus: the addresses listened on (set once the HTTP server is up) and the
  // requests being handled right now (the dispatcher counts them).
  std::vector<std::string> sockets;
  std::atomic<int> inflight{0};

  ProjectService projects;
  SettingsService settings;
  EnvironmentService environments;
  // Shared by the version routes (which invalidate its cache) and the resource routes.
  ResourceService resources{store};

  // How the server tells the schedulers (issue 31) about releases, deploys and dry-runs; until one
  // is installed with setDeployTrigger, the default that records nothing.
  DeployTrigger& deployTrigger() { return *trigger_; }
  void setDeployTrigger(DeployTrigger& trigger) { trigger_ = &trigger; }

 private:
  DeployTrigger noScheduler_;
  DeployTrigger* trigger_ = &noScheduler_;
};

}  // namespace inmanta::server
