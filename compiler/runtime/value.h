// Run-time values of the language (spec 4.2) and their Python-compatible behaviour: rendering
// (5.5), equality (5.3), arithmetic and comparisons (5.1, 5.2 with decision 9.2) and casts (5.7).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
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
// An unknown has an identity, as the reference's Unknown objects (each made anew, compared by
// identity): two unknowns are equal only when they are the same one (double sets, index keys).
struct UnknownValue {
  uint64_t id = 0;
  bool operator==(const UnknownValue&) const = default;
};

class Value;
using ValueList = std::vector<Value>;

// The count of a value's shared part (a string, list, dict or opaque object). Not atomic: the
// values of a compile stay on its thread.
struct SharedCount {
  uint32_t refs = 1;
};

// An object of modules' Python code that is no model value (a plugin's result without declared
// return type: param::report's Result, a class instance, a set, bytes, a function). The
// reference keeps such an object as the value itself, so the model holds it too, through this
// interface: the module-code host (libinmanta_python.so) implements it, so the compiler never
// depends on Python. Its answers are Python's for the object.
class OpaqueObject : public SharedCount {
 public:
  OpaqueObject() = default;
  OpaqueObject(const OpaqueObject&) = delete;
  OpaqueObject& operator=(const OpaqueObject&) = delete;
  virtual std::string str() const = 0;       // str(o): interpolation, messages
  virtual std::string repr() const = 0;      // repr(o): inside containers, std::print's `@` form
  virtual std::string typeName() const = 0;  // type(o).__name__
  // Python's `left == right`, one of them this object, the other in the reference's internal
  // form (null as its NoneValue, lists and dicts as Python's).
  virtual bool equals(const Value& left, const Value& right) const = 0;
  virtual bool truthy() const = 0;  // bool(o)
  // format(o, spec) (an f-string's `{x:spec}`); nothing, with `error` set, when Python refuses
  virtual std::optional<std::string> format(std::string_view spec, std::string& error) const = 0;
  // Whether the object has a length (bytes, a set): the reference's proxy of it is then a
  // SequenceProxy, not a DynamicProxy.
  virtual bool sized() const = 0;
  // Frees the object (the last value holding it is gone); the host releases the Python object.
  virtual void dispose() = 0;

 protected:
  ~OpaqueObject() = default;
};

// Insertion-ordered, string-keyed, immutable once built.
struct ValueDict {
  std::vector<std::pair<std::string, Value>> items;
  const Value* find(std::string_view key) const;
};

// A value: 16 bytes, scalars inline and strings, lists, dicts and opaque objects shared
// (immutable once made) behind a reference count.
class Value {
 public:
  // (the shared kinds, String to Opaque, stay together: `boxed()` is one range test)
  enum class Type : uint8_t { Null, Bool, Int, Float, String, List, Dict, Opaque, Instance, Unknown };

  Value() : type_(Type::Null) { u_.i = 0; }
  static Value null() { return Value(); }
  // (one counter per module that uses it: a plugin loaded from a shared module has its own, so
  // the evaluator gives the unknowns plugins return an id of its own: Evaluator::callPlugin)
  static uint64_t nextUnknownId() {
    static std::atomic<uint64_t> last{0};
    return last.fetch_add(1, std::memory_order_relaxed) + 1;
  }
  // a new unknown, unequal to every other
  static Value unknown() { return Value(UnknownValue{nextUnknownId()}); }
  Value(bool b) : type_(Type::Bool) { u_.i = 0, u_.b = b; }
  Value(int64_t i) : type_(Type::Int) { u_.i = i; }
  Value(int i) : type_(Type::Int) { u_.i = i; }
  Value(double d) : type_(Type::Float) { u_.d = d; }
  Value(std::string s) : type_(Type::String) { u_.box = new Box<std::string>(std::move(s)); }
  Value(const char* s) : Value(std::string(s)) {}
  Value(ValueList l) : type_(Type::List) { u_.box = new Box<ValueList>(std::move(l)); }
  Value(ValueDict d) : type_(Type::Dict) { u_.box = new Box<ValueDict>(std::move(d)); }
  Value(InstanceBase* i) : type_(Type::Instance) { u_.instance = i; }
  // takes over the object's first count (a new object's count is 1)
  explicit Value(OpaqueObject* o) : type_(Type::Opaque) { u_.box = o; }
  Value(UnknownValue u) : type_(Type::Unknown) { u_.i = static_cast<int64_t>(u.id); }

