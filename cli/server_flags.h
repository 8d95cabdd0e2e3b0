// The server flags of `compile` and `export` (export spec 5.2, 5.3): they win over .inmanta and
// INMANTA_* (decision X4).
#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "exporter/settings.h"

namespace inmanta::cli {

struct ServerFlags {
  std::string environment, serverAddress, token, caFile;
  int serverPort = 0;
  bool ssl = false, noSsl = false;

  // Adds -e, --server_address, --server_port, --token, --ssl, --no-ssl and --ssl-ca-cert, and the
  // footer that says where settings come from.
  void add(CLI::App* cmd);
  // The flags given, over `s`, with the global -c and --config-dir.
  void applyTo(exporter::SettingsFlags& s, const std::string& configFile, const std::string& configDir) const;
};

}  // namespace inmanta::cli
