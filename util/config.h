// The reference's configuration: INI files (/etc/inmanta/inmanta.cfg, --config-dir, ~/.inmanta.cfg,
// .inmanta, .inmanta.cfg, -c) and INMANTA_<SECTION>_<OPTION> environment variables. The exporter
// (its server settings) and the server (orchestrator spec §8) both read it; it depends on the
// standard library only, so the server never needs the compiler to read its options.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace inmanta::util {

// `section.option` -> value; option names normalised with `_` -> `-`. A value comes, by priority,
// from set() (command-line flags), then from the environment once readEnvironment() was called,
// then from the files.
class Settings {
 public:
  // Reads one INI file into these settings (later reads win). Returns false when it does not
  // exist; throws std::runtime_error for a malformed file (file:line).
  bool readFile(const std::string& path);
  // The usual files, lowest priority first: /etc/inmanta/inmanta.cfg, <configDir>/*.cfg
  // (sorted), ~/.inmanta.cfg, ./.inmanta, ./.inmanta.cfg, then `extraFile` (-c) when given.
  void readStandardFiles(const std::string& configDir, const std::string& extraFile);
  // From now on INMANTA_<SECTION>_<OPTION> (upper case, `-` and `.` as `_`) overrides the files
  // for every section and option. The variable is looked up when the option is read, because
  // section names may hold `_` themselves (auth_jwt_<name>), so a variable's name alone cannot
  // say where the section ends.
  void readEnvironment() { useEnvironment_ = true; }
  void set(const std::string& section, const std::string& option, const std::string& value);
  std::optional<std::string> get(const std::string& section, const std::string& option) const;
  // A list option (the reference's is_list): its comma-separated items, trimmed, empty ones
  // left out; none when it is not set.
  std::vector<std::string> getList(const std::string& section, const std::string& option) const;
  // Typed reads of an option, `fallback` when it is not set; a value that does not convert throws
  // std::runtime_error naming `section.option`.
  std::string getString(const std::string& section, const std::string& option, const std::string& fallback) const;
  long long getInt(const std::string& section, const std::string& option, long long fallback) const;
  bool getBool(const std::string& section, const std::string& option, bool fallback) const;
  // The names of the sections the files and set() gave, sorted (for [auth_jwt_*]).
  std::vector<std::string> sections() const;

 private:
  std::map<std::string, std::string> files_;      // "section.option", from the files
  std::map<std::string, std::string> overrides_;  // "section.option", from set()
  bool useEnvironment_ = false;
};

// Python configparser booleans; throws std::runtime_error `Not a boolean: X`.
bool parseBool(const std::string& value);

// Python uuid.UUID(text) normalised (lowercase, 8-4-4-4-12); throws std::runtime_error
// `badly formed hexadecimal UUID string`.
std::string normaliseUuid(const std::string& text);

// The name of the environment variable that overrides `section.option`.
std::string environmentVariableName(const std::string& section, const std::string& option);

}  // namespace inmanta::util
