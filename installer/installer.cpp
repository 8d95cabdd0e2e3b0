#include "installer/installer.h"

#include <algorithm>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "compiler/diag/diagnostic.h"
#include "compiler/parse/parser.h"
#include "installer/git.h"

namespace fs = std::filesystem;
using inmanta::compiler::CompileError;
using inmanta::compiler::ModuleConfig;
using inmanta::compiler::ProjectConfig;
using inmanta::compiler::Requirement;
using inmanta::compiler::Version;

namespace inmanta::installer {

namespace {

std::string join(const std::vector<std::string>& items, const std::string& sep) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : sep) + s;
  return out;
}

std::string describe(const Constraint& c) { return "`" + c.requirement.str() + "` (set by " + c.setBy + ")"; }

bool isUrl(const std::string& s) {
  if (s.find("://") != std::string::npos) return true;
  // scp-like git@host:path: a colon before the first slash
  size_t colon = s.find(':');
  size_t slash = s.find('/');
  return colon != std::string::npos && colon > 1 && (slash == std::string::npos || colon < slash);
}

// One module the resolver has seen.
struct Entry {
  std::string name;
  ModuleStatus::State state = ModuleStatus::State::Missing;
  std::string dir;
  std::string source;
  std::optional<ModuleConfig> config;
  std::optional<GitRepository> git;  // set when this run chooses the checkout
  std::string tag;                   // the tag checked out by this run
  std::string previousVersion;
  int selections = 0;
  bool loaded = false;  // its own requirements are in the constraint table
};

class Resolver {
 public:
  Resolver(ProjectConfig project, const InstallOptions& options)
      : project_(std::move(project)),
        options_(options),
        allowPre_(options.allowPrereleases || project_.allowPrereleases()) {}

  ResolveResult run(std::ostream& progress);

 private:
  std::string rel(const std::string& path) const {
    std::string r = fs::path(path).lexically_relative(project_.dir).string();
    return r.empty() || r.rfind("..", 0) == 0 ? path : r;
  }
  [[noreturn]] void fail(const std::string& message) const { throw ProjectError(message); }
  std::string render(const CompileError& e) const { return compiler::renderDiagnostic(e.diagnostic(), sources_); }

  std::vector<std::pair<std::string, int>> importsOf(const std::string& file);
  std::vector<std::string> moduleImports(const Entry& e);
  void enqueue(const std::string& name) {
    if (queued_.insert(name).second) queue_.push_back(name);
  }
  std::vector<Constraint> constraintsOn(const std::string& name) const;
  void process(const std::string& name);
  void locate(Entry& e);
  void cloneModule(Entry& e);
  void select(Entry& e);
  void loadRequirements(Entry& e);
  // every constraint holds, and a pre-release only when asked for (also without constraints)
  bool acceptable(const Version& v, const std::vector<Constraint>& cons) const {
    bool pre = allowPre_ || std::any_of(cons.begin(), cons.end(),
                                        [](const Constraint& c) { return c.requirement.namesPrerelease(); });
    if (v.isPrerelease() && !pre) return false;
    return std::all_of(cons.begin(), cons.end(), [&](const Constraint& c) { return c.requirement.contains(v, pre); });
  }
  std::string conflict(const std::string& name, const std::vector<Version>& versions, const std::string& where) const;

  ProjectConfig project_;
  InstallOptions options_;
  bool allowPre_;
  compiler::SourceManager sources_;
  compiler::ast::Context ctx_;
  std::map<std::string, Entry> entries_;
  // target module -> (owner, constraint); the owner is "" for project.yml
  std::map<std::string, std::vector<std::pair<std::string, Constraint>>> constraints_;
  std::map<std::string, std::string> wantedBy_;  // first reason a module is needed, for messages
  // module -> the modules its model imports
  std::map<std::string, std::vector<std::string>> importsOfModule_;
  std::deque<std::string> queue_;
  std::set<std::string> queued_;
  std::vector<std::string> cloned_;  // folders this run created, removed again if it fails

