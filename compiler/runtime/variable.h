// The variables of the execution engine (spec 4.3): the slot every value lives in, with the units
// waiting for it, and the constant a literal of the syntax tree holds (ConstantVariable). What
// differs per kind of variable is in slots.h, the units in units.h, the scheduler in scheduler.h.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "compiler/diag/diagnostic.h"
#include "compiler/runtime/value.h"
#include "compiler/source/source.h"

namespace inmanta::compiler::runtime {

class Scheduler;
class Waiter;
class Variable;
struct SlotBinding;

// Receives the values of a relation or list one by one for gradual execution (spec 4.5).
class ResultCollector {
 public:
  virtual ~ResultCollector() = default;
  // True when all progress comes from new values: freezing the variable adds nothing.
  virtual bool pureGradual() const { return true; }
  // Returns true when this collector wants no more values.
  virtual bool receive(const Value& value, SourceLocation location) = 0;
  // A list is received element by element.
  bool receiveFlatten(const Value& value, SourceLocation location);
};

// Thrown when a value is read from a variable that is not ready (a plugin reading an attribute
// that is not assigned yet, spec 4.13): the unit waits for it and runs again.
struct UnsetSignal {
  Variable* variable;
};

// A promise to set a value on a freezable variable, or to make progress towards one (4.6).
struct Promise {
  Variable* owner = nullptr;
  bool done = false;
};

// Formats locations and values for messages raised by variables.
struct MessageContext {
  std::function<std::string(const SourceLocation&)> location;
};

// What the slots of one attribute share, whatever instance they belong to: the check of a first
// value (spec 3.5) and, for relations with an inverse, setting the other end. One per attribute,
// so a slot carries a pointer instead of its own functions.
class SlotPolicy {
 public:
  virtual ~SlotPolicy() = default;
  // The error for a value this slot must not take, if any (never called with an unknown).
  virtual std::optional<Diagnostic> validate(const Value& value) const = 0;
  // The attribute's name in the model.
  virtual std::string_view attributeName() const { return {}; }
  // Sets the inverse end on the other instance; `self`'s owner is the instance to put there.
  virtual bool hasInverse() const { return false; }
  virtual void setInverse(const Variable& /*self*/, const Value& /*other*/, SourceLocation /*location*/) const {}
  // The place of this relation in the project's relation precedence policy (its freeze order;
  // spec 4.7), or -1 for a relation the policy does not name.
  int freezeRank = -1;
  // A list relation's multiplicity: the fewest items it needs and the most it takes (-1: no
  // limit). Bounds past 2^31 - 1 items are that many: no list gets there.
  void setBounds(int64_t lower, std::optional<int64_t> upper);
  int32_t lowerBound = 0;
  int32_t upperBound = -1;
};

// A slot (spec 4.3). Plain variables and plain attributes are `Plain`; relation ends are
// `Single` ([1]), `Option` ([0:1]) or `List` (other multiplicities); `Collector` gathers the
// elements of a list literal; `Wrapped` holds a value known at creation.
//
// A variable exists per attribute of every instance and per expression evaluated, so its size is
// the compile's memory: it has no virtual functions (no vtable pointer) and keeps its kind and
// flags in the bytes its value leaves free (16 bytes for a plain one). What differs per kind is
// chosen by its kind, each kind being one class (OptionVariable, ListVariable, CollectorVariable,
// DirectVariable, or Variable itself) whose subclasses add no members; what differs per holder
// (its policy and owner) by its holder (InlineSlot, AttributeSlot).
class Variable {
 public:
  enum class Kind : uint8_t { Plain, Single, Option, List, Collector, Wrapped, Direct };
  // Where a slot finds its policy and owner: nowhere (not a slot), in its instance's block
  // (InlineSlot) or in the two words after it (AttributeSlot).
  enum class Holder : uint8_t { None, Inline, Attribute };
  // (Every kind is made with its scheduler; only the freezable ones keep it.)
  Variable(Kind kind, Scheduler* /*scheduler*/) { value_.setHolderByte(static_cast<uint8_t>(kind)); }
  ~Variable() {
    // (a list's own word is the list's to free)
    if (!hasValue() && kind() != Kind::List) Waiters::of(value_.holderPayload()).discard();
  }
  Variable(const Variable&) = delete;
  Variable& operator=(const Variable&) = delete;
  Kind kind() const { return static_cast<Kind>(value_.holderByte() & kKindMask); }
  // Destroys it as the class of its kind (its owner calls this instead of the destructor).
  void destroy();
  // The bytes it takes (a scheduler's arena is walked by them).
  size_t footprint() const;
  // The size of the class of a kind.
  static size_t kindSize(Kind kind);

  bool isReady() const { return hasValue(); }
  // The value; UnsetSignal when not ready; an OptionalValueException for an empty optional.
  const Value& get() const;
  // What is there now, ready or not (a relation's values so far).
  const Value& current() const;
  // Where the value was set (nowhere for a frozen or computed one); only once it is ready.
  // (Its file and line: messages show no column there.)
  SourceLocation setAt() const;
  void waitFor(Waiter* waiter);
  // Registers a gradual listener; false when this kind does not report values one by one.
  bool listen(ResultCollector* collector, SourceLocation location);
  void set(const Value& value, SourceLocation location, bool recur = true);
  void freeze();

