// The engine core: variables, promises, gradual listeners and the freeze algorithm (spec 4.3-4.7).
#include "compiler/runtime/scheduler.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace inmanta::compiler::runtime {
namespace {

struct Recorder : ResultCollector {
  std::vector<Value> got;
  bool receive(const Value& v, SourceLocation) override {
    got.push_back(v);
    return false;
  }
};

struct FakeInstance : InstanceBase {
  std::string display() const override { return "__config__::A (instantiated at ./main.cf:1)"; }
};

TEST(Engine, PlainVariableRunsWaitersWhenSet) {
  Scheduler s;
  Variable* x = s.makePlain();
  std::vector<int> order;
  s.unit({x}, [&] { order.push_back(2); });
  s.unit({}, [&] {
    order.push_back(1);
    x->set(Value(1), {});
  });
  EXPECT_TRUE(s.run(1000).empty());
  EXPECT_EQ(order, (std::vector<int>{1, 2}));
}

TEST(Engine, DirectValueComputesOnceAndDropsItsInputs) {
  Scheduler s;
  Variable* x = s.makePlain();
  int computed = 0;
  auto* twice = static_cast<DirectVariable*>(s.makeDirect({x}, [&, x]() -> Value {
    ++computed;
    return Value(x->get().asInt() * 2);
  }));
  Value seen;
  s.unit({twice}, [&] { seen = twice->get(); });
  EXPECT_EQ(twice->inputs().size(), 1u);
  s.unit({}, [&] { x->set(Value(21), {}); });
  EXPECT_TRUE(s.run(1000).empty());
  EXPECT_EQ(seen.asInt(), 42);
  EXPECT_EQ(twice->get().asInt(), 42);
  EXPECT_EQ(computed, 1);
  EXPECT_TRUE(twice->inputs().empty());  // its state went back to the scheduler
  // one that never ran is destroyed with the scheduler (the sanitizer build checks for leaks)
  Variable* never = s.makePlain();
  (void)s.makeDirect({never}, [never, big = std::string(100, 'x')]() -> Value { return never->get(); });
}

TEST(Engine, EqualSecondValueIsAcceptedDifferentIsDoubleSet) {
  Scheduler s;
  Variable* x = s.makePlain();
  x->set(Value(1), {});
  x->set(Value(1.0), {});
  x->set(Value(true), {});
  try {
    x->set(Value(2), {});
    FAIL();
  } catch (const CompileError& e) {
    EXPECT_EQ(e.diagnostic().kind, ErrorKind::DoubleSetException);
  }
}

// A literal's variable: ready from the start, without a scheduler; a unit reading it runs at
// once, an equal second value is accepted and another is a double set, as for a plain variable
// set once.
TEST(Engine, ConstantVariableIsReadyAndSharedWithoutAScheduler) {
  ConstantVariable constant(Value(std::string("tcp")));
  EXPECT_TRUE(constant.isReady());
  EXPECT_EQ(constant.kind(), Variable::Kind::Plain);
  EXPECT_EQ(constant.get().asString(), "tcp");
  EXPECT_FALSE(constant.setAt().valid());
  for (int round = 0; round < 2; ++round) {  // two compiles reading the same literal
    Scheduler s;
    std::string seen;
    s.unit({&constant}, [&] { seen = constant.get().asString(); });
    EXPECT_TRUE(s.run(100).empty());
    EXPECT_EQ(seen, "tcp");
  }
  constant.set(Value(std::string("tcp")), {});
  EXPECT_THROW(constant.set(Value(std::string("udp")), {}), CompileError);
  EXPECT_EQ(constant.get().asString(), "tcp");
}

// Where the old value was set, in a double set's message: a variable keeps it in its value's
// holder word, packed for most files and lines, and in its scheduler for the others.
TEST(Engine, DoubleSetNamesWhereTheOldValueWasSetForAnyFileAndLine) {
  Scheduler s(MessageContext{[](const SourceLocation& l) {
    return l.valid() ? "f" + std::to_string(l.file) + ":" + std::to_string(l.line) : std::string("nowhere");
  }});
  for (SourceLocation at :
       {SourceLocation{0, 1, 3}, SourceLocation{1021, (1u << 22) - 1, 9}, SourceLocation{1022, 7, 1},
        SourceLocation{40000, 12, 2}, SourceLocation{2, 1u << 22, 5}, SourceLocation{3, 4000000000u, 1}}) {
    for (Variable* x : {s.makePlain(), static_cast<Variable*>(s.makeVariable<OptionVariable>())}) {
      x->set(Value(1), at);
      EXPECT_EQ(x->setAt().file, at.file);
      EXPECT_EQ(x->setAt().line, at.line);
      try {
        x->set(Value(2), SourceLocation{0, 99, 1});
        FAIL();
      } catch (const CompileError& e) {
        EXPECT_NE(e.diagnostic().message.find("(set at f" + std::to_string(at.file) + ":" + std::to_string(at.line) +
                                              ")"),
                  std::string::npos)
            << e.diagnostic().message;
      }
    }
  }
  Variable* frozen = s.makePlain();
  frozen->freeze();  // set from nowhere
  EXPECT_FALSE(frozen->setAt().valid());
}

std::string renderNumber(const void* subject) { return "number " + std::to_string(*static_cast<const int*>(subject)); }
std::string renderTwice(const void* subject) {
  std::string s = static_cast<const char*>(subject);
  return s + s;
}

// A unit's label: a fixed text, or a text rendered from its subject when asked, each subject
// with its own renderer; and its location, kept packed.
TEST(Engine, UnitLabelsRenderTheirSubjectWhenAsked) {
  int seven = 7;
  EXPECT_EQ(UnitLabel().text(), "unit");
  EXPECT_EQ(UnitLabel("if").text(), "if");
  EXPECT_EQ(UnitLabel::rendered<&renderNumber>(&seven).text(), "number 7");
  EXPECT_EQ(UnitLabel::rendered<&renderTwice>("ab").text(), "abab");
  EXPECT_EQ(UnitLabel::rendered<&renderNumber>(&seven).text(), "number 7");
  Scheduler s;
  Variable* x = s.makePlain();
  bool ran = false;
  s.unit(
      {x}, [&ran] { ran = true; }, UnitLabel::rendered<&renderNumber>(&seven), SourceLocation{3, 1234567, 89}, true);
  std::vector<Waiter*> left = s.run(10);
  ASSERT_EQ(left.size(), 1u);
  EXPECT_FALSE(ran);
  EXPECT_EQ(left[0]->describe(), "number 7");
  EXPECT_EQ(left[0]->location().file, 3u);
  EXPECT_EQ(left[0]->location().line, 1234567u);
  EXPECT_EQ(left[0]->location().col, 89u);
  EXPECT_TRUE(left[0]->isExecutionUnit());
}

// A unit's inputs: two inline, more in a block of their own, in order through copies and moves.
TEST(Engine, VarListKeepsItsVariablesInOrderInlineAndOnTheHeap) {
  Scheduler s;
  std::vector<Variable*> made;
  for (int i = 0; i < 9; ++i) made.push_back(s.makePlain());
  for (size_t n = 0; n <= made.size(); ++n) {
    VarList list;
    for (size_t i = 0; i < n; ++i) list.push_back(made[i]);
    EXPECT_EQ(list.size(), n);
    EXPECT_EQ(list.empty(), n == 0);
    VarList copy(list);
    VarList moved(std::move(list));
    EXPECT_TRUE(list.empty());
    for (size_t i = 0; i < n; ++i) {
      EXPECT_EQ(copy[i], made[i]);
      EXPECT_EQ(moved[i], made[i]);
    }
    EXPECT_EQ(std::vector<Variable*>(moved.begin(), moved.end()),
              std::vector<Variable*>(made.begin(), made.begin() + static_cast<long>(n)));
    copy = moved;
    EXPECT_EQ(copy.size(), n);
    moved.release();
    EXPECT_EQ(moved.size(), 0u);
    moved.push_back(made[0]);
    EXPECT_EQ(moved.size(), 1u);
  }
  static_assert(sizeof(VarList) == 16);
}

TEST(Engine, ListRelationIsFrozenAtTheEndForGradualConsumersOnly) {
  Scheduler s;
  FakeInstance a, b, c;
  auto* list = s.makeVariable<ListVariable>();
  Recorder r;
  list->listen(&r, {});
  list->set(Value(static_cast<InstanceBase*>(&b)), {});
  list->set(Value(static_cast<InstanceBase*>(&c)), {});
  list->set(Value(static_cast<InstanceBase*>(&b)), {});  // de-duplicated
  EXPECT_FALSE(list->isReady());
  EXPECT_TRUE(s.run(1000).empty());
  EXPECT_TRUE(list->isReady());  // step 5 froze it
  EXPECT_EQ(r.got.size(), 2u);
  try {
    list->set(Value(static_cast<InstanceBase*>(&a)), {});
    FAIL();
  } catch (const CompileError& e) {
    EXPECT_EQ(e.diagnostic().kind, ErrorKind::ModifiedAfterFreezeException);
  }
}

TEST(Engine, OutstandingPromiseDelaysTheFreeze) {
  Scheduler s;
  FakeInstance b;
  auto* list = s.makeVariable<ListVariable>();
  Promise* p = list->setPromise();
  bool read = false;
  s.unit({list}, [&] {
    read = true;
    EXPECT_EQ(list->get().asList().size(), 1u);
  });
  Variable* trigger = s.makePlain();
  s.unit({trigger}, [&] {
    list->set(Value(static_cast<InstanceBase*>(&b)), {});
    list->fulfill(p);
  });
  s.unit({}, [&] { trigger->set(Value(1), {}); });
  EXPECT_TRUE(s.run(1000).empty());
  EXPECT_TRUE(read);
}

TEST(Engine, UnitsAreReleasedOnceTheyRanAndUnfinishedOnesWithTheScheduler) {
  // what a unit's function holds is freed as soon as the unit has run, not at the end
  auto ranHolder = std::make_shared<int>(1);
  auto waitingHolder = std::make_shared<int>(2);
  {
    Scheduler s;
    auto* x = s.makePlain();
    auto* never = s.makePlain();
    s.unit({x}, [ranHolder] { (void)ranHolder; });
    s.unit(
        {never}, [waitingHolder] { (void)waitingHolder; }, "waits");
    x->set(Value(int64_t{1}), {});
    EXPECT_EQ(ranHolder.use_count(), 2);
    std::vector<Waiter*> left = s.run(1000);
    EXPECT_EQ(ranHolder.use_count(), 1);
    ASSERT_EQ(left.size(), 1u);
    EXPECT_EQ(left[0]->describe(), "waits");
    EXPECT_EQ(waitingHolder.use_count(), 2);
  }
  EXPECT_EQ(waitingHolder.use_count(), 1);
}

TEST(Engine, WaitCycleIsBrokenByFreezingAPromisedRelation) {
  // x = count(list) while an `if` holds a progression promise on list: step 4 freezes it
  Scheduler s;
  auto* list = s.makeVariable<ListVariable>();
  Promise* eager = list->progressionPromise();
  ASSERT_NE(eager, nullptr);
  bool counted = false;
  s.unit({list}, [&] { counted = true; });
  EXPECT_TRUE(s.run(1000).empty());
  EXPECT_TRUE(counted);
  EXPECT_TRUE(list->isReady());
}

TEST(Engine, ListTakesItsBoundsFromItsPolicy) {
  // [1:2]: not complete before one item, frozen by the second, over full at a third
  Scheduler s;
  FakeInstance a, b, c;
  struct Pair : SlotPolicy {
    std::optional<Diagnostic> validate(const Value&) const override { return std::nullopt; }
    std::string_view attributeName() const override { return "pair"; }
  } policy;
  policy.setBounds(1, 2);
  auto* list = s.makeSlot<AttributeSlot<ListVariable>>([&](AttributeSlot<ListVariable>* v) { v->bind(&policy, &a); });
  EXPECT_FALSE(list->canGet());
  list->set(Value(static_cast<InstanceBase*>(&b)), {});
  EXPECT_TRUE(list->canGet());
  EXPECT_FALSE(list->isReady());
  list->set(Value(static_cast<InstanceBase*>(&c)), {});
  EXPECT_TRUE(list->isReady());
  list->set(Value(static_cast<InstanceBase*>(&b)), {});  // already there: nothing to add
  try {
    list->set(Value(static_cast<InstanceBase*>(&a)), {});
    ADD_FAILURE() << "a third item was taken";
  } catch (const CompileError& e) {
    EXPECT_NE(e.diagnostic().message.find("Exceeded relation arity on attribute 'pair'"), std::string::npos)
        << e.diagnostic().message;
  }
  // without a policy a list has no bounds
  auto* free = s.makeVariable<ListVariable>();
  EXPECT_TRUE(free->canGet());
  for (FakeInstance* i : {&a, &b, &c}) free->set(Value(static_cast<InstanceBase*>(i)), {});
  EXPECT_EQ(free->values().size(), 3u);
}

TEST(Engine, InlineSlotFindsItsOwnerAndPolicyInItsBlock) {
  Scheduler s;
  struct Named : SlotPolicy {
    explicit Named(std::string_view n) : name(n) {}
    std::optional<Diagnostic> validate(const Value&) const override { return std::nullopt; }
    std::string_view attributeName() const override { return name; }
    std::string_view name;
  };
  Named first("first"), second("second");
  std::vector<const SlotPolicy*> byWord;  // filled once the block's layout is known
  SlotTable table;
  struct Block : SlotOwner {
    explicit Block(const SlotTable* t) : SlotOwner(t) {}
    std::string display() const override { return "Block"; }
    alignas(8) std::byte plain[Scheduler::slotSize<InlineSlot<Scheduler::PlainSlot>>()];
    alignas(8) std::byte list[Scheduler::slotSize<InlineSlot<ListVariable>>()];
    // (unused: GCC's bounds check cannot see that an inline slot never reads the binding an
    // attribute slot keeps after itself, and warns about the read past the last slot)
    alignas(8) std::byte tail[sizeof(SlotBinding)];
  } block(&table);
  auto word = [&block](const std::byte* slot) {
    return static_cast<size_t>(slot - reinterpret_cast<std::byte*>(&block)) / 8;
  };
  byWord.resize(word(block.tail), nullptr);
  byWord[word(block.plain)] = &first;
  byWord[word(block.list)] = &second;
  table.policiesByWord = byWord.data();
  auto* a = s.placeSlot<InlineSlot<Scheduler::PlainSlot>>(block.plain, [&](auto* v) { v->bind(&block); });
  auto* b = s.placeSlot<InlineSlot<ListVariable>>(block.list, [&](auto* v) { v->bind(&block); });
  EXPECT_EQ(a->owner(), &block);
  EXPECT_EQ(b->owner(), &block);
  EXPECT_EQ(a->attributeName(), "first");
  EXPECT_EQ(b->attributeName(), "second");
  // values coming and going leave the slot's place alone
  a->set(Value(std::string("a long string value, kept on the heap")), {});
  FakeInstance other;
  b->set(Value(static_cast<InstanceBase*>(&other)), {});
  b->freeze();
  EXPECT_EQ(a->attributeName(), "first");
  EXPECT_EQ(b->owner(), &block);
  EXPECT_EQ(b->policy(), &second);
  EXPECT_EQ(str(a->get()), "a long string value, kept on the heap");
  a->~InlineSlot();
  b->~InlineSlot();
}

TEST(Engine, FailingInverseLeavesTheWaitersUnrun) {
  // setting a [1] end sets the other end first; when that fails the compile fails, and the units
  // that waited for this value never run (their list is freed: the sanitizer build checks it)
  Scheduler s;
  FakeInstance a, b;
  struct SingleEnd : Variable {
    explicit SingleEnd(Scheduler* sc) : Variable(Kind::Single, sc) {}
  };
  struct Failing : SlotPolicy {
    std::optional<Diagnostic> validate(const Value&) const override { return std::nullopt; }
    bool hasInverse() const override { return true; }
    void setInverse(const Variable&, const Value&, SourceLocation) const override {
      throw CompileError(Diagnostic(ErrorKind::DoubleSetException, "the other end is taken"));
    }
  } policy;
  auto* end = s.makeSlot<AttributeSlot<SingleEnd>>([&](AttributeSlot<SingleEnd>* v) { v->bind(&policy, &a); });
  int ran = 0;
  for (int i = 0; i < 3; ++i) s.unit({end}, [&] { ++ran; });
  EXPECT_THROW(end->set(Value(static_cast<InstanceBase*>(&b)), {}), CompileError);
  EXPECT_TRUE(end->isReady());
  EXPECT_TRUE(s.run(1000).size() == 3u);
  EXPECT_EQ(ran, 0);
}

TEST(Engine, OptionalFrozenEmptyRaisesOnRead) {
  Scheduler s;
  FakeInstance a;
  struct NamedB : SlotPolicy {
    std::optional<Diagnostic> validate(const Value&) const override { return std::nullopt; }
    std::string_view attributeName() const override { return "b"; }
  } policy;
  auto* opt =
      s.makeSlot<AttributeSlot<OptionVariable>>([&](AttributeSlot<OptionVariable>* v) { v->bind(&policy, &a); });
  opt->entityName = "__config__::A";
  bool failed = false;
  s.unit({opt}, [&] {
    try {
      opt->get();
    } catch (const CompileError& e) {
      failed = e.diagnostic().kind == ErrorKind::OptionalValueException;
    }
  });
  EXPECT_TRUE(s.run(1000).empty());
  EXPECT_TRUE(failed);
}

TEST(Engine, UnitsWaitingForeverAreReported) {
  Scheduler s;
  Variable* x = s.makePlain();
  Variable* y = s.makePlain();
  s.unit(
      {y}, [&] { x->set(y->get(), {}); }, "x = y");
  s.unit(
      {x}, [&] { y->set(x->get(), {}); }, "y = x");
  auto left = s.run(1000);
  ASSERT_EQ(left.size(), 2u);
  EXPECT_EQ(left[0]->describe(), "x = y");
}

TEST(Engine, UnsetReadRequeuesTheUnit) {
  Scheduler s;
  Variable* x = s.makePlain();
  int runs = 0;
  s.unit({}, [&] {
    ++runs;
    (void)x->get();  // suspends until x is set
  });
  s.unit({}, [&] { x->set(Value(3), {}); });
  EXPECT_TRUE(s.run(1000).empty());
  EXPECT_EQ(runs, 2);
}

TEST(Engine, RunAgainWhenTakesTheTurnOfANewUnit) {
  // a unit that asks to run again once `x` is set runs then as a unit made at that moment would:
  // after the units queued before it, and listed after the units made before it
  Scheduler s;
  Variable* x = s.makePlain();
  std::vector<std::string> order;
  int phase = 0;
  s.unit(
      {},
      [&] {
        order.push_back("first " + std::to_string(phase));
        if (phase++ == 0) return s.runAgainWhen(x);
      },
      "twice");
  s.unit({}, [&] {
    order.push_back("set x");
    x->set(Value(1), {});
  });
  s.unit({}, [&] { order.push_back("third"); });
  EXPECT_TRUE(s.run(1000).empty());
  EXPECT_EQ(order, (std::vector<std::string>{"first 0", "set x", "third", "first 1"}));

  // one that waits forever is reported after the units that waited before it asked
  Scheduler t;
  Variable* y = t.makePlain();
  Variable* never = t.makePlain();
  t.unit(
      {y}, [] {}, "waits for y");
  t.unit(
      {}, [&] { t.runAgainWhen(never); }, "asked again");
  auto left = t.run(1000);
  ASSERT_EQ(left.size(), 2u);
  EXPECT_EQ(left[0]->describe(), "waits for y");
  EXPECT_EQ(left[1]->describe(), "asked again");
}

TEST(Engine, CollectorFreezesWhenAllProducersAreDone) {
  Scheduler s;
  auto* col = s.makeVariable<CollectorVariable>();
  Promise* p1 = col->setPromise();
  Promise* p2 = col->setPromise();
  col->set(Value(1), {});
  col->fulfill(p1);
  EXPECT_FALSE(col->isReady());
  col->set(Value(ValueList{Value(2), Value(3)}), {});
  col->fulfill(p2);
  EXPECT_TRUE(col->isReady());
  EXPECT_EQ(str(col->get()), "[1, 2, 3]");
}

TEST(Engine, IterationLimit) {
  Scheduler s;
  Variable* x = s.makePlain();
  std::function<void()> again;
  // a unit that keeps creating units: the limit stops it
  int created = 0;
  again = [&] {
    if (++created < 1000) {
      auto* v = s.makePlain();
      s.unit({v}, again);
      auto* list = s.makeVariable<ListVariable>();
      s.unit({list}, [v] { v->set(Value(1), {}); });
    }
  };
  s.unit({}, again);
  (void)x;
  EXPECT_THROW(s.run(50), CompileError);
}

}  // namespace
}  // namespace inmanta::compiler::runtime
