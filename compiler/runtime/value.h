// Run-time values of the language (spec 4.2) and their Python-compatible behaviour: rendering
// (5.5), equality (5.3), arithmetic and comparisons (5.1, 5.2 with decision 9.2) and casts (5.7).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace inmanta::compiler::runtime {

// An entity instance as values see it; the runtime's Instance derives from this.
class InstanceBase {
 public:
  virtual ~InstanceBase() = default;
  // `ns::Entity (instantiated at ./main.cf:4,./main.cf:9)`
  virtual std::string display() const = 0;
};

struct NullValue {
  bool operator==(const NullValue&) const = default;
};
struct UnknownValue {
  bool operator==(const UnknownValue&) const = default;
};

class Value;
using ValueList = std::vector<Value>;

// Insertion-ordered, string-keyed, immutable once built.
struct ValueDict {
  std::vector<std::pair<std::string, Value>> items;
  const Value* find(std::string_view key) const;
};

class Value {
 public:
  enum class Type : uint8_t { Null, Bool, Int, Float, String, List, Dict, Instance, Unknown };

  Value() : v_(NullValue{}) {}
  static Value null() { return Value(); }
  static Value unknown() { return Value(UnknownValue{}); }
  Value(bool b) : v_(b) {}
  Value(int64_t i) : v_(i) {}
  Value(int i) : v_(static_cast<int64_t>(i)) {}
  Value(double d) : v_(d) {}
  Value(std::string s) : v_(std::make_shared<const std::string>(std::move(s))) {}
  Value(const char* s) : Value(std::string(s)) {}
  Value(ValueList l) : v_(std::make_shared<const ValueList>(std::move(l))) {}
  Value(ValueDict d) : v_(std::make_shared<const ValueDict>(std::move(d))) {}
  Value(InstanceBase* i) : v_(i) {}
  Value(UnknownValue u) : v_(u) {}

  Type type() const { return static_cast<Type>(v_.index()); }
  bool isNull() const { return type() == Type::Null; }
  bool isUnknown() const { return type() == Type::Unknown; }
  bool isBool() const { return type() == Type::Bool; }
  bool isInt() const { return type() == Type::Int; }
  bool isFloat() const { return type() == Type::Float; }
  bool isNumber() const { return isInt() || isFloat() || isBool(); }  // Python: bool is an int
  bool isString() const { return type() == Type::String; }
  bool isList() const { return type() == Type::List; }
  bool isDict() const { return type() == Type::Dict; }
  bool isInstance() const { return type() == Type::Instance; }

  bool asBool() const { return std::get<bool>(v_); }
  int64_t asInt() const { return std::get<int64_t>(v_); }
  double asFloat() const { return std::get<double>(v_); }
  const std::string& asString() const { return *std::get<std::shared_ptr<const std::string>>(v_); }
  const ValueList& asList() const { return *std::get<std::shared_ptr<const ValueList>>(v_); }
  const ValueDict& asDict() const { return *std::get<std::shared_ptr<const ValueDict>>(v_); }
  InstanceBase* asInstance() const { return std::get<InstanceBase*>(v_); }
  // bool, int or float as a double / an integer (bools are 0/1)
  double toDouble() const;
  int64_t toInt() const;

 private:
  std::variant<NullValue, bool, int64_t, double, std::shared_ptr<const std::string>, std::shared_ptr<const ValueList>,
               std::shared_ptr<const ValueDict>, InstanceBase*, UnknownValue>
      v_;
};

// ------------------------------------------------------------------ rendering (5.5, 9.7)

// Python's repr of a float: shortest round-trip digits, `1.0`, `1e-05`, `1.5e+20`, `inf`, `nan`.
std::string formatFloat(double d);
// str rendering: interpolation, f-string default, scalars printed by std::print.
std::string str(const Value& v);
// repr rendering: inside containers, in index keys and in most messages.
std::string repr(const Value& v);
// Python's repr of a string: quotes chosen like Python, escapes for \\, quote, \n \r \t, \xNN.
std::string pyReprString(std::string_view s);
// What std::print writes: strings verbatim, scalars by str, null as None, containers and
// instances as `@` + repr.
std::string printForm(const Value& v);
// The Python type name used in messages: int, float, bool, str, list, dict, NoneType, ...
std::string pythonTypeName(const Value& v);

// ------------------------------------------------------------------ equality (5.3)

// Python `==`: numbers across int/float/bool, lists in order, dicts by content, instances by
// identity, different kinds unequal. Unknown on either side is not handled here (callers check).
bool pyEquals(const Value& a, const Value& b);
// Python truthiness (used by typedef constraints: `matching self` accepts 5, rejects 0).
bool pyTruthy(const Value& v);

// ------------------------------------------------------------------ operators (5.1, 5.2, 9.2)

enum class ArithOp { Add, Sub, Mul, Div, Mod, Pow };
enum class CompareOp { Lt, Gt, Le, Ge };

// The failure of an operator or a cast: the error kind (TypingException or RuntimeException)
// and the message; the evaluator locates it.
struct OpError {
  bool typing;  // true: TypingException, false: RuntimeException
  std::string message;
};

// Either a value or an error.
struct OpResult {
  Value value;
  std::optional<OpError> error;
  static OpResult ok(Value v) { return {std::move(v), std::nullopt}; }
  static OpResult typingError(std::string m) { return {Value(), OpError{true, std::move(m)}}; }
  static OpResult runtimeError(std::string m) { return {Value(), OpError{false, std::move(m)}}; }
};

OpResult arithmetic(ArithOp op, const Value& a, const Value& b);
OpResult compare(CompareOp op, const Value& a, const Value& b);
// `a in b` (b a list or a dict); unknown handling per 4.12 is done here too.
OpResult contains(const Value& needle, const Value& haystack);

// ------------------------------------------------------------------ casts (5.7)

enum class CastType { String, Int, Float, Bool, Number };
OpResult cast(CastType to, const Value& v);

// Python int() / float() parsing of strings.
std::optional<int64_t> parsePythonInt(std::string_view s);
std::optional<double> parsePythonFloat(std::string_view s);

}  // namespace inmanta::compiler::runtime
