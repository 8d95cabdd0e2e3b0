// An in-process server for the route tests: a store on one of the test engines (SQLite or the
// `postgresql` fixture's PostgreSQL), the services, every route, and the HTTP server on an
// ephemeral port of 127.0.0.1; requests go over loopback with httplib's client.
#pragma once

#include <httplib.h>

#include <memory>
#include <string>
#include <utility>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "embedded/server/dispatcher.h"
#include "embedded/server/http_server.h"
#include "embedded/server/routes/routes.h"
#include "embedded/store/ids.h"
#include "embedded/store/test_engines.h"

namespace inmanta::server::testing {

struct Answer {
  int status = 0;
  nlohmann::json body;  // null for an empty body
};

// The server's parts, in the order they must be built and torn down.
template <class Engine>
class TestServer {
 public:
  TestServer() {
    store_ = store::Store::open(engine_.config());
    options_.bindPort = 0;
    options_.database = engine_.config();
    auth_ = std::make_unique<Auth>(util::Settings());
    services_ = std::make_unique<Services>(*store_, options_, *auth_, "test");
    addAllRoutes(router_, *services_);
    dispatcher_ = std::make_unique<Dispatcher>(router_, *services_);
    http_ = std::make_unique<HttpServer>(*dispatcher_, options_);
    http_->start();
    client_ = std::make_unique<httplib::Client>("127.0.0.1", http_->port());
  }
  ~TestServer() {
    client_.reset();
    http_->stop();
  }

  // One request; `body` is sent as JSON (null: no body); `tid` as X-Inmanta-tid when not empty.
  // `contentType` lets a test send what the reference's Tornado client sends.
  Answer call(const std::string& method, const std::string& path, const nlohmann::json& body = nullptr,
              const std::string& tid = "", const std::string& contentType = "application/json") {
    httplib::Headers headers;
    if (!tid.empty()) headers.emplace("X-Inmanta-tid", tid);
    std::string text = body.is_null() ? "" : body.dump();
    auto send = [&]() -> httplib::Result {
      if (method == "GET") return client_->Get(path, headers);
      if (method == "HEAD") return client_->Head(path, headers);
      if (method == "DELETE") return client_->Delete(path, headers, text, contentType);
      if (method == "POST") return client_->Post(path, headers, text, contentType);
      EXPECT_EQ(method, "PUT");
      return client_->Put(path, headers, text, contentType);
    };
    httplib::Result result = send();
    Answer answer;
    if (!result) {
      ADD_FAILURE() << method << " " << path << ": no answer (" << httplib::to_string(result.error()) << ")";
      return answer;
    }
    answer.status = result->status;
    if (!result->body.empty()) answer.body = nlohmann::json::parse(result->body, nullptr, false);
    return answer;
  }

  // A new project and environment; returns the environment's id.
  std::string environment(const std::string& name = "dev") {
    Answer project = call("PUT", "/api/v2/project", {{"name", "p-" + name + "-" + store::newUuid()}});
    EXPECT_EQ(project.status, 200) << project.body;
    Answer env = call("PUT", "/api/v2/environment", {{"project_id", project.body["data"]["id"]}, {"name", name}});
    EXPECT_EQ(env.status, 200) << env.body;
    return env.body["data"]["id"].get<std::string>();
  }

  store::Store& store() { return *store_; }
  Services& services() { return *services_; }

 private:
  Engine engine_;
  std::unique_ptr<store::Store> store_;
  ServerOptions options_;
  std::unique_ptr<Auth> auth_;
  std::unique_ptr<Services> services_;
  Router router_;
  std::unique_ptr<Dispatcher> dispatcher_;
  std::unique_ptr<HttpServer> http_;
  std::unique_ptr<httplib::Client> client_;
};

// A typed test over both engines that skips (or, under ctest, fails) without PostgreSQL.
template <class Engine>
class ServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Engine probe;
    if (!store::test_engines::ready(probe)) return;
    server_ = std::make_unique<TestServer<Engine>>();
  }
  std::unique_ptr<TestServer<Engine>> server_;
};

}  // namespace inmanta::server::testing
