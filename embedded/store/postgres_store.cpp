#include "embedded/store/postgres_store.h"

#include <libpq-fe.h>

#include <unordered_map>

#include "embedded/store/sql_store.h"

namespace inmanta::store {
namespace {

using sql::Param;
using sql::Params;
using sql::Row;
using sql::Rows;

constexpr Oid kByteaOid = 17;
// The session advisory lock that marks a database as used by a server ("inmanta" in ASCII).
constexpr const char* kServerLockKey = "29676288619738209";

std::string quoteConninfo(const std::string& value) {
  std::string out = "'";
  for (char c : value) {
    if (c == '\'' || c == '\\') out += '\\';
    out += c;
  }
  return out + "'";
}

std::string conninfo(const StoreConfig& config) {
  return "host=" + quoteConninfo(config.host) + " port=" + std::to_string(config.port) +
         " dbname=" + quoteConninfo(config.name) + " user=" + quoteConninfo(config.username) +
         (config.password.empty() ? "" : " password=" + quoteConninfo(config.password)) +
         " connect_timeout=10 application_name=inmanta";
}

std::string describe(const StoreConfig& config) {
  return "database " + config.name + " on " + config.host + ":" + std::to_string(config.port);
}

std::string decodeBytea(const char* text, int length) {
  // bytea in text format is `\x` followed by two hex digits per byte
  auto nibble = [](char c) { return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10; };
  std::string out;
  if (length < 2) return out;
  out.reserve(static_cast<std::size_t>(length - 2) / 2);
  for (int i = 2; i + 1 < length; i += 2) out += static_cast<char>(nibble(text[i]) << 4 | nibble(text[i + 1]));
  return out;
}

class PgResult {
 public:
  explicit PgResult(PGresult* result) : result_(result) {}
  ~PgResult() { PQclear(result_); }
  PgResult(const PgResult&) = delete;
  PgResult& operator=(const PgResult&) = delete;
  PGresult* get() const { return result_; }

 private:
  PGresult* result_;
};

class PostgresConnection : public sql::Connection {
 public:
  explicit PostgresConnection(const StoreConfig& config) : where_(describe(config)) {
    conn_ = PQconnectdb(conninfo(config).c_str());
    if (PQstatus(conn_) != CONNECTION_OK) {
      std::string message = PQerrorMessage(conn_);
      PQfinish(conn_);
      throw StoreError("Cannot connect to the store " + where_ + ": " + trim(message));
    }
    // notices (e.g. "relation already exists, skipping") are not the user's business
    PQsetNoticeProcessor(
        conn_, [](void*, const char*) {}, nullptr);
  }
  ~PostgresConnection() override { PQfinish(conn_); }

  Rows query(const std::string& text, const Params& params) override {
    const std::string& name = prepare(text);
    std::vector<const char*> values(params.size());
    std::vector<int> lengths(params.size());
    std::vector<int> formats(params.size());
    std::vector<std::string> numbers(params.size());
    for (std::size_t i = 0; i < params.size(); ++i) {
      const Param& p = params[i];
      switch (p.kind) {
        case Param::Kind::null: values[i] = nullptr; break;
        case Param::Kind::integer:
          numbers[i] = std::to_string(p.integer);
          values[i] = numbers[i].c_str();
          break;
        case Param::Kind::boolean: values[i] = p.integer ? "true" : "false"; break;
        case Param::Kind::text: values[i] = p.str().c_str(); break;
        case Param::Kind::blob:
          values[i] = p.str().data();
          lengths[i] = static_cast<int>(p.str().size());
          formats[i] = 1;
          break;
      }
    }
    PgResult result(PQexecPrepared(conn_, name.c_str(), static_cast<int>(params.size()), values.data(), lengths.data(),
                                   formats.data(), 0));
    check(result.get(), text);
    Rows rows;
    int count = PQntuples(result.get());
    int fields = PQnfields(result.get());
    rows.resize(static_cast<std::size_t>(count));
    for (int r = 0; r < count; ++r) {
      auto& columns = rows[static_cast<std::size_t>(r)].columns;
      columns.reserve(static_cast<std::size_t>(fields));
      for (int f = 0; f < fields; ++f) {
        if (PQgetisnull(result.get(), r, f)) {
          columns.emplace_back(std::nullopt);
        } else if (PQftype(result.get(), f) == kByteaOid) {
          columns.emplace_back(decodeBytea(PQgetvalue(result.get(), r, f), PQgetlength(result.get(), r, f)));
        } else {
          columns.emplace_back(
              std::string(PQgetvalue(result.get(), r, f), static_cast<std::size_t>(PQgetlength(result.get(), r, f))));
        }
      }
    }
    return rows;
  }

