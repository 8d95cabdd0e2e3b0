// Values: rendering (spec 5.5), equality (5.3), operators (5.1, 5.2, 9.2) and casts (5.7).
#include "compiler/runtime/value.h"

#include <gtest/gtest.h>

#include <cmath>

namespace inmanta::compiler::runtime {
namespace {

TEST(FormatFloat, PythonRepr) {
  EXPECT_EQ(formatFloat(1.0), "1.0");
  EXPECT_EQ(formatFloat(10.5), "10.5");
  EXPECT_EQ(formatFloat(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(formatFloat(0.0001), "0.0001");
  EXPECT_EQ(formatFloat(0.00001), "1e-05");
  EXPECT_EQ(formatFloat(123456789012345.0), "123456789012345.0");
  EXPECT_EQ(formatFloat(1234567890123456.0), "1234567890123456.0");
  EXPECT_EQ(formatFloat(12345678901234567.0), "1.2345678901234568e+16");
  EXPECT_EQ(formatFloat(1.5e20), "1.5e+20");
  EXPECT_EQ(formatFloat(-0.0), "-0.0");
  EXPECT_EQ(formatFloat(-0.25), "-0.25");
  EXPECT_EQ(formatFloat(INFINITY), "inf");
  EXPECT_EQ(formatFloat(-INFINITY), "-inf");
  EXPECT_EQ(formatFloat(std::nan("")), "nan");
  EXPECT_EQ(formatFloat(1e100), "1e+100");
}

TEST(Render, StrAndRepr) {
  EXPECT_EQ(str(Value(true)), "True");
  EXPECT_EQ(str(Value()), "null");
  EXPECT_EQ(str(Value(int64_t{-3})), "-3");
  ValueList l{Value("a"), Value(1), Value(), Value(true)};
  EXPECT_EQ(str(Value(l)), "['a', 1, null, True]");
  ValueDict d;
  d.items.emplace_back("k", Value("v"));
  d.items.emplace_back("n", Value(ValueList{}));
  EXPECT_EQ(repr(Value(d)), "{'k': 'v', 'n': []}");
}

TEST(Render, PythonStringRepr) {
  EXPECT_EQ(pyReprString("a'b"), "\"a'b\"");
  EXPECT_EQ(pyReprString("c\"d"), "'c\"d'");
  EXPECT_EQ(pyReprString("x'y\"z"), "'x\\'y\"z'");
  EXPECT_EQ(pyReprString("\\"), "'\\\\'");
  EXPECT_EQ(pyReprString("a\nb"), "'a\\nb'");
  EXPECT_EQ(pyReprString("\x01"), "'\\x01'");
  EXPECT_EQ(pyReprString("\xC3\xA9"), "'\xC3\xA9'");
  EXPECT_EQ(pyReprString("\xC2\xA0"), "'\\xa0'");
}

TEST(Render, PrintForm) {
  EXPECT_EQ(printForm(Value()), "None");
  EXPECT_EQ(printForm(Value("text")), "text");
  EXPECT_EQ(printForm(Value(1.0)), "1.0");
  EXPECT_EQ(printForm(Value(ValueList{Value("a"), Value(1), Value()})), "@['a', 1, null]");
  EXPECT_EQ(printForm(Value(ValueList{})), "@[]");
}

TEST(Equality, PythonSemantics) {
  EXPECT_TRUE(pyEquals(Value(1), Value(1.0)));
  EXPECT_TRUE(pyEquals(Value(true), Value(1)));
  EXPECT_TRUE(pyEquals(Value(false), Value(0.0)));
  EXPECT_FALSE(pyEquals(Value(std::nan("")), Value(std::nan(""))));
  EXPECT_FALSE(pyEquals(Value("1"), Value(1)));
  EXPECT_FALSE(pyEquals(Value(ValueList{}), Value()));
  EXPECT_TRUE(pyEquals(Value(ValueList{Value(1), Value(1.0)}), Value(ValueList{Value(true), Value(1)})));
  EXPECT_FALSE(pyEquals(Value(ValueList{Value(1), Value(2)}), Value(ValueList{Value(2), Value(1)})));
  ValueDict a, b;
  a.items = {{"x", Value(1)}, {"y", Value(2)}};
  b.items = {{"y", Value(2)}, {"x", Value(1.0)}};
  EXPECT_TRUE(pyEquals(Value(a), Value(b)));
  EXPECT_FALSE(pyEquals(Value(int64_t{9007199254740993}), Value(9007199254740992.0)));
}

Value ok(const OpResult& r) {
  EXPECT_FALSE(r.error) << (r.error ? r.error->message : "");
  return r.value;
}

TEST(Arithmetic, NumbersLikePython) {
  EXPECT_EQ(ok(arithmetic(ArithOp::Div, Value(4), Value(2))).asFloat(), 2.0);
  EXPECT_EQ(ok(arithmetic(ArithOp::Mod, Value(-1), Value(2))).asInt(), 1);
  EXPECT_EQ(ok(arithmetic(ArithOp::Mod, Value(3), Value(-2))).asInt(), -1);
  EXPECT_EQ(ok(arithmetic(ArithOp::Mod, Value(-7.5), Value(2))).asFloat(), 0.5);
  EXPECT_EQ(ok(arithmetic(ArithOp::Mod, Value(7), Value(2.5))).asFloat(), 2.0);
  EXPECT_EQ(ok(arithmetic(ArithOp::Pow, Value(2), Value(-1))).asFloat(), 0.5);
  EXPECT_EQ(ok(arithmetic(ArithOp::Pow, Value(2), Value(10))).asInt(), 1024);
  EXPECT_EQ(ok(arithmetic(ArithOp::Add, Value(true), Value(true))).asInt(), 2);
  EXPECT_EQ(ok(arithmetic(ArithOp::Mul, Value(true), Value(2.5))).asFloat(), 2.5);
  EXPECT_EQ(ok(arithmetic(ArithOp::Add, Value("a"), Value("b"))).asString(), "ab");
  EXPECT_EQ(ok(arithmetic(ArithOp::Mod, Value(INT64_MIN), Value(-1))).asInt(), 0);
}

TEST(Arithmetic, TypeErrors) {
  OpResult r = arithmetic(ArithOp::Add, Value(1), Value("a"));
  ASSERT_TRUE(r.error);
  EXPECT_TRUE(r.error->typing);
  EXPECT_EQ(r.error->message, "Unsupported operand type(s) for plus: 'int' (1) and 'str' ('a')");
  r = arithmetic(ArithOp::Add, Value("a"), Value(1));
  EXPECT_EQ(r.error->message, "Can only concatenate str (not 'int' (1)) to str");
  r = arithmetic(ArithOp::Mul, Value("a"), Value(2));
  EXPECT_EQ(r.error->message, "Unsupported operand type(s) for multiplication: 'str' ('a') and 'int' (2)");
}

TEST(Arithmetic, Decision92Errors) {
  OpResult r = arithmetic(ArithOp::Pow, Value(2), Value(70));
  ASSERT_TRUE(r.error);
  EXPECT_FALSE(r.error->typing);
  EXPECT_EQ(r.error->message, "integer overflow: 2 ** 70");
  EXPECT_EQ(arithmetic(ArithOp::Add, Value(INT64_MAX), Value(1)).error->message,
            "integer overflow: 9223372036854775807 + 1");
  EXPECT_EQ(arithmetic(ArithOp::Div, Value(1), Value(0)).error->message, "division by zero: 1 / 0");
  EXPECT_TRUE(arithmetic(ArithOp::Mod, Value(1.5), Value(0)).error);
  EXPECT_TRUE(arithmetic(ArithOp::Pow, Value(0), Value(-1)).error);
  EXPECT_EQ(arithmetic(ArithOp::Pow, Value(-8), Value(0.5)).error->message,
            "result of (-8) ** 0.5 is not a real number");
  EXPECT_TRUE(arithmetic(ArithOp::Pow, Value(2.0), Value(10000)).error);
  EXPECT_TRUE(std::isinf(ok(arithmetic(ArithOp::Mul, Value(1e300), Value(1e300))).asFloat()));
}

TEST(Compare, NumbersOnly) {
  EXPECT_TRUE(ok(compare(CompareOp::Lt, Value(1), Value(2))).asBool());
  EXPECT_TRUE(ok(compare(CompareOp::Gt, Value(true), Value(false))).asBool());
  EXPECT_TRUE(ok(compare(CompareOp::Le, Value(2), Value(2.0))).asBool());
  OpResult r = compare(CompareOp::Lt, Value("a"), Value("b"));
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->message, "Can only compare numbers.");
}

TEST(Contains, ListsDictsUnknowns) {
  ValueList l{Value(1), Value::unknown()};
  EXPECT_TRUE(ok(contains(Value(1.0), Value(l))).asBool());
  EXPECT_TRUE(ok(contains(Value(2), Value(l))).isUnknown());
  EXPECT_TRUE(ok(contains(Value::unknown(), Value(l))).isUnknown());
  ValueDict d;
  d.items = {{"a", Value(1)}};
  EXPECT_TRUE(ok(contains(Value("a"), Value(d))).asBool());
  EXPECT_FALSE(ok(contains(Value(1), Value(d))).asBool());
  OpResult r = contains(Value("a"), Value("abc"));
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->message, "Operand two of 'in' can only be a list or dict (abc)");
}

TEST(Cast, Table) {
  EXPECT_EQ(ok(cast(CastType::Int, Value(-3.9))).asInt(), -3);
  EXPECT_EQ(ok(cast(CastType::Int, Value(" 1_000\n"))).asInt(), 1000);
  EXPECT_TRUE(cast(CastType::Int, Value("0.0")).error);
  EXPECT_EQ(cast(CastType::Int, Value("0.0")).error->message, "Failed to cast '0.0' to int");
  EXPECT_TRUE(cast(CastType::Int, Value("1e3")).error);
  EXPECT_TRUE(cast(CastType::Int, Value(INFINITY)).error);
  EXPECT_TRUE(cast(CastType::Int, Value()).error);
  EXPECT_EQ(ok(cast(CastType::Float, Value("1e3"))).asFloat(), 1000.0);
  EXPECT_TRUE(std::isinf(ok(cast(CastType::Float, Value("-inf"))).asFloat()));
  EXPECT_EQ(ok(cast(CastType::Number, Value("2"))).asFloat(), 2.0);
  EXPECT_EQ(ok(cast(CastType::Number, Value(2))).asInt(), 2);
  EXPECT_EQ(ok(cast(CastType::String, Value(true))).asString(), "true");
  EXPECT_EQ(ok(cast(CastType::String, Value(42.0))).asString(), "42.0");
  EXPECT_EQ(ok(cast(CastType::String, Value())).asString(), "null");
  EXPECT_EQ(ok(cast(CastType::String, Value(ValueList{Value(1), Value("a")}))).asString(), "[1, 'a']");
  EXPECT_TRUE(ok(cast(CastType::Bool, Value("false"))).asBool());
  EXPECT_FALSE(ok(cast(CastType::Bool, Value())).asBool());
  EXPECT_TRUE(ok(cast(CastType::Int, Value::unknown())).isUnknown());
}

TEST(Value, HolderTagsStayWithTheHolder) {
  Value held(1);
  held.setHolderTags(7, 123456);
  held.setHolderByte(0xA5);
  held = Value(std::string("replaced by a string"));
  EXPECT_EQ(held.holderByte(), 0xA5);
  EXPECT_EQ(held.holderHalf(), 7);
  EXPECT_EQ(held.holderWord(), 123456u);
  Value copy(held);  // a copy is a new value: no tags
  EXPECT_EQ(copy.holderByte(), 0);
  EXPECT_EQ(copy.holderHalf(), 0);
  EXPECT_EQ(copy.holderWord(), 0u);
  held = std::move(copy);
  EXPECT_EQ(held.holderByte(), 0xA5);
  EXPECT_EQ(held.holderWord(), 123456u);
  EXPECT_EQ(str(held), "replaced by a string");
}

}  // namespace
}  // namespace inmanta::compiler::runtime

