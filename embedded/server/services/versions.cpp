#include "embedded/server/services/versions.h"

#include <algorithm>
#include <deque>
#include <exception>
#include <future>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "embedded/server/errors.h"
#include "util/attribute_hash.h"
#include "util/resource_id.h"

namespace inmanta::server {

namespace {

using nlohmann::json;

// Python's repr of a set of strings, sorted so that the message is stable: {'a', 'b'}
std::string pythonSet(const std::set<std::string>& items) {
  std::string out = "{";
  for (const std::string& item : items) {
    if (out.size() > 1) out += ", ";
    out += "'" + item + "'";
  }
  return out + "}";
}

const std::string& requireString(const json& value, const std::string& what) {
  if (!value.is_string()) throw badRequest(what + " must be a string, not " + value.dump());
  return value.get_ref<const std::string&>();
}

// `requires` of a payload as resource ids without version.
json requiresWithoutVersions(const json& required, const std::string& rid) {
  json out = json::array();
  if (required.is_null()) return out;
  if (!required.is_array()) throw badRequest("requires of " + rid + " must be a list of resource ids");
  for (const json& item : required) {
    const std::string& text = requireString(item, "an element of requires of " + rid);
    std::optional<std::string> id = util::stripVersion(text);
    if (!id) throw badRequest("requires of " + rid + " holds an invalid resource id: " + text);
    out.push_back(*id);
  }
  return out;
}

// A resource of an upload; the payload becomes its attributes (moved, not copied: a version of
// 10,000 resources is stored within 0.3 s).
store::Resource fromPayload(json&& payload) {
  if (!payload.is_object()) throw badRequest("every element of resources must be an object, not " + payload.dump());
  auto idField = payload.find("id");
  if (idField == payload.end()) throw badRequest("a resource has no id: " + payload.dump());
  const std::string& text = requireString(*idField, "the id of a resource");
  std::optional<util::ResourceIdParts> parts = util::parseResourceId(text);
  if (!parts) throw badRequest("Invalid resource id: " + text);
  store::Resource resource;
  resource.resource_id = parts->id();
  resource.resource_type = std::move(parts->type);
  resource.agent = std::move(parts->agent);
  resource.id_attribute = std::move(parts->attribute);
  resource.resource_id_value = std::move(parts->value);
  payload.erase(idField);
  resource.attributes = std::move(payload);
  static const json kNone;
  auto required = resource.attributes.find("requires");
  json ids = requiresWithoutVersions(required == resource.attributes.end() ? kNone : *required, resource.resource_id);
  resource.attributes["requires"] = std::move(ids);
  resource.attribute_hash = util::attributeHash(resource.resource_id, resource.attributes);
  return resource;
}

// fromPayload of every element of `payloads`, in order; the error of the first element that fails.
// A large upload is converted by two threads, a half each: the conversion (the ids, the
// requires, the attribute hash) was an eighth of storing a version of 10,000 resources, on one
// core while the other waited.
std::vector<store::Resource> fromPayloads(json& payloads) {
  const std::size_t count = payloads.size();
  std::vector<store::Resource> out(count);
  // each part stops at its first failure; the first part's failure comes first
  auto convert = [&](std::size_t from, std::size_t to) -> std::exception_ptr {
    try {
      for (std::size_t i = from; i < to; ++i) out[i] = fromPayload(std::move(payloads[i]));
    } catch (...) {
      return std::current_exception();
    }
    return nullptr;
  };
  constexpr std::size_t kSplitFrom = 1000;  // below that, a thread costs more than it saves
  if (count < kSplitFrom) {
    if (std::exception_ptr failed = convert(0, count)) std::rethrow_exception(failed);
    return out;
  }
  std::future<std::exception_ptr> second = std::async(std::launch::async, convert, count / 2, count);
  std::exception_ptr first = convert(0, count / 2);
  std::exception_ptr later = second.get();
  if (first) std::rethrow_exception(first);
  if (later) std::rethrow_exception(later);
  return out;
}

std::vector<store::UnknownParameter> unknownsOf(const json& unknowns) {
  std::vector<store::UnknownParameter> out;
  if (unknowns.is_null()) return out;
  if (!unknowns.is_array()) throw badRequest("unknowns must be a list");
  for (const json& item : unknowns) {
    if (!item.is_object()) throw badRequest("every element of unknowns must be an object, not " + item.dump());
    store::UnknownParameter unknown;
    unknown.name = requireString(item.value("parameter", json()), "the parameter of an unknown");
    unknown.source = requireString(item.value("source", json()), "the source of an unknown");
    if (item.contains("resource") && !item["resource"].is_null())
      unknown.resource_id = requireString(item["resource"], "the resource of an unknown");
    if (item.contains("metadata") && !item["metadata"].is_null()) {
      if (!item["metadata"].is_object()) throw badRequest("the metadata of an unknown must be an object");
      unknown.metadata = item["metadata"];
    }
    out.push_back(std::move(unknown));
  }
  return out;
}

// Fills the version's undeployable (its undefined resources) and skipped_for_undeployable
// (what requires one of them, directly or not), both sorted. `index`: resource id → position.
void blockDependents(store::NewVersion& version, const std::unordered_map<std::string, size_t>& index) {
  std::vector<std::vector<size_t>> dependents(version.resources.size());  // position → its dependents
  for (size_t i = 0; i < version.resources.size(); ++i)
    for (const json& required : version.resources[i].attributes["requires"])
      dependents[index.at(required.get_ref<const std::string&>())].push_back(i);
  std::deque<size_t> pending;
  for (size_t i = 0; i < version.resources.size(); ++i)
    if (version.resources[i].is_undefined) {
      version.undeployable.push_back(version.resources[i].resource_id);
      pending.push_back(i);
    }
  std::set<std::string> blocked;
  while (!pending.empty()) {
    size_t at = pending.front();
    pending.pop_front();
    for (size_t dependent : dependents[at]) {
      const store::Resource& resource = version.resources[dependent];
      if (!resource.is_undefined && blocked.insert(resource.resource_id).second) pending.push_back(dependent);
    }
  }
  version.skipped_for_undeployable.assign(blocked.begin(), blocked.end());
  std::sort(version.undeployable.begin(), version.undeployable.end());
}

// The modules' code of an export (InmantaModule of the reference, by module name), checked; only
// the modules some agent uses are kept, as the reference registers only those. Null stays null.
json moduleCodeOf(const json& info) {
  if (info.is_null()) return info;
  if (!info.is_object()) throw badRequest("module_version_info must be a dict");
  json kept = json::object();
  for (const auto& [name, module] : info.items()) {
    const std::string where = "module_version_info." + name;
    if (!module.is_object()) throw badRequest(where + " must be a dict");
    for (const char* field : {"name", "version"})
      if (!module.contains(field) || !module[field].is_string())
        throw badRequest(where + "." + field + " is required and must be a string");
    if (!module.contains("files_in_module") || !module["files_in_module"].is_array())
      throw badRequest(where + ".files_in_module is required and must be a list");
    for (const json& file : module["files_in_module"]) {
      if (!file.is_object() || !file.contains("name") || !file["name"].is_string() || !file.contains("hash_value") ||
          !file["hash_value"].is_string() || !file.contains("is_byte_code") || !file["is_byte_code"].is_boolean())
        throw badRequest(where +
                         ".files_in_module: each file needs name, hash_value (strings) and is_byte_code (a bool)");
    }
    for (const char* field : {"requirements", "for_agents"}) {
      if (!module.contains(field)) continue;
      if (!module[field].is_array()) throw badRequest(where + "." + field + " must be a list of strings");
      for (const json& item : module[field])
        if (!item.is_string()) throw badRequest(where + "." + field + " must be a list of strings");
    }
    if (module.contains("for_agents") && !module["for_agents"].empty()) kept[name] = module;
  }
  return kept;
}

}  // namespace

bool VersionService::autoDeploy(const store::Environment& env) {
  auto setting = env.settings.find("auto_deploy");
  if (setting == env.settings.end()) {
    // The reference stores a setting's default the first time it reads it (spec 4.5 [QUIRK]), so
    // after an export the environment lists auto_deploy among its settings
    store::SettingValue stored;
    stored.value = true;
    store_.setSetting(env.id, "auto_deploy", stored);
    return true;
  }
  return !setting->second.value.is_boolean() || setting->second.value.get<bool>();
}

std::int64_t VersionService::reserve(const std::string& env) { return store_.reserveVersion(env); }

store::NewVersion VersionService::prepare(const store::Environment& env, VersionUpload& upload,
                                          const std::vector<store::Resource>& inherited) {
  if (!upload.resources.is_array()) throw badRequest("resources must be a list");
  store::NewVersion version;
  version.environment = env.id;
  version.resources.reserve(inherited.size() + upload.resources.size());
  // hashed: resource ids share long prefixes, which ordered containers compare over and over
  std::unordered_map<std::string, size_t> index;  // resource id → position in version.resources
  index.reserve(inherited.size() + upload.resources.size());
  for (const store::Resource& resource : inherited) {
    index[resource.resource_id] = version.resources.size();
    version.resources.push_back(resource);
  }
  std::unordered_set<std::string> uploaded;
  uploaded.reserve(upload.resources.size());
  for (store::Resource& resource : fromPayloads(upload.resources)) {
    if (!uploaded.insert(resource.resource_id).second)
      throw badRequest("The resource " + resource.resource_id + " occurs more than once in this version");
    if (auto known = index.find(resource.resource_id); known != index.end()) {
      version.resources[known->second] = std::move(resource);
    } else {
      index[resource.resource_id] = version.resources.size();
      version.resources.push_back(std::move(resource));
    }
  }

  if (!upload.resource_sets.is_null()) {
    if (!upload.resource_sets.is_object()) throw badRequest("resource_sets must be a dict");
    std::set<std::string> strangers;
    for (const auto& [rid, set] : upload.resource_sets.items()) {
      if (!uploaded.count(rid)) {
        strangers.insert(rid);
        continue;
      }
      store::Resource& resource = version.resources[index[rid]];
      if (set.is_null()) resource.resource_set.reset();
      else resource.resource_set = requireString(set, "the resource set of " + rid);
    }
    if (!strangers.empty())
      throw badRequest(
          "The following resource ids provided in the resource_sets parameter are not present in the "
          "resources list: " +
          pythonSet(strangers));
  }

  if (!upload.resource_state.is_null()) {
    if (!upload.resource_state.is_object()) throw badRequest("resource_state must be a dict");
    for (const auto& [rid, state] : upload.resource_state.items()) {
      const std::string& text = requireString(state, "the resource_state of " + rid);
      if (text != "available" && text != "undefined")
        throw badRequest("the resource_state of " + rid + " must be available or undefined, not " + text);
      if (auto known = index.find(rid); known != index.end() && uploaded.count(rid))
        version.resources[known->second].is_undefined = text == "undefined";
    }
  }

  // the graph must be closed; undefined resources block everything that requires them
  std::set<std::string> dangling;
  bool anyUndefined = false;
  for (const store::Resource& resource : version.resources) {
    anyUndefined = anyUndefined || resource.is_undefined;
    for (const json& required : resource.attributes["requires"])
      if (!index.count(required.get_ref<const std::string&>())) dangling.insert(required.get<std::string>());
  }
  if (!dangling.empty())
    throw badRequest("The model should have a dependency graph that is closed and no dangling dependencies: " +
                     pythonSet(dangling));
  if (anyUndefined) blockDependents(version, index);

  version.unknowns = unknownsOf(upload.unknowns);
  if (!upload.version_info.is_null()) {
    if (!upload.version_info.is_object()) throw badRequest("version_info must be a dict");
    version.version_info = upload.version_info;
  }
  version.pip_config = upload.pip_config;
  version.project_constraints = upload.project_constraints;
  version.module_version_info = moduleCodeOf(upload.module_version_info);
  return version;
}

void VersionService::put(const store::Environment& env, VersionUpload upload) {
  store::NewVersion version = prepare(env, upload, {});
  if (upload.version <= 0)
    throw badRequest("The version number used (" + std::to_string(upload.version) + ") is not positive");
  version.version = upload.version;
  try {
    store_.putVersion(std::move(version));
  } catch (const store::Conflict& e) {
    throw badRequest(e.what());  // the reference answers 500 (spec D5)
  }
  resources_.invalidate(env.id);
  releaseIfAutoDeploy(env, upload.version);
}

std::int64_t VersionService::putPartial(const store::Environment& env, VersionUpload upload) {
  std::optional<std::int64_t> base = store_.latestVersion(env.id);
  if (!base) throw badRequest("A partial export needs a version to build on, but this environment has none");
  if (!upload.resources.is_array()) throw badRequest("resources must be a list");
  // the sets the partial export replaces: those it sends resources of, and those it removes
  std::set<std::string> replaced;
  if (upload.resource_sets.is_object())
    for (const auto& [rid, set] : upload.resource_sets.items())
      if (set.is_string()) replaced.insert(set.get<std::string>());
  if (!upload.removed_resource_sets.is_null()) {
    if (!upload.removed_resource_sets.is_array()) throw badRequest("removed_resource_sets must be a list");
    for (const json& set : upload.removed_resource_sets) replaced.insert(requireString(set, "a removed resource set"));
  }
  std::map<std::string, const store::Resource*> baseById;
  std::vector<store::Resource> baseResources = store_.versionResources(env.id, *base);
  std::vector<store::Resource> inherited;
  for (const store::Resource& resource : baseResources) {
    baseById[resource.resource_id] = &resource;
    if (!resource.resource_set || !replaced.count(*resource.resource_set)) inherited.push_back(resource);
  }
  // A resource keeps its set: a shared resource may only be sent again unchanged, and a resource
  // of a set may not move to another one.
  for (const json& payload : upload.resources) {
    store::Resource resource = fromPayload(json(payload));  // prepare() below consumes the payloads
    auto known = baseById.find(resource.resource_id);
    if (known == baseById.end()) continue;
    std::optional<std::string> set;
    if (upload.resource_sets.is_object() && upload.resource_sets.contains(resource.resource_id) &&
        upload.resource_sets[resource.resource_id].is_string())
      set = upload.resource_sets[resource.resource_id].get<std::string>();
    const store::Resource& before = *known->second;
    if (!set && !before.resource_set && before.attribute_hash != resource.attribute_hash)
      throw badRequest("Resource (" + resource.resource_id +
                       ") without a resource set cannot be updated via a partial compile");
    if (before.resource_set && set != before.resource_set && !replaced.count(*before.resource_set))
      throw badRequest("Resource (" + resource.resource_id + ") moved from resource set " + *before.resource_set +
                       " to " + (set ? *set : std::string("the shared set")) + ", which a partial compile cannot do");
  }
  store::NewVersion version = prepare(env, upload, inherited);
  // the base's module code stays, so its resources can still be deployed; a module the partial
  // export sends again must have the same code unless the client allows the update
  json code = store_.moduleCode(env.id, *base);
  if (!code.is_object()) code = json::object();
  if (version.module_version_info.is_object()) {
    for (const auto& [name, module] : version.module_version_info.items()) {
      if (!upload.allow_handler_code_update && code.contains(name) &&
          code[name].value("version", "") != module.value("version", ""))
        throw badRequest("Cannot perform partial export because the source code for module " + name +
                         " in this partial version is different from the currently registered source code. Consider "
                         "running a full export instead. Alternatively, if you are sure the new code is compatible and "
                         "want to forcefully update, you can bypass this version check with the "
                         "`--allow-handler-code-update` CLI option.");
      code[name] = module;
    }
  }
  version.module_version_info = code.empty() ? json() : code;
  std::set<std::string> kept;
  for (const store::Resource& resource : inherited) kept.insert(resource.resource_id);
  for (store::UnknownParameter& unknown : store_.versionUnknowns(env.id, *base))
    if (kept.count(unknown.resource_id)) version.unknowns.push_back(std::move(unknown));
  version.version = 0;  // the store takes the next number in the same transaction
  version.partial_base = *base;
  std::int64_t number = store_.putVersion(std::move(version));
  resources_.invalidate(env.id);
  releaseIfAutoDeploy(env, number);
  return number;
}

void VersionService::releaseIfAutoDeploy(const store::Environment& env, std::int64_t version) {
  if (!autoDeploy(store_.getEnvironment(env.id))) return;
  try {
    release(env, version);
  } catch (const HttpError&) {
    // a newer version was released meanwhile: this one stays a candidate, as when released by hand
  }
}

store::ModelVersion VersionService::release(const store::Environment& env, std::int64_t version) {
  store::ModelVersion released;
  try {
    released = store_.releaseVersion(env.id, version);
  } catch (const store::NotFound&) {
    throw bare(404, "The request version does not exist.");
  } catch (const store::Conflict& e) {
    throw conflict(e.what());
  }
  resources_.invalidate(env.id);
  trigger_.versionReleased(env.id, version);
  return released;
}

store::ModelVersion VersionService::get(const std::string& env, std::int64_t version) {
  try {
    return store_.getVersion(env, version);
  } catch (const store::NotFound&) {
    throw bare(404, "The given configuration model does not exist yet.");
  }
}

void VersionService::remove(const std::string& env, std::int64_t version) {
  get(env, version);
  try {
    store_.deleteVersion(env, version);
  } catch (const store::Invalid& e) {
    throw badRequest(e.what());
  }
  resources_.invalidate(env);
}

std::vector<VersionSummary> VersionService::summaries(const std::string& env) {
  std::optional<std::int64_t> active = store_.latestReleasedVersion(env);
  std::vector<VersionSummary> out;
  for (store::ModelVersion& version : store_.listVersions(env, 0, INT64_MAX).versions) {
    std::string status;
    if (active && version.version == *active) status = "active";
    else if (active && version.version < *active) status = version.released ? "retired" : "skipped_candidate";
    else status = "candidate";
    out.push_back({std::move(version), std::move(status)});
  }
  return out;
}

std::vector<store::Resource> VersionService::resources(const std::string& env, std::int64_t version) {
  try {
    return store_.versionResources(env, version);
  } catch (const store::NotFound&) {
    throw notFound("Version " + std::to_string(version) + " not found");
  }
}

std::vector<ResourceDiff> VersionService::diff(const std::string& env, std::int64_t from, std::int64_t to) {
  if (from >= to)
    throw badRequest("Invalid version ordering: the version to compare from (" + std::to_string(from) +
                     ") must be older than the one to compare to (" + std::to_string(to) + ")");
  std::map<std::string, store::Resource> before;
  for (store::Resource& resource : resources(env, from)) before[resource.resource_id] = std::move(resource);
  std::map<std::string, store::Resource> after;
  for (store::Resource& resource : resources(env, to)) after[resource.resource_id] = std::move(resource);
  std::set<std::string> ids;
  for (const auto& [rid, resource] : before) ids.insert(rid);
  for (const auto& [rid, resource] : after) ids.insert(rid);
  std::vector<ResourceDiff> out;
  for (const std::string& rid : ids) {
    auto a = before.find(rid);
    auto b = after.find(rid);
    ResourceDiff entry = diffAttributes(rid, a == before.end() ? nullptr : &a->second.attributes,
                                        b == after.end() ? nullptr : &b->second.attributes);
    if (entry.status != "unmodified") out.push_back(std::move(entry));
  }
  return out;
}

std::string compareText(const json& value) {
  switch (value.type()) {
    case json::value_t::null: return "";
    case json::value_t::boolean: return value.get<bool>() ? "True" : "False";
    case json::value_t::string: return value.get<std::string>();
    case json::value_t::array:
    case json::value_t::object: return util::pythonJsonDumps(value, 4);
    default: return util::pythonJsonDumps(value);
  }
}

ResourceDiff diffAttributes(const std::string& resource_id, const json* from, const json* to) {
  ResourceDiff diff;
  diff.resource_id = resource_id;
  static const json kNull;
  auto normalised = [](const json* attributes, const std::string& name) -> json {
    if (!attributes || !attributes->contains(name)) return nullptr;
    json value = (*attributes)[name];
    if (name == "requires" && value.is_array()) std::sort(value.begin(), value.end());
    return value;
  };
  std::set<std::string> names;
  for (const json* attributes : {from, to})
    if (attributes)
      for (const auto& [name, value] : attributes->items())
        if (name != "version" && name != "id") names.insert(name);
  for (const std::string& name : names) {
    json a = normalised(from, name);
    json b = normalised(to, name);
    if (a == b) continue;
    diff.attributes[name] = {{"from_value", a},
                             {"to_value", b},
                             {"from_value_compare", compareText(a)},
                             {"to_value_compare", compareText(b)}};
  }
  if (!from) diff.status = "added";
  else if (!to) diff.status = "deleted";
  else diff.status = diff.attributes.empty() ? "unmodified" : "modified";
  return diff;
}

}  // namespace inmanta::server
