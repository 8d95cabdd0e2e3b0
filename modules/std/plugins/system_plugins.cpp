// std plugins: environment variables, passwords, server settings, facts and module files
// (spec Appendix A.8). All I/O goes through the plugin context's folders, settings and server
// connection; what needs the server answers as the reference does when the server cannot be
// reached or has no answer.
#include <openssl/rand.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include <nlohmann/json.hpp>

#include "modules/std/plugins/std_plugins.h"
#include "modules/std/plugins/std_support.h"

namespace inmanta::stdmodule {

namespace {

namespace fs = std::filesystem;

const char* const kNoEnvironment = "The environment of this model should be configured in config>environment";

// ------------------------------------------------------------------ files

// Python open(path).read() in text mode: UTF-8, universal newlines.
std::string readTextFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail("FileNotFoundError", "[Errno 2] No such file or directory: " + runtime::pyReprString(path));
  std::stringstream buffer;
  buffer << in.rdbuf();
  std::string raw = buffer.str();
  // validate UTF-8 as Python's decoder does
  for (size_t i = 0; i < raw.size();) {
    auto c = static_cast<unsigned char>(raw[i]);
    size_t len = c < 0x80                          ? 1
                 : (c & 0xE0) == 0xC0 && c >= 0xC2 ? 2
                 : (c & 0xF0) == 0xE0              ? 3
                 : (c & 0xF8) == 0xF0 && c <= 0xF4 ? 4
                                                   : 0;
    bool ok = len != 0 && i + len <= raw.size();
    for (size_t k = 1; ok && k < len; ++k) ok = (static_cast<unsigned char>(raw[i + k]) & 0xC0) == 0x80;
    if (!ok) {
      char byte[8];
      std::snprintf(byte, sizeof byte, "0x%02x", c);
      fail("UnicodeDecodeError", std::string("'utf-8' codec can't decode byte ") + byte + " in position " +
                                     std::to_string(i) + ": invalid " +
                                     (len == 0 ? "start byte" : "continuation byte"));
    }
    i += len;
  }
  std::string out;
  out.reserve(raw.size());
  for (size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] == '\r') {
      out += '\n';
      if (i + 1 < raw.size() && raw[i + 1] == '\n') ++i;
    } else {
      out += raw[i];
    }
  }
  return out;
}

bool isFile(const std::string& path) {
  std::error_code ec;
  return !path.empty() && fs::is_regular_file(path, ec);
}

std::vector<std::string> splitPath(const std::string& path) {
  std::vector<std::string> parts;
  size_t pos = 0;
  while (true) {
    size_t slash = path.find('/', pos);
    if (slash == std::string::npos) break;
    parts.push_back(path.substr(pos, slash - pos));
    pos = slash + 1;
  }
  parts.push_back(path.substr(pos));
  return parts;
}

// `./rest` names a file of the module the call is written in.
std::string extendPath(PluginContext& ctx, const std::string& path) {
  if (path.rfind("./", 0) != 0) return path;
  std::string calling = ctx.callingModule();
  std::string module = calling.substr(0, calling.find("::"));
  if (ctx.moduleDir(module).empty())
    fail("Exception", "Unable to determine current module for path " + path + ", called from " + calling);
  return module + "/" + path.substr(2);
}

// `module/rest` -> <module dir>/<subdir>/rest; an empty first segment is the project.
std::string determinePath(PluginContext& ctx, const std::string& subdir, const std::string& original) {
  std::string path = extendPath(ctx, original);
  std::vector<std::string> parts = splitPath(path);
  std::string modulePath;
  if (parts[0].empty()) {
    modulePath = ctx.projectDir();
  } else {
    modulePath = ctx.moduleDir(parts[0]);
    if (modulePath.empty()) fail("Exception", "Module " + parts[0] + " does not exist for path " + path);
  }
  std::string rest;
  for (size_t i = 1; i < parts.size(); ++i) rest += (i > 1 ? "/" : "") + parts[i];
  return pathJoin(pathJoin(modulePath, subdir), rest);
}

