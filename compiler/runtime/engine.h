// The execution engine's core (spec 4.3-4.7): variables (slots) with their waiters, promises and
// gradual listeners, the units that wait on them, and the scheduler with its freeze algorithm.
// The structure follows the reference's runtime on purpose: models near the limits of the
// freeze heuristics succeed or fail depending on the exact algorithm (spec 4.7), so the same
// queues, FIFO orders and one freeze per round are kept.
#pragma once

#include <cassert>
#include <cstdint>
#include <deque>
#include <functional>
#include <initializer_list>
#include <list>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "compiler/ast/prefault.h"
#include "compiler/diag/diagnostic.h"
#include "compiler/runtime/value.h"

namespace inmanta::compiler::runtime {

class Scheduler;
class Waiter;
class Variable;
struct SlotBinding;

// The variables a unit or a direct value reads (never null): most read one or two, so those are
// kept inline and only longer lists take memory of their own. 16 bytes (a compile has a million
// units waiting at once): the two variables, a null for each missing one, or, with the low bit
// set (a variable is 8-byte aligned), a pointer to the list's own block in the first word.
class VarList {
 public:
  VarList() = default;
  VarList(std::initializer_list<Variable*> items) { assign(items.begin(), items.end()); }
  explicit VarList(const std::vector<Variable*>& items) { assign(items.data(), items.data() + items.size()); }
  VarList(const VarList& other) { assign(other.begin(), other.end()); }
  VarList& operator=(const VarList& other) {
    if (this != &other) {
      release();
      assign(other.begin(), other.end());
    }
    return *this;
  }
  VarList(VarList&& other) noexcept { take(other); }
  VarList& operator=(VarList&& other) noexcept {
    if (this != &other) {
      release();
      take(other);
    }
    return *this;
  }
  ~VarList() { release(); }
  void push_back(Variable* v) {
    assert(v != nullptr && "a list of inputs holds variables");
    if (!onHeap()) {
      if (items_[0] == nullptr) return void(items_[0] = v);
      if (items_[1] == nullptr) return void(items_[1] = v);
      grow(2 * kInline);
    }
    Block* b = block();
    if (b->size == b->capacity) b = grow(b->capacity * 2);
    b->items()[b->size++] = v;
  }
  // Frees what it holds (for values that no longer need their inputs).
  void release() {
    if (onHeap()) ::operator delete(block());
    items_[0] = items_[1] = nullptr;
  }
  size_t size() const {
    if (onHeap()) return block()->size;
    return items_[0] == nullptr ? 0 : items_[1] == nullptr ? 1 : 2;
  }
  bool empty() const { return items_[0] == nullptr; }
  Variable* const* begin() const { return onHeap() ? block()->items() : items_; }
  Variable* const* end() const { return begin() + size(); }
  Variable* operator[](size_t i) const { return begin()[i]; }
  // Fetches the variables kept inline (most lists) into the cache, ahead of their use.
  void prefetch() const {
    if (onHeap()) return;
    if (items_[0] != nullptr) __builtin_prefetch(items_[0]);
    if (items_[1] != nullptr) __builtin_prefetch(items_[1]);
  }

