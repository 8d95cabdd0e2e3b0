#include "exporter/settings.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace inmanta::exporter {

namespace fs = std::filesystem;

namespace {

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

std::string normaliseOption(std::string option) {
  std::transform(option.begin(), option.end(), option.begin(),
                 [](char c) { return c == '_' ? '-' : static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c); });
  return option;
}

std::string envName(const std::string& section, const std::string& option) {
  std::string name = "INMANTA_" + section + "_" + option;
  for (char& c : name) {
    if (c == '-' || c == '.') c = '_';
    else if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  return name;
}

}  // namespace

bool Settings::readFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return false;
  std::string line, section, lastKey;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    std::string t = trim(line);
    if (t.empty() || t[0] == '#' || t[0] == ';') continue;
    if (!lastKey.empty() && (line[0] == ' ' || line[0] == '\t')) {  // continuation line
      values_[lastKey] += "\n" + t;
      continue;
    }
    if (t.front() == '[') {
      if (t.back() != ']') throw std::runtime_error(path + ":" + std::to_string(number) + ": malformed section header");
      section = trim(t.substr(1, t.size() - 2));
      lastKey.clear();
      continue;
    }
    size_t sep = t.find_first_of("=:");
    if (sep == std::string::npos || section.empty())
      throw std::runtime_error(path + ":" + std::to_string(number) + ": expected `option = value` inside a [section]");
    lastKey = section + "." + normaliseOption(trim(t.substr(0, sep)));
    values_[lastKey] = trim(t.substr(sep + 1));
  }
  return true;
}

void Settings::readStandardFiles(const std::string& configDir, const std::string& extraFile) {
  readFile("/etc/inmanta/inmanta.cfg");
  std::error_code ec;
  if (fs::is_directory(configDir, ec)) {
    std::vector<std::string> files;
    for (const auto& entry : fs::directory_iterator(configDir, ec))
      if (entry.path().extension() == ".cfg") files.push_back(entry.path().string());
    std::sort(files.begin(), files.end());
    for (const auto& f : files) readFile(f);
  }
  if (const char* home = std::getenv("HOME")) readFile(std::string(home) + "/.inmanta.cfg");
  readFile(".inmanta");
  readFile(".inmanta.cfg");
  if (!extraFile.empty() && !readFile(extraFile))
    throw std::runtime_error("the configuration file " + extraFile + " does not exist");
}

void Settings::readEnvironment() {
  static const std::pair<const char*, const char*> kOptions[] = {
      {"config", "environment"},
      {"config", "export"},
      {"compiler_rest_transport", "host"},
      {"compiler_rest_transport", "port"},
      {"compiler_rest_transport", "ssl"},
      {"compiler_rest_transport", "ssl_ca_cert_file"},
      {"compiler_rest_transport", "token"},
      {"compiler_rest_transport", "request_timeout"},
  };
  for (const auto& [section, option] : kOptions)
    if (const char* v = std::getenv(envName(section, option).c_str())) set(section, option, v);
}

void Settings::set(const std::string& section, const std::string& option, const std::string& value) {
  values_[section + "." + normaliseOption(option)] = value;
}

std::optional<std::string> Settings::get(const std::string& section, const std::string& option) const {
  auto it = values_.find(section + "." + normaliseOption(option));
  if (it == values_.end()) return std::nullopt;
  return it->second;
}

std::vector<std::string> Settings::getList(const std::string& section, const std::string& option) const {
  std::vector<std::string> items;
  std::optional<std::string> text = get(section, option);
  if (!text) return items;
  for (size_t start = 0;;) {
    size_t comma = text->find(',', start);
    std::string item = trim(text->substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (!item.empty()) items.push_back(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return items;
}

bool parseBool(const std::string& value) {
  std::string lower = normaliseOption(value);
  if (lower == "true" || lower == "yes" || lower == "on" || lower == "1") return true;
  if (lower == "false" || lower == "no" || lower == "off" || lower == "0") return false;
  throw std::runtime_error("Not a boolean: " + value);
}

std::string normaliseUuid(const std::string& text) {
  std::string hex = trim(text);
  for (const char* prefix : {"urn:", "uuid:"})
    if (hex.rfind(prefix, 0) == 0) hex = hex.substr(std::string(prefix).size());
  hex.erase(std::remove_if(hex.begin(), hex.end(), [](char c) { return c == '{' || c == '}' || c == '-'; }), hex.end());
  if (hex.size() != 32 ||
      !std::all_of(hex.begin(), hex.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); }))
    throw std::runtime_error("badly formed hexadecimal UUID string");
  std::transform(hex.begin(), hex.end(), hex.begin(), [](char c) { return static_cast<char>(std::tolower(c)); });
  return hex.substr(0, 8) + "-" + hex.substr(8, 4) + "-" + hex.substr(12, 4) + "-" + hex.substr(16, 4) + "-" +
         hex.substr(20);
}

ServerSettings serverSettings(const Settings& settings) {
  ServerSettings s;
  const std::string t = "compiler_rest_transport";
  if (auto v = settings.get("config", "environment"); v && !v->empty()) s.environment = *v;
  if (auto v = settings.get(t, "host"); v && !v->empty()) s.host = *v;
  auto integer = [](const std::string& option, const std::string& v) {
    try {
      size_t used = 0;
      int n = std::stoi(v, &used);
      if (used == v.size()) return n;
    } catch (const std::exception&) {
    }
    throw std::runtime_error("compiler_rest_transport." + option + ": '" + v + "' is not an integer");
  };
  if (auto v = settings.get(t, "port")) s.port = integer("port", *v);
  if (auto v = settings.get(t, "ssl")) s.ssl = parseBool(*v);
  if (auto v = settings.get(t, "ssl_ca_cert_file")) s.caFile = *v;
  if (auto v = settings.get(t, "token")) s.token = *v;
  if (auto v = settings.get(t, "request_timeout")) s.requestTimeout = integer("request_timeout", *v);
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
