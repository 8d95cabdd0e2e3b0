// Arena allocation and symbol interning for one compile (Jsonnet's Allocator, Nix's symbols).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "compiler/ast/prefault.h"

namespace inmanta::compiler {

// Bump allocator; objects live until the arena dies, and their destructors run then.
class Arena {
 public:
  Arena() = default;
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;
  ~Arena() {
    for (auto it = dtors_.rbegin(); it != dtors_.rend(); ++it) it->second(it->first);
    for (const ArenaBlock& b : blocks_) b.release();
  }

  template <class T, class... Args>
  T* make(Args&&... args) {
    void* mem = allocate(sizeof(T), alignof(T));
    T* obj = new (mem) T(std::forward<Args>(args)...);
    if constexpr (!std::is_trivially_destructible_v<T>)
      if (!keepObjects_) dtors_.emplace_back(obj, [](void* p) { static_cast<T*>(p)->~T(); });
    return obj;
  }
  // The objects made from now on are never destroyed: what they hold is left to the operating
  // system (a process that ends with its compile), so no destructor is recorded for them (16
  // bytes for most nodes of a syntax tree).
  void keepObjects() { keepObjects_ = true; }

  // Raw memory that lives as long as the arena; whoever constructs objects in it destroys them.
  void* allocate(size_t size, size_t align) {
    size_t offset = (used_ + align - 1) & ~(align - 1);
    if (blocks_.empty() || offset + size > capacity_) {
      blocks_.push_back(ArenaBlock::take(blocks_.size(), size, kBlock));
      capacity_ = blocks_.back().bytes;
      offset = 0;
    }
    used_ = offset + size;
    return static_cast<char*>(blocks_.back().memory) + offset;
  }

 private:
  static constexpr size_t kBlock = 64 * 1024;
  std::vector<ArenaBlock> blocks_;
  size_t used_ = 0;
  size_t capacity_ = 0;
  bool keepObjects_ = false;
  std::vector<std::pair<void*, void (*)(void*)>> dtors_;
};

// Hashing and comparing names (identifiers: short strings), word at a time.
struct NameHashing {
  static uint32_t hash(std::string_view s) {
    const char* p = s.data();
    size_t n = s.size();
    uint64_t h = 0x9E3779B97F4A7C15ull * (n + 1);
    auto mix = [&h](uint64_t w) {
      h = (h ^ w) * 0xBF58476D1CE4E5B9ull;
      h ^= h >> 31;
    };
    for (; n >= 8; p += 8, n -= 8) {
      uint64_t w;
      std::memcpy(&w, p, 8);
      mix(w);
    }
    if (n >= 4) {
      uint32_t a, b;
      std::memcpy(&a, p, 4);
      std::memcpy(&b, p + n - 4, 4);
      mix((static_cast<uint64_t>(a) << 32) | b);
    } else if (n > 0) {
      auto byte = [p](size_t k) { return static_cast<uint64_t>(static_cast<unsigned char>(p[k])); };
      mix((byte(0) << 16) | (byte(n >> 1) << 8) | byte(n - 1));
    }
    h *= 0x94D049BB133111EBull;
    return static_cast<uint32_t>(h >> 32);
  }

  // a == b, names being short: up to 16 bytes compared as two (overlapping) words each
  static bool same(std::string_view a, std::string_view b) {
    size_t n = a.size();
    if (n != b.size()) return false;
    const char* p = a.data();
    const char* q = b.data();
    if (n >= 8) {
      if (n > 16) return std::memcmp(p, q, n) == 0;
      uint64_t p1, p2, q1, q2;
      std::memcpy(&p1, p, 8);
      std::memcpy(&p2, p + n - 8, 8);
      std::memcpy(&q1, q, 8);
      std::memcpy(&q2, q + n - 8, 8);
      return ((p1 ^ q1) | (p2 ^ q2)) == 0;
    }
    if (n >= 4) {
      uint32_t p1, p2, q1, q2;
      std::memcpy(&p1, p, 4);
      std::memcpy(&p2, p + n - 4, 4);
      std::memcpy(&q1, q, 4);
      std::memcpy(&q2, q + n - 4, 4);
      return ((p1 ^ q1) | (p2 ^ q2)) == 0;
    }
    return n == 0 || (p[0] == q[0] && p[n >> 1] == q[n >> 1] && p[n - 1] == q[n - 1]);
  }
};

// NameHashing as the hash function of a standard container of names.
struct NameHash {
  size_t operator()(std::string_view name) const { return NameHashing::hash(name); }
};

// The tables over NameHashing (NameMap and SymbolTable here; the evaluator's literal, scope and
// index tables) are open addressing with linear probing in a power-of-two vector of slots.
// The free slot where an entry of hash `hash` goes.
template <class Slot, class IsFree>
Slot& freeSlotFor(std::vector<Slot>& slots, uint32_t hash, IsFree isFree) {
  size_t mask = slots.size() - 1;
  size_t i = hash & mask;
  while (!isFree(slots[i])) i = (i + 1) & mask;
  return slots[i];
}
// Doubles such a table (makes it `firstSize` when empty) and moves every entry over.
template <class Slot, class IsFree, class HashOf>
void growSlots(std::vector<Slot>& slots, size_t firstSize, IsFree isFree, HashOf hashOf) {
  std::vector<Slot> old(slots.empty() ? firstSize : slots.size() * 2);
  old.swap(slots);
  for (Slot& slot : old)
    if (!isFree(slot)) freeSlotFor(slots, hashOf(slot), isFree) = std::move(slot);
}

// A map from names to small values: open addressing (linear probing, power-of-two size) over
// NameHashing, for the lookups by name the evaluator makes per reference (scopes, an entity's
// attributes). The names are not copied: they must outlive the map.
template <class T>
class NameMap {
 public:
  // The value of `key`, or null.
  const T* find(std::string_view key) const { return count_ == 0 ? nullptr : find(key, NameHashing::hash(key)); }
  // The same for a key whose NameHashing::hash is `h`.
  const T* find(std::string_view key, uint32_t h) const {
    if (count_ == 0) return nullptr;
    size_t mask = slots_.size() - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      const Slot& slot = slots_[i];
      if (!slot.used) return nullptr;
      if (slot.hash == h && NameHashing::same(slot.key, key)) return &slot.value;
    }
  }
  // Adds `key` unless it is there; true when added.
  bool insert(std::string_view key, T value) {
    if ((count_ + 1) * 2 > slots_.size()) grow();
    uint32_t h = NameHashing::hash(key);
    size_t mask = slots_.size() - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      Slot& slot = slots_[i];
      if (!slot.used) {
        slot = Slot{key, h, true, std::move(value)};
        ++count_;
        return true;
      }
      if (slot.hash == h && NameHashing::same(slot.key, key)) return false;
    }
  }
  size_t size() const { return count_; }

 private:
  struct Slot {
    std::string_view key;
    uint32_t hash = 0;
    bool used = false;
    T value{};
  };
  void grow() {
    growSlots(
        slots_, 16, [](const Slot& s) { return !s.used; }, [](const Slot& s) { return s.hash; });
  }
  std::vector<Slot> slots_;
  size_t count_ = 0;
};

