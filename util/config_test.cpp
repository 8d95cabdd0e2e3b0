#include "util/config.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>

namespace inmanta::util {
namespace {

TEST(Config, EnvironmentOverridesAnySectionButNotFlags) {
  std::string path = testing::TempDir() + "config_test.cfg";
  {
    std::ofstream f(path);
    f << "[server]\nbind-port = 8888\nbind_address = 127.0.0.1, ::1\n[auth_jwt_default]\nkey = abc\n"
         "[database]\ntype = sqlite\n";
  }
  Settings s;
  ASSERT_TRUE(s.readFile(path));
  ::setenv("INMANTA_SERVER_BIND_PORT", "9000", 1);
  ::setenv("INMANTA_AUTH_JWT_DEFAULT_KEY", "fromenv", 1);
  EXPECT_EQ(s.getInt("server", "bind_port", 1), 8888);  // the environment only counts once asked for
  s.readEnvironment();
  EXPECT_EQ(s.getInt("server", "bind_port", 1), 9000);
  EXPECT_EQ(s.getString("auth_jwt_default", "key", ""), "fromenv");
  EXPECT_EQ(s.getList("server", "bind-address"), (std::vector<std::string>{"127.0.0.1", "::1"}));
  s.set("server", "bind-port", "7000");  // a command-line flag wins over the environment
  EXPECT_EQ(s.getInt("server", "bind_port", 1), 7000);
  EXPECT_EQ(s.sections(), (std::vector<std::string>{"auth_jwt_default", "database", "server"}));
  ::setenv("INMANTA_DATABASE_TYPE", "postgresql", 1);
  EXPECT_EQ(s.getString("database", "type", "sqlite"), "postgresql");
  ::unsetenv("INMANTA_SERVER_BIND_PORT");
  ::unsetenv("INMANTA_AUTH_JWT_DEFAULT_KEY");
  ::unsetenv("INMANTA_DATABASE_TYPE");
  std::remove(path.c_str());
}

TEST(Config, TypedReadsNameTheOption) {
  Settings s;
  s.set("server", "bind-port", "eighty");
  s.set("server", "auth", "maybe");
  try {
    s.getInt("server", "bind-port", 0);
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "server.bind-port: 'eighty' is not an integer");
  }
  EXPECT_THROW(s.getBool("server", "auth", false), std::runtime_error);
  EXPECT_TRUE(s.getBool("server", "ssl", true));
  EXPECT_EQ(environmentVariableName("server", "bind-port"), "INMANTA_SERVER_BIND_PORT");
}

}  // namespace
}  // namespace inmanta::util
