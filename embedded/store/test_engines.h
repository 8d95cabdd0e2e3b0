// The two engines the typed tests run on, for the store's tests and the server's: SQLite (a file
// in a temporary folder) and PostgreSQL (a fresh database on the server of the `postgresql` ctest
// fixture, named by INMANTA_TEST_PG or the file INMANTA_TEST_PG_FILE).
#pragma once

#include <libpq-fe.h>
#include <sqlite3.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <type_traits>

#include <gtest/gtest.h>

#include "embedded/store/store.h"

namespace inmanta::store::test_engines {

class SqliteEngine {
 public:
  SqliteEngine() {
    char pattern[] = "/tmp/inmanta-store-test-XXXXXX";
    dir_ = mkdtemp(pattern);
    config_.engine = Engine::sqlite;
    config_.sqlite_path = dir_ + "/server/inmanta.db";
  }
  ~SqliteEngine() { std::filesystem::remove_all(dir_); }
  bool available(std::string&) { return true; }
  const StoreConfig& config() const { return config_; }
  void rawExec(const std::string& sql) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(config_.sqlite_path.c_str(), &db), SQLITE_OK);
    char* error = nullptr;
    EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error), SQLITE_OK) << (error ? error : "");
    sqlite3_free(error);
    sqlite3_close(db);
  }
  // The first column of the first row of a query, as a number (-1 when it fails).
  std::int64_t rawCount(const std::string& sql) {
    sqlite3* db = nullptr;
    std::int64_t count = -1;
    sqlite3_stmt* statement = nullptr;
    if (sqlite3_open(config_.sqlite_path.c_str(), &db) == SQLITE_OK &&
        sqlite3_prepare_v2(db, sql.c_str(), -1, &statement, nullptr) == SQLITE_OK &&
        sqlite3_step(statement) == SQLITE_ROW)
      count = sqlite3_column_int64(statement, 0);
    EXPECT_NE(count, -1) << sqlite3_errmsg(db) << " in: " << sql;
    sqlite3_finalize(statement);
    sqlite3_close(db);
    return count;
  }

 private:
  std::string dir_;
  StoreConfig config_;
};

// The connection string of the test server: INMANTA_TEST_PG, or the file INMANTA_TEST_PG_FILE
// names (what the ctest fixture writes).
inline std::string testServer() {
  if (const char* text = std::getenv("INMANTA_TEST_PG"); text && *text) return text;
  if (const char* file = std::getenv("INMANTA_TEST_PG_FILE"); file && *file) {
    std::ifstream in(file);
    std::string line;
    if (std::getline(in, line)) return line;
  }
  return "";
}

class PostgresEngine {
 public:
  PostgresEngine() {
    server_ = testServer();
    if (server_.empty()) return;
    PQconninfoOption* options = PQconninfoParse(server_.c_str(), nullptr);
    for (auto* o = options; o && o->keyword; ++o) {
      if (!o->val) continue;
      std::string key = o->keyword;
      if (key == "host") config_.host = o->val;
      if (key == "port") config_.port = std::atoi(o->val);
      if (key == "user") config_.username = o->val;
      if (key == "password") config_.password = o->val;
    }
    PQconninfoFree(options);
    config_.engine = Engine::postgresql;
    static std::atomic<int> counter{0};
    config_.name = "store_test_" + std::to_string(getpid()) + "_" + std::to_string(counter++);
    config_.pool_min = 1;
    config_.pool_max = 8;
    admin("CREATE DATABASE " + config_.name);
  }
  ~PostgresEngine() {
    if (!server_.empty()) admin("DROP DATABASE IF EXISTS " + config_.name + " WITH (FORCE)");
  }
  bool available(std::string& why) {
    why = "no PostgreSQL for the tests: set INMANTA_TEST_PG (a libpq connection string) or run under ctest";
    return !server_.empty();
  }
  const StoreConfig& config() const { return config_; }
  void rawExec(const std::string& sql) { run(server_ + " dbname=" + config_.name, sql); }
  // The first column of the first row of a query, as a number (-1 when it fails).
  std::int64_t rawCount(const std::string& sql) {
    PGconn* conn = PQconnectdb((server_ + " dbname=" + config_.name).c_str());
    PGresult* result = PQexec(conn, sql.c_str());
    std::int64_t count = -1;
    if (PQresultStatus(result) == PGRES_TUPLES_OK && PQntuples(result) > 0)
      count = std::atoll(PQgetvalue(result, 0, 0));
    EXPECT_NE(count, -1) << PQerrorMessage(conn) << " in: " << sql;
    PQclear(result);
    PQfinish(conn);
    return count;
  }

 private:
  void admin(const std::string& sql) { run(server_, sql); }
  static void run(const std::string& conninfo, const std::string& sql) {
    PGconn* conn = PQconnectdb(conninfo.c_str());
    ASSERT_EQ(PQstatus(conn), CONNECTION_OK) << PQerrorMessage(conn);
    PGresult* result = PQexec(conn, sql.c_str());
    EXPECT_TRUE(PQresultStatus(result) == PGRES_COMMAND_OK || PQresultStatus(result) == PGRES_TUPLES_OK)
        << PQresultErrorMessage(result);
    PQclear(result);
    PQfinish(conn);
  }
  std::string server_;
  StoreConfig config_;
};

// For a test's SetUp: whether `engine` can run here. When it cannot (no PostgreSQL named), the test
// is skipped, or fails under ctest (INMANTA_TEST_PG_REQUIRED, where the fixture must provide one),
// and SetUp should return: `if (!test_engines::ready(engine_)) return;`.
template <class Engine>
bool ready(Engine& engine) {
  std::string why;
  if (engine.available(why)) return true;
  // FAIL() and GTEST_SKIP() return from the function they are in; what they record stops the test
  [&why] {
    if (std::getenv("INMANTA_TEST_PG_REQUIRED")) FAIL() << why;
    GTEST_SKIP() << why;
  }();
  return false;
}

using Engines = ::testing::Types<SqliteEngine, PostgresEngine>;
class EngineNames {
 public:
  template <class T>
  static std::string GetName(int) {
    return std::is_same_v<T, SqliteEngine> ? "sqlite" : "postgresql";
  }
};

}  // namespace inmanta::store::test_engines