  // Freezable variables (optional and list relations, collectors; spec 4.6).
  bool delayed() const {
    Kind k = kind();
    return k == Kind::Option || k == Kind::List || k == Kind::Collector;
  }
  Promise* setPromise();
  // Null when this variable no longer tracks promises (frozen) or never does.
  Promise* progressionPromise();
  void fulfill(Promise* promise);
  size_t waitingProviders() const;
  bool canGet() const;
  int progressPotential() const;
  // Relation variables are frozen before collectors (the candidate queue's order, 4.7).
  bool isRelation() const {
    Kind k = kind();
    return k == Kind::Single || k == Kind::Option || k == Kind::List;
  }
  bool queued() const { return flag(kQueued); }
  void unqueue() { setFlag(kQueued, false); }
  // A freezable variable that may already be complete is offered to the scheduler at once.
  void created() {
    if (delayed() && canGet()) queue();
  }

  // For attribute and relation slots (InlineSlot, AttributeSlot): their attribute's policy
  // (outlives the variables) and the owner, for messages and inverses; null for the other
  // variables.
  const SlotPolicy* policy() const;
  InstanceBase* owner() const;
  // The model's name of the attribute (empty for other variables).
  std::string_view attributeName() const {
    const SlotPolicy* p = policy();
    return p != nullptr ? p->attributeName() : std::string_view();
  }

 protected:
  // What a plain variable does (the other kinds' versions build on these).
  const Value& plainGet() const;
  void plainSet(const Value& value, SourceLocation location, bool recur);
  void plainFreeze();
  Holder holder() const { return static_cast<Holder>((value_.holderByte() & kHolderMask) >> kHolderShift); }
  void setHolder(Holder h) {
    value_.setHolderByte(
        static_cast<uint8_t>((value_.holderByte() & ~kHolderMask) | (static_cast<uint8_t>(h) << kHolderShift)));
  }
  // The flags, with the kind, in the byte the value leaves free (Value::holderByte).
  static constexpr uint8_t kKindMask = 0x07;
  static constexpr uint8_t kHasValue = 0x08;
  static constexpr uint8_t kHolderMask = 0x30;
  static constexpr int kHolderShift = 4;
  static constexpr uint8_t kQueued = 0x40;
  static constexpr uint8_t kHasExtra = 0x80;  // (a list) it has a ListExtra in its scheduler
  bool flag(uint8_t f) const { return (value_.holderByte() & f) != 0; }
  void setFlag(uint8_t f, bool on) {
    value_.setHolderByte(static_cast<uint8_t>(on ? value_.holderByte() | f : value_.holderByte() & ~f));
  }
  bool hasValue() const { return flag(kHasValue); }
  // A freezable variable counts the promises made on it and not kept yet until its value is there
  // (frozen), in its value's holder word, which then takes the line of the value.
  bool tracksPromises() const { return delayed() && !hasValue(); }
  uint32_t promised() const { return value_.holderWord(); }
  void setPromised(uint32_t count) { value_.setHolderWord(count); }
  // (an AttributeSlot) its policy and owner, right after the variable of its kind
  const SlotBinding* binding() const;
  // Sets the inverse end on `other` (an instance this relation end took) when the relation has
  // one.
  void setInverse(const Value& other, SourceLocation location) const {
    if (const SlotPolicy* p = policy(); p != nullptr && p->hasInverse()) p->setInverse(*this, other, location);
  }
  // The owner as messages show it (empty without one).
  std::string ownerText() const {
    InstanceBase* o = owner();
    return o != nullptr ? o->display() : std::string();
  }
  void queue();
  void validate(const Value& value);
  [[noreturn]] void doubleSet(const Value& value, SourceLocation location) const;

