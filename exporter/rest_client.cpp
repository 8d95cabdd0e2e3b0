#include "rest_client.h"

#include <httplib.h>
#include <zlib.h>

#include <stdexcept>

namespace inmanta::exporter {

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
  if (!client_) {
    client_ = std::make_unique<httplib::Client>(baseUrl());
    client_->set_keep_alive(true);
    client_->set_tcp_nodelay(true);
    client_->set_connection_timeout(120, 0);
    client_->set_read_timeout(settings_.requestTimeout, 0);
    client_->set_write_timeout(settings_.requestTimeout, 0);
    if (settings_.ssl) {
      client_->enable_server_certificate_verification(true);
      if (!settings_.caFile.empty()) client_->set_ca_cert_path(settings_.caFile.c_str());
    }
  }
  httplib::Client& client = *client_;
  httplib::Headers headers{{"Accept-Encoding", "gzip"}, {"User-Agent", "inmanta-cpp"}};
  if (!settings_.token.empty()) headers.emplace("Authorization", "Bearer " + settings_.token);
  if (scoped) headers.emplace("X-Inmanta-tid", settings_.environment);
  httplib::Result result{nullptr, httplib::Error::Unknown};
  if (method == "GET") {
    result = client.Get(path.c_str(), headers);
  } else {
    std::string payload = body;
    if (payload.size() >= 1024) {
      payload = gzipCompress(payload);
      headers.emplace("Content-Encoding", "gzip");
    }
    if (method == "POST") result = client.Post(path.c_str(), headers, payload, "application/json");
    else if (method == "PUT") result = client.Put(path.c_str(), headers, payload, "application/json");
    else throw std::logic_error("unsupported method " + method);
  }
  RestReply reply;
  if (!result) {
    switch (result.error()) {
      case httplib::Error::Connection: reply.transportError = "connection refused or host unreachable"; break;
      case httplib::Error::ConnectionTimeout: reply.transportError = "connection timed out"; break;
      case httplib::Error::Read: reply.transportError = "no complete answer (read failed or timed out)"; break;
      case httplib::Error::Write: reply.transportError = "the request could not be sent"; break;
      case httplib::Error::SSLConnection: reply.transportError = "TLS connection failed (is the server speaking https?)"; break;
      case httplib::Error::SSLLoadingCerts: reply.transportError = "the CA file could not be loaded"; break;
      case httplib::Error::SSLServerVerification: reply.transportError = "the server's certificate was not accepted"; break;
      default: reply.transportError = httplib::to_string(result.error());
    }
    if (settings_.ssl) {
      long verify = client.get_openssl_verify_result();
      if (verify) reply.transportError += std::string(" (") + X509_verify_cert_error_string(verify) + ")";
    }
    return reply;
  }
  reply.status = result->status;
  reply.text = result->body;
  if (!result->body.empty()) {
    reply.body = nlohmann::json::parse(result->body, nullptr, false);
    if (reply.body.is_discarded()) reply.body = result->body;
  }
  return reply;
}

std::string RestClient::explain(const std::string& method, const std::string& path, const RestReply& reply) const {
  std::string request = method + " " + baseUrl() + path;
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
