// Large blocks for the compile's arenas, faulted in ahead of use by a thread of their own.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <thread>
#include <vector>

#include <sys/mman.h>

namespace inmanta::compiler {

// A large compile writes most of its memory into arenas (syntax trees, instances, variables),
// block after block. Each new page costs a page fault on the compile's thread, the kernel zeroing
// it in the fault (a sixth of a 100,000-service compile). An arena that has grown large takes
// blocks from here instead: the helper thread maps and populates (MADV_POPULATE_WRITE) the next
// few blocks while the compile fills the current one, so the faults happen on the other core. At
// most kAhead blocks are kept ready (their memory counts as used); a take never waits (with none
// ready it maps a fresh, unpopulated block).
class PrefaultedBlocks {
 public:
  static constexpr size_t kSize = size_t(1) << 20;
  static constexpr size_t kAhead = 2;

  static PrefaultedBlocks& supply() {
    static PrefaultedBlocks blocks;
    return blocks;
  }
  // For an arena that has `blocks` blocks of 64 KiB or more and needs `size` bytes: a block of
  // kSize bytes once it has grown past kLargeFrom of them (4 MiB), else null (the arena allocates
  // its own block, as it does when the mapping is refused).
  static constexpr size_t kLargeFrom = 64;
  static void* forArena(size_t blocks, size_t size) {
    return blocks >= kLargeFrom && size <= kSize ? supply().take() : nullptr;
  }
  // A block of kSize bytes (null when the system refuses the mapping), given back with release().
  void* take() {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      if (!started_) {
        started_ = true;
        try {
          thread_ = std::thread([this] { fill(); });
        } catch (const std::system_error&) {
          stopping_ = true;  // no thread to be had: blocks are mapped on demand
        }
      }
      wanted_ = true;
      if (!ready_.empty()) {
        void* block = ready_.back();
        ready_.pop_back();
        lock.unlock();
        wake_.notify_one();
        return block;
      }
    }
    wake_.notify_one();
    return map();
  }
  static void release(void* block) {
    if (block != nullptr) munmap(block, kSize);
  }
  ~PrefaultedBlocks() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_one();
    if (thread_.joinable()) thread_.join();
    for (void* block : ready_) release(block);
  }

 private:
  PrefaultedBlocks() = default;
  static void* map() {
    void* at = mmap(nullptr, kSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return at == MAP_FAILED ? nullptr : at;
  }
  void fill() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      wake_.wait(lock, [this] { return stopping_ || (wanted_ && ready_.size() < kAhead); });
      if (stopping_) return;
      lock.unlock();
      void* block = map();
#ifdef MADV_POPULATE_WRITE
      if (block != nullptr) (void)madvise(block, kSize, MADV_POPULATE_WRITE);
#endif
      lock.lock();
      if (block == nullptr) {
        wanted_ = false;  // (the next take asks again)
        continue;
      }
      ready_.push_back(block);
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_;
  std::vector<void*> ready_;
  std::thread thread_;
  bool started_ = false;
  bool wanted_ = false;
  bool stopping_ = false;
};

// One block of an arena (syntax trees, instances, the scheduler's variables): for an arena that
// has `blocks` blocks and needs `size` bytes, a prefaulted block once it has grown large
// (PrefaultedBlocks::forArena), else one of `smallest` bytes or `size` if larger from the heap
// (aligned for any object). Not zeroed: whoever uses it constructs what it puts there.
struct ArenaBlock {
  void* memory;
  size_t bytes;
  bool prefaulted;

  static ArenaBlock take(size_t blocks, size_t size, size_t smallest) {
    if (void* block = PrefaultedBlocks::forArena(blocks, size)) return {block, PrefaultedBlocks::kSize, true};
    size_t bytes = size > smallest ? size : smallest;
    return {::operator new(bytes), bytes, false};
  }
  void release() const {
    if (prefaulted) PrefaultedBlocks::release(memory);
    else ::operator delete(memory);
  }
};

}  // namespace inmanta::compiler
