// A small HTTP load generator for the server benchmarks (bench/server_bench.py): `threads` clients,
// each on its own keep-alive connection, send the same GET for `seconds` (or `count` requests per
// client) and record every latency. Prints one JSON line: requests, seconds, requests per second,
// p50/p90/p99/max latency in milliseconds, and the number of answers that were not 200.
//
//   inmanta_rest_load HOST PORT PATH [--threads N] [--seconds S] [--count N] [--header K:V]...
#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  std::string host;
  int port = 0;
  std::string path;
  int threads = 8;
  double seconds = 5;
  long count = 0;  // per client; 0 = run for `seconds`
  httplib::Headers headers;
};

[[noreturn]] void usage() {
  std::fprintf(stderr,
               "usage: inmanta_rest_load HOST PORT PATH [--threads N] [--seconds S] [--count N] [--header K:V]...\n");
  std::exit(2);
}

Options parse(int argc, char** argv) {
  if (argc < 4) usage();
  Options o;
  o.host = argv[1];
  o.port = std::atoi(argv[2]);
  o.path = argv[3];
  for (int i = 4; i < argc; ++i) {
    std::string arg = argv[i];
    if (i + 1 >= argc) usage();
    std::string value = argv[++i];
    if (arg == "--threads") {
      o.threads = std::max(1, std::atoi(value.c_str()));
    } else if (arg == "--seconds") {
      o.seconds = std::atof(value.c_str());
    } else if (arg == "--count") {
      o.count = std::atol(value.c_str());
    } else if (arg == "--header") {
      auto colon = value.find(':');
      if (colon == std::string::npos) usage();
      o.headers.emplace(value.substr(0, colon), value.substr(colon + 1));
    } else {
      usage();
    }
  }
  return o;
}

double percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  size_t index = static_cast<size_t>(p * static_cast<double>(sorted.size() - 1) + 0.5);
  return sorted[std::min(index, sorted.size() - 1)];
}

}  // namespace

int main(int argc, char** argv) {
  Options options = parse(argc, argv);
  std::vector<std::vector<double>> latencies(options.threads);
  std::atomic<long> failures{0};
  auto start = Clock::now();
  auto deadline = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(options.seconds));
  std::vector<std::thread> clients;
  for (int t = 0; t < options.threads; ++t) {
    clients.emplace_back([&, t] {
      httplib::Client client(options.host, options.port);
      client.set_keep_alive(true);
      for (long n = 0;; ++n) {
        if (options.count > 0 ? n >= options.count : Clock::now() >= deadline) break;
        auto sent = Clock::now();
        auto reply = client.Get(options.path, options.headers);
        latencies[t].push_back(std::chrono::duration<double, std::milli>(Clock::now() - sent).count());
        if (!reply || reply->status != 200) failures.fetch_add(1);
      }
    });
  }
  for (auto& c : clients) c.join();
  double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  std::vector<double> all;
  for (auto& l : latencies) all.insert(all.end(), l.begin(), l.end());
  std::sort(all.begin(), all.end());
  std::printf(
      "{\"requests\": %zu, \"seconds\": %.3f, \"per_second\": %.0f, \"p50_ms\": %.3f, \"p90_ms\": %.3f, "
      "\"p99_ms\": %.3f, \"max_ms\": %.3f, \"not_200\": %ld}\n",
      all.size(), elapsed, static_cast<double>(all.size()) / elapsed, percentile(all, 0.5), percentile(all, 0.9),
      percentile(all, 0.99), all.empty() ? 0.0 : all.back(), failures.load());
  return failures.load() == 0 ? 0 : 1;
}
