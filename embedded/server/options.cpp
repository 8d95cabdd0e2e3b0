#include "embedded/server/options.h"

#include <stdexcept>

namespace inmanta::server {

namespace {

int portNumber(const util::Settings& settings, const std::string& section, const std::string& option, int fallback) {
  long long port = settings.getInt(section, option, fallback);
  if (port < 0 || port > 65535)
    throw std::runtime_error(section + "." + option + ": " + std::to_string(port) + " is not a port number");
  return static_cast<int>(port);
}

}  // namespace

ServerOptions readServerOptions(const util::Settings& settings) {
  ServerOptions o;
  const std::string s = "server";
  if (std::vector<std::string> addresses = settings.getList(s, "bind-address"); !addresses.empty())
    o.bindAddresses = addresses;
  o.bindPort = portNumber(settings, s, "bind-port", o.bindPort);
  o.auth = settings.getBool(s, "auth", o.auth);
  o.sslCertFile = settings.getString(s, "ssl_cert_file", "");
  o.sslKeyFile = settings.getString(s, "ssl_key_file", "");
  long long maxBody = settings.getInt(s, "max-request-body-size", static_cast<long long>(o.maxRequestBodySize));
  if (maxBody <= 0) throw std::runtime_error("server.max-request-body-size: must be positive");
  o.maxRequestBodySize = static_cast<std::size_t>(maxBody);
  o.accessControlAllowOrigin = settings.getString(s, "access_control_allow_origin", "");
  o.authAdditionalHeader = settings.getString(s, "auth_additional_header", "");
  o.deploy = settings.getBool(s, "deploy", o.deploy);
  o.purgeVersionsInterval = settings.getInt(s, "purge-versions-interval", o.purgeVersionsInterval);
  o.purgeResourceActionLogsInterval =
      settings.getInt(s, "purge-resource-action-logs-interval", o.purgeResourceActionLogsInterval);

  o.stateDir = settings.getString("config", "state_dir", o.stateDir);
  o.logDir = settings.getString("config", "log_dir", o.logDir);

  const std::string d = "database";
  std::string type = settings.getString(d, "type", "sqlite");
  if (type == "sqlite") o.database.engine = store::Engine::sqlite;
  else if (type == "postgresql" || type == "postgres") o.database.engine = store::Engine::postgresql;
  else throw std::runtime_error("database.type: '" + type + "' is not sqlite or postgresql");
  o.database.sqlite_path = o.stateDir + "/server/inmanta.db";
  o.database.host = settings.getString(d, "host", o.database.host);
  o.database.port = portNumber(settings, d, "port", o.database.port);
  o.database.name = settings.getString(d, "name", o.database.name);
  o.database.username = settings.getString(d, "username", o.database.username);
  o.database.password = settings.getString(d, "password", o.database.password);
  o.database.pool_min = static_cast<int>(settings.getInt(d, "connection_pool_min_size", o.database.pool_min));
  o.database.pool_max = static_cast<int>(settings.getInt(d, "connection_pool_max_size", o.database.pool_max));
  return o;
}

}  // namespace inmanta::server
