#include "cli/server_flags.h"

namespace inmanta::cli {

namespace {

const char* const kSettingsFooter =
    "Settings come from /etc/inmanta/inmanta.cfg, /etc/inmanta/inmanta.d/*.cfg, ~/.inmanta.cfg, ./.inmanta, "
    "./.inmanta.cfg and -c FILE (later wins), then INMANTA_<SECTION>_<OPTION> environment variables, then these "
    "flags. Unlike the reference, flags win over INMANTA_* variables.";

}  // namespace

void ServerFlags::add(CLI::App* cmd) {
  cmd->add_option("-e,--environment", environment, "The environment id (default: config.environment)");
  cmd->add_option("--server_address", serverAddress,
                  "The server's host (default: compiler_rest_transport.host, localhost)");
  cmd->add_option("--server_port", serverPort, "The server's port (default: compiler_rest_transport.port, 8888)")
      ->check(CLI::Range(1, 65535));
  cmd->add_option("--token", token, "The bearer token for the server (default: compiler_rest_transport.token)");
  cmd->add_flag("--ssl", ssl, "Talk https to the server");
  cmd->add_flag("--no-ssl", noSsl, "Talk plain http to the server");
  cmd->add_option("--ssl-ca-cert", caFile, "The CA bundle to check the server's certificate with")
      ->check(CLI::ExistingFile);
  cmd->footer(kSettingsFooter);
}

void ServerFlags::applyTo(exporter::SettingsFlags& s, const std::string& configFile,
                          const std::string& configDir) const {
  if (!environment.empty()) s.environment = environment;
  if (!serverAddress.empty()) s.host = serverAddress;
  if (serverPort) s.port = serverPort;
  if (!token.empty()) s.token = token;
  if (!caFile.empty()) s.caFile = caFile;
  if (ssl) s.ssl = true;
  if (noSsl) s.ssl = false;
  s.configFile = configFile;
  s.configDir = configDir;
}

}  // namespace inmanta::cli
