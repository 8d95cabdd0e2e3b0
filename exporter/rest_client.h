// The REST client of the exporter (export spec 3.2): JSON bodies (gzip from 1 KiB), bearer token,
// X-Inmanta-tid for environment-scoped calls, TLS with an optional CA file. The requests go
// through the HTTP transport of libinmanta_rest.so (http_transport.h), loaded on the first call.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "exporter/settings.h"

namespace inmanta::exporter {

struct RestReply {
  int status = 0;  // 0: no HTTP answer (see transportError)
  std::string transportError;
  nlohmann::json body;  // null when the reply had no JSON body
  std::string text;     // the body as received
  // The server's `message`, or the whole reply, or the transport error, for messages.
  std::string message() const;
  bool ok() const { return status == 200; }
};

class HttpConnection;

class RestClient {
 public:
  // One keep-alive connection per client, opened on the first call; use one client per thread.
  explicit RestClient(ServerSettings settings);
  ~RestClient();
  // `body` is JSON text (empty for GET and DELETE). `scoped`: send X-Inmanta-tid. When the HTTP transport
  // cannot be loaded, the reply is a transport error that says why.
  RestReply call(const std::string& method, const std::string& path, const std::string& body, bool scoped);
  // `http://host:port`
  std::string baseUrl() const;
  // A one-line explanation of a failed call: the request, the status or the transport error,
  // the server's message and what to check.
  std::string explain(const std::string& method, const std::string& path, const RestReply& reply) const;

  const ServerSettings& settings() const { return settings_; }

 private:
  ServerSettings settings_;
  std::unique_ptr<HttpConnection> connection_;
  std::string unavailable_;  // why there is no transport, once a call found out
};

// gzip (level 6) of `data`
std::string gzipCompress(const std::string& data);

}  // namespace inmanta::exporter