// ------------------------------------------------------------------ passwords

// data/std/passwordfile.txt: one `id=value` per line, in insertion order.
using PasswordRecords = std::vector<std::pair<std::string, std::string>>;

PasswordRecords readPasswords(const std::string& file) {
  PasswordRecords records;
  if (!isFile(file)) return records;
  std::string content = readTextFile(file);
  std::istringstream lines(content);
  std::string raw;
  while (std::getline(lines, raw)) {
    std::string line(pyStrip(raw));
    if (codePointCount(line) <= 2) continue;
    size_t eq = line.find('=');
    if (eq == std::string::npos) fail("ValueError", "substring not found");
    std::string key(pyStrip(line.substr(0, eq)));
    std::string value(pyStrip(line.substr(eq + 1)));
    auto it = std::find_if(records.begin(), records.end(), [&](const auto& r) { return r.first == key; });
    if (it != records.end()) it->second = value;
    else records.emplace_back(key, value);
  }
  return records;
}

void writePasswords(const std::string& file, const PasswordRecords& records) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  if (!out) fail("PermissionError", "[Errno 13] Permission denied: " + runtime::pyReprString(file));
  for (const auto& [k, v] : records) out << k << "=" << v << "\n";
}

struct PasswordFile {
  std::string display;  // as the reference names it in messages: relative to the project
  std::string path;
};

// Context.get_data_dir: data/<namespace>, created when missing.
PasswordFile passwordFile(PluginContext& ctx) {
  std::string dataDir = pathJoin(ctx.projectDir(), "data/std");
  std::error_code ec;
  fs::create_directories(dataDir, ec);
  return PasswordFile{"data/std/passwordfile.txt", pathJoin(dataDir, "passwordfile.txt")};
}

std::string randomPassword(int64_t length) {
  static const char* alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  std::string pw;
  while (static_cast<int64_t>(pw.size()) < length) {
    unsigned char bytes[64];
    if (RAND_bytes(bytes, sizeof bytes) != 1) fail("OSError", "no secure random source available");
    for (unsigned char b : bytes) {
      if (b >= 248) continue;  // 248 = 4 * 62: keep the draw uniform
      pw += alphabet[b % 62];
      if (static_cast<int64_t>(pw.size()) >= length) break;
    }
  }
  return pw;
}

// ------------------------------------------------------------------ settings

std::string requireEnvironment(PluginContext& ctx) {
  std::optional<std::string> env = ctx.setting("config", "environment");
  if (!env) fail("Exception", kNoEnvironment);
  return *env;
}

// ------------------------------------------------------------------ the server

