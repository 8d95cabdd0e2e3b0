#include "util/json_text.h"

#include <gtest/gtest.h>

#include <random>

namespace inmanta::util {
namespace {

using nlohmann::json;

TEST(CompactJson, TheTextDumpGives) {
  for (const json& value :
       {json(nullptr), json(true), json(false), json(0), json(-12), json(std::uint64_t{1} << 63), json(1.5),
        json(1e300), json(-0.0), json(""), json("plain"), json("a\"b\\c/d"), json("tab\tnew\nline\rfeed\fback\b"),
        json(std::string("\x01\x1f\x7f", 3)), json("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"), json::array(),
        json::object(), json::parse(R"({"z": [1, {"b": null, "a": "x"}], "a": {}, "é": 2.25})")}) {
    EXPECT_EQ(compactJson(value), value.dump()) << value.dump();
  }
}

// Long strings, read eight bytes at a time: a byte to escape (or a UTF-8 one) at every place of
// the words and of the tail.
TEST(CompactJson, EveryPlaceOfALongStringIsSeen) {
  for (const std::string& special :
       {std::string("\""), std::string("\\"), std::string("\n"), std::string(1, '\0'), std::string("\x1f"),
        std::string("\x7f"), std::string("\xc3\xa9"), std::string(" ")}) {
    for (std::size_t length = 0; length < 40; ++length) {
      for (std::size_t at = 0; at <= length; ++at) {
        std::string text(length, 'a');
        text.insert(at, special);
        json value = text;
        ASSERT_EQ(compactJson(value), value.dump()) << length << " " << at;
      }
    }
  }
}

TEST(CompactJson, InvalidUtf8IsRefusedAsDumpRefusesIt) {
  json bad = json::object({{"msg", std::string("\xff\xfe")}});
  EXPECT_THROW(bad.dump(), json::type_error);
  EXPECT_THROW(compactJson(bad), json::type_error);
}

TEST(CompactJson, AppendsToWhatIsThere) {
  std::string out = "x=";
  appendCompactJson(out, json::array({1, "a"}));
  EXPECT_EQ(out, R"(x=[1,"a"])");
}

// Random trees of every kind, with strings of every byte below 0x80, some UTF-8 and numbers of
// both signs: the text must be the one dump() writes, whatever the tree.
json randomValue(std::mt19937& random, int depth) {
  std::uniform_int_distribution<int> kind(0, depth > 3 ? 5 : 7);
  auto randomString = [&] {
    static const std::string pieces[] = {"\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80"};
    std::string s;
    int length = std::uniform_int_distribution<int>(0, 12)(random);
    for (int i = 0; i < length; ++i) {
      int pick = std::uniform_int_distribution<int>(0, 20)(random);
      if (pick == 0) s += pieces[std::uniform_int_distribution<int>(0, 2)(random)];
      else s += static_cast<char>(std::uniform_int_distribution<int>(0, 0x7f)(random));
    }
    return s;
  };
  switch (kind(random)) {
    case 0: return nullptr;
    case 1: return std::uniform_int_distribution<int>(0, 1)(random) == 1;
    case 2: return std::uniform_int_distribution<std::int64_t>(INT64_MIN, INT64_MAX)(random);
    case 3: return std::uniform_real_distribution<double>(-1e6, 1e6)(random);
    case 4: return randomString();
    case 5: return std::uniform_int_distribution<std::uint64_t>(0, UINT64_MAX)(random);
    case 6: {
      json list = json::array();
      for (int i = std::uniform_int_distribution<int>(0, 4)(random); i > 0; --i)
        list.push_back(randomValue(random, depth + 1));
      return list;
    }
    default: {
      json object = json::object();
      for (int i = std::uniform_int_distribution<int>(0, 4)(random); i > 0; --i)
        object[randomString()] = randomValue(random, depth + 1);
      return object;
    }
  }
}

TEST(CompactJson, RandomTreesAsDump) {
  std::mt19937 random(20261128);
  for (int i = 0; i < 3000; ++i) {
    json value = randomValue(random, 0);
    ASSERT_EQ(compactJson(value), value.dump());
  }
}

}  // namespace
}  // namespace inmanta::util
