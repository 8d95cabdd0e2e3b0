#include "exporter/settings.h"

#include <stdexcept>

namespace inmanta::exporter {

ServerSettings serverSettings(const Settings& settings, const std::string& transport) {
  const std::string& t = transport;
  ServerSettings s;
  if (auto v = settings.get("config", "environment"); v && !v->empty()) s.environment = *v;
  if (auto v = settings.get(t, "host"); v && !v->empty()) s.host = *v;
  s.port = static_cast<int>(settings.getInt(t, "port", s.port));
  if (auto v = settings.get(t, "ssl")) s.ssl = parseBool(*v);
  if (auto v = settings.get(t, "ssl_ca_cert_file")) s.caFile = *v;
  if (auto v = settings.get(t, "token")) s.token = *v;
  s.requestTimeout = static_cast<int>(settings.getInt(t, "request_timeout", s.requestTimeout));
  return s;
}

Settings loadSettings(const SettingsFlags& flags) {
  Settings settings;
  settings.readStandardFiles(flags.configDir, flags.configFile);
  settings.readEnvironment();
  const std::string t = "compiler_rest_transport";
  if (flags.environment) settings.set("config", "environment", *flags.environment);
  if (flags.host) settings.set(t, "host", *flags.host);
  if (flags.port) settings.set(t, "port", std::to_string(*flags.port));
  if (flags.ssl) settings.set(t, "ssl", *flags.ssl ? "true" : "false");
  if (flags.caFile) settings.set(t, "ssl_ca_cert_file", *flags.caFile);
  if (flags.token) settings.set(t, "token", *flags.token);
  return settings;
}

}  // namespace inmanta::exporter
