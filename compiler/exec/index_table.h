// The instances of an entity by index key (spec 4.10). A key is the bytes IndexKeyWriter writes
// for the values of one index's attributes; the table is open-addressing (linear probing,
// power-of-two size, at most 7/10 full), 16 bytes a slot that holds an instance's number, with
// the keys' bytes in an arena: no node, no string and no heap block per instance, where a
// std::unordered_map<std::string, Instance*> had all three.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <memory_resource>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/ast/arena.h"

namespace inmanta::compiler::exec {

// Writes the key of one index: the index's number, then each value as a type tag and its bytes.
// Two keys are equal exactly when the index is the same and each value has the same Python repr,
// the reference's key (the writer's callers pass every value that is not a scalar or a string as
// its repr text, and an instance as its number). It writes into a std::pmr::string: a
// construction keeps its keys in memory of its own on the stack (Evaluator::IndexKeys).
class IndexKeyWriter {
 public:
  explicit IndexKeyWriter(std::pmr::string& out, uint32_t index) : out_(out) {
    out_.clear();
    word(index);
  }
  void null() { out_ += 'N'; }
  void boolean(bool b) { out_ += b ? 'T' : 'F'; }
  void integer(int64_t i) {
    out_ += 'I';
    raw(&i, sizeof i);
  }
  void floating(double d) {
    // repr tells -0.0 from 0.0 (the bits do too) and writes every NaN as `nan`
    uint64_t bits = d != d ? 0x7FF8000000000000ull : std::bit_cast<uint64_t>(d);
    out_ += 'D';
    raw(&bits, sizeof bits);
  }
  void string(std::string_view s) { text('S', s); }
  void instance(uint32_t number) {
    out_ += 'O';
    word(number);
  }
  void repr(std::string_view text) { this->text('R', text); }

 private:
  void text(char tag, std::string_view s) {
    out_ += tag;
    word(static_cast<uint32_t>(s.size()));
    out_.append(s);
  }
  void word(uint32_t w) { raw(&w, sizeof w); }
  void raw(const void* p, size_t n) { out_.append(static_cast<const char*>(p), n); }
  std::pmr::string& out_;
};

// Keys to numbers (an instance's ordinal: never 0).
class IndexTable {
 public:
  // The number under `key`, or 0.
  uint32_t find(std::string_view key) const {
    if (count_ == 0) return 0;
    uint32_t h = NameHashing::hash(key);
    size_t mask = slots_.size() - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      const Slot& slot = slots_[i];
      if (slot.number == 0) return 0;
      if (slot.hash == h && same(slot.key, key)) return slot.number;
    }
  }
  // Puts `number` under `key` unless the key has a number; returns the number under the key. A
  // new key's bytes are copied into `keys` (after their length).
  uint32_t insert(std::string_view key, uint32_t number, Arena& keys) {
    if ((count_ + 1) * 10 > slots_.size() * 7) grow();
    uint32_t h = NameHashing::hash(key);
    size_t mask = slots_.size() - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      Slot& slot = slots_[i];
      if (slot.number == 0) {
        auto length = static_cast<uint32_t>(key.size());
        char* copy = static_cast<char*>(keys.allocate(sizeof length + key.size(), 1));
        std::memcpy(copy, &length, sizeof length);
        std::memcpy(copy + sizeof length, key.data(), key.size());
        slot = Slot{copy, h, number};
        ++count_;
        return number;
      }
      if (slot.hash == h && same(slot.key, key)) return slot.number;
    }
  }
  size_t size() const { return count_; }

 private:
  struct Slot {
    const char* key = nullptr;  // its length (4 bytes), then its bytes
    uint32_t hash = 0;
    uint32_t number = 0;  // 0: free
  };
  static bool same(const char* stored, std::string_view key) {
    uint32_t length = 0;
    std::memcpy(&length, stored, sizeof length);
    return length == key.size() && std::memcmp(stored + sizeof length, key.data(), key.size()) == 0;
  }
  void grow() {
    growSlots(
        slots_, 16, [](const Slot& s) { return s.number == 0; }, [](const Slot& s) { return s.hash; });
  }
  std::vector<Slot> slots_;
  size_t count_ = 0;
};

}  // namespace inmanta::compiler::exec
