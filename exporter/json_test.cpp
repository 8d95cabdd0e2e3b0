#include "exporter/json.h"

#include <gtest/gtest.h>

namespace inmanta::exporter {
namespace {

using compiler::runtime::Value;
using compiler::runtime::ValueDict;
using compiler::runtime::ValueList;

std::string js(const Value& v) {
  std::string out;
  appendJsonValue(out, v);
  return out;
}

TEST(Json, StringsAreAsciiWithPythonEscapes) {
  EXPECT_EQ(js(Value("</tag>")), "\"<\\/tag>\"");
  EXPECT_EQ(js(Value("a/b")), "\"a/b\"");
  EXPECT_EQ(js(Value("\xe2\x82\xac")), "\"\\u20ac\"");
  EXPECT_EQ(js(Value("\xf0\x9f\x98\x80")), "\"\\ud83d\\ude00\"");
  EXPECT_EQ(js(Value("\x01\x7f\t\n\"\\")), "\"\\u0001\\u007f\\t\\n\\\"\\\\\"");
  EXPECT_EQ(js(Value("\xff")), "\"\\ufffd\"");
}

TEST(Json, NumbersAndContainers) {
  EXPECT_EQ(js(Value(2.0)), "2.0");
  EXPECT_EQ(js(Value(1.5)), "1.5");
  EXPECT_EQ(js(Value(1e16)), "1e+16");
  EXPECT_EQ(js(Value(int64_t{-7})), "-7");
  EXPECT_EQ(js(Value()), "null");
  ValueDict d;
  d.items.emplace_back("b", Value(ValueList{Value(1), Value(2.0), Value()}));
  d.items.emplace_back("a", Value(true));
  EXPECT_EQ(js(Value(std::move(d))), "{\"b\": [1, 2.0, null], \"a\": true}");
}

TEST(Json, ResourceObjectOrder) {
  Resource r;
  r.rid = "std::File[h,path=/a]";
  r.fields.emplace_back("send_event", Value(false));
  r.fields.emplace_back("path", Value("/a"));
  r.requires_ = {"std::Directory[h,path=/]"};
  EXPECT_EQ(resourcesJson({r}),
            "[{\"send_event\": false, \"path\": \"/a\", \"requires\": [\"std::Directory[h,path=/]\"], \"id\": "
            "\"std::File[h,path=/a],v=0\"}]");
  EXPECT_EQ(resourcesJson({}), "[]");
}

}  // namespace
}  // namespace inmanta::exporter
