// JSON forms of the records the versions, resources, dry-run and agent routes answer with, and the
// paged v2 reply (`data`, `metadata` with the counts, `links`) they share.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "embedded/server/arguments.h"
#include "embedded/server/reply.h"
#include "embedded/server/request.h"
#include "embedded/server/services/resources_paging.h"
#include "embedded/server/services/versions.h"
#include "embedded/store/store.h"

namespace inmanta::server {

nlohmann::json versionJson(const store::ModelVersion& version);
// A resource of one version as the v1 API answers it (the reference's Resource record): environment,
// resource_id, resource_type, resource_id_value, agent, attributes, attribute_hash, is_undefined,
// resource_set.
nlohmann::json resourceJson(const std::string& env, const store::Resource& resource);
// A resource action; `withSendEvent` for the v2 form.
nlohmann::json actionJson(const store::ResourceAction& action, bool withSendEvent);
// {"resource_type", "agent", "attribute", "resource_id_value"}
nlohmann::json idDetails(const store::Resource& resource);
nlohmann::json resourceDiffJson(const ResourceDiff& diff);
nlohmann::json dryRunSummary(const store::DryRun& dryrun);
// The `requires` of a resource: resource ids without version, as the reference lists them.
nlohmann::json requiresOf(const store::Resource& resource);

// `text` percent-encoded for a query string (unreserved characters kept, as Python's quote).
std::string percentEncode(const std::string& text);

// The paging arguments every paged v2 list declares: limit, start, end, first_id, last_id, sort,
// filter.
std::vector<Arg> pagingArgs(const std::string& defaultSort);
// `sort` = `<column>.<asc|desc>` with a column of `columns`; 400 otherwise.
std::pair<std::string, bool> parseSort(const Request& request, const std::vector<std::string>& columns);
// The values of filter `name` (a single value or a repeated one), empty when absent.
std::vector<std::string> filterValues(const Request& request, const std::string& name);
// Checks that the filter names are among `allowed`; 400 naming the others.
void checkFilters(const Request& request, const std::vector<std::string>& allowed);
// limit/start/end/first_id/last_id and the direction as a PageRequest; start/end converted to
// integers when `integerKey`. A limit ≤ 0 asks for the whole list. 400 for a limit above 1000 or
// a bound that is not an integer.
PageRequest pageRequest(const Request& request, bool ascending, bool integerKey);

// {"data", "metadata": {total, before, after, page_size (+ extra)}, "links": {self, next?, prev?}}
// `items` are the page's JSON items; links repeat the request's arguments other than the bounds.
template <class T>
Reply pagedReply(const Request& request, const Page<T>& page, nlohmann::json items, const PageRequest& paging,
                 nlohmann::json extraMetadata = nlohmann::json::object());

Reply pagedReplyOf(const Request& request, std::int64_t total, std::int64_t before, std::int64_t after,
                   const std::optional<PageKey>& first, const std::optional<PageKey>& last, nlohmann::json items,
                   const PageRequest& paging, nlohmann::json extraMetadata);

// The `metadata` and `links` of a paged reply (what pagedReplyOf puts beside `data`).
struct PageEnvelope {
  nlohmann::json metadata, links;
};
PageEnvelope pageEnvelope(const Request& request, std::int64_t total, std::int64_t before, std::int64_t after,
                          const std::optional<PageKey>& first, const std::optional<PageKey>& last,
                          const PageRequest& paging, const nlohmann::json& extraMetadata);

template <class T>
Reply pagedReply(const Request& request, const Page<T>& page, nlohmann::json items, const PageRequest& paging,
                 nlohmann::json extraMetadata) {
  return pagedReplyOf(request, page.total, page.before, page.after, page.first, page.last, std::move(items), paging,
                      std::move(extraMetadata));
}

}  // namespace inmanta::server
