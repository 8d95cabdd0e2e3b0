#include "util/attribute_hash.h"

#include <gtest/gtest.h>

namespace inmanta::util {
namespace {

using nlohmann::json;

// The expected texts and hashes were computed with python3: json.dumps(attrs, sort_keys=True) and
// hashlib.md5(rid + text), attrs without id/requires/provides/version (the reference's make_hash).
TEST(AttributeHash, MatchesPythonForAStdFile) {
  json attributes = json::parse(R"({"id": "std::File[localhost,path=/srv/demo/a.txt],v=7",
      "requires": ["std::Directory[localhost,path=/srv/demo]"], "path": "/srv/demo/a.txt", "owner": "root",
      "group": "root", "hash": "f572d396fae9206628714fb2ce00f72e94f2258f", "permissions": 644, "reload": true,
      "send_event": true, "receive_events": true, "purged": false, "purge_on_delete": false,
      "references": [], "mutators": [], "report_only": false})");
  EXPECT_EQ(attributeHash("std::File[localhost,path=/srv/demo/a.txt]", attributes), "ba0dbf5e9ec8363781d53f4f25401a45");
}

TEST(AttributeHash, MatchesPythonForFloatsEscapesAndNesting) {
  json attributes = {{"name", "x"},
                     {"value", 1.0},
                     {"f", 0.1},
                     {"big", 1e16},
                     {"small", 1.5e-7},
                     {"n", nullptr},
                     {"s", "caf\u00e9 \U0001F600 \"q\" \\ \n\t\x01\x7f"},
                     {"nested",
                      {{"b", json::array({1, 2.5, {{"z", 1}, {"a", json::array({true})}}})}, {"a", json::object()}}},
                     {"e", 1234567890123456.0},
                     {"neg", -0.0},
                     {"m", 1e-5},
                     {"k", 0.0001}};
  EXPECT_EQ(pythonJsonDumps(attributes),
            R"({"big": 1e+16, "e": 1234567890123456.0, "f": 0.1, "k": 0.0001, "m": 1e-05, "n": null, )"
            R"("name": "x", "neg": -0.0, "nested": {"a": {}, "b": [1, 2.5, {"a": [true], "z": 1}]}, )"
            R"("s": "caf\u00e9 \ud83d\ude00 \"q\" \\ \n\t\u0001\u007f", "small": 1.5e-07, "value": 1.0})");
  EXPECT_EQ(attributeHash("std::testing::NullResource[a,name=x]", attributes), "d3e048effc4f33afaa7c0447667d0fe9");
}

TEST(AttributeHash, IgnoresKeyOrderAndTheIdentityKeys) {
  json a = json::parse(R"({"b": 1, "a": [1, 2], "requires": ["x::Y[h,k=v]"], "id": "x::Z[h,k=v],v=1"})");
  json b = json::parse(R"({"a": [1, 2], "b": 1, "version": 3, "provides": ["q"]})");
  EXPECT_EQ(attributeHash("x::Z[h,k=v]", a), attributeHash("x::Z[h,k=v]", b));
  json c = json::parse(R"({"a": [2, 1], "b": 1})");
  EXPECT_NE(attributeHash("x::Z[h,k=v]", a), attributeHash("x::Z[h,k=v]", c));
  EXPECT_NE(attributeHash("x::Z[h,k=v]", a), attributeHash("x::Z[h,k=w]", a));
}

TEST(PythonJsonDumps, WritesFloatsAsPythonsRepr) {
  auto dumps = [](double d) { return pythonJsonDumps(json(d)); };
  EXPECT_EQ(dumps(1.0), "1.0");
  EXPECT_EQ(dumps(-2.0), "-2.0");
  EXPECT_EQ(dumps(100.0), "100.0");
  EXPECT_EQ(dumps(0.5), "0.5");
  EXPECT_EQ(dumps(123.456), "123.456");
  EXPECT_EQ(dumps(1e22), "1e+22");
  EXPECT_EQ(dumps(1.25e-10), "1.25e-10");
  EXPECT_EQ(dumps(9999999999999998.0), "9999999999999998.0");
  EXPECT_EQ(dumps(0.001), "0.001");
  EXPECT_EQ(dumps(1.7976931348623157e308), "1.7976931348623157e+308");
  EXPECT_EQ(dumps(5e-324), "5e-324");
}

TEST(PythonJsonDumps, SortsNonAsciiKeysByCodePoint) {
  json value = {{"\u00e9", 1}, {"z", 2}, {"\U0001F600", 3}, {"A", 4}};
  EXPECT_EQ(pythonJsonDumps(value), R"({"A": 4, "z": 2, "\u00e9": 1, "\ud83d\ude00": 3})");
}

// json.dumps(value, indent=4, sort_keys=True), pasted from python3
TEST(PythonJsonDumps, IndentsAsPython) {
  json value = {{"b", {1, 2.5}}, {"a", "\u00e9"}, {"e", json::array()}, {"o", json::object()}};
  EXPECT_EQ(pythonJsonDumps(value, 4),
            "{\n    \"a\": \"\\u00e9\",\n    \"b\": [\n        1,\n        2.5\n    ],\n    \"e\": [],\n"
            "    \"o\": {}\n}");
  EXPECT_EQ(pythonJsonDumps(json::array(), 4), "[]");
  EXPECT_EQ(pythonJsonDumps(json(3), 4), "3");
}

TEST(AttributeHash, RefusesANonObject) {
  EXPECT_THROW(attributeHash("x::Y[h,k=v]", json::array()), std::invalid_argument);
}

}  // namespace
}  // namespace inmanta::util