  void script(const std::string& text) override {
    PgResult result(PQexec(conn_, text.c_str()));
    check(result.get(), text);
  }

  void begin(bool) override {
    // a connection the server dropped (restart, idle timeout) is opened again between transactions
    if (PQstatus(conn_) != CONNECTION_OK) {
      PQreset(conn_);
      statements_.clear();
      if (PQstatus(conn_) != CONNECTION_OK) throw StoreError("Lost the connection to the store " + where_);
    }
    script("BEGIN");
  }
  void commit() override { script("COMMIT"); }
  void rollback() override {
    if (PQtransactionStatus(conn_) != PQTRANS_IDLE) script("ROLLBACK");
  }

 private:
  static std::string trim(std::string text) {
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    return text;
  }

  const std::string& prepare(const std::string& text) {
    auto found = statements_.find(text);
    if (found != statements_.end()) return found->second;
    std::string name = "s" + std::to_string(statements_.size());
    PgResult result(PQprepare(conn_, name.c_str(), text.c_str(), 0, nullptr));
    check(result.get(), text);
    return statements_.emplace(text, std::move(name)).first->second;
  }

  void check(PGresult* result, const std::string& text) {
    ExecStatusType status = PQresultStatus(result);
    if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) return;
    std::string message = "PostgreSQL (" + where_ + "): " + trim(PQresultErrorMessage(result));
    const char* state = PQresultErrorField(result, PG_DIAG_SQLSTATE);
    std::string sqlstate = state ? state : "";
    if (sqlstate == "23505") throw sql::UniqueViolation(message);
    if (sqlstate == "40001" || sqlstate == "40P01") throw sql::RetryTransaction(message);
    throw StoreError(message + " in: " + text.substr(0, 200));
  }

  std::string where_;
  PGconn* conn_ = nullptr;
  std::unordered_map<std::string, std::string> statements_;
};

// A connection of its own holding the session advisory lock for as long as the store is open.
class ServerLock {
 public:
  explicit ServerLock(const StoreConfig& config) : connection_(config) {
    sql::Rows rows = connection_.query(std::string("SELECT pg_try_advisory_lock(") + kServerLockKey + ")", {});
    if (rows.empty() || !rows[0].boolean(0)) {
      throw StoreError("The store " + describe(config) +
                       " is in use by another inmanta server (it holds the advisory lock " + kServerLockKey + ")");
    }
  }
  // The lock is let go before the connection closes: closing alone leaves the server to drop it
  // when its backend notices, a moment later, and a store opened again right away (a restart)
  // found it still held.
  ~ServerLock() {
    try {
      connection_.query(std::string("SELECT pg_advisory_unlock(") + kServerLockKey + ")", {});
    } catch (const std::exception&) {
      // a connection that broke has lost the lock already
    }
  }
  ServerLock(const ServerLock&) = delete;
  ServerLock& operator=(const ServerLock&) = delete;

 private:
  PostgresConnection connection_;
};

}  // namespace

std::unique_ptr<Store> openPostgresStore(const StoreConfig& config) {
  auto guard = std::make_shared<ServerLock>(config);
  auto db = std::make_unique<sql::Database>([config] { return std::make_unique<PostgresConnection>(config); },
                                            config.pool_max);
  db->prewarm(config.pool_min);
  int schema = sql::migrate(*db, describe(config));
  return sql::makeSqlStore(std::move(db), std::move(guard), schema);
}

}  // namespace inmanta::store