 private:
  static constexpr uint32_t kInline = 2;
  static constexpr uintptr_t kHeap = 1;
  // (its `capacity` variables follow it)
  struct Block {
    uint32_t size;
    uint32_t capacity;
    Variable** items() { return reinterpret_cast<Variable**>(this + 1); }
  };
  bool onHeap() const { return (reinterpret_cast<uintptr_t>(items_[0]) & kHeap) != 0; }
  Block* block() const { return reinterpret_cast<Block*>(reinterpret_cast<uintptr_t>(items_[0]) & ~kHeap); }
  void assign(Variable* const* first, Variable* const* last) {
    for (; first != last; ++first) push_back(*first);
  }
  // (this one is empty) the other's storage, inline or not, as it is: a move is a plain copy
  void take(VarList& other) {
    items_[0] = std::exchange(other.items_[0], nullptr);
    items_[1] = std::exchange(other.items_[1], nullptr);
  }
  Block* grow(uint32_t capacity) {
    auto* bigger = static_cast<Block*>(::operator new(sizeof(Block) + capacity * sizeof(Variable*)));
    size_t n = size();
    std::copy(begin(), end(), bigger->items());
    bigger->size = static_cast<uint32_t>(n);
    bigger->capacity = capacity;
    if (onHeap()) ::operator delete(block());
    items_[0] = reinterpret_cast<Variable*>(reinterpret_cast<uintptr_t>(bigger) | kHeap);
    items_[1] = nullptr;
    return bigger;
  }
  Variable* items_[kInline] = {nullptr, nullptr};
};
static_assert(sizeof(VarList) == 16, "a list of inputs is two words");

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
    value_.setHolderByte(static_cast<uint8_t>((value_.holderByte() & ~kHolderMask) | (static_cast<uint8_t>(h) << kHolderShift)));
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

// The policy and the owner of an AttributeSlot, right after its variable.
struct SlotBinding {
  const SlotPolicy* policy = nullptr;
  InstanceBase* owner = nullptr;
};

// A variable that is an attribute's slot anywhere (the variables that are not slots do without
// these two words): it keeps its policy and its owner. The slots of the compile's instances live
// in their instances' blocks and find both without pointers (InlineSlot, below).
template <class V>
class AttributeSlot : public V {
 public:
  using V::V;
  static constexpr bool kInline = false;
  void bind(const SlotPolicy* policy, InstanceBase* owner) {
    static_assert(sizeof(AttributeSlot) == sizeof(V) + sizeof(SlotBinding), "the binding follows the variable");
    binding_ = SlotBinding{policy, owner};
    this->setHolder(Variable::Holder::Attribute);
  }

 private:
  SlotBinding binding_;
};

// An instance as the slots in its block see it (runtime::Instance is one): the policy of each of
// its inline slots, by the slot's distance from the instance.
struct SlotTable {
  // by the distance of each inline slot from the instance, in 8-byte words (null elsewhere)
  const SlotPolicy* const* policiesByWord = nullptr;
};
class SlotOwner : public InstanceBase {
 public:
  explicit SlotOwner(const SlotTable* table) : table_(table) {}
  const SlotPolicy* policyAtWord(size_t word) const { return table_->policiesByWord[word]; }

 protected:
  const SlotTable* table() const { return table_; }

 private:
  const SlotTable* table_;  // (shared by all instances of an entity)
};

// An attribute's slot that lives in its instance's block (runtime::InstanceStore): it finds its
// owner at a fixed distance back and its policy through the owner, so it keeps neither pointer
// (the distance, in 8-byte words, is in its value's holder half). AttributeSlot is the same for a
// slot anywhere else, or further into its block than an inline slot can be (fits()).
template <class V>
class InlineSlot : public V {
 public:
  using V::V;
  static constexpr bool kInline = true;
  // Whether a slot this many bytes into its instance's block can be an inline one.
  static constexpr bool fits(size_t distance) { return distance % 8 == 0 && distance / 8 <= UINT16_MAX; }
  // (before the scheduler first looks at the slot) this is a slot of `owner`, whose block holds it
  // where fits() allows
  void bind(SlotOwner* owner) {
    auto distance = static_cast<size_t>(reinterpret_cast<std::byte*>(this) - reinterpret_cast<std::byte*>(owner));
    assert(fits(distance));
    this->value_.setHolderHalf(static_cast<uint16_t>(distance / 8));
    this->setHolder(Variable::Holder::Inline);
  }
};

// What few lists need (one in a hundred in a generated model), kept by the scheduler for those
// only, so a list slot is as small as a plain one: gradual listeners (and how many of the waiters are
// such listeners: they do not count as progress a freeze would bring), and for long lists the
// instances among the items (adding checks for a duplicate in constant time).
struct ListExtra {
  std::vector<ResultCollector*> listeners;
  int32_t gradualWaiters = 0;
  std::unordered_set<const InstanceBase*> members;  // filled from ListVariable::kIndexFrom items on
};

// The freezable variables (spec 4.6): they count the promises made on them that are not kept yet
// (in the holder word their value leaves free until it is there: an optional slot is 16 bytes) and
// offer themselves to the scheduler's freeze queues.
class DelayedVariable : public Variable {
 public:
  // (It keeps no pointer to its scheduler: it is the newest one of the thread, see
  // Scheduler::active.)
  DelayedVariable(Kind kind, Scheduler* scheduler) : Variable(kind, scheduler) {}
};
static_assert(sizeof(DelayedVariable) == sizeof(Variable), "a freezable variable adds no members");

// An optional relation end [0:1].
class OptionVariable : public DelayedVariable {
 public:
  explicit OptionVariable(Scheduler* scheduler);
  const Value& get() const;
  void set(const Value& value, SourceLocation location, bool recur = true);
  bool canGet() const { return waitingProviders() == 0; }
  std::string_view entityName;  // for the OptionalValueException message: `E.b` (the model's)
};

// A list relation end: unordered in meaning, kept in arrival order, de-duplicated by identity.
class ListVariable : public DelayedVariable {
 public:
  // (Its bounds are its policy's: none without one.)
  explicit ListVariable(Scheduler* scheduler);
  ~ListVariable() {
    if (!hasValue()) Waiters::of(waiters_).discard();
  }
  bool listen(ResultCollector* collector, SourceLocation location);
  void set(const Value& value, SourceLocation location, bool recur = true);
  void freeze();
  bool canGet() const;
  int progressPotential() const;
  // The values so far (all of them once frozen), kept in value_: a list value shared with the
  // readers of earlier snapshots is copied before the next value is added.
  const std::vector<Value>& values() const { return value_.asList(); }

