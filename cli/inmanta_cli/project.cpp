// inmanta-cli project list/show/create/modify/delete (the reference's `project` group, v1 API).
#include <iostream>

#include "cli/inmanta_cli/session.h"

namespace inmanta::cli::client {

namespace {

// The two-column table of one project the reference prints after show, create and modify.
void printProject(const json& project) {
  printTable({"Name", "Value"}, {{"ID", field(project, "id")}, {"Name", field(project, "name")}});
}

void printProjectOr(bool asJson, const json& project) {
  if (asJson) printJson(project);
  else printProject(project);
}

struct ProjectOptions {
  std::string project, name;
  bool json = false;
};

}  // namespace

void addProjectCommands(CLI::App& root, Session& session) {
  CLI::App* group = root.add_subcommand("project", "Subcommand to manage projects");
  group->require_subcommand(1);
  auto o = std::make_shared<ProjectOptions>();

  CLI::App* list = group->add_subcommand("list", "List all projects");
  addJsonFlag(*list, o->json);
  list->callback([&session, o] {
    json projects = session.requestKey("GET", "/api/v1/project", "projects");
    if (o->json) return printJson(projects);
    if (projects.empty()) {
      std::cerr << "No projects defined.\n";
      return;
    }
    std::vector<std::vector<std::string>> rows;
    for (const json& p : projects) rows.push_back({field(p, "id"), field(p, "name")});
    printTable({"ID", "Name"}, rows);
  });

  CLI::App* show = group->add_subcommand("show", "Show the details of a single project");
  show->add_option("project", o->project, "The id or name of the project to show")->required();
  addJsonFlag(*show, o->json);
  show->callback([&session, o] {
    std::string id = session.projectId(o->project);
    printProjectOr(o->json, session.requestKey("GET", "/api/v1/project/" + id, "project"));
  });

  CLI::App* create = group->add_subcommand("create", "Create a new project on the server");
  create->add_option("-n,--name", o->name, "The name of the new project")->required();
  addJsonFlag(*create, o->json);
  create->callback([&session, o] {
    printProjectOr(o->json, session.requestKey("PUT", "/api/v1/project", "project", {{"name", o->name}}));
  });

  CLI::App* modify = group->add_subcommand("modify", "Modify an existing project");
  modify->add_option("-n,--name", o->name, "The new name of the project")->required();
  modify->add_option("project", o->project, "The id or name of the project to modify")->required();
  addJsonFlag(*modify, o->json);
  modify->callback([&session, o] {
    std::string id = session.projectId(o->project);
    printProjectOr(o->json, session.requestKey("POST", "/api/v1/project/" + id, "project", {{"name", o->name}}));
  });

  CLI::App* remove = group->add_subcommand("delete", "Delete an existing project");
  remove->add_option("project", o->project, "The id or name of the project to delete")->required();
  remove->callback([&session, o] {
    std::string id = session.projectId(o->project);
    session.request("DELETE", "/api/v1/project/" + id, nullptr, "", "project");
    std::cout << "Project successfully deleted\n";
  });
}

}  // namespace inmanta::cli::client