namespace inmanta::compiler::runtime {
namespace {

// Unknowns are compared by identity, as the reference's Unknown objects.
TEST(UnknownValue, EqualOnlyToItself) {
  Value a = Value::unknown();
  Value b = Value::unknown();
  Value copy = a;
  EXPECT_TRUE(pyEquals(a, copy));
  EXPECT_FALSE(pyEquals(a, b));
  EXPECT_TRUE(pyEquals(Value(ValueList{a}), Value(ValueList{copy})));
  EXPECT_FALSE(pyEquals(Value(ValueList{a}), Value(ValueList{b})));
}

}  // namespace
}  // namespace inmanta::compiler::runtime

namespace inmanta::compiler::runtime {
namespace {

// int() and float() of a str read Unicode decimal digits and strip Unicode white space, as CPython.
TEST(Cast, UnicodeDigitsAndSpace) {
  EXPECT_EQ(parsePythonInt("\u0663\u0664"), 34);    // ARABIC-INDIC DIGIT THREE, FOUR
  EXPECT_EQ(parsePythonInt("\uff11"), 1);           // FULLWIDTH DIGIT ONE
  EXPECT_EQ(parsePythonInt("\u00a012\u2003"), 12);  // NO-BREAK SPACE, EM SPACE
  EXPECT_EQ(parsePythonFloat("1\u0663.5"), 13.5);
  EXPECT_EQ(parsePythonInt("\x1c"
                           "7"),
            std::nullopt);  // (str.isspace, but not stripped by int())
  EXPECT_EQ(parsePythonInt("1\u00e9"), std::nullopt);
}

// An opaque object as a module-code host would make one: its answers are fixed, and it counts
// its disposal.
class FakeObject final : public OpaqueObject {
 public:
  FakeObject(int code, int& disposed) : code_(code), disposed_(disposed) {}
  std::string str() const override { return "result " + std::to_string(code_); }
  std::string repr() const override { return "Result(" + std::to_string(code_) + ")"; }
  std::string typeName() const override { return "Result"; }
  bool equals(const Value& left, const Value& right) const override {
    // equal to another FakeObject of the same code, and to that code as an int
    const Value& other = left.isOpaque() && &left.asOpaque() == this ? right : left;
    if (other.isInt()) return other.asInt() == code_;
    if (!other.isOpaque()) return false;
    const auto* fake = dynamic_cast<const FakeObject*>(&other.asOpaque());
    return fake != nullptr && fake->code_ == code_;
  }
  bool truthy() const override { return code_ != 0; }
  std::optional<std::string> format(std::string_view spec, std::string& error) const override {
    if (spec == "d") return std::to_string(code_);
    error = "unsupported format string passed to Result.__format__";
    return std::nullopt;
  }
  bool sized() const override { return false; }
  void dispose() override {
    ++disposed_;
    delete this;
  }

