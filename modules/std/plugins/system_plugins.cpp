// std plugins: environment variables, passwords, server settings, facts and module files
// (spec Appendix A.8). All I/O goes through the plugin context's folders and settings; this
// build has no orchestrator client, so what needs the server answers as the reference does
// when the server cannot be reached.
#include <openssl/rand.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "std_plugins.h"
#include "std_support.h"

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
    size_t len = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 && c >= 0xC2 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 && c <= 0xF4 ? 4 : 0;
    bool ok = len != 0 && i + len <= raw.size();
    for (size_t k = 1; ok && k < len; ++k) ok = (static_cast<unsigned char>(raw[i + k]) & 0xC0) == 0x80;
    if (!ok) {
      char byte[8];
      std::snprintf(byte, sizeof byte, "0x%02x", c);
      fail("UnicodeDecodeError", std::string("'utf-8' codec can't decode byte ") + byte + " in position " +
                                     std::to_string(i) + ": invalid " + (len == 0 ? "start byte" : "continuation byte"));
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
bool isResource(PluginContext& ctx, const Value& v) {
  for (const char* entity : {"std::File", "std::Directory", "std::Service", "std::Package", "std::Symlink",
                             "std::AgentConfig", "std::testing::NullResource"}) {
    try {
      if (ctx.isInstanceOf(v, entity)) return true;
    } catch (const PluginFailure&) {
      // that entity is not part of this compile
    }
  }
  return false;
}

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
  addPlugin(
      registry, "generate_password", {param("pw_id", "string"), param("length", "int", Value(20))}, "string",
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
  addPlugin(
      registry, "password", {param("pw_id", "string")}, "string",
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
  addPlugin(
      registry, "environment_name", {}, "string",
      [](PluginContext& ctx, const Args&, const Kwargs&) {
        requireEnvironment(ctx);
        return Value::unknown();  // the server cannot be asked: unknown, as for a server error
      },
      {.contextAware = true});
  addPlugin(
      registry, "environment_server", {}, "string",
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
  addPlugin(
      registry, "server_token", {param("client_types", "string[]", Value(ValueList{Value("agent")}))}, "string",
      [](PluginContext& ctx, const Args&, const Kwargs&) {
        std::string token = ctx.setting("compiler_rest_transport", "token").value_or("");
        if (token.empty()) return Value("");
        requireEnvironment(ctx);
        fail("Exception", "Unable to get a valid token");  // a new token needs the server
      },
      {.contextAware = true});
  addPlugin(registry, "server_port", {}, "int", [](PluginContext& ctx, const Args&, const Kwargs&) {
    std::optional<std::string> port = ctx.setting("compiler_rest_transport", "port");
    return Value(port ? settingInt(*port) : int64_t{8888});
  });
  addPlugin(
      registry, "getfact", {param("resource", "any"), param("fact_name", "string"), paramNone("default_value", "any")},
      "any",
      [](PluginContext& ctx, const Args& a, const Kwargs&) {
        if (!a[0].isInstance()) fail("AttributeError", "'" + proxyTypeName(a[0]) + "' object has no attribute '_type'");
        if (!isResource(ctx, a[0])) fail("Exception", "Facts can only be retreived from resources.");
        requireEnvironment(ctx);
        // no server to ask: the fact is unknown
        if (!a[2].isNull()) return a[2];
        return Value::unknown();
      },
      {.contextAware = true});
  addPlugin(
      registry, "source", {param("path", "string")}, "string",
      [](PluginContext& ctx, const Args& a, const Kwargs&) {
        const std::string& path = a[0].asString();
        std::string filename = determinePath(ctx, "files", path);
        if (!isFile(filename)) fail("Exception", path + " isn't a valid file (" + filename + ")");
        return Value(readTextFile(filename));
      },
      {.contextAware = true});
  addPlugin(
      registry, "file", {param("path", "string")}, "string",
      [](PluginContext& ctx, const Args& a, const Kwargs&) {
        std::string filename = determinePath(ctx, "files", a[0].asString());
        if (!isFile(filename)) fail("Exception", filename + " isn't a valid file");
        return Value("imp-module-source:file://" + absPath(filename));
      },
      {.contextAware = true});
  addPlugin(
      registry, "list_files", {param("path", "string")}, "list",
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
  addPlugin(
      registry, "template", {param("path", "string")}, "string",
      [](PluginContext& ctx, const Args& a, const Kwargs& kwargs) {
        return renderTemplate(ctx, extendPath(ctx, a[0].asString()), kwargs);
      },
      {.contextAware = true, .varKeywords = true});
}

}  // namespace inmanta::stdmodule