 private:
  bool addOne(const Value& value, SourceLocation location, bool recur);
  int32_t low() const {
    const SlotPolicy* p = policy();
    return p != nullptr ? p->lowerBound : 0;
  }
  int32_t high() const {
    const SlotPolicy* p = policy();
    return p != nullptr ? p->upperBound : -1;
  }
  static constexpr size_t kIndexFrom = 32;  // (ListExtra::members)
  // Its ListExtra, made on first use; or null when it has none.
  ListExtra& extra();
  ListExtra* extraOrNull() const;
  bool contains(const Value& value) const;
  friend class Variable;
  uintptr_t waiters_ = 0;  // (Variable::waitersWord: its value holds the list so far)
};

// The elements of a list literal being built; exact promise tracking, never frozen by guesses.
class CollectorVariable : public DelayedVariable {
 public:
  explicit CollectorVariable(Scheduler* scheduler);
  void set(const Value& value, SourceLocation location, bool recur = true);
  int progressPotential() const { return 0; }
  void fulfilled();  // called after a promise is fulfilled: freezes when none is outstanding
  const std::vector<Value>& values() const { return items_; }

 private:
  std::vector<Value> items_;
};

// The value of an expression the reference evaluates directly inside the unit that reads it
// (operators, plugin calls, casts, list and dict literals, dict lookups, string formatting: its
// ReferenceStatements): no unit of its own. A unit that waits for it waits for its inputs
// instead (transitively), and reading it computes the value then, once. So a whole expression
// tree runs in its consumer's unit, in that unit's turn, as in the reference.
//
// What it needs until it is computed (its inputs and its computation) is kept apart, in memory
// the scheduler hands out again once the value is computed: a computed direct value keeps only
// its value.
struct DirectState {
  VarList inputs;
  // the computation (of the state that holds its function object), and the end of the state:
  // destroys it and frees its memory
  Value (*compute)(DirectState* state);
  void (*finish)(DirectState* state);
};

class DirectVariable : public Variable {
 public:
  explicit DirectVariable(Scheduler* scheduler) : Variable(Kind::Direct, scheduler) {}
  ~DirectVariable() {
    if (DirectState* s = state()) {  // never computed
      s->finish(s);
      setState(nullptr);
    }
  }
  const Value& get() const;
  // What it is computed from (nothing once it is computed).
  const VarList& inputs() const {
    DirectState* s = state();
    return s != nullptr ? s->inputs : kNoInputs;
  }

 protected:
  // Until it is computed, its state: kept in the word of the waiters a direct value never has
  // (units wait for its inputs instead), so a direct value is 16 bytes.
  DirectState* state() const {
    return hasValue() ? nullptr : reinterpret_cast<DirectState*>(value_.holderPayload());
  }
  void setState(DirectState* state) { value_.holderPayload() = reinterpret_cast<uintptr_t>(state); }

