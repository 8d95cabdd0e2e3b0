// The line between the REST client (rest_client.cpp, in the exporter) and the HTTP transport
// that sends its requests (http_transport.cpp), which lives with cpp-httplib, OpenSSL and Brotli
// in libinmanta_rest.so. The first request of a process loads that module with dlopen()
// (compiler/shared_module.h), so commands that talk to no server never map those libraries
// (cpp-httplib's load-time constructor alone initialises OpenSSL).
//
// Both sides include this header, which uses the standard library only; the module links no
// library of ours.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace inmanta::exporter {

// Changed whenever this header changes shape: a module built against another version is refused.
inline constexpr int kHttpTransportAbi = 1;
// The module's entry point (below), looked up with dlsym().
inline constexpr const char* kHttpTransportEntry = "inmanta_rest_transport";

// Where and how to connect.
struct HttpOptions {
  std::string baseUrl;  // http://host:port or https://host:port
  bool ssl = false;
  std::string caFile;        // with ssl: verify the server against this CA file (else the system's)
  int connectTimeout = 120;  // seconds
  int requestTimeout = 120;  // seconds, per read and write
};

// One reply: the status and body, or (status 0) why there was no HTTP answer.
struct HttpResult {
  int status = 0;
  std::string body;
  std::string transportError;
};

using HttpHeaders = std::vector<std::pair<std::string, std::string>>;

// One keep-alive connection, opened on the first request; used by one thread at a time.
class HttpConnection {
 public:
  virtual ~HttpConnection() = default;
  // `method` GET or DELETE (no body), POST or PUT (with `body` of `contentType`).
  virtual HttpResult request(const std::string& method, const std::string& path, const HttpHeaders& headers,
                             const std::string& body, const std::string& contentType) = 0;
};

// The transport, one per process, never destroyed.
class HttpTransport {
 public:
  virtual ~HttpTransport() = default;
  virtual std::unique_ptr<HttpConnection> connect(const HttpOptions& options) const = 0;
};

}  // namespace inmanta::exporter

// The module's one export: its transport, or null when `abi` is not the module's kHttpTransportAbi.
extern "C" const inmanta::exporter::HttpTransport* inmanta_rest_transport(int abi);
