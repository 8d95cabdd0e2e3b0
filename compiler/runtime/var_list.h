// The list of variables a unit or a direct value reads (VarList).
#pragma once

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <initializer_list>
#include <new>
#include <utility>
#include <vector>

namespace inmanta::compiler::runtime {

class Variable;

// The variables a unit or a direct value reads (never null): most read one or two, so those are
// kept inline and only longer lists take memory of their own. 16 bytes (a compile has a million
// units waiting at once): the two variables, a null for each missing one, or, with the low bit
// set (a variable is 8-byte aligned), a pointer to the list's own block in the first word.
class VarList {
 public:
  VarList() = default;
  VarList(std::initializer_list<Variable*> items) { assign(items.begin(), items.end()); }
  explicit VarList(const std::vector<Variable*>& items) { assign(items.data(), items.data() + items.size()); }
  VarList(const VarList& other) { assign(other.begin(), other.end()); }
  VarList& operator=(const VarList& other) {
    if (this != &other) {
      release();
      assign(other.begin(), other.end());
    }
    return *this;
  }
  VarList(VarList&& other) noexcept { take(other); }
  VarList& operator=(VarList&& other) noexcept {
    if (this != &other) {
      release();
      take(other);
    }
    return *this;
  }
  ~VarList() { release(); }
  void push_back(Variable* v) {
    assert(v != nullptr && "a list of inputs holds variables");
    if (!onHeap()) {
      if (items_[0] == nullptr) return void(items_[0] = v);
      if (items_[1] == nullptr) return void(items_[1] = v);
      grow(2 * kInline);
    }
    Block* b = block();
    if (b->size == b->capacity) b = grow(b->capacity * 2);
    b->items()[b->size++] = v;
  }
  // Frees what it holds (for values that no longer need their inputs).
  void release() {
    if (onHeap()) ::operator delete(block());
    items_[0] = items_[1] = nullptr;
  }
  size_t size() const {
    if (onHeap()) return block()->size;
    return items_[0] == nullptr ? 0 : items_[1] == nullptr ? 1 : 2;
  }
  bool empty() const { return items_[0] == nullptr; }
  Variable* const* begin() const { return onHeap() ? block()->items() : items_; }
  Variable* const* end() const { return begin() + size(); }
  Variable* operator[](size_t i) const { return begin()[i]; }
  // Fetches the variables kept inline (most lists) into the cache, ahead of their use.
  void prefetch() const {
    if (onHeap()) return;
    if (items_[0] != nullptr) __builtin_prefetch(items_[0]);
    if (items_[1] != nullptr) __builtin_prefetch(items_[1]);
  }

 private:
  static constexpr uint32_t kInline = 2;
  static constexpr uintptr_t kHeap = 1;
  // (its `capacity` variables follow it)
  struct Block {
    uint32_t size;
    uint32_t capacity;
    Variable** items() { return reinterpret_cast<Variable**>(this + 1); }
  };
  bool onHeap() const { return (reinterpret_cast<uintptr_t>(items_[0]) & kHeap) != 0; }
  Block* block() const { return reinterpret_cast<Block*>(reinterpret_cast<uintptr_t>(items_[0]) & ~kHeap); }
  void assign(Variable* const* first, Variable* const* last) {
    for (; first != last; ++first) push_back(*first);
  }
  // (this one is empty) the other's storage, inline or not, as it is: a move is a plain copy
  void take(VarList& other) {
    items_[0] = std::exchange(other.items_[0], nullptr);
    items_[1] = std::exchange(other.items_[1], nullptr);
  }
  Block* grow(uint32_t capacity) {
    auto* bigger = static_cast<Block*>(::operator new(sizeof(Block) + capacity * sizeof(Variable*)));
    size_t n = size();
    std::copy(begin(), end(), bigger->items());
    bigger->size = static_cast<uint32_t>(n);
    bigger->capacity = capacity;
    if (onHeap()) ::operator delete(block());
    items_[0] = reinterpret_cast<Variable*>(reinterpret_cast<uintptr_t>(bigger) | kHeap);
    items_[1] = nullptr;
    return bigger;
  }
  Variable* items_[kInline] = {nullptr, nullptr};
};
static_assert(sizeof(VarList) == 16, "a list of inputs is two words");

}  // namespace inmanta::compiler::runtime
