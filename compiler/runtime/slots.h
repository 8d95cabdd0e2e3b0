// The kinds of variables (spec 4.3, 4.6): attribute slots in their instances' blocks, optional
// and list relation ends, collectors, and direct values computed in the unit that reads them; and
// the dispatch of Variable's operations by kind and holder.
#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>
#include <unordered_set>
#include <utility>
#include <vector>

#include "compiler/runtime/value.h"
#include "compiler/runtime/var_list.h"
#include "compiler/runtime/variable.h"

namespace inmanta::compiler::runtime {

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
  DirectState* state() const { return hasValue() ? nullptr : reinterpret_cast<DirectState*>(value_.holderPayload()); }
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

inline size_t Variable::kindSize(Kind kind) {
  switch (kind) {
    case Kind::Option: return sizeof(OptionVariable);
    case Kind::List: return sizeof(ListVariable);
    case Kind::Collector: return sizeof(CollectorVariable);
    case Kind::Direct: return sizeof(DirectVariable);
    case Kind::Plain:
    case Kind::Single:
    case Kind::Wrapped: return sizeof(Variable);
  }
  __builtin_unreachable();  // (the switch above names every value)
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
    case Kind::Plain:
    case Kind::Single:
    case Kind::Wrapped: return this->~Variable();
  }
}

inline const Value& Variable::get() const {
  switch (kind()) {
    case Kind::Option: return static_cast<const OptionVariable*>(this)->OptionVariable::get();
    case Kind::Direct: return static_cast<const DirectVariable*>(this)->DirectVariable::get();
    case Kind::Plain:
    case Kind::Single:
    case Kind::List:
    case Kind::Collector:
    case Kind::Wrapped: return plainGet();
  }
  __builtin_unreachable();  // (the switch above names every value)
}

inline void Variable::set(const Value& value, SourceLocation location, bool recur) {
  switch (kind()) {
    case Kind::Option: return static_cast<OptionVariable*>(this)->OptionVariable::set(value, location, recur);
    case Kind::List: return static_cast<ListVariable*>(this)->ListVariable::set(value, location, recur);
    case Kind::Collector: return static_cast<CollectorVariable*>(this)->CollectorVariable::set(value, location, recur);
    case Kind::Plain:
    case Kind::Single:
    case Kind::Wrapped:
    case Kind::Direct: return plainSet(value, location, recur);
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
    case Kind::Plain:
    case Kind::Single:
    case Kind::Collector:
    case Kind::Wrapped:
    case Kind::Direct: return hasValue();
  }
  __builtin_unreachable();  // (the switch above names every value)
}

inline int Variable::progressPotential() const {
  switch (kind()) {
    case Kind::List: return static_cast<const ListVariable*>(this)->ListVariable::progressPotential();
    case Kind::Collector: return static_cast<const CollectorVariable*>(this)->CollectorVariable::progressPotential();
    case Kind::Direct: return 0;  // (never waited for)
    case Kind::Plain:
    case Kind::Single:
    case Kind::Option:
    case Kind::Wrapped: return hasValue() ? 0 : static_cast<int>(waiterCount());
  }
  __builtin_unreachable();  // (the switch above names every value)
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
    case Holder::None: return nullptr;
  }
  __builtin_unreachable();  // (the switch above names every value)
}

inline const SlotPolicy* Variable::policy() const {
  switch (holder()) {
    case Holder::Inline: return static_cast<SlotOwner*>(owner())->policyAtWord(value_.holderHalf());
    case Holder::Attribute: return binding()->policy;
    case Holder::None: return nullptr;
  }
  __builtin_unreachable();  // (the switch above names every value)
}

}  // namespace inmanta::compiler::runtime