  // The units waiting for the value, in arrival order, in one word: none, one unit, or (low bit
  // set) a vector of them. A variable exists per attribute of every instance and per expression
  // evaluated, so its size is the compile's memory: until the value is there, the word is the
  // value's own payload (a null value's: Value::holderPayload), and a list, whose value holds its
  // items so far, has one word more for it (waitersWord).
  class Waiters {
   public:
    // (a copy of) the list a word holds
    static Waiters of(uintptr_t word) {
      Waiters w;
      w.setBits(word);
      return w;
    }
    void push(Waiter* w) {
      if (bits() == 0) {
        setBits(reinterpret_cast<uintptr_t>(w));
        return;
      }
      std::vector<Waiter*>* list = many();
      if (list == nullptr) {
        list = new std::vector<Waiter*>{reinterpret_cast<Waiter*>(bits())};
        setBits(reinterpret_cast<uintptr_t>(list) | 1);
      }
      list->push_back(w);
    }
    size_t size() const {
      if (bits() == 0) return 0;
      return many() != nullptr ? many()->size() : 1;
    }
    // Empties the list and calls `f` on what was in it, in order (f must not add waiters here).
    template <class F>
    void drain(F&& f) {
      uintptr_t bits = this->bits();
      setBits(0);
      if (bits == 0) return;
      if ((bits & 1) == 0) return f(reinterpret_cast<Waiter*>(bits));
      auto* list = reinterpret_cast<std::vector<Waiter*>*>(bits & ~uintptr_t(1));
      // (the units are most often far from each other in memory: each is fetched kAhead early)
      const size_t n = list->size();
      Waiter* const* items = list->data();
      for (size_t i = 0; i < n && i < kAhead; ++i) __builtin_prefetch(items[i]);
      for (size_t i = 0; i < n; ++i) {
        if (i + kAhead < n) __builtin_prefetch(items[i + kAhead]);
        f(items[i]);
      }
      delete list;
    }
    // Takes the list, leaving this one empty.
    Waiters take() {
      Waiters out = *this;
      setBits(0);
      return out;
    }
    // Frees the memory of a list that will never be drained.
    void discard() {
      delete many();
      setBits(0);
    }
    // (of a variable nobody waits for: a direct value) the word, holding a pointer of its own
    uintptr_t word() const { return bits(); }
    void setWord(uintptr_t word) { setBits(word); }

   private:
    static constexpr size_t kAhead = 4;
    uintptr_t bits() const { return bits_; }
    void setBits(uintptr_t bits) { bits_ = bits; }
    std::vector<Waiter*>* many() const {
      return (bits() & 1) != 0 ? reinterpret_cast<std::vector<Waiter*>*>(bits() & ~uintptr_t(1)) : nullptr;
    }
    uintptr_t bits_ = 0;
  };
  // The word of the units waiting for the value (see Waiters).
  uintptr_t& waitersWord();
  uintptr_t waitersWord() const { return const_cast<Variable*>(this)->waitersWord(); }
  void pushWaiter(Waiter* w) {
    uintptr_t& word = waitersWord();
    Waiters list = Waiters::of(word);
    list.push(w);
    word = list.word();
  }
  size_t waiterCount() const { return Waiters::of(waitersWord()).size(); }
  // Takes the waiters out of their word: before the value is written over it.
  Waiters takeWaiters() { return Waiters::of(std::exchange(waitersWord(), 0)); }
  // Where the value was set, in the value's holder word once it is there: its line and its file
  // (packed: lines below 2^22 in the first 1,022 files), or kFarLocation with the location in the
  // scheduler (Scheduler::farLocations_); 0: nowhere.
  static constexpr uint32_t kFarLocation = UINT32_MAX;
  uint32_t packLocation(SourceLocation at) const {
    if (at.file == kNoFile) return 0;
    if (at.file < 1022 && at.line < (uint32_t(1) << 22)) return (at.line << 10) | (at.file + 1);
    return rememberFarLocation(at);
  }
  uint32_t rememberFarLocation(SourceLocation at) const;
  // Gives the value's arrival its effects (the value is in value_ and `woken` the waiters taken
  // out before it was written): marks it ready, records where it was set and wakes the units that
  // waited, in order (after `then`, which may set other variables first).
  template <class Then>
  void settle(Waiters woken, SourceLocation location, Then&& then) {
    setFlag(kHasValue, true);
    value_.setHolderWord(packLocation(location));
    try {
      then();
    } catch (...) {
      woken.discard();  // the compile fails: they never run
      throw;
    }
    wake(woken);
  }
  static void wake(Waiters& woken);
  // The part of freeze() that every kind shares, with the location of the value (none for a
  // freeze by the scheduler) and the waiters taken out before a value was written.
  void freezeAt(SourceLocation location, Waiters woken);
  void freezeAt(SourceLocation location) { freezeAt(location, takeWaiters()); }

  // (its holder byte: the kind and the flags; its holder half: an inline slot's distance from its
  // instance; its holder word: the promises not kept yet, then where the value was set; its
  // payload, until the value is there: the units waiting for it)
  Value value_;
};
static_assert(sizeof(Variable) == 16, "a variable is its value");

// A variable whose value is there from the start and never changes: the value of a literal of the
// syntax tree (ast::Literal holds one) or an instance's `self`. It is what Scheduler::makeWrapped
// makes (a plain variable set from nowhere), without a scheduler: it belongs to none, so the
// evaluators of one tree share a literal's. Nothing waits on it (a unit reading it is ready at
// once), and setting it again is a plain variable's double-set check. (Inline throughout: the
// ANTLR front end, a library of its own, makes literals too.)
class ConstantVariable : public Variable {
 public:
  explicit ConstantVariable(Value value) : Variable(Kind::Plain, nullptr) {
    value_ = std::move(value);
    setFlag(kHasValue, true);  // (set from nowhere: its holder word is 0)
  }
  const Value& value() const { return value_; }
};
static_assert(sizeof(ConstantVariable) == sizeof(Variable), "a constant is a plain variable");

}  // namespace inmanta::compiler::runtime