 public:
  // A failed install leaves no half-installed module behind.
  void removeClones() {
    for (const std::string& dir : cloned_) {
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
  }
};

std::vector<std::pair<std::string, int>> Resolver::importsOf(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) fail("cannot read " + file);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  std::string text = compiler::normaliseNewlines(buffer.str());
  std::string shown = rel(file);
  compiler::FileId id = sources_.add(file, shown == file ? file : "./" + shown, text);  // as the compiler shows it
  std::vector<std::pair<std::string, int>> out;
  try {
    compiler::ast::File* tree = compiler::parseFile(ctx_, sources_, id, [](const compiler::Diagnostic&) {});
    for (const compiler::ast::Stmt* stmt : tree->statements)
      if (stmt->kind == compiler::ast::Kind::Import) {
        auto* imp = static_cast<const compiler::ast::Import*>(stmt);
        std::string ns(imp->module.text());
        out.emplace_back(ns.substr(0, ns.find("::")), static_cast<int>(imp->loc().line));
      }
  } catch (const CompileError& e) {
    fail(render(e));
  }
  return out;
}

std::vector<std::string> Resolver::moduleImports(const Entry& e) {
  std::set<std::string> names;
  fs::path model = fs::path(e.dir) / "model";
  std::vector<std::string> files;
  std::error_code ec;
  if (fs::is_directory(model, ec))
    for (auto it = fs::recursive_directory_iterator(model, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec))
      if (it->is_regular_file() && it->path().extension() == ".cf") files.push_back(it->path().string());
  std::sort(files.begin(), files.end());
  for (const std::string& f : files)
    for (auto& [name, line] : importsOf(f)) {
      if (name != e.name && !wantedBy_.count(name))
        wantedBy_[name] = "imported at " + rel(f) + ":" + std::to_string(line);
      names.insert(name);
    }
  names.erase(e.name);
  return {names.begin(), names.end()};
}

std::vector<Constraint> Resolver::constraintsOn(const std::string& name) const {
  std::vector<Constraint> out;
  auto it = constraints_.find(name);
  if (it != constraints_.end())
    for (const auto& [owner, c] : it->second) out.push_back(c);
  return out;
}

std::string repoUrlForImpl(const std::string& repoUrl, const std::string& name, const std::string& projectDir) {
  std::string url = repoUrl;
  bool templated = false;
  for (const char* placeholder : {"{}", "{0}"}) {
    size_t pos = url.find(placeholder);
    if (pos != std::string::npos) {
      url.replace(pos, std::string_view(placeholder).size(), name);
      templated = true;
    }
  }
  if (!templated) {
    if (!url.empty() && url.back() != '/' && url.back() != ':') url += '/';
    url += name;
  }
  if (!isUrl(url)) url = (fs::path(projectDir) / url).lexically_normal().string();
  return url;
}

void Resolver::cloneModule(Entry& e) {
  std::string why = wantedBy_.count(e.name) ? " (" + wantedBy_[e.name] + ")" : "";
  if (project_.downloadpath.empty())
    fail("module " + e.name + why + " is not installed, and " + project_.configFile +
         " sets neither downloadpath nor modulepath: there is nowhere to install it");
  if (project_.repos.empty()) {
    std::vector<std::string> searched;
    for (const auto& d : project_.modulepath) searched.push_back(rel(d));
    fail("module " + e.name + why +
         " is not on the modulepath (searched: " + (searched.empty() ? std::string("nothing") : join(searched, ", ")) +
         ") and " + project_.configFile + " lists no repo to install it from");
  }
  fs::path dest = fs::path(project_.downloadpath) / e.name;
  std::error_code ec;
  if (fs::exists(dest, ec) && !fs::is_empty(dest, ec))
    fail("cannot install module " + e.name + " into " + rel(dest.string()) +
         ": the folder exists but holds no module (no module.yml); remove it or put the module there");
  fs::create_directories(project_.downloadpath, ec);
  std::vector<std::string> errors;
  for (const compiler::RepoEntry& repo : project_.repos) {
    std::string url = repoUrlForImpl(repo.url, e.name, project_.dir);
    try {
      e.git = GitRepository::clone(url, dest.string());
      cloned_.push_back(dest.string());
      e.source = url;
      e.dir = dest.string();
      e.state = ModuleStatus::State::Installed;
      return;
    } catch (const GitError& err) {
      errors.push_back(err.what());
    }
  }
  fail("cannot install module " + e.name + why + ": " + join(errors, "; "));
}

