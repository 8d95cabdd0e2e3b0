// One request through the server's rules, independent of the HTTP library (http_server.cpp feeds
// it): shutdown (503), routing (404/405), OPTIONS and CORS, authentication (401/403), the JSON
// body, argument validation (400), the environment lookup (400/404), the token's scope and client
// types (403), the handler, and the error bodies of spec §3.4 for whatever it throws.
#pragma once

#include <atomic>
#include <string>
#include <utility>
#include <vector>

#include "embedded/server/reply.h"
#include "embedded/server/router.h"
#include "embedded/server/services/context.h"

namespace inmanta::server {

struct RawRequest {
  std::string method;
  std::string target;  // path and query string as sent, still percent-encoded
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;  // already decompressed
};

class Dispatcher {
 public:
  Dispatcher(const Router& router, Services& services);

  // Never throws: every failure becomes an error reply.
  Reply handle(const RawRequest& request) const;

  // From now on every request gets 503 (the server is stopping).
  void beginShutdown() { shuttingDown_ = true; }
  bool shuttingDown() const { return shuttingDown_; }

  // The error body of spec §3.4.
  static Reply errorReply(int status, const std::string& message, const nlohmann::json& details = nullptr);

 private:
  Reply dispatch(const RawRequest& request) const;
  void authenticate(const Endpoint& endpoint, Request& request) const;
  void authorize(const Endpoint& endpoint, const Request& request) const;
  Reply options(const std::string& rawPath) const;

  const Router& router_;
  Services& services_;
  std::atomic<bool> shuttingDown_{false};
};

}  // namespace inmanta::server
