#include "embedded/server/routes/resources_json.h"

#include <algorithm>

#include "embedded/server/errors.h"
#include "util/resource_id.h"

namespace inmanta::server {

using nlohmann::json;

json versionJson(const store::ModelVersion& version) {
  return {{"version", version.version},
          {"environment", version.environment},
          {"date", store::formatTimestamp(version.date)},
          {"released", version.released},
          {"version_info", version.version_info},
          {"total", version.total},
          {"undeployable", version.undeployable},
          {"skipped_for_undeployable", version.skipped_for_undeployable},
          {"partial_base", version.partial_base ? json(*version.partial_base) : json()},
          {"pip_config", version.pip_config},
          {"is_suitable_for_partial_compiles", version.is_suitable_for_partial_compiles},
          {"project_constraints", version.project_constraints}};
}

json resourceJson(const std::string& env, const store::Resource& resource) {
  return {{"environment", env},
          {"resource_id", resource.resource_id},
          {"resource_type", resource.resource_type},
          {"resource_id_value", resource.resource_id_value},
          {"agent", resource.agent},
          {"attributes", resource.attributes},
          {"attribute_hash", resource.attribute_hash},
          {"is_undefined", resource.is_undefined},
          {"resource_set", resource.resource_set ? json(*resource.resource_set) : json()}};
}

json actionJson(const store::ResourceAction& action, bool withSendEvent) {
  auto optional = [](const auto& value) { return value ? json(*value) : json(); };
  json out = {{"action_id", action.action_id},
              {"environment", action.environment},
              {"version", action.version},
              {"resource_version_ids", action.resource_version_ids},
              {"action", action.action},
              {"started", store::formatTimestamp(action.started)},
              {"finished", action.finished ? json(store::formatTimestamp(*action.finished)) : json()},
              {"status", optional(action.status)},
              {"change", optional(action.change)},
              // an action that changed nothing (a store action) has no changes at all
              {"changes", action.changes.empty() ? json() : action.changes},
              {"messages", action.messages}};
  if (withSendEvent) out["send_event"] = optional(action.send_event);
  return out;
}

json idDetails(const store::Resource& resource) {
  return {{"resource_type", resource.resource_type},
          {"agent", resource.agent},
          {"attribute", resource.id_attribute},
          {"resource_id_value", resource.resource_id_value}};
}

json resourceDiffJson(const ResourceDiff& diff) {
  return {{"resource_id", diff.resource_id}, {"status", diff.status}, {"attributes", diff.attributes}};
}

json dryRunSummary(const store::DryRun& dryrun) {
  return {{"id", dryrun.id},         {"environment", dryrun.environment},
          {"model", dryrun.version}, {"date", store::formatTimestamp(dryrun.date)},
          {"total", dryrun.total},   {"todo", dryrun.todo}};
}

json requiresOf(const store::Resource& resource) {
  auto found = resource.attributes.find("requires");
  return found != resource.attributes.end() && found->is_array() ? *found : json::array();
}

std::vector<Arg> pagingArgs(const std::string& defaultSort) {
  return {opt("limit", ArgType::integer, 1000), opt("start", ArgType::string),
          opt("end", ArgType::string),          opt("first_id", ArgType::string),
          opt("last_id", ArgType::string),      opt("sort", ArgType::string, defaultSort),
          opt("filter", ArgType::dict)};
}

std::pair<std::string, bool> parseSort(const Request& request, const std::vector<std::string>& columns) {
  std::string sort = request.str("sort");
  size_t dot = sort.rfind('.');
  std::string column = dot == std::string::npos ? sort : sort.substr(0, dot);
  std::string order = dot == std::string::npos ? "" : sort.substr(dot + 1);
  std::transform(order.begin(), order.end(), order.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (std::find(columns.begin(), columns.end(), column) == columns.end() || (order != "asc" && order != "desc")) {
    std::string allowed;
    for (const std::string& c : columns) allowed += (allowed.empty() ? "" : ", ") + c;
    throw badRequest("Invalid sort: " + sort + " (expected <column>.asc or <column>.desc with a column of " + allowed +
                     ")");
  }
  return {column, order == "asc"};
}

std::vector<std::string> filterValues(const Request& request, const std::string& name) {
  std::vector<std::string> out;
  if (!request.has("filter") || !request.args["filter"].contains(name)) return out;
  const json& value = request.args["filter"][name];
  auto add = [&](const json& item) { out.push_back(item.is_string() ? item.get<std::string>() : item.dump()); };
  if (value.is_array())
    for (const json& item : value) add(item);
  else add(value);
  return out;
}

void checkFilters(const Request& request, const std::vector<std::string>& allowed) {
  if (!request.has("filter")) return;
  if (!request.args["filter"].is_object()) throw badRequest("filter must be a dict");
  for (const auto& [name, value] : request.args["filter"].items())
    if (std::find(allowed.begin(), allowed.end(), name) == allowed.end()) {
      std::string names;
      for (const std::string& a : allowed) names += (names.empty() ? "" : ", ") + a;
      throw badRequest("Invalid filter provided: " + name + " is not one of " + names);
    }
}

PageRequest pageRequest(const Request& request, bool ascending, bool integerKey) {
  PageRequest paging;
  // as the reference: at most 1000, and 0 (or less) for the whole list, which its own inmanta-cli
  // monitor asks for
  paging.limit = request.integer("limit");
  if (paging.limit > 1000)
    throw badRequest("limit parameter can not exceed 1000, got " + std::to_string(paging.limit) + ".");
  paging.ascending = ascending;
  auto bound = [&](const std::string& name) -> std::optional<json> {
    std::optional<std::string> text = request.optStr(name);
    if (!text) return std::nullopt;
    if (!integerKey) return json(*text);
    try {
      size_t used = 0;
      long long value = std::stoll(*text, &used);
      if (used == text->size()) return json(value);
    } catch (const std::exception&) {
    }
    throw badRequest(name + " must be an integer for this sort, not " + *text);
  };
  paging.start = bound("start");
  paging.end = bound("end");
  paging.firstId = request.optStr("first_id");
  paging.lastId = request.optStr("last_id");
  return paging;
}

std::string percentEncode(const std::string& text) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

namespace {

std::string keyText(const json& value) { return value.is_string() ? value.get<std::string>() : value.dump(); }

}  // namespace

PageEnvelope pageEnvelope(const Request& request, std::int64_t total, std::int64_t before, std::int64_t after,
                          const std::optional<PageKey>& first, const std::optional<PageKey>& last,
                          const PageRequest& paging, const json& extraMetadata) {
  // the request's own arguments, without the page bounds
  std::string base = request.path + "?limit=" + std::to_string(paging.limit);
  if (request.has("sort")) base += "&sort=" + percentEncode(request.str("sort"));
  if (request.has("filter"))
    for (const auto& [name, value] : request.args["filter"].items())
      for (const std::string& v : filterValues(request, name))
        base += "&filter." + percentEncode(name) + "=" + percentEncode(v);
  for (const char* flag : {"deploy_summary"})
    if (request.has(flag)) base += std::string("&") + flag + "=" + (request.boolean(flag) ? "True" : "False");
  // self: the page asked for (its start bound, as the reference repeats it)
  std::string self = base;
  if (paging.start) self += "&start=" + percentEncode(keyText(*paging.start));
  if (paging.firstId) self += "&first_id=" + percentEncode(*paging.firstId);
  json links = {{"self", self}};
  // next: after the last item in the sort order; prev: before the first, with a link to the first
  // page (the reference gives `first` only when there is a previous page)
  if (after > 0 && last)
    links["next"] = base + (paging.ascending ? "&start=" : "&end=") + percentEncode(keyText(last->value)) +
                    (paging.ascending ? "&first_id=" : "&last_id=") + percentEncode(last->id);
  if (before > 0 && first) {
    links["prev"] = base + (paging.ascending ? "&end=" : "&start=") + percentEncode(keyText(first->value)) +
                    (paging.ascending ? "&last_id=" : "&first_id=") + percentEncode(first->id);
    links["first"] = base;
  }
  json metadata = {{"total", total}, {"before", before}, {"after", after}, {"page_size", paging.limit}};
  for (const auto& [key, value] : extraMetadata.items()) metadata[key] = value;
  return {std::move(metadata), std::move(links)};
}

Reply pagedReplyOf(const Request& request, std::int64_t total, std::int64_t before, std::int64_t after,
                   const std::optional<PageKey>& first, const std::optional<PageKey>& last, json items,
                   const PageRequest& paging, json extraMetadata) {
  PageEnvelope envelope = pageEnvelope(request, total, before, after, first, last, paging, extraMetadata);
  return Reply::data(std::move(items), std::move(envelope.metadata), std::move(envelope.links));
}

}  // namespace inmanta::server
