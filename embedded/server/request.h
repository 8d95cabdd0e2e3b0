// One request as a route sees it: its validated arguments, the environment it is about and the
// caller's token.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "embedded/server/auth.h"
#include "embedded/store/store.h"

namespace inmanta::server {

struct Request {
  std::string method;
  std::string path;  // without the query string
  // Declared arguments by name, converted to their types (arguments.h); absent optional ones
  // without fallback are not in it. Path parameters are in it too.
  nlohmann::json args = nlohmann::json::object();
  // Environment-scoped endpoints ([E]): the environment named by X-Inmanta-tid, which exists.
  std::optional<store::Environment> environment;
  // The caller's token when auth is on.
  std::optional<TokenClaims> token;
  // Request headers, names in lower case.
  std::map<std::string, std::string> headers;

  bool has(const std::string& name) const { return args.contains(name) && !args[name].is_null(); }
  // Typed reads of arguments; the argument must be present (declared required or with a fallback).
  std::string str(const std::string& name) const { return args.at(name).get<std::string>(); }
  std::int64_t integer(const std::string& name) const { return args.at(name).get<std::int64_t>(); }
  bool boolean(const std::string& name) const { return args.at(name).get<bool>(); }
  std::optional<std::string> optStr(const std::string& name) const {
    return has(name) ? std::optional<std::string>(str(name)) : std::nullopt;
  }
  // The id of the environment of an [E] endpoint.
  const std::string& envId() const { return environment.value().id; }
};

}  // namespace inmanta::server
