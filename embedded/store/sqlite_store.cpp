#include "embedded/store/sqlite_store.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <filesystem>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "embedded/store/sql_store.h"

namespace inmanta::store {
namespace {

using sql::Param;
using sql::Params;
using sql::Row;
using sql::Rows;

// The shared SQL numbers its parameters $1, $2, …; SQLite spells a numbered parameter ?1, ?2.
// When they come in order, each once ($1, $2, $3, …: every multi-row insert), they become plain
// `?`s: SQLite looks a numbered parameter up in a list of the ones seen before, so preparing a
// 256-row insert of 19 columns with ?NNN took about 10 ms, once per statement and connection —
// most of a short `inmanta deploy`'s prepares.
std::string sqliteParameters(const std::string& text) {
  std::string numbered, plain;
  numbered.reserve(text.size());
  plain.reserve(text.size());
  bool in_string = false;
  bool sequential = true;
  long next = 1;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\'') in_string = !in_string;
    if (!in_string && c == '$' && i + 1 < text.size() && std::isdigit(static_cast<unsigned char>(text[i + 1]))) {
      std::size_t end = i + 1;
      while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) ++end;
      std::string digits = text.substr(i + 1, end - i - 1);
      sequential = sequential && std::stol(digits) == next;
      ++next;
      numbered += '?' + digits;
      plain += '?';
      i = end - 1;
      continue;
    }
    numbered += c;
    plain += c;
  }
  return sequential ? plain : numbered;
}

sqlite3* openDatabase(const std::string& path) {
  sqlite3* db = nullptr;
  int rc =
      sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    std::string message = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close(db);
    throw StoreError("Cannot open the store " + path + ": " + message);
  }
  return db;
}

// Copies the WAL back into the database file in a thread of its own. SQLite's default does it in
// the commit that finds the WAL over 1,000 pages, with an fsync of the WAL and one of the database
// file (synchronous=NORMAL): the writer that happens to commit then waits for both, and the
// scheduler's journal, which commits thousands of small batches, spent more time there than in its
// inserts. Here a commit that leaves the WAL over kSoftPages only wakes this thread, which runs a
// PASSIVE checkpoint (it never blocks readers or writers) on its own connection; a WAL that still
// grows past kHardPages, because the checkpoints cannot keep up, is checkpointed by the committing
// writer itself as before, which bounds the WAL. A commit's durability is unchanged: it is in the
// WAL when the commit returns.
class Checkpointer {
 public:
  static constexpr int kSoftPages = 1000;
  static constexpr int kHardPages = 16000;

  explicit Checkpointer(const std::string& path) : db_(openDatabase(path)) {
    thread_ = std::thread([this] { loop(); });
  }
  ~Checkpointer() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    thread_.join();
    sqlite3_close(db_);
  }
  Checkpointer(const Checkpointer&) = delete;
  Checkpointer& operator=(const Checkpointer&) = delete;

  // The wal hook of every connection of the store: called after each commit with the WAL's size.
  static int afterCommit(void* self, sqlite3* db, const char* schema, int pages) {
    if (pages >= kHardPages) {
      // after the thread's checkpoint, if one runs: SQLite lets one checkpoint run at a time and
      // refuses a second at once, which let the WAL grow without bound on a loaded machine, where
      // the thread's checkpoints of a WAL still being written never caught up
      auto* checkpointer = static_cast<Checkpointer*>(self);
      std::lock_guard<std::mutex> one(checkpointer->checkpointing_);
      sqlite3_wal_checkpoint_v2(db, schema, SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
    } else if (pages >= kSoftPages) {
      auto* checkpointer = static_cast<Checkpointer*>(self);
      bool wake = false;
      {
        std::lock_guard<std::mutex> lock(checkpointer->mutex_);
        // a WAL that shrank was restarted from its beginning: nothing of it is copied yet
        if (pages < checkpointer->lastPages_) checkpointer->copied_ = 0;
        checkpointer->lastPages_ = pages;
        // only once another kSoftPages frames are past what the last checkpoint copied: with
        // writers committing all the time (10,000 file uploads, one commit each), the WAL never
        // gets back to its start, and a checkpoint at every commit past kSoftPages copied a few
        // frames each time with two fsyncs (about 2,800 fsyncs for one first deploy)
        if (pages - checkpointer->copied_ >= kSoftPages && !checkpointer->due_) wake = checkpointer->due_ = true;
      }
      if (wake) checkpointer->wake_.notify_one();
    }
    return SQLITE_OK;
  }

 private:
  void loop() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (true) {
      wake_.wait(lock, [this] { return stop_ || due_; });
      if (stop_) return;
      due_ = false;
      lock.unlock();
      // a read first, so that this connection has opened the WAL; a failed checkpoint (the
      // database busy, say) is tried again at the next commit's signal
      {
        std::lock_guard<std::mutex> one(checkpointing_);
        sqlite3_exec(db_, "SELECT count(*) FROM sqlite_schema", nullptr, nullptr, nullptr);
        int inLog = 0;
        int copied = 0;
        if (sqlite3_wal_checkpoint_v2(db_, nullptr, SQLITE_CHECKPOINT_PASSIVE, &inLog, &copied) != SQLITE_OK)
          copied = 0;
        lock.lock();
        copied_ = std::max(copied, 0);
        lastPages_ = std::max(inLog, 0);
        lock.unlock();
      }
      lock.lock();
    }
  }

  sqlite3* db_;
  std::mutex mutex_;
  std::mutex checkpointing_;  // held through a checkpoint, by the thread or a writer past kHardPages
  std::condition_variable wake_;
  bool due_ = false;
  bool stop_ = false;
  int copied_ = 0;     // frames of the WAL the last checkpoint had copied into the database file
  int lastPages_ = 0;  // the WAL's frames at the last commit seen (fewer: it was restarted)
  std::thread thread_;
};

