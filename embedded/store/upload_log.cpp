#include "embedded/store/upload_log.h"

#include <fcntl.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "embedded/store/errors.h"

#define XXH_INLINE_ALL  // (header-only: libxxhash-dev's header, no library to link)
#include <xxhash.h>

namespace inmanta::store {

namespace {

// A record: this header (little-endian on the machines we run on; the file never leaves them),
// then the hash's bytes and the content's bytes.
struct Header {
  std::uint32_t magic;
  std::uint32_t hashSize;
  std::uint64_t contentSize;
  std::uint64_t checksum;  // XXH3 of the header's sizes, the hash and the content
};
constexpr std::uint32_t kMagic = 0x31505549;  // "IUP1"
constexpr std::size_t kLargestHash = 4096;    // a longer one is a damaged header

std::uint64_t checksum(const Header& header, const std::string& hash, const std::string& content) {
  XXH3_state_t state;
  XXH3_64bits_reset(&state);
  XXH3_64bits_update(&state, &header.hashSize, sizeof header.hashSize);
  XXH3_64bits_update(&state, &header.contentSize, sizeof header.contentSize);
  XXH3_64bits_update(&state, hash.data(), hash.size());
  XXH3_64bits_update(&state, content.data(), content.size());
  return XXH3_64bits_digest(&state);
}

// Reads exactly `size` bytes at `offset`; false at the end of the file or on an error.
bool readAt(int fd, void* into, std::size_t size, std::uint64_t offset) {
  auto* out = static_cast<char*>(into);
  while (size > 0) {
    ssize_t got = ::pread(fd, out, size, static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    out += got;
    size -= static_cast<std::size_t>(got);
    offset += static_cast<std::uint64_t>(got);
  }
  return true;
}

}  // namespace

UploadLog::UploadLog(std::string path) : path_(std::move(path)) {
  fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd_ < 0) throw StoreError("Cannot open the store's upload log " + path_ + ": " + std::strerror(errno));
  off_t end = ::lseek(fd_, 0, SEEK_END);
  const std::uint64_t fileSize = end < 0 ? 0 : static_cast<std::uint64_t>(end);
  std::uint64_t offset = 0;
  while (offset + sizeof(Header) <= fileSize) {
    Header header{};
    if (!readAt(fd_, &header, sizeof header, offset)) break;
    const std::uint64_t left = fileSize - offset - sizeof header;  // the bytes after the header
    if (header.magic != kMagic || header.hashSize == 0 || header.hashSize > kLargestHash || header.hashSize > left ||
        header.contentSize > left - header.hashSize)
      break;
    Record record;
    record.first.resize(header.hashSize);
    record.second.resize(header.contentSize);
    if (!readAt(fd_, record.first.data(), record.first.size(), offset + sizeof header) ||
        !readAt(fd_, record.second.data(), record.second.size(), offset + sizeof header + header.hashSize) ||
        checksum(header, record.first, record.second) != header.checksum)
      break;
    offset += sizeof header + header.hashSize + header.contentSize;
    recovered_.push_back(std::move(record));
  }
  // what follows the last whole record goes (new records are appended after that record)
  size_ = offset;
  if (size_ != fileSize && ::ftruncate(fd_, static_cast<off_t>(size_)) != 0) {
    int error = errno;
    ::close(fd_);
    throw StoreError("Cannot cut back the store's upload log " + path_ + ": " + std::strerror(error));
  }
}

UploadLog::~UploadLog() {
  if (fd_ >= 0) ::close(fd_);
}

void UploadLog::append(const std::string& hash, const std::string& content) {
  Header header{kMagic, static_cast<std::uint32_t>(hash.size()), content.size(), 0};
  if (hash.empty() || hash.size() > kLargestHash) throw StoreError("Invalid content hash for the upload log");
  header.checksum = checksum(header, hash, content);
  iovec parts[3] = {{&header, sizeof header},
                    {const_cast<char*>(hash.data()), hash.size()},
                    {const_cast<char*>(content.data()), content.size()}};
  const std::uint64_t total = sizeof header + hash.size() + content.size();
  std::uint64_t written = 0;
  int part = 0;
  while (written < total) {
    ssize_t n = ::pwritev(fd_, parts + part, 3 - part, static_cast<off_t>(size_ + written));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int error = n < 0 ? errno : EIO;
      // the part written goes (the next append starts where this record did; should the cut fail
      // too, the next open stops at the broken record, and nothing after it was acknowledged)
      (void)::ftruncate(fd_, static_cast<off_t>(size_));
      throw StoreError("Cannot write to the store's upload log " + path_ + ": " + std::strerror(error));
    }
    written += static_cast<std::uint64_t>(n);
    // past the parts written whole, into the one written in part
    auto left = static_cast<std::size_t>(n);
    while (part < 3 && left >= parts[part].iov_len) left -= parts[part++].iov_len;
    if (part < 3) {
      parts[part].iov_base = static_cast<char*>(parts[part].iov_base) + left;
      parts[part].iov_len -= left;
    }
  }
  size_ += total;
}

void UploadLog::clear() {
  if (size_ == 0) return;
  if (::ftruncate(fd_, 0) != 0)
    throw StoreError("Cannot empty the store's upload log " + path_ + ": " + std::strerror(errno));
  size_ = 0;
}

}  // namespace inmanta::store
