#include "exporter/export.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include "compiler/diag/diagnostics_json.h"
#include "exporter/json.h"
#include "exporter/plugin_server.h"
#include "exporter/resources.h"
#include "exporter/rest_client.h"
#include "exporter/settings.h"
#include "util/resource_id.h"

namespace inmanta::exporter {

std::string dependencyGraph(const std::vector<Resource>& resources) {
  std::string out = "digraph G {\n";
  for (const Resource& r : resources) out += "\t\"" + util::versionedId(r.rid, 0) + "\";\n";
  for (const Resource& r : resources)
    for (const std::string& req : r.requires_) out += "\t\"" + util::versionedId(r.rid, 0) + "\" -> \"" + req + "\";\n";
  return out + "}\n";
}

namespace {

bool writeFile(const std::string& path, const std::string& text, std::ostream& err) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (file) file << text;
  if (!file) {
    err << logLine("exporter", "ERROR", "Unable to write " + path) << "\n";
    return false;
  }
  return true;
}

// Writes the -j file so that a reader (or a failed run) never sees half of it: the text goes to
// a temporary file in the same folder, renamed over `path` only once it is complete. A target
// that exists and is not a regular file (-j /dev/stdout, a FIFO) cannot be renamed over and is
// written directly.
bool writeFileWhole(const std::string& path, const std::string& text, std::ostream& err) {
  struct stat target {};
  if (::stat(path.c_str(), &target) == 0 && !S_ISREG(target.st_mode)) return writeFile(path, text, err);
  std::filesystem::path full(path);
  std::filesystem::path tmp = full.parent_path() /
                              ("." + full.filename().string() + "." + std::to_string(::getpid()) + ".tmp");
  // 0666 less the umask, as the file the rename replaces would have been created
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  bool written = fd >= 0;
  for (size_t done = 0; written && done < text.size();) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) errno = EIO;  // no progress and no reason given
    written = n > 0;
    if (written) done += static_cast<size_t>(n);
  }
  if (fd >= 0 && ::close(fd) != 0) written = false;
  if (written && ::rename(tmp.c_str(), path.c_str()) == 0) return true;
  std::string reason = std::strerror(errno);
  if (fd >= 0) ::unlink(tmp.c_str());
  err << logLine("exporter", "ERROR", "Unable to write " + path + ": " + reason) << "\n";
  return false;
}

}  // namespace

