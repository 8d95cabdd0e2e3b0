// put_version of 10,000 resources, including the commit, on each store engine (issue 30's
// targets: ≤ 0.3 s on SQLite, ≤ 0.5 s on PostgreSQL). PostgreSQL runs when INMANTA_TEST_PG holds
// a libpq connection string to a server where the user may create databases
// (tests/support/pg_cluster.py start DIR writes one to DIR/conninfo).
#include <benchmark/benchmark.h>
#include <libpq-fe.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "embedded/store/store.h"

namespace {

using namespace inmanta::store;

std::vector<Resource> resources(int count) {
  std::vector<Resource> out;
  out.reserve(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) {
    Resource r;
    std::string path = "/srv/bench/file" + std::to_string(i);
    r.resource_id = "std::File[localhost,path=" + path + "]";
    r.resource_type = "std::File";
    r.agent = "localhost";
    r.id_attribute = "path";
    r.resource_id_value = path;
    r.attributes = {{"path", path},
                    {"owner", "root"},
                    {"group", "root"},
                    {"permissions", 644},
                    {"hash", "f572d396fae9206628714fb2ce00f72e94f2258f"},
                    {"requires", nlohmann::json::array()},
                    {"send_event", true},
                    {"purged", false}};
    r.attribute_hash = "0123456789abcdef0123456789abcdef";
    out.push_back(std::move(r));
  }
  return out;
}

void putVersions(benchmark::State& state, const StoreConfig& config) {
  auto store = Store::open(config);
  auto project = store->createProject("bench-" + newUuid());
  auto env = store->createEnvironment({std::nullopt, project.id, "bench", "", "", "", ""}).id;
  NewVersion version;
  version.environment = env;
  version.resources = resources(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    version.version = store->reserveVersion(env);
    store->putVersion(version);
  }
}

// releaseVersion of a version of 10,000 resources in a new environment: it creates a state row
// per resource (the path of `export -d`); storing the version is not timed.
void releaseVersions(benchmark::State& state, const StoreConfig& config) {
  auto store = Store::open(config);
  auto project = store->createProject("bench-" + newUuid());
  NewVersion version;
  version.resources = resources(static_cast<int>(state.range(0)));
  int count = 0;
  for (auto _ : state) {
    state.PauseTiming();
    version.environment =
        store->createEnvironment({std::nullopt, project.id, "bench" + std::to_string(++count), "", "", "", ""}).id;
    version.version = store->reserveVersion(version.environment);
    store->putVersion(version);
    state.ResumeTiming();
    store->releaseVersion(version.environment, version.version);
  }
}

// Runs `body` on a SQLite store in a new temporary folder.
void onSqlite(benchmark::State& state, void (*body)(benchmark::State&, const StoreConfig&)) {
  char pattern[] = "/tmp/inmanta-store-bench-XXXXXX";
  std::string dir = mkdtemp(pattern);
  StoreConfig config;
  config.sqlite_path = dir + "/inmanta.db";
  body(state, config);
  std::filesystem::remove_all(dir);
}

void BM_PutVersionSqlite(benchmark::State& state) { onSqlite(state, putVersions); }
BENCHMARK(BM_PutVersionSqlite)->Arg(10000)->Unit(benchmark::kMillisecond)->UseRealTime();
void BM_ReleaseVersionSqlite(benchmark::State& state) { onSqlite(state, releaseVersions); }
BENCHMARK(BM_ReleaseVersionSqlite)->Arg(10000)->Unit(benchmark::kMillisecond)->UseRealTime();

void adminExec(const std::string& conninfo, const std::string& sql) {
  PGconn* conn = PQconnectdb(conninfo.c_str());
  PQclear(PQexec(conn, sql.c_str()));
  PQfinish(conn);
}

// Runs `body` on PostgreSQL, in a new database of the server INMANTA_TEST_PG names.
void onPostgres(benchmark::State& state, void (*body)(benchmark::State&, const StoreConfig&)) {
  const char* server = std::getenv("INMANTA_TEST_PG");
  if (!server || !*server) {
    state.SkipWithError("INMANTA_TEST_PG is not set");
    return;
  }
  StoreConfig config;
  config.engine = Engine::postgresql;
  PQconninfoOption* options = PQconninfoParse(server, nullptr);
  for (auto* o = options; o && o->keyword; ++o) {
    if (!o->val) continue;
    std::string key = o->keyword;
    if (key == "host") config.host = o->val;
    if (key == "port") config.port = std::atoi(o->val);
    if (key == "user") config.username = o->val;
    if (key == "password") config.password = o->val;
  }
  PQconninfoFree(options);
  config.name = "store_bench_" + std::to_string(getpid());
  adminExec(server, "CREATE DATABASE " + config.name);
  body(state, config);
  adminExec(server, "DROP DATABASE " + config.name + " WITH (FORCE)");
}

void BM_PutVersionPostgres(benchmark::State& state) { onPostgres(state, putVersions); }
BENCHMARK(BM_PutVersionPostgres)->Arg(10000)->Unit(benchmark::kMillisecond)->UseRealTime();
void BM_ReleaseVersionPostgres(benchmark::State& state) { onPostgres(state, releaseVersions); }
BENCHMARK(BM_ReleaseVersionPostgres)->Arg(10000)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
