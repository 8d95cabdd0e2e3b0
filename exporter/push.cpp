#include "exporter/push.h"

#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

#include "compiler/driver.h"
#include "exporter/json.h"
#include "util/digest.h"

namespace inmanta::exporter {

namespace fs = std::filesystem;
using nlohmann::json;

using compiler::logLine;
using util::sha1Hex;

namespace {

std::string readAll(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// A YAML scalar typed like PyYAML does for the values project.yml carries.
json yamlToJson(const YAML::Node& node) {
  if (!node || node.IsNull()) return nullptr;
  if (node.IsSequence()) {
    json out = json::array();
    for (const auto& e : node) out.push_back(yamlToJson(e));
    return out;
  }
  if (node.IsMap()) {
    json out = json::object();
    for (const auto& kv : node) out[kv.first.as<std::string>()] = yamlToJson(kv.second);
    return out;
  }
  std::string text = node.Scalar();
  if (node.Tag() == "!") return text;  // quoted
  std::string lower = text;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  if (lower == "true" || lower == "yes" || lower == "on") return true;
  if (lower == "false" || lower == "no" || lower == "off") return false;
  if (lower == "null" || lower == "~") return nullptr;
  static const std::regex integer("[-+]?[0-9]+"), real("[-+]?([0-9]+\\.[0-9]*|\\.[0-9]+)([eE][-+]?[0-9]+)?");
  if (std::regex_match(text, integer)) return std::stoll(text);
  if (std::regex_match(text, real)) return std::stod(text);
  return text;
}

struct ProjectExtras {
  json environmentSettings = json::object();
  json pipConfig = {{"index-url", nullptr},
                    {"extra-index-url", json::array()},
                    {"pre", nullptr},
                    {"use-system-config", false}};
};

ProjectExtras readProjectExtras(const compiler::ProjectConfig& project) {
  ProjectExtras extras;
  YAML::Node root = YAML::LoadFile(project.configFile);
  if (YAML::Node settings = root["environment_settings"]; settings && settings.IsMap())
    extras.environmentSettings = yamlToJson(settings);
  if (YAML::Node pip = root["pip"]; pip && pip.IsMap()) {
    for (const auto& kv : pip) {
      std::string key = kv.first.as<std::string>();
      std::replace(key.begin(), key.end(), '_', '-');
      json value = yamlToJson(kv.second);
      if (key == "extra-index-url" && value.is_string()) value = json::array({value});
      extras.pipConfig[key] = value;
    }
  }
  return extras;
}

// The folder of a module: the first modulepath entry that has it, else the bundled std.
std::optional<fs::path> moduleDir(const compiler::ProjectConfig& project, const std::string& name) {
  std::error_code ec;
  for (const auto& dir : project.modulepath)
    if (fs::is_directory(fs::path(dir) / name, ec)) return fs::path(dir) / name;
  if (name == "std") return fs::path(compiler::bundledStdDir());
  return std::nullopt;
}

// The Python files of a module's plugins/ package, by the name the reference gives each
// (`inmanta_plugins.m` for plugins/__init__.py, `inmanta_plugins.m.sub.x` for plugins/sub/x.py),
// leaving out the model/, files/ and templates/ folders and __pycache__.
std::map<std::string, fs::path> pluginFiles(const fs::path& dir, const std::string& module) {
  std::map<std::string, fs::path> out;
  fs::path plugins = dir / "plugins";
  std::error_code ec;
  if (!fs::is_directory(plugins, ec)) return out;
  for (fs::recursive_directory_iterator it(plugins, ec), end; !ec && it != end; it.increment(ec)) {
    fs::path rel = it->path().lexically_relative(plugins);
    std::string first = rel.begin()->string();
    if (it->is_directory() &&
        (first == "model" || first == "files" || first == "templates" || first == "__pycache__")) {
      it.disable_recursion_pending();
      continue;
    }
    if (!it->is_regular_file() || it->path().extension() != ".py") continue;
    std::string name = "inmanta_plugins." + module;
    fs::path dotted = rel;
    dotted.replace_extension();
    for (const auto& part : dotted)
      if (part != "__init__") name += "." + part.string();
    out.emplace(name, it->path());
  }
  return out;
}

// A module's requirements.txt: its lines without comments and blanks, and without those on v2
// modules (`inmanta-module-*`, the reference's strict requirements).
std::vector<std::string> moduleRequirements(const fs::path& dir) {
  std::vector<std::string> out;
  std::ifstream req(dir / "requirements.txt");
  for (std::string line; std::getline(req, line);) {
    size_t hash = line.find('#');
    if (hash != std::string::npos) line.erase(hash);
    line.erase(0, line.find_first_not_of(" \t\r"));
    line.erase(line.find_last_not_of(" \t\r") + 1);
    if (!line.empty() && line.rfind("inmanta-module-", 0) != 0) out.push_back(line);
  }
  return out;
}

// module_version_info (3.4) and the handler code to upload: per module that registers a
// resource type, its plugins/ Python files (hash and name), its requirements, the agents of its
// exported resources and a version hash over the files' hashes and the requirements, as the
// reference computes it. A module without Python code (the std built into this binary when the
// project has no std module folder with its plugins) gets a version over its model files and no
// files: a reference agent cannot deploy its resources.
struct ModuleCodeInfo {
  json info = json::object();
  std::map<std::string, std::string> files;  // sha1 -> bytes
  std::vector<std::string> withoutCode;      // modules with exported resources but no Python code
};

ModuleCodeInfo moduleVersionInfo(const compiler::ProjectConfig& project, const ResourceSet& set) {
  std::map<std::string, std::set<std::string>> agents;  // module -> agents
  for (const std::string& type : set.registeredTypes) agents[type.substr(0, type.find("::"))];
  for (const Resource& r : set.resources) agents[r.type.substr(0, r.type.find("::"))].insert(r.agent);
  ModuleCodeInfo out;
  for (const auto& [module, moduleAgents] : agents) {
    std::vector<std::string> hashes, requirements;
    json files = json::array();
    std::optional<fs::path> dir = moduleDir(project, module);
    std::map<std::string, fs::path> code;
    std::error_code ec;
    // (the std bundled with this binary holds no handler code of std's: only our own Python)
    if (dir && !(module == "std" && fs::equivalent(*dir, compiler::bundledStdDir(), ec)))
      code = pluginFiles(*dir, module);
    if (dir && !code.empty()) {
      for (const auto& [name, path] : code) {
        std::string bytes = readAll(path);
        std::string hash = sha1Hex(bytes);
        hashes.push_back(hash);
        files.push_back({{"name", name}, {"hash_value", hash}, {"is_byte_code", false}});
        out.files.emplace(hash, std::move(bytes));
      }
      requirements = moduleRequirements(*dir);
    } else {
      if (!moduleAgents.empty()) out.withoutCode.push_back(module);
      if (dir) {
        if (fs::is_directory(*dir / "model", ec))
          for (const auto& entry : fs::recursive_directory_iterator(*dir / "model", ec))
            if (entry.is_regular_file() && entry.path().extension() == ".cf")
              hashes.push_back(sha1Hex(readAll(entry.path())));
        requirements = moduleRequirements(*dir);
      }
    }
    std::sort(hashes.begin(), hashes.end());
    std::vector<std::string> sortedReq = requirements;
    std::sort(sortedReq.begin(), sortedReq.end());
    std::string all;
    for (const auto& h : hashes) all += h;
    for (const auto& r : sortedReq) all += r;
    out.info[module] = {{"name", module},
                        {"version", sha1Hex(all)},
                        {"files_in_module", files},
                        {"requirements", requirements},
                        {"for_agents", std::vector<std::string>(moduleAgents.begin(), moduleAgents.end())}};
  }
  return out;
}

void log(std::ostream& err, int verbosity, const std::string& level, const std::string& message) {
  if (level == "INFO" && verbosity < 2) return;
  err << logLine("exporter", level, message) << "\n";
}

}  // namespace

std::string base64(const std::string& bytes) {
  static const char* table = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    unsigned n = (static_cast<unsigned char>(bytes[i]) << 16) | (static_cast<unsigned char>(bytes[i + 1]) << 8) |
                 static_cast<unsigned char>(bytes[i + 2]);
    out += table[n >> 18];
    out += table[(n >> 12) & 63];
    out += table[(n >> 6) & 63];
    out += table[n & 63];
  }
  if (i < bytes.size()) {
    unsigned n = static_cast<unsigned char>(bytes[i]) << 16;
    if (i + 1 < bytes.size()) n |= static_cast<unsigned char>(bytes[i + 1]) << 8;
    out += table[n >> 18];
    out += table[(n >> 12) & 63];
    out += i + 1 < bytes.size() ? table[(n >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

json exportMetadata(const std::string& metadata, const std::string& message) {
  json meta = json::object();
  std::string text = !metadata.empty() ? metadata : message;
  if (!text.empty()) {
    json parsed = json::parse(text, nullptr, false);
    if (!parsed.is_discarded() && parsed.is_object()) meta = parsed;
    else meta["message"] = text;
  }
  if (!meta.contains("message")) meta["message"] = "Manual compile on the CLI by user";
  if (const char* user = std::getenv("USERNAME"); user && !meta.contains("cli-user")) meta["cli-user"] = user;
  if (!meta.contains("hostname")) {
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    meta["hostname"] = host;
  }
  if (!meta.contains("type")) meta["type"] = "manual";
  return meta;
}

std::string projectConstraints(const std::vector<std::string>& constraints) {
  std::vector<std::string> lines;
  for (const std::string& r : constraints) {
    size_t end = 0;
    while (end < r.size() && (std::isalnum(static_cast<unsigned char>(r[end])) || r[end] == '_' || r[end] == '-'))
      ++end;
    std::string name = r.substr(0, end);
    std::replace(name.begin(), name.end(), '_', '-');
    std::string rest;
    for (char c : r.substr(end))
      if (c != ' ' && c != '\t') rest += c;
    lines.push_back("inmanta-module-" + name + rest);
  }
  std::sort(lines.begin(), lines.end());
  std::string out;
  for (const auto& l : lines) out += (out.empty() ? "" : "\n") + l;
  return out;
}

std::optional<std::string> pushResources(RestClient& client, const PushOptions& options,
                                         const compiler::ProjectConfig& project, const ResourceSet& set,
                                         long long version, std::ostream& err) {
  ProjectExtras extras;
  try {
    extras = readProjectExtras(project);
  } catch (const std::exception& e) {
    return "Unable to read " + project.configFile + ": " + e.what();
  }
  // the resources as JSON first: a field value JSON cannot hold (a module's Python object) fails
  // the export before anything is sent
  std::string body = "{\"resources\": [";
  try {
    for (size_t i = 0; i < set.resources.size(); ++i) {
      if (i) body += ", ";
      appendResourceJson(body, set.resources[i]);
    }
  } catch (const ExportError& e) {
    return std::string(e.what());
  }
  // 2. the project's environment settings
  json settingsBody = {{"settings", extras.environmentSettings}, {"protected_by", "project_yml"}};
  const std::string settingsPath = "/api/v2/protected_environment_settings";
  RestReply reply = client.call("POST", settingsPath, settingsBody.dump(), true);
  if (!reply.ok())
    return "Failed to update the environment settings, defined in the project.yml file, on the server. (" +
           client.explain("POST", settingsPath, reply) + ")";

  // 3-6. the handler code (3.4), then the file contents: ask which are missing, upload those
  log(err, options.verbosity, "INFO", "Sending resources and handler source to server");
  ModuleCodeInfo code = moduleVersionInfo(project, set);
  for (const std::string& module : code.withoutCode)
    if (!options.ownServer)
      log(err, options.verbosity, "WARNING",
          "The module " + module + " has no Python code on the modulepath (" + module +
              " is built into this inmanta): a reference orchestrator will not be able to deploy its resources from "
              "this export");
  auto upload = [&](const std::map<std::string, std::string>& files, bool counts) -> std::optional<std::string> {
    json hashes = json::array();
    for (const auto& [hash, bytes] : files) hashes.push_back(hash);
    RestReply stat = client.call("POST", "/api/v1/file", json{{"files", hashes}}.dump(), false);
    if (!stat.ok())
      return "Unable to check status of files at server (" + client.explain("POST", "/api/v1/file", stat) + ")";
    std::vector<std::string> missing;
    if (stat.body.is_object() && stat.body.contains("files") && stat.body["files"].is_array())
      for (const auto& h : stat.body["files"])
        if (h.is_string() && files.count(h.get<std::string>())) missing.push_back(h.get<std::string>());
    if (counts) {
      log(err, options.verbosity, "INFO", "Uploading " + std::to_string(files.size()) + " files");
      log(err, options.verbosity, "INFO",
          "Only " + std::to_string(missing.size()) + " files are new and need to be uploaded");
    }
    // several connections in parallel: thousands of small files are common, and each upload is a
    // request whose two sides mostly wait for each other (10,000 files into our server on 2 cores:
    // 1.49 s on 8 connections against 1.70 s on 4, medians of 8 alternating first deploys in a slow
    // hour; each open connection has a thread of its own there)
    std::vector<std::string> uploadErrors(missing.size());
    std::atomic<size_t> next{0};
    auto worker = [&](RestClient& uploader) {
      for (size_t i = next++; i < missing.size(); i = next++) {
        const std::string& hash = missing[i];
        json up = {{"id", hash}, {"content", base64(files.at(hash))}};
        RestReply answer = uploader.call("PUT", "/api/v1/file/" + hash, up.dump(), false);
        if (!answer.ok())
          uploadErrors[i] = "Unable to upload file with hash " + hash + " (" +
                            uploader.explain("PUT", "/api/v1/file/" + hash, answer) + ")";
      }
    };
    size_t threads = std::min<size_t>(8, (missing.size() + 63) / 64);
    std::vector<std::unique_ptr<RestClient>> uploaders;
    std::vector<std::thread> pool;
    for (size_t t = 1; t < threads; ++t) {
      uploaders.push_back(std::make_unique<RestClient>(client.settings()));
      pool.emplace_back(worker, std::ref(*uploaders.back()));
    }
    worker(client);
    for (auto& thread : pool) thread.join();
    // decision X4: an error response fails the export (the reference only logs it)
    size_t failed = 0;
    std::string first;
    for (const auto& e : uploadErrors) {
      if (e.empty()) continue;
      if (!failed++) first = e;
      log(err, options.verbosity, "ERROR", e);
    }
    if (failed)
      return first + (failed > 1 ? " and " + std::to_string(failed - 1) + " more uploads failed" : std::string());
    return std::nullopt;
  };
  // (the reference always asks for the code's files; without any we leave that call out)
  if (!code.files.empty())
    if (auto failure = upload(code.files, false)) return failure;
  if (auto failure = upload(set.files, true)) return failure;

  // 7. the version
  log(err, options.verbosity, "INFO", "Sending resource updates to server");
  json state = json::object();
  for (const Resource& r : set.resources) state[r.rid] = r.undefined ? "undefined" : "available";
  json meta = exportMetadata(options.metadata, options.message);
  meta["inmanta:compile:state"] = "success";
  json unknowns = json::array();
  for (const compiler::UnknownParameter& u : set.unknowns)
    unknowns.push_back({{"resource", u.resource}, {"parameter", u.parameter}, {"source", u.source}});
  json rest = {{"resource_sets", set.setOf},       {"unknowns", unknowns},
               {"resource_state", state},          {"version_info", {{"export_metadata", meta}}},
               {"module_version_info", code.info}, {"pip_config", extras.pipConfig}};
  std::string path;
  if (options.partial) {
    std::set<std::string> removed(options.removedSets.begin(), options.removedSets.end());
    for (const auto& s : set.emptiedSets) removed.insert(s);
    if (options.softDelete)  // keep sets that still have exported resources
      for (const auto& [rid, setName] : set.setOf) removed.erase(setName);
    rest["removed_resource_sets"] = std::vector<std::string>(removed.begin(), removed.end());
    rest["allow_handler_code_update"] = options.allowHandlerCodeUpdate;
    path = "/api/v2/version/partial";
  } else {
    rest["version"] = version;
    std::vector<std::string> requirements;
    for (const compiler::RequirementEntry& entry : project.requires_) requirements.push_back(entry.text);
    rest["project_constraints"] = projectConstraints(requirements);
    path = "/api/v1/version";
  }
  std::string tail = rest.dump();
  body += "], " + tail.substr(1);
  reply = client.call("PUT", path, body, true);
  if (reply.status == 400 &&
      reply.message().find("Invalid request: request contains fields {'pip_config'}") != std::string::npos) {
    // an older server: send the same call without the fields it does not know (3.5)
    log(err, options.verbosity, "WARNING", "The server does not accept pip_config; exporting without it");
    rest.erase("pip_config");
    rest.erase("project_constraints");
    body = body.substr(0, body.size() - tail.size() + 1) + rest.dump().substr(1);
    reply = client.call("PUT", path, body, true);
  }
  if (!reply.ok()) return "Failed to commit resource updates (" + client.explain("PUT", path, reply) + ")";
  if (options.partial) {
    if (!reply.body.is_object() || !reply.body.contains("data") || !reply.body["data"].is_number_integer())
      return "Failed to commit resource updates (the server's reply to PUT " + path +
             " has no version: " + reply.body.dump() + ")";
    version = reply.body["data"].get<long long>();
  }
  log(err, options.verbosity, "INFO", "Committed resources with version " + std::to_string(version));

  // 8. release
  if (options.deploy) {
    log(err, options.verbosity, "INFO", "Triggering deploy for version " + std::to_string(version));
    json release = {{"id", version},
                    {"push", true},
                    {"agent_trigger_method", options.full ? "push_full_deploy" : "push_incremental_deploy"}};
    std::string releasePath = "/api/v1/version/" + std::to_string(version);
    RestReply released = client.call("POST", releasePath, release.dump(), true);
    // with auto_deploy on (the default) the server released the version when it was stored and
    // answers 409: what -d asked for is done, so that is an info line at -v, not a warning
    // (orchestrator spec 4.1 step 6). A 409 for a version older than the newest released one
    // stays a warning: that version will not be deployed.
    if (released.status == 409 && released.message().find("is already released") != std::string::npos) {
      if (options.verbosity >= 1)
        err << logLine("exporter", "INFO", "Version " + std::to_string(version) + " was already released by the server")
            << "\n";
    } else if (!released.ok()) {
      log(err, options.verbosity, "WARNING",
          "Version " + std::to_string(version) + " was not released: " + client.explain("POST", releasePath, released));
    }
  }
  return std::nullopt;
}

}  // namespace inmanta::exporter