// urllib.parse.quote(text, safe=""), or quote_plus for a query string value
std::string urlQuote(const std::string& text, bool plus) {
  static const char* const kHex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
        c == '_' || c == '~') {
      out += static_cast<char>(c);
    } else if (plus && c == ' ') {
      out += '+';
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

// A JSON value as the model sees the Python object json.loads gives.
Value fromJson(const nlohmann::json& j) {
  switch (j.type()) {
    case nlohmann::json::value_t::null: return Value();
    case nlohmann::json::value_t::boolean: return Value(j.get<bool>());
    case nlohmann::json::value_t::number_integer: return Value(j.get<int64_t>());
    case nlohmann::json::value_t::number_unsigned:
      if (j.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) return Value(j.get<double>());
      return Value(static_cast<int64_t>(j.get<uint64_t>()));
    case nlohmann::json::value_t::number_float: return Value(j.get<double>());
    case nlohmann::json::value_t::string: return Value(j.get<std::string>());
    case nlohmann::json::value_t::array: {
      ValueList list;
      for (const auto& e : j) list.push_back(fromJson(e));
      return Value(std::move(list));
    }
    case nlohmann::json::value_t::object: {
      runtime::ValueDict dict;
      for (const auto& [k, v] : j.items()) dict.items.emplace_back(k, fromJson(v));
      return Value(std::move(dict));
    }
    default: return Value();
  }
}

// A server reply's JSON body, or null when it has none or it is not JSON.
nlohmann::json replyJson(const compiler::ServerConnection::Reply& reply) {
  nlohmann::json body = nlohmann::json::parse(reply.body, nullptr, false);
  return body.is_discarded() ? nlohmann::json() : body;
}

compiler::ServerConnection::Reply serverCall(PluginContext& ctx, const std::string& method, const std::string& path,
                                             const std::string& body) {
  if (compiler::ServerConnection* server = ctx.server()) return server->call(method, path, body);
  compiler::ServerConnection::Reply none;
  none.transportError = "no server is configured for this run";
  return none;
}

// The facts the server knows, by resource id and name: loaded by the first std::getfact of a
// compile (and again while the server has none, as the reference's module-level cache does).
using FactCache = std::map<std::string, std::map<std::string, nlohmann::json>>;

Value getFact(PluginContext& ctx, const Value& resource, const std::string& name, const Value& fallback) {
  if (!resource.isInstance())
    fail("AttributeError", "'" + proxyTypeName(resource) + "' object has no attribute '_type'");
  compiler::ResourceIdentity identity = ctx.resourceId(resource);
  if (identity.state == compiler::ResourceIdentity::State::NotAResource)
    fail("Exception", "Facts can only be retreived from resources.");
  if (identity.state == compiler::ResourceIdentity::State::Unknown) return Value::unknown();
  const std::string& rid = identity.id;
  requireEnvironment(ctx);
  std::shared_ptr<void>& slot = ctx.compileState("std::getfact");
  if (!slot) slot = std::make_shared<FactCache>();
  auto& cache = *static_cast<FactCache*>(slot.get());
  if (cache.empty()) {
    auto reply = serverCall(ctx, "POST", "/api/v1/parameter", "{}");
    nlohmann::json body = reply.status == 200 ? replyJson(reply) : nlohmann::json();
    if (body.is_object() && body.contains("parameters") && body["parameters"].is_array())
      for (const auto& p : body["parameters"])
        if (p.is_object() && p.contains("resource_id") && p["resource_id"].is_string() && p.contains("name") &&
            p["name"].is_string())
          cache[p["resource_id"].get<std::string>()][p["name"].get<std::string>()] = p.value("value", nlohmann::json());
  }
  if (auto r = cache.find(rid); r != cache.end())
    if (auto f = r->second.find(name); f != r->second.end()) return fromJson(f->second);
  auto reply =
      serverCall(ctx, "GET", "/api/v1/parameter/" + urlQuote(name, false) + "?resource_id=" + urlQuote(rid, true), "");
  if (reply.status == 200) {
    nlohmann::json body = replyJson(reply);
    if (body.is_object() && body.contains("parameter") && body["parameter"].is_object())
      return fromJson(body["parameter"].value("value", nlohmann::json()));
    fail("KeyError", "'parameter'");  // the reference indexes result["parameter"]["value"]
  }
  if (reply.status == 0) {
    std::string where = ctx.server() != nullptr ? " at " + ctx.server()->address() : "";
    ctx.log("WARNING", "Param " + name + " of resource " + rid + " is unknown because the server" + where +
                           " could not be reached (" + reply.transportError + ")");
  } else {
    ctx.log("INFO", "Param " + name + " of resource " + rid + " is unknown");
  }
  ctx.reportUnknown({rid, name, "fact"});
  if (!fallback.isNull()) return fallback;
  return Value::unknown();
}

// inmanta.config.is_bool
bool settingBool(const std::string& value) {
  std::string lower;
  for (char c : value) lower += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  if (lower == "true" || lower == "yes" || lower == "on" || lower == "1") return true;
  if (lower == "false" || lower == "no" || lower == "off" || lower == "0") return false;
  fail("ValueError", "Not a boolean: " + value);
}

int64_t settingInt(const std::string& value) { return pyIntOf(Value(value)); }

// The resource entities of std (spec A.9): only these have ids, and so facts.
}  // namespace

