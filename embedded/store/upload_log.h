// The file contents a server acknowledged but has not written to its database yet (SQLite engine).
//
// A transaction per upload cost about 40 µs of CPU and two or three 4 KiB pages of WAL for the
// ~100-byte contents a first deploy uploads by the thousand (10,000 uploads on the disk: the
// export 1.09 s with them, 0.67 s without). So an upload is appended to `<database>-uploads` with
// one system call before it is answered, and the store moves the contents into the database many
// per transaction. This keeps what SQLite's WAL with synchronous=NORMAL keeps: whatever a process
// that is killed wrote is in the file (no fsync); the next open puts the records found there into
// the database. A record that a crash cut short, or bytes that do not match their checksum, end
// what is read (nothing after them was acknowledged, as the appends are serialised).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace inmanta::store {

class UploadLog {
 public:
  using Record = std::pair<std::string, std::string>;  // content hash, content

  // Opens (creates) the file and reads the records an earlier process left in it (recovered()).
  explicit UploadLog(std::string path);
  ~UploadLog();
  UploadLog(const UploadLog&) = delete;
  UploadLog& operator=(const UploadLog&) = delete;

  // The whole records found at open, in the order they were appended; the caller empties the log
  // (clear) once they are in the database.
  std::vector<Record> takeRecovered() { return std::move(recovered_); }

  // Appends one record with one system call (more only after a short write); on failure the file is
  // cut back to its former end and StoreError thrown. Not thread-safe: the caller serialises.
  void append(const std::string& hash, const std::string& content);

  // Empties the file (every record is in the database).
  void clear();

  std::uint64_t size() const { return size_; }  // the end of the last whole record

 private:
  std::string path_;
  int fd_ = -1;
  std::uint64_t size_ = 0;
  std::vector<Record> recovered_;
};

}  // namespace inmanta::store