std::string Resolver::conflict(const std::string& name, const std::vector<Version>& versions,
                               const std::string& where) const {
  std::vector<Constraint> cons = constraintsOn(name);
  std::vector<std::string> available;
  for (auto it = versions.rbegin(); it != versions.rend(); ++it) available.push_back(it->str());
  std::string list = available.empty() ? "no version tags" : "versions " + join(available, ", ");
  auto matchesAny = [&](const std::vector<const Constraint*>& set) {
    for (const Version& v : versions) {
      std::vector<Constraint> subset;
      for (const Constraint* c : set) subset.push_back(*c);
      if (acceptable(v, subset)) return true;
    }
    return false;
  };
  for (const Constraint& c : cons)
    if (!matchesAny({&c})) return "no version of " + name + " satisfies " + describe(c) + ": " + where + " has " + list;
  for (size_t i = 0; i < cons.size(); ++i)
    for (size_t j = i + 1; j < cons.size(); ++j)
      if (!matchesAny({&cons[i], &cons[j]}))
        return "conflicting requirements on " + name + ": " + describe(cons[i]) + " and " + describe(cons[j]) +
               "; no version satisfies both (" + where + " has " + list + ")";
  std::vector<std::string> all;
  for (const Constraint& c : cons) all.push_back(describe(c));
  std::string hint = std::any_of(versions.begin(), versions.end(), [](const Version& v) { return v.isPrerelease(); })
                         ? "; pre-releases are only installed with --pre or install_mode: prerelease"
                         : "";
  if (cons.empty()) return "no release of " + name + " to install: " + where + " has " + list + hint;
  return "no version of " + name + " satisfies all of " + join(all, ", ") + " (" + where + " has " + list + ")" + hint;
}

void Resolver::select(Entry& e) {
  if (++e.selections > 50) fail("the requirements on " + e.name + " keep changing the chosen version; giving up");
  if (project_.installMode == "master") {
    // install_mode master (deprecated in the reference): the master branch, whatever the tags and
    // constraints say (a compile warns when the version there breaks a constraint)
    if (e.tag != "master") {
      try {
        e.git->checkoutBranch("master", e.state == ModuleStatus::State::Installed);
      } catch (const GitError& err) {
        fail("cannot install module " + e.name + " from " + (e.source.empty() ? rel(e.dir) : e.source) + ": " +
             err.what());
      }
      e.tag = "master";
      e.loaded = false;
    }
    return;
  }
  std::vector<std::pair<Version, std::string>> tagged;
  for (const std::string& tag : e.git->tags())
    if (auto v = Version::parse(tag)) tagged.emplace_back(*v, tag);
  std::sort(tagged.begin(), tagged.end(), [](const auto& a, const auto& b) { return b.first < a.first; });
  std::vector<Constraint> cons = constraintsOn(e.name);
  std::string where = e.source.empty() ? rel(e.dir) : e.source;
  if (tagged.empty()) {
    bool constrained =
        std::any_of(cons.begin(), cons.end(), [](const Constraint& c) { return !c.requirement.specifiers.empty(); });
    if (constrained) fail(conflict(e.name, {}, where));
    if (e.state == ModuleStatus::State::Installed && e.tag.empty()) {
      e.git->checkoutHead();  // no version tags and no constraint: the default branch
      e.tag = "HEAD";
      e.loaded = false;
    }
    return;
  }
  std::vector<std::string> skipped;
  for (const auto& [version, tag] : tagged) {
    if (!acceptable(version, cons)) continue;
    std::optional<std::string> yml = e.git->fileAtTag(tag, "module.yml");
    if (!yml) {
      skipped.push_back(tag + " has no module.yml");
      continue;
    }
    try {
      ModuleConfig atTag = compiler::parseModuleConfig(*yml, where + "@" + tag + ":module.yml", e.dir);
      compiler::checkCompilerVersion(atTag);
    } catch (const CompileError& err) {
      skipped.push_back(tag + ": " + render(err));
      continue;
    }
    if (tag != e.tag) {
      e.git->checkoutTag(tag, e.state == ModuleStatus::State::Installed);
      e.tag = tag;
      e.loaded = false;
    }
    return;
  }
  std::vector<Version> versions;
  for (const auto& t : tagged) versions.push_back(t.first);
  std::string message = conflict(e.name, versions, where);
  if (!skipped.empty()) message += "; skipped: " + join(skipped, "; ");
  fail(message);
}

