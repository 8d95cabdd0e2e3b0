#include "util/base64.h"

#include <gtest/gtest.h>

namespace inmanta::util {
namespace {

TEST(Base64, EncodesWithPaddingAndDecodesBack) {
  EXPECT_EQ(base64Encode(""), "");
  EXPECT_EQ(base64Encode("hello\n"), "aGVsbG8K");
  EXPECT_EQ(base64Encode("ab"), "YWI=");
  EXPECT_EQ(base64Encode("a"), "YQ==");
  std::string bytes;
  for (int i = 0; i < 256; ++i) bytes += static_cast<char>(i);
  EXPECT_EQ(base64Decode(base64Encode(bytes)), bytes);
  EXPECT_EQ(base64Decode("YQ=="), "a");
  EXPECT_EQ(base64Decode(""), "");
}

TEST(Base64, RefusesWhatIsNotBase64) {
  EXPECT_EQ(base64Decode("not base64!"), std::nullopt);
  EXPECT_EQ(base64Decode("YQ="), std::nullopt);   // length
  EXPECT_EQ(base64Decode("Y=Q="), std::nullopt);  // padding inside
  EXPECT_EQ(base64Decode("YQ=\n"), std::nullopt);
}

}  // namespace
}  // namespace inmanta::util
