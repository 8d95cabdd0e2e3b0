#include "util/sha1.h"

#include <gtest/gtest.h>

#include <string>

namespace inmanta::util {
namespace {

TEST(Sha1, KnownDigests) {
  EXPECT_EQ(sha1Hex(""), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
  EXPECT_EQ(sha1Hex("abc"), "a9993e364706816aba3e25717850c26c9cd0d89d");
  EXPECT_EQ(sha1Hex("The quick brown fox jumps over the lazy dog"), "2fd4e1c67a2d28fced849ee1bb76e7391b93eb12");
}

TEST(Sha1, BytesAfterANulCount) {
  EXPECT_EQ(sha1Hex(std::string_view("a\0b", 3)), "4a3dec2d1f8245280855c42db0ee4239f917fdb8");
  EXPECT_NE(sha1Hex(std::string_view("a\0b", 3)), sha1Hex("a"));
}

TEST(Sha1, LongInput) {
  // FIPS 180-2 appendix: one million times 'a'
  EXPECT_EQ(sha1Hex(std::string(1000000, 'a')), "34aa973cd4c4daa4f61eeb2bdbad27316534016f");
}

}  // namespace
}  // namespace inmanta::util
