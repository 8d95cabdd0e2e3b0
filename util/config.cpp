#include "util/config.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <stdexcept>

namespace inmanta::util {

namespace fs = std::filesystem;

namespace {

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

std::string lowerCase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); });
  return text;
}

std::string normaliseOption(std::string option) {
  option = lowerCase(std::move(option));
  std::replace(option.begin(), option.end(), '_', '-');
  return option;
}

std::string key(const std::string& section, const std::string& option) {
  return section + "." + normaliseOption(option);
}

}  // namespace

std::string environmentVariableName(const std::string& section, const std::string& option) {
  std::string name = "INMANTA_" + section + "_" + option;
  for (char& c : name) {
    if (c == '-' || c == '.') c = '_';
    else c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  return name;
}

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
      files_[lastKey] += "\n" + t;
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
    lastKey = key(section, trim(t.substr(0, sep)));
    files_[lastKey] = trim(t.substr(sep + 1));
  }
  if (in.bad()) throw std::runtime_error(path + ": cannot be read");
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

void Settings::set(const std::string& section, const std::string& option, const std::string& value) {
  overrides_[key(section, option)] = value;
}

std::optional<std::string> Settings::get(const std::string& section, const std::string& option) const {
  const std::string k = key(section, option);
  if (auto it = overrides_.find(k); it != overrides_.end()) return it->second;
  if (useEnvironment_)
    if (const char* v = std::getenv(environmentVariableName(section, option).c_str())) return std::string(v);
  if (auto it = files_.find(k); it != files_.end()) return it->second;
  return std::nullopt;
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

std::string Settings::getString(const std::string& section, const std::string& option,
                                const std::string& fallback) const {
  std::optional<std::string> v = get(section, option);
  return v ? *v : fallback;
}

long long Settings::getInt(const std::string& section, const std::string& option, long long fallback) const {
  std::optional<std::string> v = get(section, option);
  if (!v) return fallback;
  std::string text = trim(*v);
  try {
    size_t used = 0;
    long long n = std::stoll(text, &used);
    if (used == text.size()) return n;
  } catch (const std::exception&) {
  }
  throw std::runtime_error(section + "." + option + ": '" + *v + "' is not an integer");
}

bool Settings::getBool(const std::string& section, const std::string& option, bool fallback) const {
  std::optional<std::string> v = get(section, option);
  if (!v) return fallback;
  try {
    return parseBool(*v);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(section + "." + option + ": " + e.what());
  }
}

std::vector<std::string> Settings::sections() const {
  std::set<std::string> names;
  for (const auto* map : {&files_, &overrides_})
    for (const auto& [k, value] : *map) names.insert(k.substr(0, k.rfind('.')));
  return {names.begin(), names.end()};
}

bool parseBool(const std::string& value) {
  std::string lower = lowerCase(trim(value));
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
  hex = lowerCase(hex);
  return hex.substr(0, 8) + "-" + hex.substr(8, 4) + "-" + hex.substr(12, 4) + "-" + hex.substr(16, 4) + "-" +
         hex.substr(20);
}

}  // namespace inmanta::util
