// The scheduler (spec 4.7): runs units and freezes variables until nothing can progress. The
// structure follows the reference's runtime on purpose: models near the limits of the freeze
// heuristics succeed or fail depending on the exact algorithm, so the same queues, FIFO orders
// and one freeze per round are kept.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

#include "compiler/ast/prefault.h"
#include "compiler/runtime/slots.h"
#include "compiler/runtime/units.h"
#include "compiler/runtime/var_list.h"
#include "compiler/runtime/variable.h"

namespace inmanta::compiler::runtime {

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
  std::deque<Variable*> candidates_;                     // relation variables, FIFO
  std::deque<Variable*> otherCandidates_;                // collectors and other non-relation variables, FIFO
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

}  // namespace inmanta::compiler::runtime
