// Endpoints and the router (spec §3.1): a method and a path template (`/api/v1/project/<id>`,
// each `<name>` one segment), the declared arguments, the environment scope, the client types a
// token needs, and the handler. Route files add their endpoints (routes/routes.h).
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "embedded/server/arguments.h"
#include "embedded/server/auth.h"
#include "embedded/server/reply.h"
#include "embedded/server/request.h"

namespace inmanta::server {

// Which environment an endpoint is about, for the X-Inmanta-tid lookup and the token's scope.
enum class Scope {
  none,         // no environment: an environment-scoped token is refused (403)
  environment,  // [E]: X-Inmanta-tid names it (required, must exist); the token's scope must match
  pathId,       // the path parameter `id` is an environment id; a scoped token must name it
  any,          // no environment, but scoped tokens are welcome (file upload and download)
};

using Handler = std::function<Reply(Request&)>;

struct Endpoint {
  std::string method{};  // GET, HEAD, POST, PUT, PATCH or DELETE
  std::string path{};    // e.g. /api/v1/project/<id>
  // Every argument, path parameters included (a path parameter not declared is a string).
  std::vector<Arg> args{};
  Scope scope = Scope::none;
  unsigned clientTypes = kApi;  // the token must carry one of these (ClientType bits)
  bool enforceAuth = true;      // false: open even when auth is on (GET /api/v2/health)
  bool acceptsExtraFields = false;
  Handler handler{};
};

class Router {
 public:
  void add(Endpoint endpoint);

  struct Match {
    const Endpoint* endpoint = nullptr;       // null: no endpoint for this method
    std::map<std::string, std::string> path;  // the path parameters, percent-decoded
    std::vector<std::string> allowedMethods;  // the path exists with these methods (405)
  };
  // The endpoint for `method` on `rawPath` (still percent-encoded). No endpoint and no allowed
  // methods = an unknown path.
  Match match(const std::string& method, const std::string& rawPath) const;

  const std::vector<Endpoint>& endpoints() const { return endpoints_; }

 private:
  std::vector<Endpoint> endpoints_;
  std::vector<std::vector<std::string>> templates_;  // endpoints_[i]'s path split in segments
};

}  // namespace inmanta::server
