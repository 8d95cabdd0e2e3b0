// The server's options from the configuration (spec §8): `[server]`, `[config]`, `[database]`.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "embedded/store/store.h"
#include "util/config.h"

namespace inmanta::server {

struct ServerOptions {
  std::vector<std::string> bindAddresses{"127.0.0.1"};
  int bindPort = 8888;  // 0 = an ephemeral port (tests)
  bool auth = false;
  std::string sslCertFile, sslKeyFile;  // TLS when both are set
  std::size_t maxRequestBodySize = 100u * 1024 * 1024;
  std::string accessControlAllowOrigin;  // empty: no Access-Control-Allow-Origin header
  std::string authAdditionalHeader;      // another header that may carry the bearer token
  // `[server] deploy`: false = no scheduler — versions are stored and released, nothing is
  // deployed from this server (an API-only server, or one that inspects a deploy's store)
  bool deploy = true;
  long long purgeVersionsInterval = 3600;  // seconds between pruning runs; 0 = never
  long long purgeResourceActionLogsInterval = 3600;
  std::string stateDir = "/var/lib/inmanta";
  std::string logDir = "/var/log/inmanta";
  store::StoreConfig database;  // sqlite_path defaults to <state_dir>/server/inmanta.db
};

// Reads the options; throws std::runtime_error naming the option for a bad value.
ServerOptions readServerOptions(const util::Settings& settings);

}  // namespace inmanta::server
