// The units of execution (spec 4.1): what waits for variables and runs once they are ready, and
// how a unit names itself for "not all statements executed".
#pragma once

#include <cassert>
#include <cstdint>
#include <string>
#include <utility>

#include "compiler/runtime/var_list.h"
#include "compiler/runtime/variable.h"
#include "compiler/source/source.h"

namespace inmanta::compiler::runtime {

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

}  // namespace inmanta::compiler::runtime
