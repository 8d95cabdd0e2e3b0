// The SQLite engine: one database file, WAL, a small pool of connections (readers run beside the
// one writer), an exclusive lock file so that one server at a time uses the file.
#pragma once

#include <memory>

#include "embedded/store/store.h"

namespace inmanta::store {

std::unique_ptr<Store> openSqliteStore(const StoreConfig& config);

}  // namespace inmanta::store