 private:
  static const VarList kNoInputs;
};

// True when a unit reading `v` would be ready at once: `v` is set, or it is a direct value whose
// inputs are (transitively).
bool readyToRead(const Variable* v);

// A direct value computed by a function object, kept in its state (on the heap, freed once the
// value is computed: the heap hands that memory out again to whatever comes next, where a pool
// per size kept each size's high-water mark to the end of the compile).
template <class F>
class LambdaDirect : public DirectVariable {
 public:
  LambdaDirect(Scheduler* scheduler, VarList inputs, F compute) : DirectVariable(scheduler) {
    setState(new State(std::move(inputs), std::move(compute)));
  }

 private:
  struct State : DirectState {
    State(VarList in, F f) : DirectState{std::move(in), &run, &end}, function(std::move(f)) {}
    F function;
  };
  static Value run(DirectState* base) {
    auto* state = static_cast<State*>(base);
    if constexpr (std::is_invocable_v<F&, const VarList&>) return state->function(state->inputs);
    else return state->function();
  }
  static void end(DirectState* base) { delete static_cast<State*>(base); }
};

// An executable unit: waits until every variable it needs is ready, then runs (spec 4.1).
class Waiter {
 public:
  // (A unit belongs to the scheduler it is made for, the thread's active one (Scheduler::active):
  // a million units wait at once in a compile, so it keeps no pointer to it.)
  explicit Waiter(Scheduler& /*scheduler*/) {}
  virtual ~Waiter() = default;
  void waitFor(Variable* variable);
  // Called when a variable it waits on became ready (and once by the creator when it has
  // registered everything).
  void ready();
  virtual void execute() = 0;
  // What the unit waits on, in order (the scheduler's wait-cycle breaker walks these).
  const VarList& inputs() const { return inputs_; }
  // A description for "not all statements executed" and the location to report it at.
  virtual std::string describe() const { return "unit"; }
  virtual SourceLocation location() const { return {}; }
  virtual bool isExecutionUnit() const { return false; }

 protected:
  // Waits for every variable already in inputs_ (replacing direct values by their inputs).
  void waitForInputs();
  // Adds the variables `v` stands for to `out`: itself, or for a direct value not computed yet,
  // what it is computed from.
  static void leaves(Variable* v, VarList& out);

  VarList inputs_;

 private:
  friend class Scheduler;
  // Waits for `v` only, afresh (Scheduler::resubmit).
  void rearm(Variable* v) {
    inputs_ = VarList{v};
    waitCount_ = 1;
    waitForInputs();
  }
  static constexpr uint32_t kUnlisted = UINT32_MAX;
  bool listed() const { return live_ != kUnlisted; }
  int32_t waitCount_ = 1;
  uint32_t live_ = kUnlisted;  // its place in the scheduler's list of unfinished units, if there
};

// What a unit is, for "not all statements executed": a fixed text, or a text rendered only when
// asked (from a syntax node, say), so the many units of a compile build no strings. One word (a
// million units wait at once): the text's or the subject's address (below 2^48), and above it
// the number of the function that renders the subject (0: the address is the text's).
class UnitLabel {
 public:
  using Render = std::string (*)(const void* subject);
  UnitLabel() = default;
  UnitLabel(const char* literal) : bits_(reinterpret_cast<uintptr_t>(literal)) {}  // NOLINT: implicit from a literal
  // The text `R` renders from `subject`.
  template <Render R>
  static UnitLabel rendered(const void* subject) {
    static const uintptr_t number = renderNumber(R);  // (once per function)
    assert(reinterpret_cast<uintptr_t>(subject) >> kAddressBits == 0 && "user-space addresses are below 2^48");
    UnitLabel label;
    label.bits_ = reinterpret_cast<uintptr_t>(subject) | (number << kAddressBits);
    return label;
  }
  std::string text() const;