class SqliteConnection : public sql::Connection {
 public:
  SqliteConnection(const std::string& path, std::shared_ptr<Checkpointer> checkpointer)
      : path_(path), db_(openDatabase(path)), checkpointer_(std::move(checkpointer)) {
    sqlite3_extended_result_codes(db_, 1);
    // Writers of other connections wait (in-process writers queue on the pool's lock first).
    sqlite3_busy_timeout(db_, 30000);
    // WAL: readers run beside the writer and never block it. synchronous=NORMAL with WAL syncs the
    // log at checkpoints, not at every commit: a committed transaction is in the WAL file (the
    // operating system's cache) when the commit returns, so it survives the death of the process
    // (kill -9), which is the durability the server promises; only a power loss or kernel crash
    // could lose the last commits. FULL would fsync at every commit for that case too.
    // A page cache of up to 32 MB (SQLite's default is 2 MB, and it grows only as pages are read):
    // a version of 10,000 resources touches about 10 MB of pages, which with the default cache
    // were written out and read back from the operating system during the transaction.
    // Temporary storage in memory: a multi-row insert or upsert keeps a statement journal (to undo
    // that statement alone), which SQLite otherwise writes to a temporary file in /var/tmp, on
    // the disk, for every batch the scheduler's journal writes.
    // secure_delete=FAST: Debian builds SQLite to overwrite deleted content with zeros, which
    // writes every page a delete frees into the WAL: pruning a version of 10,000 resources wrote
    // twice the log (and took a fifth longer) for it. FAST still clears deleted rows in the pages
    // that are written anyway, as PostgreSQL leaves dead rows until a vacuum.
    // journal_size_limit: the WAL file is cut back to 64 MiB when it starts over; one large
    // transaction (pruning many versions at once) otherwise left a WAL of gigabytes on the disk.
    script(
        "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON; PRAGMA cache_size=-32768; "
        "PRAGMA temp_store=MEMORY; PRAGMA secure_delete=FAST; PRAGMA journal_size_limit=" +
        std::to_string(kSqliteWalSizeLimit) + ";");
    if (checkpointer_) sqlite3_wal_hook(db_, &Checkpointer::afterCommit, checkpointer_.get());
  }
  ~SqliteConnection() override {
    for (auto& [text, statement] : statements_) sqlite3_finalize(statement);
    sqlite3_close(db_);
  }

  Rows query(const std::string& text, const Params& params) override {
    Rows rows;
    run(text, params, [&rows](sqlite3_stmt* statement) {
      rows.emplace_back();
      refillRow(statement, rows.back());
    });
    return rows;
  }

  void forEach(const std::string& text, const Params& params, const std::function<void(const Row&)>& each) override {
    Row row;
    run(text, params, [&](sqlite3_stmt* statement) {
      refillRow(statement, row);
      each(row);
    });
  }

