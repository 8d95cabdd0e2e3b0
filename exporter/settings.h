// Settings for talking to a server (export spec 4): INI files (.inmanta and friends),
// INMANTA_<SECTION>_<OPTION> environment variables, and command-line flags. Decision X4: flags
// win over environment variables, which win over files.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace inmanta::exporter {

// `section.option` -> value; option names normalised with `_` -> `-`.
class Settings {
 public:
  // Reads one INI file into these settings (later reads win). Returns false when it does not
  // exist; throws std::runtime_error for a malformed file (file:line).
  bool readFile(const std::string& path);
  // The usual files, lowest priority first: /etc/inmanta/inmanta.cfg, <configDir>/*.cfg
  // (sorted), ~/.inmanta.cfg, ./.inmanta, ./.inmanta.cfg, then `extraFile` (-c) when given.
  void readStandardFiles(const std::string& configDir, const std::string& extraFile);
  // INMANTA_<SECTION>_<OPTION> for the options the exporter uses.
  void readEnvironment();
  void set(const std::string& section, const std::string& option, const std::string& value);
  std::optional<std::string> get(const std::string& section, const std::string& option) const;
  // A list option (the reference's is_list): its comma-separated items, trimmed, empty ones
  // left out; none when it is not set.
  std::vector<std::string> getList(const std::string& section, const std::string& option) const;

 private:
  std::map<std::string, std::string> values_;  // "section.option"
};

// Python configparser booleans; throws std::runtime_error `Not a boolean: X`.
bool parseBool(const std::string& value);

// Python uuid.UUID(text) normalised (lowercase, 8-4-4-4-12); throws std::runtime_error
// `badly formed hexadecimal UUID string`.
std::string normaliseUuid(const std::string& text);

// Where and how to reach the server.
struct ServerSettings {
  std::string environment;  // empty: not configured
  std::string host = "localhost";
  int port = 8888;
  bool ssl = false;
  std::string caFile;
  std::string token;
  int requestTimeout = 120;
};

ServerSettings serverSettings(const Settings& settings);

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
