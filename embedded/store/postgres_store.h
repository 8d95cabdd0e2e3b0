// The PostgreSQL engine (libpq): a pool of connections between the configured minimum and
// maximum, and a session advisory lock so that one server at a time uses the database.
#pragma once

#include <memory>

#include "embedded/store/store.h"

namespace inmanta::store {

std::unique_ptr<Store> openPostgresStore(const StoreConfig& config);

}  // namespace inmanta::store
