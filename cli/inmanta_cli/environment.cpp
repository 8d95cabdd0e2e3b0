// inmanta-cli environment create/list/show/modify/delete/save and environment setting
// list/get/set/delete (the reference's `environment` group).
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

#include "cli/inmanta_cli/session.h"

namespace inmanta::cli::client {

namespace {

struct EnvironmentOptions {
  std::string environment, name, project, repoUrl, branch = "master", format, key, value;
  bool save = false, json = false;
};

void printEnvironment(const json& env) {
  printTable({"ID", "Name", "Repository URL", "Branch Name"},
             {{field(env, "id"), field(env, "name"), field(env, "repo_url"), field(env, "repo_branch")}});
}

// The .inmanta of the reference's `environment save` and `create --save`: the environment and the
// server, for the compiler's and for this client's transport. An existing file is only replaced
// when the user says so.
void saveConfig(Session& session, const json& env) {
  const exporter::ServerSettings& s = session.settings();
  std::string text = "\n[config]\nfact-expire = 1800\nenvironment=" + field(env, "id") +
                     "\n\n[compiler_rest_transport]\nhost=" + s.host + "\nport=" + std::to_string(s.port) +
                     "\n\n[cmdline_rest_transport]\nhost=" + s.host + "\nport=" + std::to_string(s.port) + "\n";
  if (std::filesystem::exists(".inmanta")) {
    std::cout << ".inmanta exists, do you want to overwrite it? [y/N]: " << std::flush;
    std::string answer;
    if (!std::getline(std::cin, answer)) {
      std::cout << "\n";
      throw CliError("Aborted!");
    }
    if (answer != "y" && answer != "Y" && answer != "yes" && answer != "Yes" && answer != "YES") {
      std::cerr << "not writing config\n";
      return;
    }
  }
  std::ofstream out(".inmanta", std::ios::trunc);
  out << text;
  out.close();
  if (!out) throw CliError("could not write .inmanta in the current folder");
}

// `format` with `{field}` replaced by the environment's fields (Python's str.format for plain
// names; `{{` and `}}` are braces).
std::string applyFormat(const std::string& format, const json& env) {
  std::string out;
  for (std::size_t i = 0; i < format.size(); ++i) {
    char c = format[i];
    if ((c == '{' || c == '}') && i + 1 < format.size() && format[i + 1] == c) {
      out += c;
      ++i;
    } else if (c == '{') {
      std::size_t end = format.find('}', i);
      if (end == std::string::npos) throw CliError("Single '{' encountered in format string");
      std::string name = format.substr(i + 1, end - i - 1);
      // `project` as the reference's help names it; the server's field is project_id
      std::string key = name == "project" && !env.contains("project") ? "project_id" : name;
      if (!env.contains(key)) throw CliError("Unknown field in format string: " + name);
      out += field(env, key);
      i = end;
    } else if (c == '}') {
      throw CliError("Single '}' encountered in format string");
    } else out += c;
  }
  return out;
}

void addSettingCommands(CLI::App& group, Session& session, const std::shared_ptr<EnvironmentOptions>& o) {
  CLI::App* setting = group.add_subcommand("setting", "Subcommand to manage environment settings");
  setting->require_subcommand(1);

  CLI::App* list = setting->add_subcommand("list", "List settings of an environment");
  addEnvironmentOption(*list, o->environment);
  addJsonFlag(*list, o->json);
  list->callback([&session, o] {
    std::string tid = session.environmentId(o->environment);
    json answer = session.request("GET", "/api/v1/environment_settings", nullptr, tid, "environment settings");
    if (o->json) return printJson(answer);
    json settings = answer.value("settings", json::object());
    std::map<std::string, json> metadata;  // sorted by key, as the reference lists them
    json definitions = answer.value("metadata", json::object());
    for (const auto& [key, meta] : definitions.items()) metadata[key] = meta;
    std::vector<std::vector<std::string>> rows;
    for (const auto& [key, meta] : metadata)
      rows.push_back({key, settings.contains(key) ? pythonStr(settings[key]) : "",
                      meta.contains("default") ? pythonStr(meta["default"]) : "", field(meta, "type"),
                      field(meta, "doc")});
    std::cout << "Settings for environment " << tid << "\n";
    printTable({"Key", "Value", "Default value", "Type", "Help"}, rows);
  });

  CLI::App* set = setting->add_subcommand("set", "Adjust an environment setting");
  addEnvironmentOption(*set, o->environment);
  set->add_option("-k,--key", o->key, "The key to set")->required();
  set->add_option("-o,--value", o->value, "The value to set")->required();
  set->callback([&session, o] {
    std::string tid = session.environmentId(o->environment);
    session.request("POST", "/api/v1/environment_settings/" + urlEncode(o->key), {{"value", o->value}}, tid,
                    "environment setting " + o->key);
  });

  CLI::App* get = setting->add_subcommand("get", "Get an environment setting");
  addEnvironmentOption(*get, o->environment);
  get->add_option("-k,--key", o->key, "The key to get")->required();
  addJsonFlag(*get, o->json);
  get->callback([&session, o] {
    std::string tid = session.environmentId(o->environment);
    json answer = session.request("GET", "/api/v1/environment_settings/" + urlEncode(o->key), nullptr, tid,
                                  "environment setting " + o->key);
    if (o->json) return printJson(answer.value("value", json()));
    std::cout << pythonStr(answer.value("value", json())) << "\n";
  });

  CLI::App* remove = setting->add_subcommand("delete", "Delete an environment setting");
  addEnvironmentOption(*remove, o->environment);
  remove->add_option("-k,--key", o->key, "The key to delete")->required();
  remove->callback([&session, o] {
    std::string tid = session.environmentId(o->environment);
    session.request("DELETE", "/api/v1/environment_settings/" + urlEncode(o->key), nullptr, tid,
                    "environment setting " + o->key);
  });
}

}  // namespace

void addEnvironmentCommands(CLI::App& root, Session& session) {
  CLI::App* group = root.add_subcommand("environment", "Subcommand to manage environments");
  group->require_subcommand(1);
  auto o = std::make_shared<EnvironmentOptions>();

  CLI::App* create = group->add_subcommand("create", "Create a new environment");
  create
      ->add_option("-n,--name", o->name, "The name of the new environment. The name should be unique for each project.")
      ->required();
  create->add_option("-p,--project", o->project, "The id (or name) of the project this environment belongs to")
      ->required();
  create->add_option("-r,--repo-url", o->repoUrl, "The url of the repository that contains the configuration model");
  create->add_option("-b,--branch", o->branch, "The branch in the repository that contains the configuration model")
      ->capture_default_str();
  create->add_flag("-s,--save", o->save, "Save the ID of the environment and the server to the .inmanta config file");
  addJsonFlag(*create, o->json);
  create->callback([&session, o] {
    std::string projectId = session.projectId(o->project);
    json env = session.requestKey(
        "PUT", "/api/v1/environment", "environment",
        {{"project_id", projectId}, {"name", o->name}, {"repository", o->repoUrl}, {"branch", o->branch}});
    json project = session.requestKey("GET", "/api/v1/project/" + projectId, "project");
    if (o->save) saveConfig(session, env);
    if (o->json) return printJson(env);
    printTable({"Environment ID", "Environment name", "Project ID", "Project name"},
               {{field(env, "id"), field(env, "name"), field(project, "id"), field(project, "name")}});
  });

  CLI::App* list = group->add_subcommand("list", "List all environments");
  addJsonFlag(*list, o->json);
  list->callback([&session, o] {
    json environments = session.requestKey("GET", "/api/v1/environment", "environments");
    if (o->json) return printJson(environments);
    std::map<std::string, std::string> projectNames;  // each project asked for once
    std::vector<std::vector<std::string>> rows;
    for (const json& env : environments) {
      std::string projectId = field(env, "project");
      auto it = projectNames.find(projectId);
      if (it == projectNames.end())
        it =
            projectNames
                .emplace(projectId, field(session.requestKey("GET", "/api/v1/project/" + projectId, "project"), "name"))
                .first;
      rows.push_back({it->second, projectId, field(env, "name"), field(env, "id")});
    }
    if (rows.empty()) std::cout << "No environments defined.\n";
    else printTable({"Project name", "Project ID", "Environment", "Environment ID"}, rows);
  });

  CLI::App* show = group->add_subcommand("show", "Show details of an environment");
  show->add_option("environment", o->environment, "ID or name of the environment to show")->required();
  show->add_option("--format", o->format,
                   "Instead of outputting a table, use the supplied format string. Accepts Python format syntax. "
                   "Supported fields are 'id', 'name', 'project', 'repo_url', 'repo_branch'");
  addJsonFlag(*show, o->json);
  show->callback([&session, o] {
    std::string id = session.environmentId(o->environment);
    json env = session.requestKey("GET", "/api/v2/environment/" + id, "data", nullptr, "", "environment");
    if (o->json) printJson(env);
    else if (!o->format.empty()) std::cout << applyFormat(o->format, env) << "\n";
    else printEnvironment(env);
  });

  CLI::App* save =
      group->add_subcommand("save", "Save the ID of the environment and the server to the .inmanta config file");
  save->add_option("environment", o->environment, "ID or name of the environment to write the config for")->required();
  save->callback([&session, o] {
    std::string id = session.environmentId(o->environment);
    saveConfig(session, session.requestKey("GET", "/api/v2/environment/" + id, "data", nullptr, "", "environment"));
  });

  CLI::App* modify = group->add_subcommand("modify", "Modify an existing environment");
  modify->add_option("-n,--name", o->name, "The name of the new environment")->required();
  modify->add_option("-r,--repo-url", o->repoUrl, "The url of the repository that contains the configuration model");
  modify->add_option("-b,--branch", o->branch, "The branch in the repository that contains the configuration model")
      ->capture_default_str();
  modify->add_option("environment", o->environment, "ID or name of the environment to modify")->required();
  addJsonFlag(*modify, o->json);
  modify->callback([&session, o] {
    std::string id = session.environmentId(o->environment);
    json env = session.requestKey("POST", "/api/v1/environment/" + id, "environment",
                                  {{"name", o->name}, {"repository", o->repoUrl}, {"branch", o->branch}});
    if (o->json) printJson(env);
    else printEnvironment(env);
  });

  CLI::App* remove = group->add_subcommand("delete", "Delete an existing environment");
  remove->add_option("environment", o->environment, "ID or name of the environment to delete")->required();
  remove->callback([&session, o] {
    std::string id = session.environmentId(o->environment);
    session.request("DELETE", "/api/v1/environment/" + id, nullptr, "", "environment");
    std::cout << "Environment successfully deleted\n";
  });

  addSettingCommands(*group, session, o);
}

}  // namespace inmanta::cli::client
