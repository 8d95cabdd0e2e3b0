// Settings for talking to a server (export spec 4): INI files (.inmanta and friends),
// INMANTA_<SECTION>_<OPTION> environment variables, and command-line flags. Decision X4: flags
// win over environment variables, which win over files.
#pragma once

#include <optional>
#include <string>

#include "util/config.h"

namespace inmanta::exporter {

// The INI reader and its helpers live in util/config.h (the server reads the same files).
using util::normaliseUuid;
using util::parseBool;
using util::Settings;

// Where and how to reach the server.
struct ServerSettings {
  std::string environment;  // empty: not configured
  std::string host = "localhost";
  int port = 8888;
  bool ssl = false;
  std::string caFile;
  std::string token;
  int requestTimeout = 120;
  // gzip request bodies of 1 KiB or more and accept gzipped answers, as the reference's client
  // does; off for the embedded server of `inmanta deploy`, where compressing a version of 10,000
  // resources on one side of a loopback connection and inflating it on the other cost more than
  // sending it, and the server deflated every tiny answer to 10,000 file uploads
  bool compress = true;
};

// From [config] environment and the transport section: `compiler_rest_transport` (the
// compiler and exporter) or `cmdline_rest_transport` (inmanta-cli).
ServerSettings serverSettings(const Settings& settings, const std::string& transport = "compiler_rest_transport");

// What the command line says about the settings: -c, --config-dir and the server flags, which
// win over the files and INMANTA_* variables (decision X4).
struct SettingsFlags {
  std::string configFile;  // -c
  std::string configDir = "/etc/inmanta/inmanta.d";
  std::optional<std::string> environment, host, token, caFile;
  std::optional<int> port;
  std::optional<bool> ssl;
};

// The settings of one run: the standard files, then INMANTA_* variables, then the flags.
// Throws std::runtime_error for a malformed file.
Settings loadSettings(const SettingsFlags& flags);

}  // namespace inmanta::exporter