  void script(const std::string& text) override {
    char* error = nullptr;
    int rc = sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &error);
    if (rc != SQLITE_OK) {
      std::string message = error ? error : sqlite3_errstr(rc);
      sqlite3_free(error);
      throw StoreError("SQLite (" + path_ + "): " + message);
    }
  }

  // IMMEDIATE takes the write lock at the start, so a write transaction never fails half-way
  // when another connection wrote since it read.
  void begin(bool write) override { query(write ? "BEGIN IMMEDIATE" : "BEGIN", {}); }
  void commit() override { query("COMMIT", {}); }
  void rollback() override {
    if (!sqlite3_get_autocommit(db_)) query("ROLLBACK", {});
  }

 private:
  // Runs the statement with `params`, calling `onRow` on each row it gives; the statement is
  // reset afterwards, also when a step or `onRow` throws.
  template <class OnRow>
  void run(const std::string& text, const Params& params, OnRow&& onRow) {
    sqlite3_stmt* statement = prepare(text);
    sqlite3_reset(statement);
    sqlite3_clear_bindings(statement);
    for (std::size_t i = 0; i < params.size(); ++i) bind(statement, static_cast<int>(i + 1), params[i]);
    try {
      while (true) {
        int rc = sqlite3_step(statement);
        if (rc == SQLITE_DONE) break;
        if (rc != SQLITE_ROW) fail(rc, text);
        onRow(statement);
      }
    } catch (...) {
      sqlite3_reset(statement);
      throw;
    }
    sqlite3_reset(statement);
  }

  sqlite3_stmt* prepare(const std::string& text) {
    auto found = statements_.find(text);
    if (found != statements_.end()) return found->second;
    sqlite3_stmt* statement = nullptr;
    std::string rewritten = sqliteParameters(text);
    int rc = sqlite3_prepare_v3(db_, rewritten.c_str(), static_cast<int>(rewritten.size()), SQLITE_PREPARE_PERSISTENT,
                                &statement, nullptr);
    if (rc != SQLITE_OK) fail(rc, text);
    statements_.emplace(text, statement);
    return statement;
  }

  static void bind(sqlite3_stmt* statement, int index, const Param& param) {
    switch (param.kind) {
      case Param::Kind::null: sqlite3_bind_null(statement, index); break;
      case Param::Kind::integer:
      case Param::Kind::boolean: sqlite3_bind_int64(statement, index, param.integer); break;
      case Param::Kind::text:
        sqlite3_bind_text(statement, index, param.str().data(), static_cast<int>(param.str().size()), SQLITE_STATIC);
        break;
      case Param::Kind::blob:
        sqlite3_bind_blob(statement, index, param.str().data(), static_cast<int>(param.str().size()), SQLITE_STATIC);
        break;
    }
  }

  // The statement's current row into `row`, reusing the strings a row read before left there.
  static void refillRow(sqlite3_stmt* statement, Row& row) {
    auto count = static_cast<std::size_t>(sqlite3_column_count(statement));
    row.columns.resize(count);
    for (std::size_t i = 0; i < count; ++i) {
      int column = static_cast<int>(i);
      int type = sqlite3_column_type(statement, column);
      std::optional<std::string>& slot = row.columns[i];
      if (type == SQLITE_NULL) {
        slot.reset();
        continue;
      }
      const char* data = type == SQLITE_BLOB ? static_cast<const char*>(sqlite3_column_blob(statement, column))
                                             : reinterpret_cast<const char*>(sqlite3_column_text(statement, column));
      auto size = static_cast<std::size_t>(sqlite3_column_bytes(statement, column));
      if (!data) data = "";  // an empty blob
      if (slot) slot->assign(data, size);
      else slot.emplace(data, size);
    }
  }

  [[noreturn]] void fail(int rc, const std::string& text) {
    std::string message = "SQLite (" + path_ + "): " + sqlite3_errmsg(db_);
    if (rc == SQLITE_CONSTRAINT_UNIQUE || rc == SQLITE_CONSTRAINT_PRIMARYKEY) throw sql::UniqueViolation(message);
    throw StoreError(message + " in: " + text.substr(0, 200));
  }

  std::string path_;
  sqlite3* db_ = nullptr;
  std::shared_ptr<Checkpointer> checkpointer_;  // lives as long as any connection that signals it
  std::unordered_map<std::string, sqlite3_stmt*> statements_;
};

// The exclusive lock on `<db>.lock`, held while the store is open; the kernel drops it when the
// process dies, so a killed server never leaves a stale lock behind.
class LockFile {
 public:
  explicit LockFile(const std::string& path) {
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd_ < 0) throw StoreError("Cannot create the lock file " + path + ": " + std::strerror(errno));
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      int error = errno;
      ::close(fd_);
      if (error == EWOULDBLOCK) {
        throw StoreError("The store " + path.substr(0, path.size() - 5) +
                         " is in use by another inmanta server (it holds the lock on " + path + ")");
      }
      throw StoreError("Cannot lock " + path + ": " + std::strerror(error));
    }
  }
  ~LockFile() { ::close(fd_); }
  LockFile(const LockFile&) = delete;
  LockFile& operator=(const LockFile&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace

std::unique_ptr<Store> openSqliteStore(const StoreConfig& config) {
  if (config.sqlite_path.empty()) throw StoreError("No SQLite database file given for the store");
  std::filesystem::path path(config.sqlite_path);
  std::error_code error;
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), error);
  if (error) throw StoreError("Cannot create the folder of the store " + path.string() + ": " + error.message());
  auto guard = std::make_shared<LockFile>(path.string() + ".lock");
  const std::string file = path.string();
  auto checkpointer = std::make_shared<Checkpointer>(file);
  auto db = std::make_unique<sql::Database>(
      [file, checkpointer] { return std::make_unique<SqliteConnection>(file, checkpointer); }, 8);
  db->setSerializeWriters(true);
  int schema = sql::migrate(*db, file);
  return sql::makeSqlStore(std::move(db), std::move(guard), schema, file + "-uploads");
}

}  // namespace inmanta::store
