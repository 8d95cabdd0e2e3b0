// The HTTP side (cpp-httplib; a thread per open connection, connection_threads.h): one listening
// socket per bind address, every request handed to the Dispatcher, one debug log line per request,
// and the shapes httplib itself answers (a too large body 413, an undecodable gzip body 400) turned
// into JSON error bodies.
#pragma once

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "embedded/server/dispatcher.h"
#include "embedded/server/options.h"

namespace httplib {
class Server;
}

namespace inmanta::server {

class HttpServer {
 public:
  HttpServer(const Dispatcher& dispatcher, const ServerOptions& options);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds every address (port 0: an ephemeral one, the same for every address) and starts
  // serving in background threads. Throws std::runtime_error "cannot listen on <addr>:<port>
  // (<reason>)" or for a TLS certificate or key that cannot be loaded.
  void start();
  // The port bound (after start()).
  int port() const { return port_; }
  // Stops accepting and waits for the listening threads.
  void stop();

 private:
  std::unique_ptr<httplib::Server> makeServer() const;

  const Dispatcher& dispatcher_;
  const ServerOptions& options_;
  std::vector<std::unique_ptr<httplib::Server>> servers_;
  std::vector<std::thread> threads_;
  int port_ = 0;
};

}  // namespace inmanta::server
