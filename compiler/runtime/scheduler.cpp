#include "compiler/runtime/scheduler.h"

#include <algorithm>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <vector>

namespace inmanta::compiler::runtime {

namespace {
[[noreturn]] void fail(ErrorKind kind, std::string message, SourceLocation location = {}) {
  throw CompileError(Diagnostic(kind, std::move(message), location, false));
}
}  // namespace

bool ResultCollector::receiveFlatten(const Value& value, SourceLocation location) {
  if (value.isList()) {
    for (const Value& v : value.asList())
      if (receive(v, location)) return true;
    return false;
  }
  return receive(value, location);
}

// ------------------------------------------------------------------ Variable

namespace {
thread_local Scheduler* activeScheduler = nullptr;
}  // namespace

void SlotPolicy::setBounds(int64_t lower, std::optional<int64_t> upper) {
  constexpr int64_t kMost = std::numeric_limits<int32_t>::max();
  lowerBound = static_cast<int32_t>(std::clamp<int64_t>(lower, 0, kMost));
  upperBound = upper ? static_cast<int32_t>(std::clamp<int64_t>(*upper, 0, kMost)) : -1;
}

size_t Variable::waitingProviders() const { return tracksPromises() ? promised() : 0; }

const Value& Variable::plainGet() const {
  if (!hasValue()) throw UnsetSignal{const_cast<Variable*>(this)};
  return value_;
}

const Value& Variable::current() const {
  // (until the value is there, a null value's payload is the waiters' word: never let out)
  static const Value none;
  return hasValue() || kind() == Kind::List ? value_ : none;
}

void Variable::waitFor(Waiter* waiter) {
  assert((kind() != Kind::Direct || hasValue()) && "units wait for the inputs of a direct value not computed yet");
  if (hasValue()) waiter->ready();
  else pushWaiter(waiter);
}

SourceLocation Variable::setAt() const {
  if (!hasValue()) return {};
  uint32_t word = value_.holderWord();
  if (word == 0) return {};
  if (word == kFarLocation) {
    Scheduler* s = Scheduler::active();
    if (s == nullptr) return {};
    auto it = s->farLocations_.find(this);
    return it != s->farLocations_.end() ? it->second : SourceLocation{};
  }
  return SourceLocation{(word & 0x3FF) - 1, word >> 10, 0};
}

uint32_t Variable::rememberFarLocation(SourceLocation at) const {
  Scheduler* s = Scheduler::active();
  if (s == nullptr) return 0;
  s->farLocations_[this] = SourceLocation{at.file, at.line, 0};
  return kFarLocation;
}

void Variable::wake(Waiters& woken) {
  woken.drain([](Waiter* w) { w->ready(); });
}

void Variable::validate(const Value& value) {
  if (value.isUnknown()) return;
  const SlotPolicy* p = policy();
  if (p == nullptr) return;
  if (auto error = p->validate(value)) throw CompileError(std::move(*error));
}

void Variable::doubleSet(const Value& value, SourceLocation location) const {
  const MessageContext* messages = Scheduler::activeMessages();
  const auto* where = messages != nullptr && messages->location ? &messages->location : nullptr;
  // (an instance's own `self` binding was set at no location: the reference prints None)
  std::string oldAt = !setAt().valid() ? std::string("None") : where ? (*where)(setAt()) : std::string();
  std::string newAt = where ? (*where)(location) : std::string();
  fail(ErrorKind::DoubleSetException,
       "value set twice:\nold value: " + str(value_) + " (set at " + oldAt + ")\nnew value: " + str(value) +
           " (set at " + newAt + ")",
       location);
}

void Variable::plainSet(const Value& value, SourceLocation location, bool recur) {
  if (hasValue()) {
    // (two unknowns are the same value only when they are the same unknown)
    bool same = value.isUnknown() || value_.isUnknown() ? value.unknownId() == value_.unknownId()
                                                        : pyEquals(value_, value);
    if (!same) doubleSet(value, location);
    return;
  }
  validate(value);
  Waiters woken = takeWaiters();  // (first: the value is written over their word)
  value_ = value;
  settle(woken, location, [&] {
    if (kind() == Kind::Single && recur && value.isInstance()) setInverse(value, location);
  });
}

void Variable::plainFreeze() {
  if (hasValue()) return;
  freezeAt({});
}

void Variable::freezeAt(SourceLocation location, Waiters woken) {
  // promises stay alive: units still hold them and fulfil them later (a no-op now); the count
  // ends with the value's arrival, whose location takes its place
  setFlag(kQueued, true);
  settle(woken, location, [] {});
}

Promise* Variable::setPromise() {
  // only freezable variables take promises; one that no longer tracks them (frozen) gets one
  // that is already kept: it is fulfilled by setting the value
  if (!delayed()) return nullptr;
  if (!tracksPromises()) return Scheduler::active()->makePromise(this, true);
  setPromised(promised() + 1);
  return Scheduler::active()->makePromise(this, false);
}

Promise* Variable::progressionPromise() {
  if (!tracksPromises()) return nullptr;
  setPromised(promised() + 1);
  return Scheduler::active()->makePromise(this, false);
}

void Variable::fulfill(Promise* promise) {
  if (promise == nullptr || promise->done) return;
  promise->done = true;
  if (!tracksPromises()) return;
  setPromised(promised() - 1);
  if (canGet()) queue();
  if (kind() == Kind::Collector) static_cast<CollectorVariable*>(this)->fulfilled();
}

void Variable::queue() {
  if (queued() || !delayed()) return;
  setFlag(kQueued, true);
  Scheduler::active()->addPossible(this);
}

// ------------------------------------------------------------------ OptionVariable

OptionVariable::OptionVariable(Scheduler* scheduler) : DelayedVariable(Kind::Option, scheduler) {}

const Value& OptionVariable::get() const {
  const Value& v = plainGet();
  if (v.isNull())
    fail(ErrorKind::OptionalValueException, "Optional variable accessed that has no value (attribute `" +
                                                std::string(entityName) + "." + std::string(attributeName()) +
                                                "` of `" + ownerText() + "`)");
  return v;
}

void OptionVariable::set(const Value& value, SourceLocation location, bool recur) {
  if (hasValue()) {
    if (value_.isNull()) {
      if (value.isNull()) return;
      fail(ErrorKind::ModifiedAfterFreezeException, "List modified after freeze", location);
    }
    if (value.isInstance() && value_.isInstance() && value.asInstance() == value_.asInstance()) return;
    if (value.isUnknown() && value_.isUnknown()) return;
    doubleSet(value, location);
  }
  if (!value.isNull()) validate(value);
  if (value.isInstance() && recur) setInverse(value, location);
  Waiters woken = takeWaiters();  // (first: the value is written over their word)
  value_ = value;
  freezeAt(location, woken);
}

// ------------------------------------------------------------------ ListVariable

namespace {
// One shared empty list: most relation ends stay empty.
const Value& emptyList() {
  static const Value empty{ValueList{}};
  return empty;
}
}  // namespace

ListVariable::ListVariable(Scheduler* scheduler) : DelayedVariable(Kind::List, scheduler) { value_ = emptyList(); }

ListExtra& ListVariable::extra() {
  if (ListExtra* known = extraOrNull()) return *known;
  auto& slot = Scheduler::active()->listExtras_[this];
  slot = std::make_unique<ListExtra>();  // (replaces one of a list destroyed at this address)
  setFlag(kHasExtra, true);
  return *slot;
}

ListExtra* ListVariable::extraOrNull() const {
  return flag(kHasExtra) ? Scheduler::active()->listExtras_.at(this).get() : nullptr;
}

bool ListVariable::canGet() const { return static_cast<int64_t>(values().size()) >= low() && waitingProviders() == 0; }

int ListVariable::progressPotential() const {
  if (hasValue()) return 0;
  const ListExtra* extra = extraOrNull();
  return static_cast<int>(waiterCount()) - (extra != nullptr ? extra->gradualWaiters : 0);
}

bool ListVariable::listen(ResultCollector* collector, SourceLocation location) {
  for (const Value& v : std::vector<Value>(values())) collector->receive(v, location);
  if (!hasValue()) {
    ListExtra& more = extra();
    if (std::find(more.listeners.begin(), more.listeners.end(), collector) != more.listeners.end()) {
      ++more.gradualWaiters;
      return true;
    }
    more.listeners.push_back(collector);
    if (collector->pureGradual()) ++more.gradualWaiters;
  }
  return true;
}

void ListVariable::freeze() {
  if (hasValue()) return;
  plainFreeze();
  if (ListExtra* extra = extraOrNull()) extra->listeners = {};
}

bool ListVariable::contains(const Value& value) const {
  // de-duplication is by identity: only instances can be present already
  if (!value.isInstance()) return false;
  if (const ListExtra* extra = extraOrNull(); extra != nullptr && !extra->members.empty())
    return extra->members.count(value.asInstance()) > 0;
  for (const Value& v : values())
    if (v.isInstance() && v.asInstance() == value.asInstance()) return true;
  return false;
}

// Returns true when the value was new and appended.
bool ListVariable::addOne(const Value& value, SourceLocation location, bool recur) {
  if (hasValue()) {
    if (contains(value)) return false;
    if (high() >= 0 && static_cast<int64_t>(values().size()) == high())
      fail(ErrorKind::RuntimeException,
           "Exceeded relation arity on attribute '" + std::string(attributeName()) + "' of instance '" + ownerText() +
               "'",
           location);
    fail(ErrorKind::ModifiedAfterFreezeException, "List modified after freeze", location);
  }
  validate(value);
  if (contains(value)) {
    if (canGet()) queue();
    return false;
  }
  ValueList& items = value_.mutableList();
  items.push_back(value);
  if (items.size() == kIndexFrom) {
    for (const Value& v : items)
      if (v.isInstance()) extra().members.insert(v.asInstance());
  } else if (items.size() > kIndexFrom && value.isInstance()) {
    extra().members.insert(value.asInstance());
  }
  if (ListExtra* more = extraOrNull())  // (its address is stable: the scheduler holds it by pointer)
    for (size_t i = 0; i < more->listeners.size();) {
      ResultCollector* l = more->listeners[i];
      if (l->receive(value, location)) {
        if (!l->pureGradual()) ++more->gradualWaiters;
        more->listeners.erase(more->listeners.begin() + static_cast<long>(i));
      } else {
        ++i;
      }
    }
  if (recur && value.isInstance()) setInverse(value, location);
  if (int32_t most = high(); most >= 0) {
    if (static_cast<int64_t>(values().size()) > most)
      fail(ErrorKind::RuntimeException, "List over full: max nr of items is " + std::to_string(most), location);
    if (static_cast<int64_t>(values().size()) == most) freeze();
  }
  if (canGet()) queue();
  return true;
}

void ListVariable::set(const Value& value, SourceLocation location, bool recur) {
  if (value.isNull()) {
    if (!values().empty()) {
      std::string text;
      for (const Value& v : values()) text += (text.empty() ? "" : ", ") + str(v);
      fail(ErrorKind::RuntimeException,
           "Trying to set relation attribute `" + std::string(attributeName()) + "` of instance `" + ownerText() +
               "` to null but it has values `" + text + "` assigned already",
           location);
    }
    freeze();
    return;
  }
  if (value.isList()) {
    if (value.asList().empty()) {
      if (!hasValue() && canGet()) queue();
      return;
    }
    for (const Value& v : value.asList()) set(v, location, recur);
    return;
  }
  addOne(value, location, recur);
}

// ------------------------------------------------------------------ CollectorVariable

CollectorVariable::CollectorVariable(Scheduler* scheduler) : DelayedVariable(Kind::Collector, scheduler) {}

void CollectorVariable::set(const Value& value, SourceLocation, bool) {
  if (value.isList())
    for (const Value& v : value.asList()) items_.push_back(v);
  else items_.push_back(value);
}

void CollectorVariable::fulfilled() {
  if (!hasValue() && waitingProviders() == 0) {
    Waiters woken = takeWaiters();  // (first: the value is written over their word)
    value_ = Value(ValueList(items_));
    freezeAt({}, woken);
  }
}

// ------------------------------------------------------------------ units

const VarList DirectVariable::kNoInputs;

const Value& DirectVariable::get() const {
  if (!hasValue()) {
    auto* self = const_cast<DirectVariable*>(this);
    DirectState* state = self->state();
    Value computed = state->compute(state);
    self->setState(nullptr);  // (nobody waits on it: its word is the value's now)
    self->value_ = std::move(computed);
    self->settle(Waiters(), {}, [] {});
    // what it captured and read is no longer needed
    state->finish(state);
  }
  return value_;
}

bool readyToRead(const Variable* v) {
  if (v->isReady()) return true;
  if (v->kind() != Variable::Kind::Direct) return false;
  for (const Variable* in : static_cast<const DirectVariable*>(v)->inputs())
    if (!readyToRead(in)) return false;
  return true;
}

void Waiter::leaves(Variable* v, VarList& out) {
  if (v->kind() == Variable::Kind::Direct && !v->isReady()) {
    for (Variable* in : static_cast<DirectVariable*>(v)->inputs()) leaves(in, out);
    return;
  }
  out.push_back(v);
}

void Waiter::waitFor(Variable* variable) {
  VarList wanted;
  leaves(variable, wanted);
  for (Variable* v : wanted) {
    inputs_.push_back(v);
    ++waitCount_;
    v->waitFor(this);
  }
}

void Waiter::waitForInputs() {
  bool direct = false;
  for (Variable* v : inputs_) direct = direct || v->kind() == Variable::Kind::Direct;
  if (direct) {
    VarList wanted;
    for (Variable* v : inputs_) leaves(v, wanted);
    inputs_ = std::move(wanted);
  }
  for (Variable* v : inputs_) {
    ++waitCount_;
    v->waitFor(this);
  }
}

void Waiter::ready() {
  --waitCount_;
  if (waitCount_ == 0) Scheduler::active()->addRunning(this);
}

namespace {
// The functions labels render with, by their number - 1 (UnitLabel::renderNumber): a handful.
struct LabelRenders {
  std::mutex mutex;
  std::vector<UnitLabel::Render> renders;
};
LabelRenders& labelRenders() {
  static LabelRenders* renders = new LabelRenders();  // (never destroyed: labels may outlive statics)
  return *renders;
}
}  // namespace

uintptr_t UnitLabel::renderNumber(Render render) {
  LabelRenders& all = labelRenders();
  std::lock_guard<std::mutex> lock(all.mutex);
  auto it = std::find(all.renders.begin(), all.renders.end(), render);
  if (it == all.renders.end()) it = all.renders.insert(all.renders.end(), render);
  auto number = static_cast<uintptr_t>(it - all.renders.begin()) + 1;
  if (number >= (uintptr_t(1) << (64 - kAddressBits)))
    throw std::logic_error("internal error: too many unit label renderers");
  return number;
}

std::string UnitLabel::text() const {
  uintptr_t number = bits_ >> kAddressBits;
  const void* address = reinterpret_cast<const void*>(bits_ & ((uintptr_t(1) << kAddressBits) - 1));
  if (number == 0) return address != nullptr ? static_cast<const char*>(address) : "unit";
  Render render = nullptr;
  {
    LabelRenders& all = labelRenders();
    std::lock_guard<std::mutex> lock(all.mutex);
    render = all.renders.at(number - 1);
  }
  return render(address);
}

// ------------------------------------------------------------------ Scheduler

Scheduler::Scheduler(MessageContext messages) : messages_(std::move(messages)), previous_(activeScheduler) {
  activeScheduler = this;
}

Scheduler::~Scheduler() {
  // the units that never ran (the others were deleted when they finished): the unlisted ones in
  // the run queue first (a listed one there is deleted with the list)
  for (Waiter* w : runQueue_)
    if (!w->listed()) delete w;
  for (Waiter* w : live_) delete w;
  // the variables, in the order they were made
  if (!chunks_.empty()) chunks_.back().used = chunkNext_;
  for (Chunk& chunk : chunks_)
    for (std::byte* at = static_cast<std::byte*>(chunk.block.memory); at < chunk.used;) {
      auto* v = reinterpret_cast<Variable*>(at);
      at += arenaSize(v->footprint());
      v->destroy();
    }
  for (const Chunk& chunk : chunks_) chunk.block.release();
  if (activeScheduler == this) activeScheduler = previous_;
}

const MessageContext* Scheduler::activeMessages() {
  return activeScheduler != nullptr ? &activeScheduler->messages_ : nullptr;
}

Scheduler* Scheduler::active() { return activeScheduler; }

void* Scheduler::allocate(size_t size) {
  size = arenaSize(size);
  if (chunkNext_ == nullptr || static_cast<size_t>(chunkEnd_ - chunkNext_) < size) {
    constexpr size_t kChunk = 64 * 1024;
    if (!chunks_.empty()) chunks_.back().used = chunkNext_;
    ArenaBlock block = ArenaBlock::take(chunks_.size(), size, kChunk);
    chunks_.push_back(Chunk{block, nullptr});
    chunkNext_ = static_cast<std::byte*>(block.memory);
    chunkEnd_ = chunkNext_ + block.bytes;
  }
  void* at = chunkNext_;
  chunkNext_ += size;
  return at;
}

Variable* Scheduler::makeWrapped(const Value& value) {
  Variable* v = makePlain();
  v->set(value, {});
  return v;
}

void Scheduler::registerWaiter(Waiter* waiter) {
  waiter->live_ = static_cast<uint32_t>(live_.size());
  live_.push_back(waiter);
  ++liveCount_;
}

void Scheduler::dropFailed(Waiter* waiter) {
  if (!waiter->listed()) delete waiter;
}

void Scheduler::finished(Waiter* waiter) {
  if (!waiter->listed()) return;
  live_[waiter->live_] = nullptr;
  --liveCount_;
  if (live_.size() >= 4096 && liveCount_ * 2 < live_.size()) {
    // close up the holes, keeping the creation order
    size_t next = 0;
    for (Waiter* w : live_) {
      if (w == nullptr) continue;
      w->live_ = static_cast<uint32_t>(next);
      live_[next++] = w;
    }
    live_.resize(next);
  }
}

void Scheduler::resubmit(Waiter* unit, Variable* v) {
  finished(unit);
  unit->live_ = Waiter::kUnlisted;
  unit->rearm(v);
  submit(unit);
}

void Scheduler::addPossible(Variable* variable) {
  if (int rank = rankOf(variable); rank >= 0) {
    if (rankedCandidates_.size() <= static_cast<size_t>(rank)) rankedCandidates_.resize(static_cast<size_t>(rank) + 1);
    rankedCandidates_[static_cast<size_t>(rank)].push_back(variable);
    ++rankedCount_;
  } else if (variable->isRelation()) {
    candidates_.push_back(variable);
  } else {
    otherCandidates_.push_back(variable);
  }
}

bool Scheduler::hasCandidates() const { return !candidates_.empty() || rankedCount_ > 0 || !otherCandidates_.empty(); }

Variable* Scheduler::popCandidate() {
  auto take = [](std::deque<Variable*>& q) {
    Variable* v = q.front();
    q.pop_front();
    // most candidates are looked at and passed over, each in a few instructions: the variables a
    // few places ahead are fetched early (one place ahead is not enough time to fetch one)
    if (q.size() > kCandidatesAhead) __builtin_prefetch(q[kCandidatesAhead]);
    else if (!q.empty()) __builtin_prefetch(q.front());
    return v;
  };
  if (!candidates_.empty()) return take(candidates_);
  if (rankedCount_ > 0)
    for (std::deque<Variable*>& q : rankedCandidates_)
      if (!q.empty()) {
        --rankedCount_;
        return take(q);
      }
  return take(otherCandidates_);
}

bool Scheduler::breakWaitCycle() {
  // step 4 of spec 4.7: a variable some unit waits on, with outstanding promises and potential,
  // chosen in the freeze queue's order (a relation the precedence policy names yields to the
  // others and to the ones it names earlier)
  auto priority = [](const Variable* v) {
    if (!v->isRelation()) return std::numeric_limits<int>::max();
    return rankOf(v) + 1;  // 0: not named by the policy
  };
  Variable* best = nullptr;
  for (Waiter* w : live_) {
    if (w == nullptr) continue;
    for (Variable* v : w->inputs()) {
      if (!v->delayed() || v->isReady() || v->waitingProviders() == 0 || v->progressPotential() <= 0) continue;
      if (best == nullptr || priority(v) < priority(best)) best = v;
    }
    if (best != nullptr && priority(best) == 0) break;
  }
  if (best == nullptr) return false;
  best->freeze();
  return true;
}

std::vector<Waiter*> Scheduler::run(size_t maxIterations) {
  iterations_ = 0;
  while (iterations_ < maxIterations) {
    if (runQueue_.empty() && !hasCandidates() && zeroWaiters_.empty()) break;
    ++iterations_;
    // 1. run everything runnable
    while (!runQueue_.empty()) {
      Waiter* next = runQueue_.front();
      runQueue_.pop_front();
      // the units queued after it are most often far from it and from each other in memory, and
      // one runs in less time than a fetch takes: the first two lines (the waiter, then what its
      // function holds) of the unit kUnitsAhead places on are fetched now, and once that unit is
      // kInputsAhead places on, the variables it read (read first when it runs)
      if (!runQueue_.empty()) {
        const auto* ahead =
            reinterpret_cast<const char*>(runQueue_.size() > kUnitsAhead ? runQueue_[kUnitsAhead] : runQueue_.front());
        __builtin_prefetch(ahead);
        __builtin_prefetch(ahead + 64);
        if (runQueue_.size() > kInputsAhead) runQueue_[kInputsAhead]->inputs().prefetch();
      }
      try {
        next->execute();
        if (Variable* v = std::exchange(rerunOn_, nullptr)) {
          resubmit(next, v);
          continue;
        }
        finished(next);
        delete next;
      } catch (const UnsetSignal& unset) {
        rerunOn_ = nullptr;
        if (!next->listed()) registerWaiter(next);
        next->waitFor(unset.variable);  // runs again once that value is there
      } catch (CompileError& e) {
        rerunOn_ = nullptr;
        // reading an empty optional relation is reported at the reading statement (spec 5.8)
        Diagnostic& d = e.diagnostic();
        if (!d.location.valid() && d.kind == ErrorKind::OptionalValueException) d.location = next->location();
        dropFailed(next);
        throw;
      } catch (...) {
        rerunOn_ = nullptr;
        dropFailed(next);
        throw;
      }
    }
    // 2. freeze the first possibly complete variable somebody waits for
    bool progress = false;
    while (hasCandidates() && !progress) {
      Variable* v = popCandidate();
      if (v->isReady()) continue;
      if (v->progressPotential() <= 0) {
        zeroWaiters_.push_back(v);
      } else if (v->waitingProviders() > 0) {
        v->unqueue();
      } else {
        v->freeze();
        progress = true;
      }
    }
    // 3. reconsider the ones nobody waited for
    if (!progress) {
      std::deque<Variable*> remaining;
      for (size_t i = 0; i < zeroWaiters_.size(); ++i) {
        Variable* v = zeroWaiters_[i];
        if (i + kCandidatesAhead < zeroWaiters_.size()) __builtin_prefetch(zeroWaiters_[i + kCandidatesAhead]);
        if (v->isReady()) continue;
        if (v->progressPotential() > 0) addPossible(v);
        else remaining.push_back(v);
      }
      zeroWaiters_ = std::move(remaining);
      while (hasCandidates() && !progress) {
        Variable* v = popCandidate();
        if (v->waitingProviders() > 0) {
          v->unqueue();
        } else {
          v->freeze();
          progress = true;
        }
      }
    }
    // 4. break a wait cycle
    if (!progress) progress = breakWaitCycle();
    // 5. freeze what nobody waits for, from the back
    if (!progress) {
      while (!zeroWaiters_.empty()) {
        Variable* v = zeroWaiters_.back();
        zeroWaiters_.pop_back();
        if (!zeroWaiters_.empty()) __builtin_prefetch(zeroWaiters_.back());
        v->freeze();
      }
    }
  }
  if (iterations_ >= maxIterations)
    throw CompileError(Diagnostic(ErrorKind::CompilerException, "Could not complete model, max_iterations " +
                                                                    std::to_string(maxIterations) + " reached."));
  std::vector<Waiter*> waiting;
  for (Waiter* w : live_)
    if (w != nullptr) waiting.push_back(w);
  return waiting;
}

}  // namespace inmanta::compiler::runtime
