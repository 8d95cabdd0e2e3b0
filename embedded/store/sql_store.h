// The Store implemented once over database.h; the engines open a Database and hand it here.
#pragma once

#include <memory>
#include <string>

#include "embedded/store/database.h"
#include "embedded/store/store.h"

namespace inmanta::store::sql {

// `db` is migrated already; `guard` holds the single-server lock for as long as the store lives.
std::unique_ptr<Store> makeSqlStore(std::unique_ptr<Database> db, std::shared_ptr<void> guard, int schema_version);

}  // namespace inmanta::store::sql
