// util::parseJson (json_parse.h): the value, or the parse_error, of nlohmann::json::parse, with
// the large array of an object parsed on two threads when the text splits plainly.
#include "util/json_parse.h"

#include <gtest/gtest.h>

#include <functional>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace inmanta::util {
namespace {

using nlohmann::json;

// A version upload's shape, with strings that hold what the split's scan must step over.
json versionLike(int resources) {
  json items = json::array();
  for (int i = 0; i < resources; ++i) {
    items.push_back({{"id", "std::File[localhost,path=/tmp/f" + std::to_string(i) + "],v=3"},
                     {"content", "brackets ] } [ { and \"quotes\", a \\ backslash, \\\" and commas, é ✓"},
                     {"requires", json::array({"std::Directory[localhost,path=/tmp],v=3"})},
                     {"nested", {{"list", {1, 2.5, -3e-2, nullptr, true, false, json::object(), json::array()}}}},
                     {"mode", 644}});
  }
  return {{"tid", "d7a1c1b6-0000-4000-8000-000000000001"},
          {"version", 3},
          {"resources", items},
          {"unknowns", json::array()},
          {"version_info", {{"export_metadata", {{"message", "[not an array]"}}}}},
          {"resource_state", json::object()},
          {"compiler_version", "2026.1"}};
}

// parse_error's text of nlohmann::json::parse(text), or "" when it parses.
std::string nlohmannError(const std::string& text) {
  try {
    json parsed = json::parse(text);
    return parsed.is_discarded() ? "discarded" : "";
  } catch (const json::parse_error& e) {
    return e.what();
  }
}

std::string ourError(const std::string& text) {
  try {
    json parsed = parseJson(text, 0);
    return parsed.is_discarded() ? "discarded" : "";
  } catch (const json::parse_error& e) {
    return e.what();
  }
}

TEST(ParseJson, SplitsAVersionUploadAndGivesNlohmannsValue) {
  json value = versionLike(50);
  for (const std::string& text : {value.dump(), value.dump(2), value.dump(-1, ' ', true)}) {
    std::optional<json> split = parseJsonSplit(text);
    ASSERT_TRUE(split.has_value()) << "a plain object with a large array is split";
    EXPECT_EQ(*split, json::parse(text));
    EXPECT_EQ(parseJson(text, 0), json::parse(text));
  }
  // whitespace everywhere JSON allows it
  std::string spaced = " \n{ \"resources\" :\t[ 1 ,\r\n \"two\" , [3] , {\"4\" : [ ] } ] , \"version\" : 3 }\n ";
  ASSERT_TRUE(parseJsonSplit(spaced).has_value());
  EXPECT_EQ(*parseJsonSplit(spaced), json::parse(spaced));
}

TEST(ParseJson, LargeTextsSplitFromTheThreshold) {
  std::string text = versionLike(3000).dump();
  ASSERT_GE(text.size(), kParallelParseFrom);
  EXPECT_EQ(parseJson(text), json::parse(text));
  std::string small = versionLike(2).dump();
  EXPECT_EQ(parseJson(small), json::parse(small));  // (parsed whole: below the threshold)
}

TEST(ParseJson, TextsThatDoNotSplitPlainlyAreParsedWhole) {
  const std::vector<std::string> whole = {
      "[1, 2, 3]",                                        // not an object
      "{\"resources\": [1]}",                             // one element
      "{\"resources\": []}",                              // none
      "{\"a\": 1}",                                       // no array
      "{}",                                               //
      "{\"resources\": [1, 2], \"resources\": [3, 4]}",   // a key twice: nlohmann keeps the last
      "{\"resources\": [1, 2], \"\\u0072esources\": 5}",  // the same key, written otherwise
      "\xEF\xBB\xBF{\"resources\": [1, 2]}",              // a byte order mark, which nlohmann skips
  };
  for (const std::string& text : whole) {
    EXPECT_FALSE(parseJsonSplit(text).has_value()) << text;
    EXPECT_EQ(parseJson(text, 0), json::parse(text)) << text;
  }
}

TEST(ParseJson, ErrorsAreNlohmannsOwn) {
  const std::vector<std::string> bad = {
      "{\"resources\": [1, 2}}",            // brackets that do not match
      "{\"resources\": [1, 2]",             // no end
      "{\"resources\": [1, 2]} trailing",   // something after the object
      "{\"resources\": [1, tru]}",          // an element that is not JSON
      "{\"resources\": [1 2]}",             // a comma missing
      "{\"resources\": [1, 2,]}",           // a comma too many
      "{\"resources\": [1, 2], \"x\": }",   // the rest is not JSON
      "{\"resources\": [\"\\x\", 2]}",      // a bad escape
      "{\"resources\": [\"a\xff\", 2]}",    // not UTF-8
      "{\"resources\": [[1, 2], [3}, 4]}",  // inside an element
  };
  for (const std::string& text : bad) {
    std::string expected = nlohmannError(text);
    ASSERT_FALSE(expected.empty()) << text;
    EXPECT_EQ(ourError(text), expected) << text;
  }
}

// Random documents and random damage to them: the same value, or the same error, as nlohmann.
TEST(ParseJson, FuzzedTextsMatchNlohmann) {
  std::mt19937 random(20261129);
  const std::string pieces[] = {"[", "]", "{", "}", ",", ":", "\"", "\\", " ", "\n", "1", "x", "\"]\"", "null"};
  std::function<json(int)> make = [&](int depth) -> json {
    switch (random() % (depth > 3 ? 4 : 6)) {
      case 0: return static_cast<int>(random() % 1000) - 500;
      case 1: return std::string(random() % 4, "a]\"\\{,"[random() % 6]);
      case 2: return random() % 2 == 0;
      case 3: return nullptr;
      case 4: {
        json list = json::array();
        for (unsigned i = random() % 5; i > 0; --i) list.push_back(make(depth + 1));
        return list;
      }
      default: {
        json object = json::object();
        for (unsigned i = random() % 4; i > 0; --i) object[std::string(1, "ab]\""[random() % 4])] = make(depth + 1);
        return object;
      }
    }
  };
  int split = 0;
  for (int round = 0; round < 2000; ++round) {
    json document = json::object();
    json list = json::array();
    for (unsigned i = 2 + random() % 6; i > 0; --i) list.push_back(make(0));
    document["resources"] = list;
    document["other"] = make(1);
    std::string text = document.dump(random() % 3 == 0 ? 1 : -1);
    if (round % 2 == 1) {  // damaged: a piece inserted, or a character dropped
      std::size_t at = random() % text.size();
      if (random() % 2) text.insert(at, pieces[random() % std::size(pieces)]);
      else text.erase(at, 1);
    }
    std::string expected = nlohmannError(text);
    if (expected.empty()) {
      EXPECT_EQ(parseJson(text, 0), json::parse(text)) << text;
      split += parseJsonSplit(text).has_value();
    } else {
      EXPECT_EQ(ourError(text), expected) << text;
    }
  }
  EXPECT_GT(split, 900) << "the undamaged documents split";
}

}  // namespace
}  // namespace inmanta::util