void Resolver::locate(Entry& e) {
  std::string dir = compiler::findModuleDir(project_, e.name);
  if (dir.empty() && !project_.downloadpath.empty()) {
    fs::path inDownload = fs::path(project_.downloadpath) / e.name;
    if (fs::is_regular_file(inDownload / "module.yml")) dir = inDownload.string();
  }
  if (!dir.empty()) {
    e.dir = dir;
    bool onModulepath = std::any_of(project_.modulepath.begin(), project_.modulepath.end(),
                                    [&](const std::string& m) { return fs::path(dir).parent_path() == fs::path(m); });
    if (e.name == "std" && !onModulepath) {
      e.state = ModuleStatus::State::Bundled;
      e.source = "bundled with inmanta-cpp";
      return;
    }
    e.state = ModuleStatus::State::Present;
    if (options_.mode == ResolveMode::Update) {
      if (auto repo = GitRepository::open(dir)) {
        std::string url = repo->remoteUrl();
        if (!url.empty()) {
          try {
            e.previousVersion = compiler::loadModuleConfig(dir).version.str();
          } catch (const CompileError&) {
          }
          repo->fetch();
          e.git = std::move(repo);
          e.source = url;
          e.state = ModuleStatus::State::Updated;
          select(e);
        }
      }
    }
    return;
  }
  if (options_.mode == ResolveMode::Inspect) return;  // stays Missing
  cloneModule(e);
  select(e);
}

void Resolver::loadRequirements(Entry& e) {
  try {
    e.config = compiler::loadModuleConfig(e.dir);
  } catch (const CompileError& err) {
    fail("module " + e.name + (e.source.empty() ? "" : " from " + e.source) + ": " + render(err));
  }
  std::set<std::string> touched;
  for (auto& [target, list] : constraints_) {
    size_t before = list.size();
    std::erase_if(list, [&](const auto& owned) { return owned.first == e.name; });
    if (list.size() != before) touched.insert(target);
  }
  std::string yml = rel((fs::path(e.dir) / "module.yml").string());
  for (const compiler::RequirementEntry& r : e.config->requires_) {
    Constraint c{r.requirement,
                 "module " + e.name + " " + e.config->version.str() + " (" + yml + ":" + std::to_string(r.line) + ")"};
    constraints_[r.requirement.name].emplace_back(e.name, c);
    touched.insert(r.requirement.name);
    if (!wantedBy_.count(r.requirement.name)) wantedBy_[r.requirement.name] = "required by " + c.setBy;
    enqueue(r.requirement.name);
  }
  if (e.state != ModuleStatus::State::Bundled) {
    importsOfModule_[e.name] = moduleImports(e);
    for (const std::string& dep : importsOfModule_[e.name]) enqueue(dep);
  }
  for (const std::string& t : touched)
    if (entries_.count(t)) enqueue(t);
  e.loaded = true;
}

void Resolver::process(const std::string& name) {
  auto [it, fresh] = entries_.try_emplace(name);
  Entry& e = it->second;
  if (fresh) {
    e.name = name;
    locate(e);
  } else if (e.git && options_.mode != ResolveMode::Inspect) {
    // new constraints may rule out the chosen tag
    std::vector<Constraint> cons = constraintsOn(name);
    auto version = e.config ? std::optional<Version>(e.config->version) : std::nullopt;
    bool ok = version && std::all_of(cons.begin(), cons.end(),
                                     [&](const Constraint& c) { return c.requirement.contains(*version, true); });
    if (!ok) select(e);
  }
  if (e.state != ModuleStatus::State::Missing && !e.loaded) loadRequirements(e);
}