 private:
  ~FakeObject() = default;
  int code_;
  int& disposed_;
};

Value fake(int code, int& disposed) { return Value(static_cast<OpaqueObject*>(new FakeObject(code, disposed))); }

TEST(Opaque, SharedByCopiesAndDisposedWithTheLast) {
  int disposed = 0;
  {
    Value a = fake(200, disposed);
    EXPECT_TRUE(a.isOpaque());
    EXPECT_EQ(a.type(), Value::Type::Opaque);
    Value b = a;  // a copy shares the object
    EXPECT_EQ(&a.asOpaque(), &b.asOpaque());
    EXPECT_EQ(a.sharedIdentity(), b.sharedIdentity());
    EXPECT_NE(a.sharedIdentity(), nullptr);
    Value c = std::move(b);
    EXPECT_TRUE(b.isNull());  // NOLINT(bugprone-use-after-move): a moved-from value is null
    ValueList list{a, c, Value(1)};
    a = Value(1);
    c = Value();
    EXPECT_EQ(disposed, 0);  // the list still holds it
    list.clear();
    EXPECT_EQ(disposed, 1);
    Value d = fake(1, disposed);
    d = d;  // NOLINT(misc-redundant-expression): self-assignment keeps the object
    EXPECT_EQ(disposed, 1);
    EXPECT_EQ(repr(d), "Result(1)");
  }
  EXPECT_EQ(disposed, 2);
  EXPECT_EQ(sizeof(Value), 16u);
}

TEST(Opaque, RenderingIsThePythonObjects) {
  int disposed = 0;
  Value a = fake(200, disposed);
  EXPECT_EQ(str(a), "result 200");
  EXPECT_EQ(repr(a), "Result(200)");
  EXPECT_EQ(printForm(a), "@Result(200)");  // std::print gets a proxy of it
  EXPECT_EQ(pythonTypeName(a), "Result");
  EXPECT_EQ(repr(Value(ValueList{a, Value(1)})), "[Result(200), 1]");
  EXPECT_EQ(printForm(Value(ValueList{a})), "@[Result(200)]");
  ValueDict d;
  d.items.emplace_back("k", a);
  EXPECT_EQ(str(Value(std::move(d))), "{'k': Result(200)}");
}

TEST(Opaque, EqualityAskTheObject) {
  int disposed = 0;
  Value a = fake(200, disposed), b = fake(200, disposed), c = fake(404, disposed);
  EXPECT_TRUE(pyEquals(a, b));
  EXPECT_FALSE(pyEquals(a, c));
  EXPECT_TRUE(pyEquals(a, Value(200)));  // either side
  EXPECT_TRUE(pyEquals(Value(200), a));
  EXPECT_FALSE(pyEquals(a, Value()));
  EXPECT_FALSE(pyEquals(Value(), a));
  EXPECT_FALSE(pyEquals(a, Value("result 200")));
  EXPECT_TRUE(pyEquals(Value(ValueList{a}), Value(ValueList{b})));
  EXPECT_FALSE(pyEquals(Value(ValueList{a}), Value(ValueList{c})));
  EXPECT_EQ(contains(b, Value(ValueList{Value(1), a})).value.asBool(), true);
  EXPECT_EQ(contains(c, Value(ValueList{a})).value.asBool(), false);
  EXPECT_TRUE(pyTruthy(a));
  EXPECT_FALSE(pyTruthy(fake(0, disposed)));
}

TEST(Opaque, OperatorsAndCastsRefuseIt) {
  int disposed = 0;
  Value a = fake(7, disposed);
  OpResult sum = arithmetic(ArithOp::Add, a, Value(1));
  ASSERT_TRUE(sum.error);
  EXPECT_TRUE(sum.error->typing);
  EXPECT_EQ(sum.error->message, "Unsupported operand type(s) for plus: 'Result' (Result(7)) and 'int' (1)");
  OpResult concat = arithmetic(ArithOp::Add, Value("x"), a);
  ASSERT_TRUE(concat.error);
  EXPECT_EQ(concat.error->message, "Can only concatenate str (not 'Result' (Result(7))) to str");
  OpResult less = compare(CompareOp::Lt, a, Value(1));
  ASSERT_TRUE(less.error);
  EXPECT_EQ(less.error->message, "Can only compare numbers.");
  OpResult in = contains(Value(1), a);
  ASSERT_TRUE(in.error);
  EXPECT_EQ(in.error->message, "Operand two of 'in' can only be a list or dict (result 7)");
  EXPECT_EQ(cast(CastType::String, a).value.asString(), "result 7");
  OpResult toInt = cast(CastType::Int, a);
  ASSERT_TRUE(toInt.error);
  EXPECT_EQ(toInt.error->message, "Failed to cast 'result 7' to int");
}

}  // namespace
}  // namespace inmanta::compiler::runtime