 private:
  static constexpr unsigned kAddressBits = 48;
  // The number of `render` among the functions labels use (1 and up).
  static uintptr_t renderNumber(Render render);
  uintptr_t bits_ = 0;
};
static_assert(sizeof(UnitLabel) == 8, "a unit's label is one word");

// A unit whose work is a function object, kept inline: the common case (Scheduler::unit).
template <class F>
class FunctionUnit final : public Waiter {
 public:
  FunctionUnit(Scheduler& scheduler, VarList inputs, F body, UnitLabel description, SourceLocation location,
               bool executionUnit)
      : Waiter(scheduler),
        body_(std::move(body)),
        description_(description),
        where_(packLocation(location) | (executionUnit ? kExecutionUnit : 0)) {
    inputs_ = std::move(inputs);
    waitForInputs();
  }
  void execute() override { body_(); }
  std::string describe() const override { return description_.text(); }
  SourceLocation location() const override { return unpackLocation(where_ & ~kExecutionUnit); }
  bool isExecutionUnit() const override { return (where_ & kExecutionUnit) != 0; }

 private:
  static constexpr uint64_t kExecutionUnit = uint64_t(1) << 63;
  F body_;
  UnitLabel description_;
  uint64_t where_;  // its location (packLocation), and in the high bit whether it is an execution unit
};

// Runs units and freezes variables until nothing can progress (spec 4.7).
class Scheduler {
 public:
  explicit Scheduler(MessageContext messages = {});
  ~Scheduler();
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  // Variables are owned by the scheduler and live as long as it (in its arena, one after the
  // other: the arena is walked to destroy them, by their footprints); units (unit()) until they
  // ran.
  template <class V, class... Args>
  V* makeVariable(Args&&... args) {
    return makeSlot<V>([](V*) {}, std::forward<Args>(args)...);
  }
  // A variable that `prepare` completes (an attribute slot's policy and owner) before the
  // scheduler first looks at it.
  template <class V, class Prepare, class... Args>
  V* makeSlot(Prepare prepare, Args&&... args) {
    return placeSlot<V>(allocate(sizeof(V)), prepare, std::forward<Args>(args)...);
  }
  // The same in memory of the caller's (slotSize<V>() bytes, 8-byte aligned), who destroys it
  // (the slots of an instance are in the instance's block).
  template <class V, class Prepare, class... Args>
  V* placeSlot(void* memory, Prepare prepare, Args&&... args) {
    static_assert(alignof(V) <= kArenaAlign, "arena variables are 8-byte aligned");
    V* raw = new (memory) V(this, std::forward<Args>(args)...);
    prepare(raw);
    assert(raw->footprint() == sizeof(V) && "a variable class adds no members to its kind's");
    raw->created();
    return raw;
  }
  template <class V>
  static constexpr size_t slotSize() {
    return arenaSize(sizeof(V));
  }
  // a plain variable or attribute slot
  struct PlainSlot : Variable {
    explicit PlainSlot(Scheduler* s) : Variable(Kind::Plain, s) {}
  };
  Variable* makePlain() { return makeVariable<PlainSlot>(); }
  Variable* makeWrapped(const Value& value);
  // A direct value (DirectVariable) computed by `compute` from `inputs`.
  template <class F>
  Variable* makeDirect(VarList inputs, F compute) {
    return makeVariable<LambdaDirect<F>>(std::move(inputs), std::move(compute));
  }
  // A unit that runs `body` once every variable of `inputs` is ready.
  template <class F>
  void unit(VarList inputs, F body, UnitLabel description = {}, SourceLocation location = {},
            bool executionUnit = false) {
    // owned by the list of unfinished units until it has run, then deleted at once: a compile's
    // units and what their functions hold do not pile up
    submit(new FunctionUnit<F>(*this, std::move(inputs), std::move(body), description, location, executionUnit));
  }
  // Takes a unit made with `new` that has registered what it waits for: queues it when it is
  // ready, lists it otherwise.
  void submit(Waiter* u) {
    ++queueChanges_;
    u->ready();  // the creator's own count
    // only a unit that waits is listed among the unfinished ones; one that is ready at once
    // runs before the scheduler can stop (most units: their inputs are known)
    if (u->waitCount_ > 0) registerWaiter(u);
  }
  // Called by the unit that is running: when it returns, it does not finish but runs again once
  // `v` is ready, in the turn a unit made now to wait for `v` would get (it leaves its place among
  // the unfinished units and takes one at the end). One unit so does the work of two in a row.
  void runAgainWhen(Variable* v) { rerunOn_ = v; }
  // Counts the units made and the units that became ready: while it is unchanged, the last unit
  // queued is still the run queue's last, and whatever runs next runs after it.
  uint64_t queueChanges() const { return queueChanges_; }

