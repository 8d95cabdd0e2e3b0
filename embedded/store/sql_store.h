// The Store implemented once over database.h; the engines open a Database and hand it here.
#pragma once

#include <memory>
#include <string>

#include "embedded/store/database.h"
#include "embedded/store/store.h"

namespace inmanta::store::sql {

// `db` is migrated already; `guard` holds the single-server lock for as long as the store lives.
// `uploadLog`, when given, is the file where uploads are kept until they go into the database many
// at a time (upload_log.h): only for a database that this process alone writes.
std::unique_ptr<Store> makeSqlStore(std::unique_ptr<Database> db, std::shared_ptr<void> guard, int schema_version,
                                    const std::string& uploadLog = {});

}  // namespace inmanta::store::sql
