#include "embedded/store/store.h"

#include "embedded/store/postgres_store.h"
#include "embedded/store/sqlite_store.h"

namespace inmanta::store {

std::unique_ptr<Store> Store::open(const StoreConfig& config) {
  switch (config.engine) {
    case Engine::sqlite: return openSqliteStore(config);
    case Engine::postgresql: return openPostgresStore(config);
  }
  throw StoreError("Unknown store engine");
}

}  // namespace inmanta::store
