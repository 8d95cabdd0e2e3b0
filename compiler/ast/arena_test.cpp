// ast/arena.h: the Arena's destructors, SymbolTable interning and NameMap lookups.
#include "compiler/ast/arena.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace inmanta::compiler {
namespace {

TEST(NameMap, FindsWhatWasInsertedAndNothingElse) {
  NameMap<size_t> map;
  EXPECT_EQ(map.find("a"), nullptr);  // empty: no table yet
  // names of every length class of the hash and the comparison (1-3, 4-7, 8-16, longer)
  std::vector<std::string> names = {"a",
                                    "ab",
                                    "abc",
                                    "abcd",
                                    "abcdefg",
                                    "abcdefgh",
                                    "abcdefghijklmnop",
                                    "abcdefghijklmnopq",
                                    "a_much_longer_attribute_name_than_usual"};
  for (size_t i = 0; i < names.size(); ++i) EXPECT_TRUE(map.insert(names[i], i));
  EXPECT_EQ(map.size(), names.size());
  for (size_t i = 0; i < names.size(); ++i) {
    const size_t* found = map.find(names[i]);
    ASSERT_NE(found, nullptr) << names[i];
    EXPECT_EQ(*found, i);
  }
  // same length, one byte different (first, middle, last)
  for (std::string_view other : {"b", "aa", "abd", "xbcd", "abcdxfg", "abcdefgx", "abcdefghijklmnox",
                                 "xbcdefghijklmnopq", "a_much_longer_attribute_name_than_usuaX", ""})
    EXPECT_EQ(map.find(other), nullptr) << other;
}

TEST(NameMap, KeepsTheFirstValueOfANameAndGrows) {
  NameMap<int> map;
  std::vector<std::string> names;
  for (int i = 0; i < 5000; ++i) names.push_back("svc_" + std::to_string(i));
  for (int i = 0; i < 5000; ++i) EXPECT_TRUE(map.insert(names[static_cast<size_t>(i)], i));
  EXPECT_FALSE(map.insert(names[42], -1));
  EXPECT_EQ(map.size(), 5000u);
  for (int i = 0; i < 5000; ++i) EXPECT_EQ(*map.find(names[static_cast<size_t>(i)]), i);
  EXPECT_EQ(map.find("svc_5000"), nullptr);
}

TEST(SymbolTable, InternsEachNameOnce) {
  SymbolTable table;
  std::string_view a = table.intern("name");
  std::string_view b = table.intern("other");
  EXPECT_NE(a.data(), b.data());
  EXPECT_EQ(table.intern(std::string("na") + "me").data(), a.data());
  EXPECT_EQ(b, "other");
  // a prefix and an extension are other names
  EXPECT_NE(table.intern("nam").data(), a.data());
  EXPECT_NE(table.intern("names").data(), a.data());
  EXPECT_EQ(table.intern("").size(), 0u);
  EXPECT_EQ(table.intern(std::string_view()).data(), table.intern("").data());  // (no data at all)
  // grown past its first size: every name keeps its bytes and its header's hash
  std::vector<std::string_view> many;
  for (int i = 0; i < 5000; ++i) many.push_back(table.intern("svc_" + std::to_string(i)));
  for (int i = 0; i < 5000; ++i) {
    std::string text = "svc_" + std::to_string(i);
    EXPECT_EQ(table.intern(text).data(), many[static_cast<size_t>(i)].data());
    EXPECT_EQ(SymbolHeader::of(many[static_cast<size_t>(i)].data())->hash, NameHashing::hash(text));
  }
  EXPECT_EQ(table.intern("name").data(), a.data());
  EXPECT_EQ(table.size(), 5005u);
  EXPECT_NE(SymbolHeader::nextOwner(), SymbolHeader::nextOwner());
}

struct Counted {
  explicit Counted(int* counter) : destroyed(counter) {}
  ~Counted() { ++*destroyed; }
  int* destroyed;
};

TEST(Arena, DestroysItsObjectsUnlessToldToKeepThem) {
  int destroyed = 0;
  {
    Arena arena;
    arena.make<Counted>(&destroyed);
    arena.make<Counted>(&destroyed);
  }
  EXPECT_EQ(destroyed, 2);
  destroyed = 0;
  {
    Arena arena;
    arena.make<Counted>(&destroyed);  // made before: destroyed with the arena
    arena.keepObjects();
    arena.make<Counted>(&destroyed);  // kept: its destructor never runs
  }
  EXPECT_EQ(destroyed, 1);
}

TEST(PrefaultedBlocks, HandsOutWritableBlocksAheadAndTakesThemBack) {
  std::vector<void*> blocks;
  for (int i = 0; i < 6; ++i) {
    void* block = PrefaultedBlocks::supply().take();
    ASSERT_NE(block, nullptr);
    auto* bytes = static_cast<unsigned char*>(block);
    bytes[0] = 1;
    bytes[PrefaultedBlocks::kSize - 1] = 2;  // the whole block is the caller's
    for (void* other : blocks) EXPECT_NE(other, block);
    blocks.push_back(block);
  }
  for (void* block : blocks) PrefaultedBlocks::release(block);
}

TEST(Arena, KeepsItsObjectsIntactWhenItGrowsIntoPrefaultedBlocks) {
  // past 64 blocks of 64 KiB, the arena's blocks come from PrefaultedBlocks
  Arena arena;
  std::vector<uint64_t*> values;
  const size_t count = (80 * 64 * 1024) / sizeof(uint64_t) + PrefaultedBlocks::kSize / sizeof(uint64_t);
  for (size_t i = 0; i < count; ++i)
    values.push_back(new (arena.allocate(sizeof(uint64_t), alignof(uint64_t))) uint64_t(i));
  for (size_t i = 0; i < count; i += 4099) EXPECT_EQ(*values[i], i);
  EXPECT_EQ(*values.back(), count - 1);
  // an allocation larger than a prefaulted block gets a block of its own
  auto* big = static_cast<unsigned char*>(arena.allocate(PrefaultedBlocks::kSize + 1, 8));
  big[PrefaultedBlocks::kSize] = 7;
  EXPECT_EQ(big[PrefaultedBlocks::kSize], 7);
}

}  // namespace
}  // namespace inmanta::compiler
