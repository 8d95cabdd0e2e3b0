// The engines' common ground: a connection that runs one SQL text with positional parameters
// ($1, $2, … — PostgreSQL's spelling; the SQLite engine rewrites them) and returns the rows as
// text, and a pool of such connections with transactions. sql_store.cpp writes its SQL once,
// in the dialect both engines accept, over this; sqlite_store.cpp and postgres_store.cpp implement it.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "embedded/store/errors.h"

namespace inmanta::store::sql {

// One statement parameter.
struct Param {
  enum class Kind { null, integer, text, blob, boolean };
  Kind kind = Kind::null;
  std::int64_t integer = 0;
  std::string text;  // text, or the bytes of a blob
  // a text this parameter borrows instead of holding (see borrow)
  const std::string* borrowed = nullptr;

  Param() = default;
  Param(std::nullptr_t) {}
  Param(std::int64_t v) : kind(Kind::integer), integer(v) {}
  Param(int v) : kind(Kind::integer), integer(v) {}
  Param(bool v) : kind(Kind::boolean), integer(v ? 1 : 0) {}
  Param(std::string v) : kind(Kind::text), text(std::move(v)) {}
  Param(const char* v) : kind(Kind::text), text(v) {}
  static Param blob(std::string bytes) {
    Param p;
    p.kind = Kind::blob;
    p.text = std::move(bytes);
    return p;
  }
  template <class T>
  static Param optional(const std::optional<T>& v) {
    return v ? Param(*v) : Param();
  }
  // A text parameter that refers to `v` instead of copying it: for rows built from records that
  // outlive the statement (the journal's thousands of state rows), where the copies were a tenth
  // of the writer's time. Never for a temporary.
  static Param borrow(const std::string& v) {
    Param p;
    p.kind = Kind::text;
    p.borrowed = &v;
    return p;
  }
  static Param borrow(const std::string&&) = delete;
  static Param borrowOptional(const std::optional<std::string>& v) { return v ? borrow(*v) : Param(); }
  static Param borrowOptional(const std::optional<std::string>&&) = delete;
  // the text or blob bytes, held or borrowed
  const std::string& str() const { return borrowed ? *borrowed : text; }
};
using Params = std::vector<Param>;

// One result row: each column's text (blobs as their bytes), nullopt for NULL.
struct Row {
  std::vector<std::optional<std::string>> columns;

  bool isNull(std::size_t i) const { return !columns.at(i).has_value(); }
  const std::string& text(std::size_t i) const;  // "" for NULL
  std::int64_t integer(std::size_t i) const;     // 0 for NULL
  bool boolean(std::size_t i) const;             // SQLite 1/0, PostgreSQL t/f
  std::optional<std::int64_t> optionalInteger(std::size_t i) const;
  std::optional<std::string> optionalText(std::size_t i) const;
};
using Rows = std::vector<Row>;

// Thrown by a connection when a statement breaks a UNIQUE or PRIMARY KEY constraint (so the
// store can tell a clash from other failures); a Conflict, so it reads well if not caught.
class UniqueViolation : public Conflict {
 public:
  using Conflict::Conflict;
};

// Thrown when the database asks to run the transaction again (PostgreSQL serialization failure
// or deadlock); the pool retries.
class RetryTransaction : public StoreError {
 public:
  using StoreError::StoreError;
};

class Connection {
 public:
  virtual ~Connection() = default;
  // Runs one statement (prepared once per connection and cached) and returns its rows.
  virtual Rows query(const std::string& sql, const Params& params = {}) = 0;
  // Runs a query and gives `each` its rows one at a time, in one Row object that is filled again
  // for the next (copy out what is kept): for reads of thousands of rows, where making them all
  // first (a vector of columns and a string each) cost more than the reading.
  virtual void forEach(const std::string& sql, const Params& params, const std::function<void(const Row&)>& each) {
    for (const Row& row : query(sql, params)) each(row);
  }
  // Runs a script of several statements without parameters (migrations).
  virtual void script(const std::string& sql) = 0;
  virtual void begin(bool write) = 0;
  virtual void commit() = 0;
  virtual void rollback() = 0;

  // The first column of the first row, if any row.
  std::optional<std::int64_t> scalar(const std::string& sql, const Params& params = {});
  void exec(const std::string& sql, const Params& params = {}) { query(sql, params); }
};

// A pool of connections, handed out one per transaction.
class Database {
 public:
  // `open` makes a new connection; at most `max` live at once, callers wait for a free one.
  Database(std::function<std::unique_ptr<Connection>()> open, int max);
  virtual ~Database() = default;

  // Runs `work` in a transaction on a pooled connection, committing when it returns and rolling
  // back when it throws; retried a few times on RetryTransaction.
  template <class F>
  auto read(F&& work) {
    return transaction(false, std::forward<F>(work));
  }
  template <class F>
  auto write(F&& work) {
    return transaction(true, std::forward<F>(work));
  }

  // Opens connections until `count` are idle in the pool (the configured minimum).
  void prewarm(int count);

  // Runs `work` with a connection outside any transaction the pool opens.
  void withConnection(const std::function<void(Connection&)>& work);

  // SQLite serializes writers itself; taking this lock first makes writers of one process queue
  // here instead of spinning on the busy timeout. PostgreSQL writers run concurrently.
  void setSerializeWriters(bool on) { serialize_writers_ = on; }

 private:
  std::unique_ptr<Connection> acquire();
  void release(std::unique_ptr<Connection> connection);

  template <class F>
  auto transaction(bool write, F&& work) {
    std::unique_lock<std::mutex> writer;
    if (write && serialize_writers_) writer = std::unique_lock<std::mutex>(write_mutex_);
    for (int attempt = 1;; ++attempt) {
      auto connection = acquire();
      try {
        connection->begin(write);
        if constexpr (std::is_void_v<decltype(work(*connection))>) {
          work(*connection);
          connection->commit();
          release(std::move(connection));
          return;
        } else {
          auto result = work(*connection);
          connection->commit();
          release(std::move(connection));
          return result;
        }
      } catch (const RetryTransaction&) {
        abandon(*connection);
        release(std::move(connection));
        if (attempt >= 10) throw;
      } catch (...) {
        abandon(*connection);
        release(std::move(connection));
        throw;
      }
    }
  }
  static void abandon(Connection& connection) noexcept;

  std::function<std::unique_ptr<Connection>()> open_;
  int max_;
  int live_ = 0;
  std::vector<std::unique_ptr<Connection>> idle_;
  std::mutex mutex_;
  std::condition_variable freed_;
  bool serialize_writers_ = false;
  std::mutex write_mutex_;
};

// The numbered migrations compiled into the program (migrations.cpp, generated from
// migrations/NNN_name.sql), in order.
struct Migration {
  int number;
  const char* name;
  const char* sql;
};
const std::vector<Migration>& migrations();

// Brings the schema of `db` up to the newest migration; refuses a schema newer than this
// program's, naming `what` (the file or database) in the message. Returns the schema version.
int migrate(Database& db, const std::string& what);

}  // namespace inmanta::store::sql
