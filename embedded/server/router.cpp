#include "embedded/server/router.h"

#include <algorithm>

namespace inmanta::server {

namespace {

std::vector<std::string> segments(const std::string& path) {
  std::vector<std::string> parts;
  size_t start = 1;  // paths start with '/'
  while (start <= path.size()) {
    size_t slash = path.find('/', start);
    parts.push_back(path.substr(start, slash == std::string::npos ? std::string::npos : slash - start));
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  return parts;
}

bool isParameter(const std::string& segment) {
  return segment.size() > 2 && segment.front() == '<' && segment.back() == '>';
}

}  // namespace

void Router::add(Endpoint endpoint) {
  templates_.push_back(segments(endpoint.path));
  // A path parameter nobody declared is a string, so that validation lets it through.
  for (const std::string& segment : templates_.back()) {
    if (!isParameter(segment)) continue;
    std::string name = segment.substr(1, segment.size() - 2);
    bool declared =
        std::any_of(endpoint.args.begin(), endpoint.args.end(), [&](const Arg& arg) { return arg.name == name; });
    if (!declared) endpoint.args.push_back(req(name, ArgType::string));
  }
  if (endpoint.scope == Scope::environment &&
      std::none_of(endpoint.args.begin(), endpoint.args.end(), [](const Arg& arg) { return arg.name == "tid"; }))
    endpoint.args.push_back(req("tid", ArgType::uuid));
  endpoints_.push_back(std::move(endpoint));
}

Router::Match Router::match(const std::string& method, const std::string& rawPath) const {
  Match result;
  if (rawPath.empty() || rawPath[0] != '/') return result;
  std::vector<std::string> parts = segments(rawPath);
  for (size_t i = 0; i < endpoints_.size(); ++i) {
    const std::vector<std::string>& pattern = templates_[i];
    if (pattern.size() != parts.size()) continue;
    // the segments first, the parameters only for a path that matches (every request runs
    // through the whole table)
    bool same = true;
    for (size_t s = 0; s < parts.size() && same; ++s)
      same = isParameter(pattern[s]) ? !parts[s].empty() : pattern[s] == parts[s];
    if (!same) continue;
    const Endpoint& endpoint = endpoints_[i];
    if (std::find(result.allowedMethods.begin(), result.allowedMethods.end(), endpoint.method) ==
        result.allowedMethods.end())
      result.allowedMethods.push_back(endpoint.method);
    if (endpoint.method == method && result.endpoint == nullptr) {
      result.endpoint = &endpoint;
      for (size_t s = 0; s < parts.size(); ++s)
        if (isParameter(pattern[s]))
          result.path[pattern[s].substr(1, pattern[s].size() - 2)] = percentDecode(parts[s], false);
    }
  }
  // HEAD is answered by a HEAD endpoint, else by the GET one (the HTTP layer drops the body).
  if (result.endpoint == nullptr && method == "HEAD" &&
      std::find(result.allowedMethods.begin(), result.allowedMethods.end(), "GET") != result.allowedMethods.end()) {
    Match get = match("GET", rawPath);
    result.endpoint = get.endpoint;
    result.path = std::move(get.path);
  }
  return result;
}

}  // namespace inmanta::server
