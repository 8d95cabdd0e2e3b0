// Unit tests of the HTTP server's connection threads (connection_threads.h): as many connections
// served at once as there are (up to the cap), threads reused and ended when idle, what is queued
// run before shutdown() returns.
#include "embedded/server/connection_threads.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <thread>

namespace inmanta::server {
namespace {

using namespace std::chrono_literals;

// Tasks that hold their thread until released, as a keep-alive connection does.
class Gate {
 public:
  // Called by a task: counts it as started and waits until open() (at most 20 s).
  void pass() {
    std::unique_lock<std::mutex> lock(mutex_);
    ++started_;
    changed_.notify_all();
    changed_.wait_for(lock, 20s, [this] { return open_; });
  }
  void open() {
    std::lock_guard<std::mutex> lock(mutex_);
    open_ = true;
    changed_.notify_all();
  }
  // Waits (at most 20 s) until n tasks have started; false if they did not.
  bool started(int n) {
    std::unique_lock<std::mutex> lock(mutex_);
    return changed_.wait_for(lock, 20s, [&] { return started_ >= n; });
  }
  int startedNow() {
    std::lock_guard<std::mutex> lock(mutex_);
    return started_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  int started_ = 0;
  bool open_ = false;
};

TEST(ConnectionThreads, ServesMoreConnectionsAtOnceThanCpus) {
  // httplib's own pool had max(8, CPUs - 1) threads: the ninth held connection waited
  ConnectionThreads threads;
  Gate gate;
  const int connections = 24;
  for (int i = 0; i < connections; ++i) threads.enqueue([&] { gate.pass(); });
  EXPECT_TRUE(gate.started(connections)) << gate.startedNow() << " of " << connections << " started";
  EXPECT_EQ(threads.threads(), static_cast<std::size_t>(connections));
  gate.open();
  threads.shutdown();
  EXPECT_EQ(threads.threads(), 0u);
}

TEST(ConnectionThreads, BeyondTheCapATaskWaitsForAFreeThread) {
  ConnectionThreads threads({.maxThreads = 2, .idleTimeout = 30s});
  Gate gate;
  std::atomic<int> third{0};
  threads.enqueue([&] { gate.pass(); });
  threads.enqueue([&] { gate.pass(); });
  threads.enqueue([&] { ++third; });
  ASSERT_TRUE(gate.started(2));
  std::this_thread::sleep_for(50ms);  // (time it would have had to start)
  EXPECT_EQ(third.load(), 0);
  EXPECT_EQ(threads.threads(), 2u);
  gate.open();
  threads.shutdown();  // runs what is queued first
  EXPECT_EQ(third.load(), 1);
}

TEST(ConnectionThreads, AnIdleThreadTakesTheNextTask) {
  ConnectionThreads threads({.maxThreads = 8, .idleTimeout = 30s});
  std::mutex mutex;
  std::condition_variable done;
  std::set<std::thread::id> ids;
  int finished = 0;
  for (int i = 0; i < 5; ++i) {
    threads.enqueue([&] {
      std::lock_guard<std::mutex> lock(mutex);
      ids.insert(std::this_thread::get_id());
      ++finished;
      done.notify_all();
    });
    {
      std::unique_lock<std::mutex> lock(mutex);
      ASSERT_TRUE(done.wait_for(lock, 20s, [&] { return finished == i + 1; }));
    }
    // (the task has ended; its thread is back waiting a moment later)
    auto deadline = std::chrono::steady_clock::now() + 20s;
    while (threads.idleThreads() != 1 && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
  }
  // one after the other: the thread of the first served them all
  EXPECT_EQ(ids.size(), 1u);
  EXPECT_EQ(threads.threads(), 1u);
}

TEST(ConnectionThreads, IdleThreadsEndAndNewOnesStart) {
  ConnectionThreads threads({.maxThreads = 8, .idleTimeout = 20ms});
  std::atomic<int> ran{0};
  for (int i = 0; i < 3; ++i) threads.enqueue([&] { ++ran; });
  auto deadline = std::chrono::steady_clock::now() + 20s;
  while ((ran.load() < 3 || threads.threads() != 0) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(5ms);
  EXPECT_EQ(ran.load(), 3);
  EXPECT_EQ(threads.threads(), 0u) << "idle threads did not end";
  // the ended threads are joined by the next enqueue (or shutdown); a new thread serves it
  threads.enqueue([&] { ++ran; });
  threads.shutdown();
  EXPECT_EQ(ran.load(), 4);
}

TEST(ConnectionThreads, AfterShutdownATaskRunsOnTheCallersThread) {
  ConnectionThreads threads;
  threads.shutdown();
  std::thread::id ranOn;
  threads.enqueue([&] { ranOn = std::this_thread::get_id(); });
  EXPECT_EQ(ranOn, std::this_thread::get_id());
}

}  // namespace
}  // namespace inmanta::server
