#include "util/digest.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

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

TEST(Md5, KnownDigests) {
  // RFC 1321 appendix A.5
  EXPECT_EQ(md5Hex(""), "d41d8cd98f00b204e9800998ecf8427e");
  EXPECT_EQ(md5Hex("abc"), "900150983cd24fb0d6963f7d28e17f72");
  EXPECT_EQ(md5Hex("12345678901234567890123456789012345678901234567890123456789012345678901234567890"),
            "57edf4a22be3c955ac49da2e2107b67a");
}

// The parts are hashed as one text: any split gives the digest of the whole.
TEST(Digest, PartsAreHashedAsOneText) {
  EXPECT_EQ(digestHex(DigestAlgorithm::Md5, {"ab", "c"}), md5Hex("abc"));
  EXPECT_EQ(digestHex(DigestAlgorithm::Md5, {"", "abc", ""}), md5Hex("abc"));
  EXPECT_EQ(digestHex(DigestAlgorithm::Sha1, {"a", "b", "c"}), sha1Hex("abc"));
  EXPECT_EQ(digestHex(DigestAlgorithm::Sha1, {}), sha1Hex(""));
}

// RFC 4122 version 5: stable, canonical, version 5, variant 10xx, different names apart.
TEST(Digest, NameBasedUuids) {
  std::string id = nameBasedUuid("inmanta deploy\ndeploy\ndeploy");
  // Python: uuid.uuid5(uuid.UUID("6f1d3c2a-8b4e-4f7a-9c35-2e8d1b7a4c60"), "inmanta deploy\ndeploy\ndeploy")
  EXPECT_EQ(id, "602a7051-77b3-533f-b65e-aa41aaa0942e");
  ASSERT_EQ(id.size(), 36u);
  EXPECT_EQ(id[8], '-');
  EXPECT_EQ(id[13], '-');
  EXPECT_EQ(id[14], '5');
  EXPECT_NE(std::string("89ab").find(id[19]), std::string::npos);
  EXPECT_EQ(id.find_first_not_of("0123456789abcdef-"), std::string::npos);
  EXPECT_NE(nameBasedUuid("inmanta deploy\ndeploy\nother"), id);
}

// Each thread keeps its own context (digest.cpp): threads hashing at once, one after the other
// with inputs of different lengths, get the digests a single thread gets.
TEST(Digest, ThreadsHashingAtOnceGetTheSameDigests) {
  std::vector<std::string> inputs, expected, expectedMd5;
  for (int n = 0; n < 64; ++n) {
    inputs.push_back(std::string(static_cast<std::size_t>(n) * 37, static_cast<char>('a' + n % 26)));
    expected.push_back(sha1Hex(inputs.back()));
    expectedMd5.push_back(md5Hex(inputs.back()));
  }
  std::vector<int> wrong(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int round = 0; round < 200; ++round)
        for (std::size_t i = 0; i < inputs.size(); ++i) {
          // an MD5 in between: the thread's one context serves both algorithms
          if (sha1Hex(inputs[(i + t) % inputs.size()]) != expected[(i + t) % inputs.size()]) ++wrong[t];
          if (md5Hex(inputs[i]) != expectedMd5[i]) ++wrong[t];
        }
    });
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(wrong, std::vector<int>(4, 0));
  EXPECT_EQ(expected[1], sha1Hex(std::string(37, 'b')));
}

}  // namespace
}  // namespace inmanta::util
