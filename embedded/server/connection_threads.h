// The threads that serve the HTTP server's connections. cpp-httplib hands every accepted
// connection to a task queue, and the connection's task keeps its thread for as long as the
// client keeps the connection alive (up to 5 s idle between requests, or for as long as the
// client keeps asking). httplib's own queue is a fixed pool of max(8, CPUs - 1) threads, so a
// ninth keep-alive client (a browser's six connections beside an export's uploads, 8 concurrent
// exporters, several `inmanta-cli monitor`) waited for one of the others to go quiet for 5 s, or
// for ever. Here a connection gets an idle thread, else a new one, up to a cap; a thread left
// without work for a while ends.
#pragma once
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

namespace inmanta::server {

class ConnectionThreads {
 public:
  struct Options {
    // The most threads at once; a connection accepted beyond it waits for a thread.
    std::size_t maxThreads = 256;
    // How long a thread without work waits for more before it ends.
    std::chrono::milliseconds idleTimeout{30000};
  };

  explicit ConnectionThreads(Options options);
  ConnectionThreads() : ConnectionThreads(Options{}) {}
  ~ConnectionThreads();
  ConnectionThreads(const ConnectionThreads&) = delete;
  ConnectionThreads& operator=(const ConnectionThreads&) = delete;

  // Runs the task on an idle thread, else on a new one (below the cap), else when a thread is
  // free. After shutdown(), or when no thread can be started and none is left, the task runs on
  // the caller's thread.
  void enqueue(std::function<void()> task);
  // Runs what is queued, then ends and joins every thread.
  void shutdown();

  // Threads alive now, and those of them waiting for a task (tests).
  std::size_t threads() const;
  std::size_t idleThreads() const;

 private:
  void work();

  Options options_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> queue_;
  std::map<std::thread::id, std::thread> threads_;
  std::vector<std::thread> ended_;  // threads that ended on their idle timeout, to join
  std::size_t idle_ = 0;
  bool stopping_ = false;
};

}  // namespace inmanta::server