  Value(const Value& other) : u_(other.u_), type_(other.type_) { retain(); }
  Value(Value&& other) noexcept : u_(other.u_), type_(other.type_) { other.type_ = Type::Null; }
  Value& operator=(const Value& other) {
    other.retain();  // first: `other` may be held by what this value releases
    release();
    u_ = other.u_;
    type_ = other.type_;
    return *this;
  }
  Value& operator=(Value&& other) noexcept {
    if (this != &other) {
      release();
      u_ = other.u_;
      type_ = other.type_;
      other.type_ = Type::Null;
    }
    return *this;
  }
  ~Value() { release(); }

  Type type() const { return type_; }
  bool isNull() const { return type() == Type::Null; }
  bool isUnknown() const { return type() == Type::Unknown; }
  uint64_t unknownId() const { return isUnknown() ? static_cast<uint64_t>(u_.i) : 0; }
  // A string, list, dict or opaque object shared by the copies of one value (and no other): its
  // identity, as Python's `is` would see it; null for other values.
  const void* sharedIdentity() const { return boxed() ? u_.box : nullptr; }
  bool isBool() const { return type() == Type::Bool; }
  bool isInt() const { return type() == Type::Int; }
  bool isFloat() const { return type() == Type::Float; }
  bool isNumber() const { return isInt() || isFloat() || isBool(); }  // Python: bool is an int
  bool isString() const { return type() == Type::String; }
  bool isList() const { return type() == Type::List; }
  bool isDict() const { return type() == Type::Dict; }
  bool isInstance() const { return type() == Type::Instance; }
  bool isOpaque() const { return type() == Type::Opaque; }

  bool asBool() const { return checked(Type::Bool).u_.b; }
  int64_t asInt() const { return checked(Type::Int).u_.i; }
  double asFloat() const { return checked(Type::Float).u_.d; }
  const std::string& asString() const {
    return static_cast<const Box<std::string>*>(checked(Type::String).u_.box)->value;
  }
  const ValueList& asList() const { return static_cast<const Box<ValueList>*>(checked(Type::List).u_.box)->value; }
  const ValueDict& asDict() const { return static_cast<const Box<ValueDict>*>(checked(Type::Dict).u_.box)->value; }
  InstanceBase* asInstance() const { return checked(Type::Instance).u_.instance; }
  const OpaqueObject& asOpaque() const { return *static_cast<const OpaqueObject*>(checked(Type::Opaque).u_.box); }
  // A list this value alone holds, to change in place: a list shared with other values is copied
  // first (lists are immutable for everyone who can see them).
  ValueList& mutableList() {
    auto* box = static_cast<Box<ValueList>*>(checked(Type::List).u_.box);
    if (box->refs > 1) {
      auto* own = new Box<ValueList>(box->value);
      --box->refs;
      u_.box = box = own;
    }
    return box->value;
  }
  // bool, int or float as a double / an integer (bools are 0/1)
  double toDouble() const;
  int64_t toInt() const;