  // Runs to the end. Returns the units still waiting (empty when everything ran).
  std::vector<Waiter*> run(size_t maxIterations);

  // A promise on `owner`, kept as long as the scheduler (units hold it until they fulfil it).
  Promise* makePromise(Variable* owner, bool done) { return &promises_.emplace_back(Promise{owner, done}); }
  void addRunning(Waiter* waiter) {
    ++queueChanges_;
    runQueue_.push_back(waiter);
  }
  void addPossible(Variable* variable);
  void registerWaiter(Waiter* waiter);
  void finished(Waiter* waiter);
  // Deletes a unit that failed: a listed one stays listed (the scheduler deletes it at the end).
  void dropFailed(Waiter* waiter);
  // The messages of the newest scheduler of this thread still alive (variables keep no pointer
  // to their scheduler).
  static const MessageContext* activeMessages();
  // The newest scheduler of this thread still alive: the one of the freezable variables in use
  // (a compile makes one scheduler and runs on one thread).
  static Scheduler* active();
  size_t iterations() const { return iterations_; }

 private:
  bool breakWaitCycle();
  bool hasCandidates() const;
  // The next variable of the freeze queue: relations the precedence policy does not name (FIFO),
  // then the named ones in the policy's order, then the other variables (FIFO).
  Variable* popCandidate();
  // how far ahead the freeze queues' variables are fetched
  static constexpr size_t kCandidatesAhead = 6;
  // how far ahead the run queue's units, and then their inputs, are fetched (Scheduler::run)
  static constexpr size_t kUnitsAhead = 4;
  static constexpr size_t kInputsAhead = 2;
  static int rankOf(const Variable* v) {
    if (!v->isRelation()) return -1;
    const SlotPolicy* p = v->policy();
    return p != nullptr ? p->freezeRank : -1;
  }
  // Bump allocation of variables: they all live until the scheduler goes.
  static constexpr size_t kArenaAlign = 8;
  static constexpr size_t arenaSize(size_t size) { return (size + kArenaAlign - 1) & ~(kArenaAlign - 1); }
  void* allocate(size_t size);
  // A unit that asked to run again (runAgainWhen), as if it had finished and a new unit waiting
  // for `v` had been submitted.
  void resubmit(Waiter* unit, Variable* v);

