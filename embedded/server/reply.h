// What a route answers (spec §3.3): a status, a JSON body or none, and extra headers. The
// envelope helpers say which of the reference's shapes a route uses.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace inmanta::server {

struct Reply {
  int status = 200;
  std::optional<nlohmann::json> body;  // none = an empty body (still application/json)
  std::vector<std::pair<std::string, std::string>> headers;

  // v1 "untyped" endpoints: the object as is, e.g. {"project": {...}}.
  static Reply json(nlohmann::json object) { return Reply{200, std::move(object), {}}; }
  // v2 and typed v1 endpoints: {"data": value}.
  static Reply data(nlohmann::json value) {
    return Reply{200, nlohmann::json{{"data", std::move(value)}}, {}};
  }
  // {"data": value, "metadata": metadata} (warnings, paging), plus "links" when given.
  static Reply data(nlohmann::json value, nlohmann::json metadata, nlohmann::json links = nullptr) {
    nlohmann::json body{{"data", std::move(value)}, {"metadata", std::move(metadata)}};
    if (!links.is_null()) body["links"] = std::move(links);
    return Reply{200, std::move(body), {}};
  }
  // Endpoints declared to return nothing: 200 and an empty body.
  static Reply empty() { return Reply{200, std::nullopt, {}}; }
};

}  // namespace inmanta::server