ResolveResult Resolver::run(std::ostream& progress) {
  ResolveResult result;
  for (const compiler::RequirementEntry& r : project_.requires_) {
    Constraint c{r.requirement, rel(project_.configFile) + ":" + std::to_string(r.line)};
    constraints_[r.requirement.name].emplace_back("", c);
    if (!wantedBy_.count(r.requirement.name)) wantedBy_[r.requirement.name] = "required by " + c.setBy;
  }
  std::string mainFile = (fs::path(project_.dir) / "main.cf").string();
  std::vector<std::string> roots{"std"};
  if (fs::is_regular_file(mainFile))
    for (auto& [name, line] : importsOf(mainFile)) {
      if (!wantedBy_.count(name)) wantedBy_[name] = "imported at main.cf:" + std::to_string(line);
      roots.push_back(name);
    }
  std::set<std::string> seenRoots;
  for (const std::string& r : roots)
    if (seenRoots.insert(r).second) result.mainImports.push_back(r);
  if (options_.mode != ResolveMode::Inspect && !project_.downloadpath.empty() &&
      std::find(project_.modulepath.begin(), project_.modulepath.end(), project_.downloadpath) ==
          project_.modulepath.end())
    progress << "warning: downloadpath " << rel(project_.downloadpath)
             << " is not on the modulepath: the compiler will not find modules installed there\n";

  for (const std::string& r : roots) enqueue(r);
  for (const auto& r : project_.requires_) enqueue(r.requirement.name);
  while (!queue_.empty()) {
    std::string name = queue_.front();
    queue_.pop_front();
    queued_.erase(name);
    process(name);
  }

  // what the compile loads: main.cf's imports and, transitively, theirs (not modules only
  // `requires` names)
  std::set<std::string> imported;
  std::deque<std::string> toVisit(result.mainImports.begin(), result.mainImports.end());
  while (!toVisit.empty()) {
    std::string name = toVisit.front();
    toVisit.pop_front();
    if (!imported.insert(name).second) continue;
    auto it = importsOfModule_.find(name);
    if (it != importsOfModule_.end()) toVisit.insert(toVisit.end(), it->second.begin(), it->second.end());
  }

  std::vector<std::string> unsatisfied;
  for (auto& [name, e] : entries_) {
    ModuleStatus s;
    s.name = name;
    s.imported = imported.count(name) > 0;
    s.state = e.state;
    s.dir = e.dir;
    s.source = e.source;
    s.previousVersion = e.previousVersion;
    s.constraints = constraintsOn(name);
    if (e.config) {
      s.version = e.config->version.str();
      for (const Constraint& c : s.constraints)
        if (!c.requirement.contains(e.config->version, true)) {
          s.satisfied = false;
          if (options_.mode != ResolveMode::Inspect) {
            std::string hint =
                e.state == ModuleStatus::State::Bundled
                    ? "; std is bundled with inmanta-cpp (its plugins are built in): put a std module on the "
                      "modulepath to use another version"
                : options_.mode == ResolveMode::Install
                    ? "; `inmanta project update` moves installed modules to the newest allowed version"
                    : "; it is not a git clone with a remote, so `inmanta project update` cannot move it";
            unsatisfied.push_back("module " + name + " " + s.version + " at " + rel(e.dir) + " does not satisfy " +
                                  describe(c) + hint);
          }
        }
      if (options_.mode != ResolveMode::Inspect) {
        try {
          compiler::checkCompilerVersion(*e.config);
        } catch (const CompileError& err) {
          unsatisfied.push_back(render(err));
        }
      }
    } else {
      s.satisfied = false;
    }
    result.modules.push_back(std::move(s));
  }
  if (!unsatisfied.empty()) fail(join(unsatisfied, "\n"));

  if (options_.mode != ResolveMode::Inspect)
    for (const ModuleStatus& s : result.modules) {
      progress << s.name << " " << s.version << " ";
      switch (s.state) {
        case ModuleStatus::State::Installed: progress << "installed from " << s.source << " into " << rel(s.dir); break;
        case ModuleStatus::State::Updated:
          if (s.previousVersion == s.version) progress << "up to date with " << s.source;
          else
            progress << "updated from " << (s.previousVersion.empty() ? "?" : s.previousVersion) << " (" << s.source
                     << ")";
          break;
        case ModuleStatus::State::Present: progress << "present at " << rel(s.dir); break;
        case ModuleStatus::State::Bundled: progress << "bundled with inmanta-cpp"; break;
        case ModuleStatus::State::Missing: progress << "missing"; break;
      }
      progress << "\n";
    }
  result.project = std::move(project_);
  return result;
}

}  // namespace

std::string repoUrlFor(const std::string& repoUrl, const std::string& name, const std::string& projectDir) {
  return repoUrlForImpl(repoUrl, name, projectDir);
}

std::string locateProject(const std::string& start) {
  std::string from = start.empty() ? fs::current_path().string() : start;
  auto dir = compiler::findProjectDir(from);
  if (!dir)
    throw ProjectError("Unable to find an inmanta project (project.yml expected) in " + from +
                       " or any folder above it");
  return *dir;
}

ResolveResult resolveProject(const InstallOptions& options, std::ostream& progress) {
  std::string dir = locateProject(options.projectDir);
  ProjectConfig project;
  try {
    project = compiler::loadProjectConfig(dir);
  } catch (const CompileError& e) {
    throw ProjectError(compiler::renderDiagnostic(e.diagnostic(), compiler::SourceManager()));
  }
  for (const std::string& w : project.warnings) progress << "ProjectConfigurationWarning: " << w << "\n";
  Resolver resolver(std::move(project), options);
  try {
    return resolver.run(progress);
  } catch (const GitError& e) {
    resolver.removeClones();
    throw ProjectError(e.what());
  } catch (...) {
    resolver.removeClones();
    throw;
  }
}

}  // namespace inmanta::installer
