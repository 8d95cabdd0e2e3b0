#include "embedded/store/database.h"

#include <string>

namespace inmanta::store::sql {

const std::string& Row::text(std::size_t i) const {
  static const std::string empty;
  const auto& column = columns.at(i);
  return column ? *column : empty;
}

std::int64_t Row::integer(std::size_t i) const {
  const auto& column = columns.at(i);
  return column ? std::stoll(*column) : 0;
}

bool Row::boolean(std::size_t i) const {
  const auto& column = columns.at(i);
  return column && (*column == "1" || *column == "t" || *column == "true");
}

std::optional<std::int64_t> Row::optionalInteger(std::size_t i) const {
  if (isNull(i)) return std::nullopt;
  return integer(i);
}

std::optional<std::string> Row::optionalText(std::size_t i) const { return columns.at(i); }

std::optional<std::int64_t> Connection::scalar(const std::string& sql, const Params& params) {
  Rows rows = query(sql, params);
  if (rows.empty() || rows[0].isNull(0)) return std::nullopt;
  return rows[0].integer(0);
}

Database::Database(std::function<std::unique_ptr<Connection>()> open, int max)
    : open_(std::move(open)), max_(max < 1 ? 1 : max) {}

std::unique_ptr<Connection> Database::acquire() {
  std::unique_lock<std::mutex> lock(mutex_);
  freed_.wait(lock, [this] { return !idle_.empty() || live_ < max_; });
  if (!idle_.empty()) {
    auto connection = std::move(idle_.back());
    idle_.pop_back();
    return connection;
  }
  ++live_;  // counted before opening so that concurrent callers respect the maximum
  lock.unlock();
  try {
    return open_();
  } catch (...) {
    lock.lock();
    --live_;
    freed_.notify_one();
    throw;
  }
}

void Database::release(std::unique_ptr<Connection> connection) {
  std::lock_guard<std::mutex> lock(mutex_);
  idle_.push_back(std::move(connection));
  freed_.notify_one();
}

void Database::abandon(Connection& connection) noexcept {
  try {
    connection.rollback();
  } catch (...) {
    // the transaction is gone with the error that ended it; nothing more to undo
  }
}

void Database::prewarm(int count) {
  std::lock_guard<std::mutex> lock(mutex_);
  while (static_cast<int>(idle_.size()) < count && live_ < max_) {
    idle_.push_back(open_());
    ++live_;
  }
}

void Database::withConnection(const std::function<void(Connection&)>& work) {
  auto connection = acquire();
  try {
    work(*connection);
  } catch (...) {
    release(std::move(connection));
    throw;
  }
  release(std::move(connection));
}

int migrate(Database& db, const std::string& what) {
  const auto& known = migrations();
  const int newest = known.empty() ? 0 : known.back().number;
  return db.write([&](Connection& c) {
    c.script("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL PRIMARY KEY)");
    const int current = static_cast<int>(c.scalar("SELECT MAX(version) FROM schema_version").value_or(0));
    if (current > newest) {
      throw StoreError("The store " + what + " has schema version " + std::to_string(current) +
                       ", newer than this inmanta knows (" + std::to_string(newest) +
                       "); it was written by a newer release: use that release or a newer one");
    }
    for (const auto& migration : known) {
      if (migration.number <= current) continue;
      c.script(migration.sql);
      c.exec("INSERT INTO schema_version (version) VALUES ($1)", {migration.number});
    }
    return newest;
  });
}

}  // namespace inmanta::store::sql