void registerSystemPlugins(PluginRegistry& registry) {
  addPlugin(registry, "get_env", {param("name", "string"), paramNone("default_value", "string")}, "string",
            [](PluginContext&, const Args& a, const Kwargs&) {
              if (const char* v = std::getenv(a[0].asString().c_str())) return Value(std::string(v));
              if (!a[1].isNull()) return a[1];
              return Value::unknown();
            });
  addPlugin(registry, "get_env_int", {param("name", "string"), paramNone("default_value", "int")}, "int",
            [](PluginContext&, const Args& a, const Kwargs&) {
              if (const char* v = std::getenv(a[0].asString().c_str())) return Value(pyIntOf(Value(std::string(v))));
              if (!a[1].isNull()) return a[1];
              return Value::unknown();
            });
  addPlugin(registry, "generate_password", {param("pw_id", "string"), param("length", "int", Value(20))}, "string",
            [](PluginContext& ctx, const Args& a, const Kwargs&) {
              PasswordFile file = passwordFile(ctx);
              const std::string& id = a[0].asString();
              if (id.find('=') != std::string::npos) fail("Exception", "The password id cannot contain =");
              PasswordRecords records = readPasswords(file.path);
              for (const auto& [k, v] : records)
                if (k == id) return Value(v);
              std::string pw = randomPassword(a[1].toInt());
              records.emplace_back(id, pw);
              writePasswords(file.path, records);
              return Value(pw);
            },
            {.contextAware = true});
  addPlugin(registry, "password", {param("pw_id", "string")}, "string",
            [](PluginContext& ctx, const Args& a, const Kwargs&) {
              PasswordFile file = passwordFile(ctx);
              const std::string& id = a[0].asString();
              if (id.find('=') != std::string::npos) fail("Exception", "The password id cannot contain =");
              for (const auto& [k, v] : readPasswords(file.path))
                if (k == id) return Value(v);
              fail("Exception", "Password " + id + " does not exist in file " + file.display);
            },
            {.contextAware = true});
  addPlugin(registry, "environment", {}, "string",
            [](PluginContext& ctx, const Args&, const Kwargs&) { return Value(requireEnvironment(ctx)); });
  addPlugin(registry, "environment_name", {}, "string",
            [](PluginContext& ctx, const Args&, const Kwargs&) {
              requireEnvironment(ctx);
              return Value::unknown();  // the server cannot be asked: unknown, as for a server error
            },
            {.contextAware = true});
  addPlugin(registry, "environment_server", {}, "string",
            [](PluginContext& ctx, const Args&, const Kwargs&) {
              // re.search("^http[s]?://([^:]+):", "<protocol>://<host>:<port>")
              std::string host = ctx.setting("compiler_rest_transport", "host").value_or("localhost");
              size_t colon = host.find(':');
              std::string match = host.substr(0, colon);
              if (match.empty()) return Value::unknown();
              return Value(match);
            },
            {.contextAware = true});
  addPlugin(registry, "server_ca", {}, "string", [](PluginContext& ctx, const Args&, const Kwargs&) {
    std::string file = ctx.setting("compiler_rest_transport", "ssl_ca_cert_file").value_or("");
    if (file.empty()) return Value("");
    if (!isFile(file)) fail("Exception", file + " isn't a valid file");
    return Value(readTextFile(file));
  });
  addPlugin(registry, "server_ssl", {}, "bool", [](PluginContext& ctx, const Args&, const Kwargs&) {
    std::optional<std::string> ssl = ctx.setting("compiler_rest_transport", "ssl");
    return Value(ssl ? settingBool(*ssl) : false);
  });
  addPlugin(registry, "server_token", {param("client_types", "string[]", Value(ValueList{Value("agent")}))}, "string",
            [](PluginContext& ctx, const Args& a, const Kwargs&) {
              std::string token = ctx.setting("compiler_rest_transport", "token").value_or("");
              if (token.empty()) return Value("");
              requireEnvironment(ctx);
              // a token for these client types, from the server (create_token, idempotent)
              nlohmann::json request = {{"client_types", nlohmann::json::array()}, {"idempotent", true}};
              for (const Value& t : a[0].asList()) request["client_types"].push_back(t.asString());
              auto reply = serverCall(ctx, "POST", "/api/v1/environment_auth", request.dump());
              nlohmann::json body = reply.status == 200 ? replyJson(reply) : nlohmann::json();
              if (body.is_object() && body.contains("token") && body["token"].is_string())
                return Value(body["token"].get<std::string>());
              ctx.log("WARNING",
                      "Unable to get a new token (" +
                          (reply.status == 0 ? reply.transportError : "HTTP " + std::to_string(reply.status)) + ")");
              fail("Exception", "Unable to get a valid token");
            },
            {.contextAware = true});
  addPlugin(registry, "server_port", {}, "int", [](PluginContext& ctx, const Args&, const Kwargs&) {
    std::optional<std::string> port = ctx.setting("compiler_rest_transport", "port");
    return Value(port ? settingInt(*port) : int64_t{8888});
  });
  addPlugin(registry, "getfact",
            {param("resource", "any"), param("fact_name", "string"), paramNone("default_value", "any")}, "any",
            [](PluginContext& ctx, const Args& a, const Kwargs&) { return getFact(ctx, a[0], a[1].asString(), a[2]); },
            {.contextAware = true});
  addPlugin(registry, "source", {param("path", "string")}, "string",
            [](PluginContext& ctx, const Args& a, const Kwargs&) {
              const std::string& path = a[0].asString();
              std::string filename = determinePath(ctx, "files", path);
              if (!isFile(filename)) fail("Exception", path + " isn't a valid file (" + filename + ")");
              return Value(readTextFile(filename));
            },
            {.contextAware = true});
  addPlugin(registry, "file", {param("path", "string")}, "string",
            [](PluginContext& ctx, const Args& a, const Kwargs&) {
              std::string filename = determinePath(ctx, "files", a[0].asString());
              if (!isFile(filename)) fail("Exception", filename + " isn't a valid file");
              Value marker("imp-module-source:file://" + absPath(filename));
              fileMarkers().push_back(marker);
              return marker;
            },
            {.contextAware = true});
  addPlugin(registry, "list_files", {param("path", "string")}, "list",
            [](PluginContext& ctx, const Args& a, const Kwargs&) {
              std::string dir = determinePath(ctx, "files", a[0].asString());
              std::error_code ec;
              fs::file_status status = dir.empty() ? fs::file_status() : fs::status(dir, ec);
              if (dir.empty() || !fs::exists(status))
                fail("FileNotFoundError", "[Errno 2] No such file or directory: " + runtime::pyReprString(dir));
              if (!fs::is_directory(status))
                fail("NotADirectoryError", "[Errno 20] Not a directory: " + runtime::pyReprString(dir));
              std::vector<std::string> names;
              fs::directory_iterator it(dir, ec);
              if (ec) fail("PermissionError", "[Errno 13] Permission denied: " + runtime::pyReprString(dir));
              for (; it != fs::directory_iterator(); it.increment(ec)) {
                if (ec) break;
                std::string name = it->path().filename().string();
                if (isFile(pathJoin(dir, name))) names.push_back(name);
              }
              // os.listdir order is the file system's; sorted here so compiles are reproducible
              std::sort(names.begin(), names.end());
              ValueList out;
              for (std::string& n : names) out.emplace_back(std::move(n));
              return Value(std::move(out));
            },
            {.contextAware = true});
  addPlugin(registry, "template", {param("path", "string")}, "string",
            [](PluginContext& ctx, const Args& a, const Kwargs& kwargs) {
              return renderTemplate(ctx, extendPath(ctx, a[0].asString()), kwargs);
            },
            {.contextAware = true, .varKeywords = true});
}

}  // namespace inmanta::stdmodule
