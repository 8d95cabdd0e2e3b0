// libinmanta_rest.so (http_transport.h): the exporter's HTTP requests with cpp-httplib, TLS
// with OpenSSL, gzip and Brotli replies decoded by cpp-httplib.
#include "exporter/http_transport.h"

#include <httplib.h>

#include <stdexcept>

namespace inmanta::exporter {

namespace {

class Connection final : public HttpConnection {
 public:
  explicit Connection(const HttpOptions& options) : ssl_(options.ssl), client_(options.baseUrl) {
    client_.set_keep_alive(true);
    client_.set_tcp_nodelay(true);
    client_.set_connection_timeout(options.connectTimeout, 0);
    client_.set_read_timeout(options.requestTimeout, 0);
    client_.set_write_timeout(options.requestTimeout, 0);
    if (ssl_) {
      client_.enable_server_certificate_verification(true);
      if (!options.caFile.empty()) client_.set_ca_cert_path(options.caFile.c_str());
    }
  }

  HttpResult request(const std::string& method, const std::string& path, const HttpHeaders& headers,
                     const std::string& body, const std::string& contentType) override {
    httplib::Headers sent(headers.begin(), headers.end());
    httplib::Result result{nullptr, httplib::Error::Unknown};
    if (method == "GET") result = client_.Get(path.c_str(), sent);
    else if (method == "POST") result = client_.Post(path.c_str(), sent, body, contentType.c_str());
    else if (method == "PUT") result = client_.Put(path.c_str(), sent, body, contentType.c_str());
    else if (method == "DELETE") result = client_.Delete(path.c_str(), sent);
    else throw std::logic_error("unsupported method " + method);
    HttpResult reply;
    if (!result) {
      switch (result.error()) {
        case httplib::Error::Connection: reply.transportError = "connection refused or host unreachable"; break;
        case httplib::Error::ConnectionTimeout: reply.transportError = "connection timed out"; break;
        case httplib::Error::Read: reply.transportError = "no complete answer (read failed or timed out)"; break;
        case httplib::Error::Write: reply.transportError = "the request could not be sent"; break;
        case httplib::Error::SSLConnection:
          reply.transportError = "TLS connection failed (is the server speaking https?)";
          break;
        case httplib::Error::SSLLoadingCerts: reply.transportError = "the CA file could not be loaded"; break;
        case httplib::Error::SSLServerVerification:
          reply.transportError = "the server's certificate was not accepted";
          break;
        default: reply.transportError = httplib::to_string(result.error());
      }
      if (ssl_) {
        long verify = client_.get_openssl_verify_result();
        if (verify) reply.transportError += std::string(" (") + X509_verify_cert_error_string(verify) + ")";
      }
      return reply;
    }
    reply.status = result->status;
    reply.body = std::move(result->body);
    return reply;
  }

 private:
  bool ssl_;
  httplib::Client client_;
};

class Transport final : public HttpTransport {
 public:
  std::unique_ptr<HttpConnection> connect(const HttpOptions& options) const override {
    return std::make_unique<Connection>(options);
  }
};

}  // namespace

}  // namespace inmanta::exporter

extern "C" __attribute__((visibility("default"))) const inmanta::exporter::HttpTransport* inmanta_rest_transport(
    int abi) {
  if (abi != inmanta::exporter::kHttpTransportAbi) return nullptr;
  static const inmanta::exporter::Transport transport;
  return &transport;
}