  // The bytes a value leaves free after its type: the object that holds the value may keep
  // numbers of its own there (a variable: its kind and flags in the byte, the distance of a slot
  // from its instance in the half, the line its value was set at in the word). A new value has
  // them 0; copying or assigning a value never changes them.
  uint8_t holderByte() const { return holderByte_; }
  uint16_t holderHalf() const { return holderHalf_; }
  uint32_t holderWord() const { return holderWord_; }
  void setHolderByte(uint8_t byte) { holderByte_ = byte; }
  void setHolderHalf(uint16_t half) { holderHalf_ = half; }
  void setHolderWord(uint32_t word) { holderWord_ = word; }
  void setHolderTags(uint16_t half, uint32_t word) {
    holderHalf_ = half;
    holderWord_ = word;
  }
  // The word of a null value's payload, which the holder may keep a word of its own in until it
  // holds a value (a variable: its waiters). Assigning a value replaces it; a copy of the null
  // value would carry it, so the holder never lets such a value out.
  uintptr_t& holderPayload() { return u_.word; }
  uintptr_t holderPayload() const { return u_.word; }

 private:
  using BoxBase = SharedCount;
  template <class T>
  struct Box : BoxBase {
    explicit Box(T v) : value(std::move(v)) {}
    T value;
  };
  bool boxed() const {
    return static_cast<unsigned>(type_) - static_cast<unsigned>(Type::String) <=
           static_cast<unsigned>(Type::Opaque) - static_cast<unsigned>(Type::String);
  }
  // GCC 12 follows these into callers' inlined copies and moves and reports array bounds and
  // use-after-free false positives on the count (the type test guards every access)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Warray-bounds"
#pragma GCC diagnostic ignored "-Wuse-after-free"
  void retain() const {
    if (boxed()) ++u_.box->refs;
  }
  void release() {
    if (boxed() && --u_.box->refs == 0) destroy();
  }
#pragma GCC diagnostic pop
  void destroy();  // frees the shared part
  // The value itself when it is of type `t`; reading another type is a programming error.
  const Value& checked(Type t) const {
    if (type_ != t) wrongType(t);
    return *this;
  }
  [[noreturn]] void wrongType(Type wanted) const;

  union Payload {
    bool b;
    int64_t i;
    double d;
    InstanceBase* instance;
    BoxBase* box;
    uintptr_t word;  // (holderPayload)
  } u_;
  Type type_;
  uint8_t holderByte_ = 0;
  uint16_t holderHalf_ = 0;
  uint32_t holderWord_ = 0;
};
static_assert(sizeof(Value) == 16, "a value is two words, its holder's tags included");

// (inline: libinmanta_python.so uses values without linking the compiler; never inlined into
// release(): the freeing stays out of the hot copy paths, and GCC 12 then does not mistake the
// count test after another value's release for a use after free)
[[gnu::noinline]] inline void Value::destroy() {
  switch (type_) {
    case Type::String: delete static_cast<Box<std::string>*>(u_.box); break;
    case Type::List: delete static_cast<Box<ValueList>*>(u_.box); break;
    case Type::Dict: delete static_cast<Box<ValueDict>*>(u_.box); break;
    case Type::Opaque: static_cast<OpaqueObject*>(u_.box)->dispose(); break;
    case Type::Null:
    case Type::Bool:
    case Type::Int:
    case Type::Float:
    case Type::Instance:
    case Type::Unknown: break;
  }
}

inline void Value::wrongType(Type wanted) const {
  throw std::logic_error("internal error: a value of type " + std::to_string(static_cast<int>(type_)) +
                         " read as type " + std::to_string(static_cast<int>(wanted)));
}

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
// The cast a call's function name names (`string`, `int`, `float`, `bool`, `number`), if any.
std::optional<CastType> castTypeNamed(std::string_view name);

// Appends `v` to a list being built from a list literal's elements: a list's items are spliced
// in (spec 5.1), anything else is one item.
void appendSpliced(ValueList& out, const Value& v);

// Python int() / float() parsing of strings.
std::optional<int64_t> parsePythonInt(std::string_view s);
std::optional<double> parsePythonFloat(std::string_view s);

}  // namespace inmanta::compiler::runtime
