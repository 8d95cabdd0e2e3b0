#include "exporter/plugin_server.h"

#include <exception>
#include <stdexcept>

namespace inmanta::exporter {

compiler::ServerConnection::Reply PluginServerConnection::call(const std::string& method, const std::string& path,
                                                               const std::string& body) {
  Reply reply;
  if (!client_ && setupError_.empty()) {
    try {
      ServerSettings server = serverSettings(settings_);
      try {
        server.environment = normaliseUuid(server.environment);
      } catch (const std::exception& e) {
        throw std::runtime_error("config.environment '" + server.environment + "': " + e.what());
      }
      client_ = std::make_unique<RestClient>(server);
    } catch (const std::exception& e) {
      setupError_ = e.what();
    }
  }
  if (!client_) {
    reply.transportError = setupError_;
    return reply;
  }
  RestReply answer = client_->call(method, path, body, true);
  reply.status = answer.status;
  reply.transportError = answer.transportError;
  reply.body = std::move(answer.text);
  return reply;
}

std::string PluginServerConnection::address() const {
  if (client_) return client_->baseUrl();
  try {
    return RestClient(serverSettings(settings_)).baseUrl();
  } catch (const std::exception&) {
    return "the configured server";
  }
}

}  // namespace inmanta::exporter
