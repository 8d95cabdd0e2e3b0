// Declared arguments of an endpoint and how a request's raw values become typed ones (spec §3.1):
// the query string (repeatable lists, `filter.x=` dicts, booleans in words), the JSON object body
// of POST/PUT/PATCH, path parameters and the X-Inmanta-tid header, checked against the
// declaration with the reference's 400 messages.
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace inmanta::server {

enum class ArgType {
  uuid,     // a UUID in any form Python's uuid.UUID takes → canonical lowercase text
  integer,  // a JSON integer or a numeric string → integer
  number,   // a JSON number or a numeric string → number
  boolean,  // a JSON boolean or true/false/1/0/yes/no/on/off (any case) → boolean
  string,   // a JSON string
  list,     // a JSON array, or a query argument (repeatable) → array of `element`
  dict,     // a JSON object, or dotted query arguments `name.key=value` → object
  any,      // any JSON value as given
};

struct Arg {
  std::string name;
  ArgType type = ArgType::string;
  bool required = false;
  // The value an absent optional argument takes; null = it stays absent from Request::args.
  nlohmann::json fallback = nullptr;
  ArgType element = ArgType::any;  // lists: the type of each item
};

// Shorthands for declarations: req("name", ArgType::string), opt("limit", ArgType::integer, 1000).
inline Arg req(std::string name, ArgType type, ArgType element = ArgType::any) {
  return Arg{std::move(name), type, true, nullptr, element};
}
inline Arg opt(std::string name, ArgType type, nlohmann::json fallback = nullptr, ArgType element = ArgType::any) {
  return Arg{std::move(name), type, false, std::move(fallback), element};
}

// The raw values of one request before validation.
struct RawArguments {
  // query arguments in order of appearance (name → every value given)
  std::vector<std::pair<std::string, std::string>> query;
  nlohmann::json body = nlohmann::json::object();  // the JSON object body (or empty)
  std::map<std::string, std::string> path;         // path parameters, percent-decoded
  std::optional<std::string> tidHeader;            // X-Inmanta-tid
};

// Splits a query string into decoded name/value pairs (`+` is a space, %XX decoded).
std::vector<std::pair<std::string, std::string>> parseQueryString(const std::string& query);
// %XX decoded (invalid escapes kept as they are); `plusIsSpace` for query strings.
std::string percentDecode(const std::string& text, bool plusIsSpace);

// Checks `raw` against `declared` and returns the object of typed values by name. `tid` is taken
// from the header when declared. Throws HttpError 400 with the reference's messages: unknown
// fields (unless `acceptsExtraFields`, then they are passed as given), a missing required field,
// a value of the wrong type (`Failed to validate argument` + error_details.validation_errors), a
// tid given in the header and elsewhere with different values.
nlohmann::json validateArguments(const std::vector<Arg>& declared, RawArguments raw, bool acceptsExtraFields);

// Converts one value to `arg`'s type; throws std::invalid_argument with the reason.
nlohmann::json convertArgument(const Arg& arg, const nlohmann::json& value);

}  // namespace inmanta::server
