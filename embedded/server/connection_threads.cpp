#include "embedded/server/connection_threads.h"

#include <system_error>
#include <utility>

namespace inmanta::server {

ConnectionThreads::ConnectionThreads(Options options) : options_(options) {
  if (options_.maxThreads == 0) options_.maxThreads = 1;
}

ConnectionThreads::~ConnectionThreads() { shutdown(); }

void ConnectionThreads::enqueue(std::function<void()> task) {
  std::vector<std::thread> ended;
  std::function<void()> here;  // the task, when it runs on this thread
  {
    std::unique_lock<std::mutex> lock(mutex_);
    if (stopping_) {
      lock.unlock();
      task();
      return;
    }
    ended.swap(ended_);  // (they have left work(): joined below, outside the lock)
    queue_.push_back(std::move(task));
    if (queue_.size() <= idle_) {
      wake_.notify_one();
    } else if (threads_.size() < options_.maxThreads) {
      try {
        // the new thread waits for the lock until its handle is in threads_
        std::thread thread([this] { work(); });
        std::thread::id id = thread.get_id();
        threads_.emplace(id, std::move(thread));
      } catch (const std::system_error&) {
        // no thread to be had (the process's limit): a busy thread takes the task when it is
        // free; with none, it runs here
        if (threads_.empty()) {
          here = std::move(queue_.back());
          queue_.pop_back();
        }
      }
    }
  }
  for (std::thread& thread : ended) thread.join();
  if (here) here();
}

void ConnectionThreads::work() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    if (!queue_.empty()) {
      std::function<void()> task = std::move(queue_.front());
      queue_.pop_front();
      lock.unlock();
      task();
      task = nullptr;  // (what it holds goes before the lock is taken again)
      lock.lock();
      continue;
    }
    if (stopping_) return;  // shutdown() holds this thread's handle and joins it
    ++idle_;
    bool woken = wake_.wait_for(lock, options_.idleTimeout, [this] { return stopping_ || !queue_.empty(); });
    --idle_;
    if (!woken) break;
  }
  // idle for the whole timeout: this thread ends; the next enqueue() or shutdown() joins it
  auto self = threads_.find(std::this_thread::get_id());
  ended_.push_back(std::move(self->second));
  threads_.erase(self);
}

void ConnectionThreads::shutdown() {
  std::vector<std::thread> threads;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
    for (auto& [id, thread] : threads_) threads.push_back(std::move(thread));
    threads_.clear();
    for (std::thread& thread : ended_) threads.push_back(std::move(thread));
    ended_.clear();
  }
  wake_.notify_all();
  for (std::thread& thread : threads) thread.join();
}

std::size_t ConnectionThreads::threads() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return threads_.size();
}

std::size_t ConnectionThreads::idleThreads() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return idle_;
}

}  // namespace inmanta::server
