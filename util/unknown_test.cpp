#include "util/unknown.h"

#include <gtest/gtest.h>

namespace inmanta::util {
namespace {

using compiler::runtime::Value;
using compiler::runtime::ValueDict;
using compiler::runtime::ValueList;

TEST(HasUnknown, PlainValues) {
  EXPECT_TRUE(hasUnknown(Value::unknown()));
  EXPECT_FALSE(hasUnknown(Value()));
  EXPECT_FALSE(hasUnknown(Value("x")));
  EXPECT_FALSE(hasUnknown(Value(3)));
  EXPECT_FALSE(hasUnknown(Value(ValueList{})));
  EXPECT_FALSE(hasUnknown(Value(ValueDict{})));
}

TEST(HasUnknown, DeepInListsAndDicts) {
  EXPECT_TRUE(hasUnknown(Value(ValueList{Value(1), Value::unknown()})));
  EXPECT_FALSE(hasUnknown(Value(ValueList{Value(1), Value(ValueList{Value("a")})})));
  ValueDict inner;
  inner.items.emplace_back("k", Value(ValueList{Value(2), Value::unknown()}));
  ValueDict outer;
  outer.items.emplace_back("a", Value(1));
  outer.items.emplace_back("b", Value(std::move(inner)));
  EXPECT_TRUE(hasUnknown(Value(ValueList{Value(std::move(outer))})));
  ValueDict known;
  known.items.emplace_back("k", Value("v"));
  EXPECT_FALSE(hasUnknown(Value(std::move(known))));
}

TEST(HasUnknown, MarkerIsTheReferences) { EXPECT_EQ(kUnknownMarker, "<<undefined>>"); }

}  // namespace
}  // namespace inmanta::util
