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
  // A body already serialised, sent as is in place of `body`: a large list whose items are kept
  // as JSON text is then not rebuilt and dumped again on every request.
  std::optional<std::string> serialised = std::nullopt;

  // v1 "untyped" endpoints: the object as is, e.g. {"project": {...}}.
  static Reply json(nlohmann::json object) { return Reply{200, std::move(object), {}}; }
  // v2 and typed v1 endpoints: {"data": value}.
  static Reply data(nlohmann::json value) { return Reply{200, nlohmann::json{{"data", std::move(value)}}, {}}; }
  // {"data": value, "metadata": metadata} (warnings, paging), plus "links" when given.
  static Reply data(nlohmann::json value, nlohmann::json metadata, nlohmann::json links = nullptr) {
    nlohmann::json body{{"data", std::move(value)}, {"metadata", std::move(metadata)}};
    if (!links.is_null()) body["links"] = std::move(links);
    return Reply{200, std::move(body), {}};
  }
  // The same envelope as data(value, metadata, links) with `value` already JSON text; the keys in
  // the order nlohmann writes an object's (sorted), so the bytes equal what data() would send.
  static Reply serialisedData(const std::string& value, const nlohmann::json& metadata, const nlohmann::json& links) {
    std::string text = "{\"data\":" + value;
    if (!links.is_null()) text += ",\"links\":" + dumpText(links);
    text += ",\"metadata\":" + dumpText(metadata) + "}";
    Reply reply{200, std::nullopt, {}, std::move(text)};
    return reply;
  }
  // How every JSON body is written: compact, invalid UTF-8 replaced rather than thrown on.
  static std::string dumpText(const nlohmann::json& value) {
    return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
  // Endpoints declared to return nothing: 200 and an empty body.
  static Reply empty() { return Reply{200, std::nullopt, {}}; }
};

}  // namespace inmanta::server
