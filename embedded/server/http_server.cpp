#include "embedded/server/http_server.h"

#include <httplib.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <functional>
#include <memory>
#include <stdexcept>
#include <utility>

#include "embedded/server/connection_threads.h"
#include "embedded/server/errors.h"

namespace inmanta::server {

namespace {

// The message of an error httplib answered on its own, before any route ran.
std::string libraryErrorMessage(int status, const ServerOptions& options) {
  switch (status) {
    case 413:
      return "Request body too large: the maximum is " + std::to_string(options.maxRequestBodySize) +
             " bytes (server.max-request-body-size)";
    case 414: return "Request URI too long";
    case 415: return std::string(kBadRequestPrefix) + "unsupported Content-Encoding of the request body";
    case 400: return std::string(kBadRequestPrefix) + "the request could not be read (malformed HTTP or body encoding)";
    default: return "Request failed with status " + std::to_string(status);
  }
}

// The header that keeps the real method of a GET, HEAD or OPTIONS with a body while httplib
// handles it as a POST (see the pre-routing hook below).
constexpr const char* kBodyMethodHeader = "X-Inmanta-Body-Method";

// Puts back the method of a request relabelled POST, before the handler reads it and before
// httplib writes the answer (a HEAD's answer has no body).
void restoreMethod(const httplib::Request& req) {
  if (!req.has_header(kBodyMethodHeader)) return;
  auto& mutableRequest = const_cast<httplib::Request&>(req);
  mutableRequest.method = req.get_header_value(kBodyMethodHeader);
  mutableRequest.headers.erase(kBodyMethodHeader);
}

void writeReply(Reply& reply, httplib::Response& res) {
  res.status = reply.status;
  for (const auto& [name, value] : reply.headers) res.set_header(name, value);
  // moved, not copied: a resource list's page is a few hundred kB (httplib 0.11's set_content copies)
  res.body = reply.serialised ? std::move(*reply.serialised) : reply.body ? Reply::dumpText(*reply.body) : "";
  res.set_header("Content-Type", "application/json");
}

// httplib's connection tasks on ConnectionThreads (connection_threads.h) instead of its fixed pool.
class ConnectionQueue final : public httplib::TaskQueue {
 public:
  void enqueue(std::function<void()> task) override { threads_.enqueue(std::move(task)); }
  void shutdown() override { threads_.shutdown(); }

