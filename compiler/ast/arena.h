// Arena allocation and symbol interning for one compile (Jsonnet's Allocator, Nix's symbols).
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

namespace inmanta::compiler {

// Bump allocator; objects live until the arena dies, and their destructors run then.
class Arena {
 public:
  Arena() = default;
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;
  ~Arena() {
    for (auto it = dtors_.rbegin(); it != dtors_.rend(); ++it) it->second(it->first);
  }

  template <class T, class... Args>
  T* make(Args&&... args) {
    void* mem = allocate(sizeof(T), alignof(T));
    T* obj = new (mem) T(std::forward<Args>(args)...);
    if constexpr (!std::is_trivially_destructible_v<T>)
      dtors_.emplace_back(obj, [](void* p) { static_cast<T*>(p)->~T(); });
    return obj;
  }

 private:
  void* allocate(size_t size, size_t align) {
    size_t offset = (used_ + align - 1) & ~(align - 1);
    if (blocks_.empty() || offset + size > capacity_) {
      capacity_ = size > kBlock ? size : kBlock;
      blocks_.emplace_back(new std::max_align_t[(capacity_ + sizeof(std::max_align_t) - 1) /
                                               sizeof(std::max_align_t)]);
      offset = 0;
    }
    used_ = offset + size;
    return reinterpret_cast<char*>(blocks_.back().get()) + offset;
  }

  static constexpr size_t kBlock = 64 * 1024;
  std::vector<std::unique_ptr<std::max_align_t[]>> blocks_;
  size_t used_ = 0;
  size_t capacity_ = 0;
  std::vector<std::pair<void*, void (*)(void*)>> dtors_;
};

using Symbol = uint32_t;

// Interns names; a Symbol compares by id and its text stays valid for the table's lifetime.
class SymbolTable {
 public:
  Symbol intern(std::string_view text) {
    auto it = index_.find(text);
    if (it != index_.end()) return it->second;
    texts_.emplace_back(text);
    Symbol id = static_cast<Symbol>(texts_.size() - 1);
    index_.emplace(std::string_view(texts_.back()), id);
    return id;
  }
  std::string_view text(Symbol id) const { return texts_.at(id); }

 private:
  std::deque<std::string> texts_;
  std::unordered_map<std::string_view, Symbol> index_;
};

}  // namespace inmanta::compiler