  MessageContext messages_;
  Variable* rerunOn_ = nullptr;
  std::deque<Waiter*> runQueue_;
  std::deque<Variable*> candidates_;       // relation variables, FIFO
  std::deque<Variable*> otherCandidates_;  // collectors and other non-relation variables, FIFO
  std::vector<std::deque<Variable*>> rankedCandidates_;  // relations named by the precedence policy, by rank
  size_t rankedCount_ = 0;
  std::deque<Variable*> zeroWaiters_;
  // unfinished units that waited, in the order they first waited (creation order, except for a
  // unit that was ready at creation and waited later on a value it read: appended then); a
  // finished one leaves a hole, closed up when half are holes (in blocks, not one array: a million
  // wait at once, and an array would double, and be copied, as it grows)
  std::deque<Waiter*> live_;
  size_t liveCount_ = 0;
  Scheduler* previous_;  // the thread's active scheduler when this one was made
  // the arena's chunks, each with the end of the variables in it (the last one's is chunkNext_)
  struct Chunk {
    ArenaBlock block;
    std::byte* used;
  };
  std::vector<Chunk> chunks_;
  std::byte* chunkNext_ = nullptr;
  std::byte* chunkEnd_ = nullptr;
  std::deque<Promise> promises_;
  // the lists' extras (ListVariable::extra), freed with the scheduler
  std::unordered_map<const Variable*, std::unique_ptr<ListExtra>> listExtras_;
  friend class ListVariable;
  // where the values were set that a variable's holder word cannot hold (Variable::packLocation)
  std::unordered_map<const Variable*, SourceLocation> farLocations_;
  friend class Variable;
  size_t iterations_ = 0;
  uint64_t queueChanges_ = 0;
};

// ------------------------------------------------------------------ Variable: by kind and holder

inline size_t Variable::kindSize(Kind kind) {
  switch (kind) {
    case Kind::Option: return sizeof(OptionVariable);
    case Kind::List: return sizeof(ListVariable);
    case Kind::Collector: return sizeof(CollectorVariable);
    case Kind::Direct: return sizeof(DirectVariable);
    default: return sizeof(Variable);
  }
}

inline uintptr_t& Variable::waitersWord() {
  if (kind() == Kind::List) return static_cast<ListVariable*>(this)->waiters_;
  return value_.holderPayload();
}

inline size_t Variable::footprint() const {
  return kindSize(kind()) + (holder() == Holder::Attribute ? sizeof(SlotBinding) : 0);
}

inline void Variable::destroy() {
  switch (kind()) {
    case Kind::Option: return static_cast<OptionVariable*>(this)->~OptionVariable();
    case Kind::List: return static_cast<ListVariable*>(this)->~ListVariable();
    case Kind::Collector: return static_cast<CollectorVariable*>(this)->~CollectorVariable();
    case Kind::Direct: return static_cast<DirectVariable*>(this)->~DirectVariable();
    default: return this->~Variable();
  }
}

inline const Value& Variable::get() const {
  switch (kind()) {
    case Kind::Option: return static_cast<const OptionVariable*>(this)->OptionVariable::get();
    case Kind::Direct: return static_cast<const DirectVariable*>(this)->DirectVariable::get();
    default: return plainGet();
  }
}

inline void Variable::set(const Value& value, SourceLocation location, bool recur) {
  switch (kind()) {
    case Kind::Option: return static_cast<OptionVariable*>(this)->OptionVariable::set(value, location, recur);
    case Kind::List: return static_cast<ListVariable*>(this)->ListVariable::set(value, location, recur);
    case Kind::Collector: return static_cast<CollectorVariable*>(this)->CollectorVariable::set(value, location, recur);
    default: return plainSet(value, location, recur);
  }
}

inline void Variable::freeze() {
  if (kind() == Kind::List) return static_cast<ListVariable*>(this)->ListVariable::freeze();
  plainFreeze();
}

inline bool Variable::listen(ResultCollector* collector, SourceLocation location) {
  if (kind() == Kind::List) return static_cast<ListVariable*>(this)->ListVariable::listen(collector, location);
  return false;
}

inline bool Variable::canGet() const {
  switch (kind()) {
    case Kind::Option: return static_cast<const OptionVariable*>(this)->OptionVariable::canGet();
    case Kind::List: return static_cast<const ListVariable*>(this)->ListVariable::canGet();
    default: return hasValue();
  }
}

inline int Variable::progressPotential() const {
  switch (kind()) {
    case Kind::List: return static_cast<const ListVariable*>(this)->ListVariable::progressPotential();
    case Kind::Collector: return static_cast<const CollectorVariable*>(this)->CollectorVariable::progressPotential();
    case Kind::Direct: return 0;  // (never waited for)
    default: return hasValue() ? 0 : static_cast<int>(waiterCount());
  }
}

inline const SlotBinding* Variable::binding() const {
  return reinterpret_cast<const SlotBinding*>(reinterpret_cast<const std::byte*>(this) + kindSize(kind()));
}

inline InstanceBase* Variable::owner() const {
  switch (holder()) {
    case Holder::Inline: {
      // (InlineSlot::bind) the instance is that many bytes back
      auto* self = const_cast<std::byte*>(reinterpret_cast<const std::byte*>(this));
      return reinterpret_cast<SlotOwner*>(self - size_t{value_.holderHalf()} * 8);
    }
    case Holder::Attribute: return binding()->owner;
    default: return nullptr;
  }
}

inline const SlotPolicy* Variable::policy() const {
  switch (holder()) {
    case Holder::Inline: return static_cast<SlotOwner*>(owner())->policyAtWord(value_.holderHalf());
    case Holder::Attribute: return binding()->policy;
    default: return nullptr;
  }
}

}  // namespace inmanta::compiler::runtime
