// libinmanta_server.so's entry point (launch.h): `inmanta server` and `inmanta token`.
#include <signal.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>

#include "embedded/deploy/deploy.h"
#include "embedded/server/auth.h"
#include "embedded/server/dispatcher.h"
#include "embedded/server/http_server.h"
#include "embedded/server/launch.h"
#include "embedded/server/logging.h"
#include "embedded/server/options.h"
#include "embedded/server/routes/routes.h"
#include "embedded/server/services/maintenance.h"
#include "embedded/server/services/schedulers.h"
#include "embedded/store/errors.h"
#include "embedded/store/ids.h"
#include "util/config.h"

namespace inmanta::server {

namespace {

// Exit status of a server that could not start (the reference's "start failed").
constexpr int kStartFailed = 4;
// Exit status of a server whose handler calls did not end within the shutdown grace period.
constexpr int kHardShutdown = 3;

void setUpLogging(const ServerLaunch& launch) {
  installLogger(launch.verbosity > 0 ? spdlog::level::debug : spdlog::level::info, launch.logFile,
                spdlog::level::from_str(launch.logFileLevel), spdlog::level::info);
}

util::Settings readSettings(const ServerLaunch& launch) {
  util::Settings settings;
  settings.readStandardFiles(launch.configDir, launch.configFile);
  settings.readEnvironment();
  return settings;
}

int mintToken(const ServerLaunch& launch) {
  try {
    util::Settings settings = readSettings(launch);
    Auth auth(settings);
    unsigned types = 0;
    for (const std::string& name : launch.clientTypes) {
      unsigned type = clientTypeFromName(name);
      if (type == 0) throw std::runtime_error("unknown client type '" + name + "' (api, agent or compiler)");
      types |= type;
    }
    std::optional<std::string> environment;
    if (!launch.environment.empty()) {
      environment = store::canonicalUuid(launch.environment);
      if (!environment) throw std::runtime_error("the environment '" + launch.environment + "' is not a UUID");
    }
    if (types == 0) types = kApi;
    // as the reference's encode_token: only client types the signing section allows
    if (const JwtSection* signer = auth.signer(); signer != nullptr && (types & ~signer->clientTypes) != 0)
      throw std::runtime_error("the signing section [" + signer->name + "] does not allow the client types " +
                               clientTypeNames(types & ~signer->clientTypes) +
                               " (its client_types: " + clientTypeNames(signer->clientTypes) + ")");
    std::optional<long long> expire;
    if (launch.tokenExpire > 0) expire = launch.tokenExpire;
    std::cout << launch.tokenPrefix << auth.mint(types, environment, false, expire) << "\n";
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "Error: " << e.what() << "\n";
    return 1;
  }
}

// Waits for SIGTERM or SIGINT (blocked in every thread), running the clean-up jobs when due.
void runUntilSignal(Services& services, const sigset_t& stopSignals) {
  using Clock = std::chrono::steady_clock;
  const ServerOptions& o = services.options;
  auto nextVersions = Clock::now() + std::chrono::seconds(std::max<long long>(o.purgeVersionsInterval, 1));
  auto nextActions = Clock::now() + std::chrono::seconds(std::max<long long>(o.purgeResourceActionLogsInterval, 1));
  for (;;) {
    auto now = Clock::now();
    auto due = Clock::now() + std::chrono::hours(1);
    if (o.purgeVersionsInterval > 0) due = std::min(due, nextVersions);
    if (o.purgeResourceActionLogsInterval > 0) due = std::min(due, nextActions);
    auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(due - now).count();
    timespec timeout{static_cast<time_t>(std::max<long long>(wait, 0) / 1000),
                     static_cast<long>(std::max<long long>(wait, 0) % 1000) * 1000000L};
    int signal = sigtimedwait(&stopSignals, nullptr, &timeout);
    if (signal == SIGTERM || signal == SIGINT) {
      spdlog::info("Received signal {}: stopping", signal);
      return;
    }
    now = Clock::now();
    try {
      if (o.purgeVersionsInterval > 0 && now >= nextVersions) {
        spdlog::debug("Pruned {} versions", pruneVersions(services));
        nextVersions = now + std::chrono::seconds(o.purgeVersionsInterval);
      }
      if (o.purgeResourceActionLogsInterval > 0 && now >= nextActions) {
        spdlog::debug("Pruned {} resource actions", pruneResourceActions(services));
        nextActions = now + std::chrono::seconds(o.purgeResourceActionLogsInterval);
      }
    } catch (const std::exception& e) {
      spdlog::error("Clean-up job failed: {}", e.what());
    }
  }
}

int serve(const ServerLaunch& launch) {
  // Signals stay blocked in every thread the server starts; the main thread waits for them.
  sigset_t stopSignals;
  sigemptyset(&stopSignals);
  sigaddset(&stopSignals, SIGTERM);
  sigaddset(&stopSignals, SIGINT);
  sigset_t previous;
  pthread_sigmask(SIG_BLOCK, &stopSignals, &previous);

  std::unique_ptr<store::Store> store;
  std::optional<ServerOptions> options;
  std::optional<Auth> auth;
  try {
    util::Settings settings = readSettings(launch);
    options = readServerOptions(settings);
    auth.emplace(settings);
    if (options->auth && auth->sections().empty())
      throw std::runtime_error("server.auth is on but the configuration has no [auth_jwt_*] section");
    store = store::Store::open(options->database);
  } catch (const std::exception& e) {
    std::cerr << "Error: the server cannot start: " << e.what() << "\n";
    pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    return kStartFailed;
  }

  Services services(*store, *options, *auth, launch.version);
  // every environment that is not halted gets its scheduler, with retries and repairs (§8)
  SchedulersConfig schedulersConfig;
  // the modules' Python handlers run in executor processes of this binary (cli/executor.cpp)
  std::error_code ec;
  schedulersConfig.executors.executable = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  if (!ec) schedulersConfig.executors.codeRoot = options->stateDir + "/executors";
  Schedulers schedulers(services, schedulersConfig);
  if (options->deploy) services.setDeployTrigger(schedulers);
  try {
    if (options->deploy) schedulers.startAll();
  } catch (const std::exception& e) {
    std::cerr << "Error: the server cannot start: the schedulers cannot start: " << e.what() << "\n";
    pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    return kStartFailed;
  }
  Router router;
  addAllRoutes(router, services);
  Dispatcher dispatcher(router, services);
  HttpServer http(dispatcher, *options);
  try {
    http.start();
  } catch (const std::exception& e) {
    std::cerr << "Error: the server cannot start: " << e.what() << "\n";
    pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    return kStartFailed;
  }

  for (const std::string& address : options->bindAddresses)
    services.sockets.push_back(address + ":" + std::to_string(http.port()));
  runUntilSignal(services, stopSignals);
  // Late requests get 503 while the listeners close; then the store is closed.
  dispatcher.beginShutdown();
  http.stop();
  // running handler calls get a grace period; past it the process ends without them (exit 3)
  if (!schedulers.stopAll(std::chrono::seconds(10))) {
    spdlog::error("Handler calls were still running after the grace period: hard shutdown");
    std::cerr.flush();
    std::_Exit(kHardShutdown);
  }
  store.reset();
  spdlog::info("Server stopped");
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  return 0;
}

}  // namespace

}  // namespace inmanta::server

extern "C" __attribute__((visibility("default"))) int inmanta_server_main(int abi,
                                                                          const inmanta::server::ServerLaunch* launch) {
  using namespace inmanta::server;
  if (abi != kServerLaunchAbi || launch == nullptr) return -1;
  try {
    setUpLogging(*launch);
  } catch (const std::exception& e) {
    std::cerr << "Error: cannot set up logging: " << e.what() << "\n";
    return launch->command == ServerLaunch::Command::serve ? 4 : 1;
  }
  switch (launch->command) {
    case ServerLaunch::Command::mintToken: return mintToken(*launch);
    case ServerLaunch::Command::deploy: return inmanta::deploy::runEmbeddedDeploy(*launch);
    case ServerLaunch::Command::serve: break;
  }
  return serve(*launch);
}
