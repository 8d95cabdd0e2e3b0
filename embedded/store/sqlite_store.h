// The SQLite engine: one database file, WAL, a small pool of connections (readers run beside the
// one writer), an exclusive lock file so that one server at a time uses the file.
#pragma once

#include <cstdint>
#include <memory>

#include "embedded/store/store.h"

namespace inmanta::store {

// The size the WAL file (`<database>-wal`) is cut back to when the log starts over.
inline constexpr std::int64_t kSqliteWalSizeLimit = std::int64_t{64} << 20;

std::unique_ptr<Store> openSqliteStore(const StoreConfig& config);

}  // namespace inmanta::store
