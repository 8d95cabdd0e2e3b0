// exec/index_table.h: index keys (equal exactly when the reference's key texts are) and the
// table from keys to instance numbers.
#include "compiler/exec/index_table.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace inmanta::compiler::exec {
namespace {

template <class F>
std::string key(uint32_t index, F&& write) {
  std::pmr::string out = "left over from an earlier key";
  IndexKeyWriter w(out, index);
  write(w);
  return std::string(out);
}

TEST(IndexKey, EqualOnlyForTheSameIndexAndTheSameReprs) {
  auto i1 = key(0, [](IndexKeyWriter& w) { w.integer(1); });
  EXPECT_EQ(i1, key(0, [](IndexKeyWriter& w) { w.integer(1); }));
  EXPECT_NE(i1, key(1, [](IndexKeyWriter& w) { w.integer(1); }));  // another index
  // 1, 1.0, True and '1' have different reprs: different keys
  EXPECT_NE(i1, key(0, [](IndexKeyWriter& w) { w.floating(1.0); }));
  EXPECT_NE(i1, key(0, [](IndexKeyWriter& w) { w.boolean(true); }));
  EXPECT_NE(i1, key(0, [](IndexKeyWriter& w) { w.string("1"); }));
  EXPECT_NE(i1, key(0, [](IndexKeyWriter& w) { w.instance(1); }));
  // -0.0 is not 0.0 (repr `-0.0`); every NaN is `nan`
  EXPECT_NE(key(0, [](IndexKeyWriter& w) { w.floating(0.0); }), key(0, [](IndexKeyWriter& w) { w.floating(-0.0); }));
  double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(key(0, [&](IndexKeyWriter& w) { w.floating(nan); }), key(0, [&](IndexKeyWriter& w) { w.floating(-nan); }));
  // the values are delimited: ('ab', 'c') is not ('a', 'bc')
  EXPECT_NE(key(0, [](IndexKeyWriter& w) { w.string("ab"), w.string("c"); }),
            key(0, [](IndexKeyWriter& w) { w.string("a"), w.string("bc"); }));
  EXPECT_NE(key(0, [](IndexKeyWriter& w) { w.null(); }), key(0, [](IndexKeyWriter& w) { w.repr("None"); }));
}

TEST(IndexTable, FindsWhatWasPutAndKeepsTheFirstNumberOfAKey) {
  Arena keys;
  IndexTable table;
  EXPECT_EQ(table.find("anything"), 0u);
  std::vector<std::string> all;
  for (uint32_t i = 0; i < 3000; ++i)
    all.push_back(key(i % 3, [&](IndexKeyWriter& w) { w.string("svc_" + std::to_string(i)), w.integer(i); }));
  all.push_back(key(0, [](IndexKeyWriter&) {}));  // an index of no attribute: the number alone
  for (size_t i = 0; i < all.size(); ++i) EXPECT_EQ(table.insert(all[i], static_cast<uint32_t>(i + 1), keys), i + 1);
  EXPECT_EQ(table.size(), all.size());
  EXPECT_EQ(table.insert(all[42], 9999, keys), 43u);  // taken: the number already there
  for (size_t i = 0; i < all.size(); ++i) EXPECT_EQ(table.find(all[i]), i + 1);
  std::string other = all[7];
  other.back() ^= 1;
  EXPECT_EQ(table.find(other), 0u);
  EXPECT_EQ(table.find(all[7].substr(0, all[7].size() - 1)), 0u);  // a prefix of a key
}

}  // namespace
}  // namespace inmanta::compiler::exec
