// The server as a compile's plugins reach it (std::getfact, std::server_token): the
// compiler::ServerConnection over the exporter's REST client, built from the run's settings on
// the first call, so a compile that asks nothing opens no connection and needs no environment.
#pragma once

#include <memory>
#include <string>

#include "compiler/plugin.h"
#include "exporter/rest_client.h"
#include "exporter/settings.h"

namespace inmanta::exporter {

class PluginServerConnection : public compiler::ServerConnection {
 public:
  explicit PluginServerConnection(const Settings& settings) : settings_(settings) {}
  Reply call(const std::string& method, const std::string& path, const std::string& body) override;
  std::string address() const override;

 private:
  const Settings& settings_;
  std::unique_ptr<RestClient> client_;
  std::string setupError_;  // a malformed setting, reported by every call
};

}  // namespace inmanta::exporter