 private:
  ConnectionThreads threads_;
};

}  // namespace

HttpServer::HttpServer(const Dispatcher& dispatcher, const ServerOptions& options)
    : dispatcher_(dispatcher), options_(options) {}

HttpServer::~HttpServer() { stop(); }

std::unique_ptr<httplib::Server> HttpServer::makeServer() const {
  std::unique_ptr<httplib::Server> server;
  if (!options_.sslCertFile.empty() && !options_.sslKeyFile.empty()) {
    auto ssl = std::make_unique<httplib::SSLServer>(options_.sslCertFile.c_str(), options_.sslKeyFile.c_str());
    if (!ssl->is_valid())
      throw std::runtime_error("cannot load the TLS certificate " + options_.sslCertFile + " or key " +
                               options_.sslKeyFile);
    server = std::move(ssl);
  } else {
    server = std::make_unique<httplib::Server>();
  }
  server->set_payload_max_length(options_.maxRequestBodySize);
  server->new_task_queue = [] { return new ConnectionQueue(); };
  server->set_keep_alive_max_count(10000);
  // httplib writes an answer's headers and body in separate writes: with Nagle's algorithm on, the
  // body then waits for the client's delayed ACK (40 ms on Linux) on every keep-alive request
  server->set_tcp_nodelay(true);
  server->set_read_timeout(60, 0);

  auto handler = [this](const httplib::Request& req, httplib::Response& res) {
    restoreMethod(req);
    auto begin = std::chrono::steady_clock::now();
    RawRequest raw{req.method, req.target, {req.headers.begin(), req.headers.end()}, req.body};
    Reply reply = dispatcher_.handle(raw);
    writeReply(reply, res);
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - begin).count();
    spdlog::debug("{} {} {} {:.1f}ms", req.method, req.path, reply.status, ms);
  };
  // Two gaps of httplib 0.11, mended before it routes a request:
  //  * it refuses a POST, PUT or PATCH without Content-Length (400) before any route runs; for
  //    HTTP such a request has no body, so it is dispatched here with an empty one (a POST of
  //    halt/resume from curl, a PATCH that gets its 405);
  //  * a GET, HEAD or OPTIONS with a body could leave the keep-alive connection out of step (the
  //    REST fuzz test, tests/fuzz/rest_fuzz_test.py, saw an answer's body read as the next status
  //    line). Such a request is relabelled POST, whose body httplib reads and checks like any
  //    other, and the handlers put the method back (restoreMethod) before anything reads it.
  server->set_pre_routing_handler([handler](const httplib::Request& req, httplib::Response& res) {
    // The request is httplib's own non-const object, handed to this hook as const. A client's
    // own copy of the relabelling header never counts.
    auto& mutableRequest = const_cast<httplib::Request&>(req);
    mutableRequest.headers.erase(kBodyMethodHeader);
    bool framed = req.has_header("Content-Length") || req.has_header("Transfer-Encoding");
    if ((req.method == "POST" || req.method == "PUT" || req.method == "PATCH") && !framed) {
      handler(req, res);
      return httplib::Server::HandlerResponse::Handled;
    }
    if ((req.method == "GET" || req.method == "HEAD" || req.method == "OPTIONS") && framed) {
      mutableRequest.set_header(kBodyMethodHeader, req.method);
      mutableRequest.method = "POST";
    }
    return httplib::Server::HandlerResponse::Unhandled;
  });
  const std::string all = ".*";
  server->Get(all, handler);  // and HEAD
  server->Post(all, handler);
  server->Put(all, handler);
  server->Patch(all, handler);
  server->Delete(all, handler);
  server->Options(all, handler);
  // Errors httplib found itself (no route ran, so the body is empty): give them a JSON body.
  httplib::Server::HandlerWithResponse errorHandler = [this](const httplib::Request& req, httplib::Response& res) {
    restoreMethod(req);
    if (!res.body.empty() || req.method == "HEAD") return httplib::Server::HandlerResponse::Unhandled;
    Reply reply = Dispatcher::errorReply(res.status, libraryErrorMessage(res.status, options_));
    writeReply(reply, res);
    // The request may not have been read to its end (a body that did not decompress, one too
    // large): what is left on the connection is not a request, so the connection ends here.
    res.set_header("Connection", "close");
    spdlog::debug("{} {} {}", req.method, req.path, res.status);
    return httplib::Server::HandlerResponse::Handled;
  };
  server->set_error_handler(std::move(errorHandler));
  return server;
}

void HttpServer::start() {
  int port = options_.bindPort;
  for (const std::string& address : options_.bindAddresses) {
    std::unique_ptr<httplib::Server> server = makeServer();
    // httplib 0.11's listening socket: SO_REUSEPORT, with which a second server (of any process of
    // this user) bound the same port and the kernel shared the connections out between the two;
    // and a backlog of 5, so a burst of connections (an export's uploads beside other clients)
    // overflowed it and some were reset. SO_REUSEADDR only (a restart still binds beside old
    // connections in TIME_WAIT), and the socket, the last one httplib made, listens again below
    // with the system's backlog.
    auto listening = std::make_shared<int>(-1);
    server->set_socket_options([listening](socket_t sock) {
      int on = 1;
      ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
      *listening = sock;
    });
    errno = 0;
    bool bound;
    if (port == 0) {
      port = server->bind_to_any_port(address.c_str());
      bound = port > 0;
    } else {
      bound = server->bind_to_port(address.c_str(), port);
    }
    if (!bound) {
      std::string reason = errno != 0 ? std::strerror(errno) : "the address cannot be bound";
      stop();
      throw std::runtime_error("cannot listen on " + address + ":" + std::to_string(options_.bindPort) + " (" + reason +
                               ")");
    }
    if (*listening >= 0 && ::listen(*listening, SOMAXCONN) != 0)
      spdlog::warn("cannot raise the listen backlog of {}:{} ({})", address, port, std::strerror(errno));
    servers_.push_back(std::move(server));
  }
  port_ = port;
  for (auto& server : servers_) {
    httplib::Server* s = server.get();
    threads_.emplace_back([s] { s->listen_after_bind(); });
  }
  // stop() before a listening thread got going would leave that thread listening for ever
  for (auto& server : servers_)
    while (!server->is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  for (const std::string& address : options_.bindAddresses) spdlog::info("Server listening on {}:{}", address, port_);
}

void HttpServer::stop() {
  for (auto& server : servers_) server->stop();
  for (auto& thread : threads_)
    if (thread.joinable()) thread.join();
  threads_.clear();
  servers_.clear();
}

}  // namespace inmanta::server