namespace {

// With --format json: a document with `message` as its one error of `kind`, written in place of
// the text (true); without: nothing (false).
bool failureDocument(const compiler::CompileOptions& compile, const char* kind, const std::string& message) {
  if (compile.diagnosticsJson == nullptr) return false;
  compiler::DiagnosticsDocument document;
  document.addFailure(kind, message);
  *compile.diagnosticsJson << document.dump(false) << std::flush;
  return true;
}

// Reports a failure outside the model (the settings, the server) before the compile: the summary
// on `err`, or with --format json a document with it as its one error (kind ExportFailure).
void reportFailure(const compiler::CompileOptions& compile, std::ostream& err, const std::string& message) {
  if (failureDocument(compile, "ExportFailure", message)) return;
  compiler::Style style(compile.color);
  err << "\n"
      << style.error(compiler::banner("EXPORT FAILURE")) << "\n"
      << style.error("Error:") << " " << message << "\n";
}

std::vector<std::string> splitWords(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

}  // namespace

namespace {

// The compile's plugins read `settings` and reach the server through `server`.
void withSettings(compiler::CompileOptions& compile, const Settings& settings, PluginServerConnection& server) {
  compile.settings = [&settings](std::string_view section, std::string_view key) {
    return settings.get(std::string(section), std::string(key));
  };
  compile.server = &server;
}

}  // namespace

namespace {

// The run's settings (4.1), or nothing with the export failure printed.
std::optional<Settings> exportSettings(const ExportOptions& options, std::ostream& err) {
  try {
    return loadSettings(options.settings);
  } catch (const std::exception& e) {
    reportFailure(options.compile, err, e.what());
    return std::nullopt;
  }
}

// The compile of an export: the settings and the server its plugins read, the resource types.
compiler::CompileOptions exportCompile(const ExportOptions& options, const Settings& settings,
                                       PluginServerConnection& server, const compiler::ResourceTypeRegistry& types) {
  compiler::CompileOptions compile = options.compile;
  withSettings(compile, settings, server);
  if (!compile.resourceTypes) compile.resourceTypes = &types;
  return compile;
}

// POST /api/v2/reserve_version: sets `version`, or says why there is none.
std::optional<std::string> reserveVersion(RestClient& client, long long& version) {
  RestReply reply = client.call("POST", "/api/v2/reserve_version", "{}", true);
  if (!reply.ok() || !reply.body.is_object() || !reply.body.contains("data") || !reply.body["data"].is_number_integer())
    return "Unable to reserve version number from server (msg: " +
           (reply.ok() ? "the reply has no version number: " + reply.body.dump()
                       : client.explain("POST", "/api/v2/reserve_version", reply)) +
           ")";
  version = reply.body["data"].get<long long>();
  return std::nullopt;
}

}  // namespace

int runCompileWithSettings(const compiler::CompileOptions& options, const SettingsFlags& flags, std::ostream& out,
                           std::ostream& err) {
  Settings settings;
  try {
    settings = loadSettings(flags);
  } catch (const std::exception& e) {
    // settings that cannot be read: an error of no file
    if (!failureDocument(options, "CompilerException", e.what())) err << "Error: " << e.what() << "\n";
    return 1;
  }
  compiler::CompileOptions compile = options;
  PluginServerConnection pluginServer(settings);
  withSettings(compile, settings, pluginServer);
  compiler::CompileStatus status = compiler::runCompile(compile, out, err);
  return status == compiler::CompileStatus::Success ? 0 : static_cast<int>(status);
}

std::optional<std::string> makeResourceSet(const compiler::CompiledModel& model,
                                           const compiler::ResourceTypeRegistry& types, const Settings& settings,
                                           const ExportOptions& options, ResourceSet& set, std::ostream& err) {
  try {
    // the built-in types and the modules' Python ones (the compile knows both)
    set = buildResources(model.instances, model.resourceTypes ? *model.resourceTypes : types);
  } catch (const ExportError& e) {
    return std::string(e.what());
  } catch (const compiler::ResourceError& e) {
    return std::string(e.what());
  }
  // export plugins (the modules' @export hooks), as the reference runs them once the resources
  // are made
  std::vector<std::string> exportPlugins = options.exportPlugin.empty()
                                               ? settings.getList("config", "export")
                                               : std::vector<std::string>{options.exportPlugin};
  for (const std::string& name : exportPlugins) {
    if (name.empty()) continue;
    const compiler::ExportHook* hook = nullptr;
    if (model.exportHooks != nullptr)
      if (auto it = model.exportHooks->find(name); it != model.exportHooks->end()) hook = &it->second;
    if (hook == nullptr) return "Export function " + name + " does not exist.";
    FileSink sink(set.files);
    try {
      hook->run(model.instances, sink);
    } catch (const std::exception& e) {
      return "Export function " + name + " failed: " + e.what();
    }
  }
  set.unknowns = model.unknowns;
  for (const auto& w : set.warnings) err << logLine("exporter", "WARNING", w) << "\n";
  if (options.compile.verbosity >= 2)
    for (const auto& i : set.infos) err << logLine("exporter", "INFO", i) << "\n";
  if (set.resources.empty()) err << logLine("exporter", "WARNING", "Empty deployment model.") << "\n";
  if (options.dependencyGraph && !writeFile("dependencies.dot", dependencyGraph(set.resources), err))
    return std::string("Unable to write dependencies.dot");
  return std::nullopt;
}

int runCompileToResources(const ExportOptions& options, const ResourcesReady& ready, std::ostream& out,
                          std::ostream& err) {
  static const compiler::ResourceTypeRegistry kNoTypes;
  const compiler::ResourceTypeRegistry& types = options.types ? *options.types : kNoTypes;
  std::optional<Settings> loaded = exportSettings(options, err);
  if (!loaded) return 1;
  const Settings& settings = *loaded;
  PluginServerConnection pluginServer(settings);
  compiler::CompileOptions compile = exportCompile(options, settings, pluginServer, types);
  compile.afterCompile = [&](const compiler::CompiledModel& model) -> std::optional<std::string> {
    ResourceSet set;
    if (std::optional<std::string> error = makeResourceSet(model, types, settings, options, set, err)) return error;
    return ready(model, set, settings);
  };
  return compiler::runCompile(compile, out, err) == compiler::CompileStatus::Success ? 0 : 1;
}

std::optional<std::string> reserveAndPush(RestClient& client, const PushOptions& options,
                                          const compiler::ProjectConfig& project, const ResourceSet& set,
                                          long long& version, std::ostream& err) {
  if (std::optional<std::string> error = reserveVersion(client, version)) return error;
  return pushResources(client, options, project, set, version, err);
}

int runExport(const ExportOptions& options, std::ostream& out, std::ostream& err) {
  static const compiler::ResourceTypeRegistry kNoTypes;
  const compiler::ResourceTypeRegistry& types = options.types ? *options.types : kNoTypes;
  const bool toServer = options.jsonFile.empty();
  std::optional<Settings> loaded = exportSettings(options, err);
  if (!loaded) return 1;
  const Settings& settings = *loaded;
  PushOptions push = options.push;
  push.verbosity = options.compile.verbosity;
  std::unique_ptr<RestClient> client;
  long long version = 0;
  if (toServer) {
    if (const char* removed = std::getenv("INMANTA_REMOVED_RESOURCE_SET_ID"))
      for (auto& w : splitWords(removed)) push.removedSets.push_back(w);
    if (!push.partial && !push.removedSets.empty()) {
      const std::string message =
          "A full export was requested but resource sets were marked for deletion (via the "
          "--delete-resource-set cli option or the INMANTA_REMOVED_RESOURCE_SET_ID env variable). Only partial "
          "exports (--partial) can delete resource sets.";
      // the reference's usage error, as it prints it; a document with --format json
      if (!failureDocument(options.compile, "ExportFailure", message)) err << message << "\n";
      return 1;
    }
    ServerSettings server;
    try {
      server = serverSettings(settings);
      if (server.environment.empty()) {
        err << logLine("exporter", "ERROR", "The environment for this model should be set!") << "\n";
        reportFailure(options.compile, err,
                      "The environment for this model should be set! (config.environment in .inmanta, "
                      "INMANTA_CONFIG_ENVIRONMENT or -e)");
        return 1;
      }
      server.environment = normaliseUuid(server.environment);
    } catch (const std::exception& e) {
      reportFailure(options.compile, err, e.what());
      return 1;
    }
    client = std::make_unique<RestClient>(server);
    if (!push.partial) {
      if (std::optional<std::string> error = reserveVersion(*client, version)) {
        reportFailure(options.compile, err, *error);
        return 1;
      }
    }
  }
  PluginServerConnection pluginServer(settings);
  compiler::CompileOptions compile = exportCompile(options, settings, pluginServer, types);
  compile.afterCompile = [&](const compiler::CompiledModel& model) -> std::optional<std::string> {
    ResourceSet set;
    if (std::optional<std::string> error = makeResourceSet(model, types, settings, options, set, err)) return error;
    if (toServer) return pushResources(*client, push, model.project, set, version, err);
    std::string text;
    try {
      text = resourcesJson(set.resources);
    } catch (const ExportError& e) {
      return std::string(e.what());  // a field's value JSON cannot hold (a module's Python object)
    }
    if (!writeFileWhole(options.jsonFile, text, err)) return "Unable to write the export to " + options.jsonFile;
    return std::nullopt;
  };
  compiler::CompileStatus status = compiler::runCompile(compile, out, err);
  // a failed run leaves an existing -j file as it was and creates none (issue 32; the reference
  // writes `[]` after a failed compile, export spec 2.2)
  return status == compiler::CompileStatus::Success ? 0 : 1;
}

}  // namespace inmanta::exporter
