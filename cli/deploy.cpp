// `inmanta deploy`: compile here, then libinmanta_server.so does the rest in this process — the
// store under data/deploy, the REST server on 127.0.0.1, the export to it with the exporter's own
// client, the scheduler and the handlers, the report (orchestrator spec §9.2, embedded/deploy).
#include <unistd.h>

#include <cstdlib>
#include <iostream>

#include "cli/builtin_modules.h"
#include "cli/command.h"
#include "cli/server_module.h"
#include "exporter/export.h"
#include "exporter/rest_client.h"
#include "exporter/settings.h"
#include "util/digest.h"

namespace inmanta::cli {

namespace {

class DeployCommand : public Command {
 public:
  CLI::App* add(CLI::App& app, GlobalOptions& globals) override {
    CLI::App* cmd = app.add_subcommand(
        "deploy", "Compile the project and make this machine match it, all in this process (state in data/deploy)");
    cmd->add_option("--project", options_.compile.projectDir,
                    "The project folder (default: the nearest folder upwards with a project.yml)");
    cmd->add_option("-f,--file", options_.compile.mainFile,
                    "The main file of the model, relative to the project folder (default: main.cf)");
    cmd->add_flag("--dry-run", deploy_.dryRun, "Show what would change, change nothing");
    cmd->add_flag("--incremental", deploy_.incremental,
                  "Deploy only the resources whose desired state changed (default: check every resource)");
    cmd->add_option("--timeout", deploy_.timeoutSeconds, "Stop waiting after this many seconds (exit 3)")
        ->check(CLI::PositiveNumber);
    cmd->add_flag("--json", deploy_.json, "Print the report as one JSON document on stdout");
    cmd->add_option("--handler-timeout", deploy_.handlerTimeoutSeconds,
                    "Fail a resource whose module (Python) handler runs longer than this many seconds (default 600)")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--listen", deploy_.listen,
                    "Serve the REST API on [ADDR:]PORT while the deploy runs (default: 127.0.0.1, any free port)");
    addLogFlags(*cmd, globals);
    return cmd;
  }

  int run(const GlobalOptions& globals) override {
    BuiltinModules modules;
    prepareExportCompile(options_, modules, globals);
    options_.compile.successBanner = false;
    options_.settings.configFile = globals.configFile;
    options_.settings.configDir = globals.configDir;
    // on a terminal: a live progress line; colour as --color, NO_COLOR, CLICOLOR_FORCE and TERM say
    const char* term = std::getenv("TERM");
    bool dumb = term && std::string(term) == "dumb";
    deploy_.progressBar = isatty(STDOUT_FILENO) && !dumb;
    deploy_.color = useColor(globals.color, STDOUT_FILENO);

    // The compile sees the deploy environment as config>environment (std::environment(),
    // std::getfact), as the reference's deploy exported with `-e <its environment>`. Unless the
    // settings name an environment, its id is made from the [deploy] names: known before the store
    // is opened (a compile error stores nothing, §9.2) and the same on every run.
    try {
      exporter::Settings early = exporter::loadSettings(options_.settings);
      std::optional<std::string> configured = early.get("config", "environment");
      if (!configured || configured->empty()) {
        deploy_.environmentId = util::nameBasedUuid("inmanta deploy\n" +
                                                    early.get("deploy", "project").value_or("deploy") + "\n" +
                                                    early.get("deploy", "environment").value_or("deploy"));
        options_.settings.environment = deploy_.environmentId;
      }
    } catch (const std::exception&) {
      // settings that cannot be read: the compile reports them
    }

    int status = 1;
    auto ready = [&](const compiler::CompiledModel& model, const exporter::ResourceSet& set,
                     const exporter::Settings& settings) -> std::optional<std::string> {
      deploy_.projectDir = model.project.dir;
      deploy_.projectName = settings.get("deploy", "project").value_or("deploy");
      deploy_.environmentName = settings.get("deploy", "environment").value_or("deploy");
      if (model.handlers && model.handlers->run) {
        deploy_.pythonHandlerTypes = model.handlers->types;
        deploy_.runPythonHandler = model.handlers->run;
      }
      deploy_.exportModel = [&](const std::string& host, int port, const std::string& env) {
        return exportTo(host, port, env, model, set);
      };
      server::ServerLaunch launch;
      launch.command = server::ServerLaunch::Command::deploy;
      launch.deploy = &deploy_;
      status = runServerModule(launch, globals, 1);
      return std::nullopt;
    };
    // a compile error prints the compiler's diagnostics and exits 1 before anything is stored
    // with --json, stdout carries the report alone: the model's std::print output goes to stderr
    if (exporter::runCompileToResources(options_, ready, deploy_.json ? std::cerr : std::cout, std::cerr) != 0)
      return 1;
    return status;
  }

 private:
  server::DeployExport exportTo(const std::string& host, int port, const std::string& env,
                                const compiler::CompiledModel& model, const exporter::ResourceSet& set) {
    exporter::ServerSettings server;
    server.host = host;
    server.port = port;
    server.environment = env;
    server.compress = false;
    exporter::RestClient client(server);
    exporter::PushOptions push;
    push.metadata = R"({"message": "Deploy on the CLI", "type": "deploy"})";
    push.verbosity = options_.compile.verbosity;
    push.ownServer = true;
    server::DeployExport result;
    long long version = 0;
    if (std::optional<std::string> error =
            exporter::reserveAndPush(client, push, model.project, set, version, std::cerr))
      result.error = "the export to the embedded server failed: " + *error;
    result.version = version;
    result.resources = set.resources.size();
    return result;
  }

  exporter::ExportOptions options_;
  server::DeployLaunch deploy_;
};

}  // namespace

std::unique_ptr<Command> makeDeployCommand() { return std::make_unique<DeployCommand>(); }

}  // namespace inmanta::cli