// What an interned name's text follows in the SymbolTable's memory: its hash, and one binding its
// users may keep per name (the evaluator: the variable of the scope that declared it first, so
// that most lookups of a name read this and nothing else). A binding is valid for its `owner`
// only: a number its user takes once (nextOwner()), so a table's names outliving one user are
// not misread by the next.
struct SymbolHeader {
  uint32_t hash = 0;
  uint32_t owner = 0;  // 0: no binding
  const void* scope = nullptr;
  void* value = nullptr;
  static uint32_t nextOwner() {
    static std::atomic<uint32_t> last{0};
    uint32_t n = ++last;
    return n != 0 ? n : ++last;
  }
  // the header of the text at `text`, which the table interned
  static SymbolHeader* of(const char* text) {
    return reinterpret_cast<SymbolHeader*>(const_cast<char*>(text) - sizeof(SymbolHeader));
  }
};
static_assert(sizeof(SymbolHeader) == 24 && alignof(SymbolHeader) == 8);

// Interns names: the same text gives the very same bytes, which stay valid (after their
// SymbolHeader) for the table's lifetime. Only the parser interns, once per name it reads: an
// open-addressing table (linear probing, power-of-two size) over a cheap word-at-a-time hash. A
// slot is one word: the text's address, and in its top 16 bits the top of the hash (a probe
// rarely reads a text that is not the one it looks for).
class SymbolTable {
 public:
  std::string_view intern(std::string_view text) {
    uint32_t h = NameHashing::hash(text);
    if ((count_ + 1) * 2 > slots_.size()) grow();
    uint64_t tag = static_cast<uint64_t>(h >> 16) << kTagShift;
    size_t mask = slots_.size() - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      uint64_t slot = slots_[i];
      if (slot == 0) {
        const char* made = add(text, h);
        slots_[i] = tag | reinterpret_cast<uintptr_t>(made);
        ++count_;
        return {made, text.size()};
      }
      if ((slot & ~kAddress) != tag) continue;
      const char* known = reinterpret_cast<const char*>(slot & kAddress);
      if (same(known, text)) return {known, text.size()};
    }
  }
  size_t size() const { return count_; }

 private:
  // Whether the NUL-terminated `known` is `text`: read up to its end only (a shorter one ends
  // before the text's size; a name has no NUL of its own).
  static bool same(const char* known, std::string_view text) {
    for (size_t i = 0; i < text.size(); ++i)
      if (known[i] == '\0' || known[i] != text[i]) return false;
    return known[text.size()] == '\0';
  }
  static constexpr int kTagShift = 48;
  static constexpr uint64_t kAddress = (uint64_t(1) << kTagShift) - 1;
  const char* add(std::string_view text, uint32_t h) {
    static_assert(sizeof(void*) == 8, "slots keep a 48-bit address");
    auto* header = new (memory_.allocate(sizeof(SymbolHeader) + text.size() + 1, alignof(SymbolHeader))) SymbolHeader;
    header->hash = h;
    if ((reinterpret_cast<uintptr_t>(header) & ~kAddress) != 0)
      throw std::runtime_error("the name table's memory is outside the 48-bit address space");
    char* bytes = reinterpret_cast<char*>(header + 1);
    if (!text.empty()) std::memcpy(bytes, text.data(), text.size());  // (an empty view may have no data)
    bytes[text.size()] = '\0';
    return bytes;
  }
  void grow() {
    growSlots(
        slots_, 256, [](uint64_t s) { return s == 0; },
        [](uint64_t s) { return SymbolHeader::of(reinterpret_cast<const char*>(s & kAddress))->hash; });
  }

  Arena memory_;
  std::vector<uint64_t> slots_;
  size_t count_ = 0;
};

}  // namespace inmanta::compiler
