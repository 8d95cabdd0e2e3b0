#include "exporter/rest_client.h"

#include <zlib.h>

#include <stdexcept>

#include "compiler/shared_module.h"
#include "exporter/http_transport.h"

#ifndef INMANTA_REST_MODULE_NAME
#error "INMANTA_REST_MODULE_NAME must be defined"
#endif

namespace inmanta::exporter {

namespace {

// The outcome of loading the module, once per process: the transport, or why there is none.
struct Loaded {
  const HttpTransport* transport = nullptr;
  std::string error;
};

Loaded load() {
  const std::string what = "the HTTP client";
  compiler::SharedModule module =
      compiler::loadSharedModule(what, INMANTA_REST_MODULE_NAME, "INMANTA_REST_MODULE", kHttpTransportEntry);
  if (module.entry == nullptr) return {nullptr, module.error};
  using Entry = const HttpTransport* (*)(int);
  const HttpTransport* transport = reinterpret_cast<Entry>(module.entry)(kHttpTransportAbi);
  if (transport == nullptr)
    return {nullptr,
            compiler::sharedModuleMismatch(what, INMANTA_REST_MODULE_NAME, module,
                                           "transport interface " + std::to_string(kHttpTransportAbi) + " expected")};
  return {transport, {}};
}

const Loaded& loaded() {
  static const Loaded result = load();
  return result;
}

}  // namespace

std::string gzipCompress(const std::string& data) {
  z_stream zs{};
  if (deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    throw std::runtime_error("zlib: deflateInit2 failed");
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  std::string out;
  char buffer[32768];
  int rc;
  do {
    zs.next_out = reinterpret_cast<Bytef*>(buffer);
    zs.avail_out = sizeof buffer;
    rc = deflate(&zs, Z_FINISH);
    out.append(buffer, sizeof buffer - zs.avail_out);
  } while (rc == Z_OK);
  deflateEnd(&zs);
  if (rc != Z_STREAM_END) throw std::runtime_error("zlib: deflate failed");
  return out;
}

std::string RestReply::message() const {
  if (status == 0) return transportError;
  if (body.is_object() && body.contains("message") && body["message"].is_string())
    return body["message"].get<std::string>();
  return body.is_null() ? std::string() : body.dump();
}

RestClient::RestClient(ServerSettings settings) : settings_(std::move(settings)) {}
RestClient::~RestClient() = default;

std::string RestClient::baseUrl() const {
  return std::string(settings_.ssl ? "https" : "http") + "://" + settings_.host + ":" + std::to_string(settings_.port);
}

RestReply RestClient::call(const std::string& method, const std::string& path, const std::string& body, bool scoped) {
  RestReply reply;
  if (!connection_) {
    const Loaded& l = loaded();
    if (l.transport == nullptr) {
      unavailable_ = l.error;
      reply.transportError = l.error;
      return reply;
    }
    HttpOptions options;
    options.baseUrl = baseUrl();
    options.ssl = settings_.ssl;
    options.caFile = settings_.caFile;
    options.connectTimeout = 120;
    options.requestTimeout = settings_.requestTimeout;
    connection_ = l.transport->connect(options);
  }
  HttpHeaders headers{{"User-Agent", "inmanta-cpp"}};
  if (settings_.compress) headers.emplace_back("Accept-Encoding", "gzip");
  if (!settings_.token.empty()) headers.emplace_back("Authorization", "Bearer " + settings_.token);
  if (scoped) headers.emplace_back("X-Inmanta-tid", settings_.environment);
  std::string payload;
  if (method != "GET" && method != "DELETE") {
    if (method != "POST" && method != "PUT") throw std::logic_error("unsupported method " + method);
    payload = body;
    if (settings_.compress && payload.size() >= 1024) {
      payload = gzipCompress(payload);
      headers.emplace_back("Content-Encoding", "gzip");
    }
  }
  HttpResult result = connection_->request(method, path, headers, payload, "application/json");
  if (result.status == 0) {
    reply.transportError = std::move(result.transportError);
    return reply;
  }
  reply.status = result.status;
  reply.text = std::move(result.body);
  if (!reply.text.empty()) {
    reply.body = nlohmann::json::parse(reply.text, nullptr, false);
    if (reply.body.is_discarded()) reply.body = reply.text;
  }
  return reply;
}

std::string RestClient::explain(const std::string& method, const std::string& path, const RestReply& reply) const {
  std::string request = method + " " + baseUrl() + path;
  if (reply.status == 0 && !unavailable_.empty()) return "cannot send " + request + ": " + unavailable_;
  if (reply.status == 0)
    return "could not reach the server at " + baseUrl() + " (" + reply.transportError + ", on " + request +
           "); check that the server runs there and compiler_rest_transport.host/port/ssl (--server_address, "
           "--server_port, --ssl) in .inmanta";
  std::string what = "HTTP " + std::to_string(reply.status) + " on " + request;
  std::string msg = reply.message();
  if (!msg.empty()) what += ": " + msg;
  if (reply.status == 401 || reply.status == 403)
    what += " (the server refused the credentials: check compiler_rest_transport.token / --token)";
  return what;
}

}  // namespace inmanta::exporter
