#include "compiler/exec/evaluator_impl.h"

#include <set>

#include "compiler/exec/operators.h"

namespace inmanta::compiler::exec {

namespace {
// `a` or `a.b.c` for a variable or attribute reference chain, else empty.
std::string referenceText(const ast::Expr* e) {
  if (e->kind == ast::Kind::VarRef) return std::string(static_cast<const ast::VarRef*>(e)->name().text());
  if (e->kind != ast::Kind::AttrRef) return {};
  auto* ref = static_cast<const ast::AttrRef*>(e);
  std::string object = referenceText(ref->object);
  return object.empty() ? std::string() : object + "." + std::string(ref->attribute.text());
}
}  // namespace

// A consumer of gradual execution: takes values one by one (feedGradual). It counts the feeds it
// still waits for (one to start with: its creator's, while it sets the feeds up); when none is
// left it is complete, does what completes it and is deleted. Its units are named by its label and
// location. The evaluator keeps the list of those alive, to delete them when a compile fails.
class Evaluator::GradualSink : public runtime::ResultCollector {
 public:
  GradualSink(Evaluator& evaluator, runtime::UnitLabel label, SourceLocation at, bool executionUnit)
      : evaluator_(evaluator), label_(label), where_(packLocation(at) | (executionUnit ? kExecutionUnit : 0)) {
    next_ = evaluator.liveSinks_;
    if (next_ != nullptr) next_->prev_ = this;
    evaluator.liveSinks_ = this;
  }
  ~GradualSink() override {
    (prev_ != nullptr ? prev_->next_ : evaluator_.liveSinks_) = next_;
    if (next_ != nullptr) next_->prev_ = prev_;
  }
  // `whole`: the entire value of the fed expression, not one element of a list it builds
  virtual void take(const Value& value, bool whole) = 0;
  // The value of an expression computed in `v`, read here: a failure to compute it is the
  // consumer's (an assignment's).
  virtual void takeFrom(Variable* v, bool whole) { take(v->get(), whole); }
  // a value of a list variable or relation it listens to (its listeners are dropped when it
  // freezes, before the feed that listens closes)
  bool receive(const Value& value, SourceLocation) override {
    take(value, false);
    return false;
  }
  void open() { ++pending_; }
  void close() {
    if (--pending_ > 0) return;
    std::unique_ptr<GradualSink> self(this);
    complete();
  }
  runtime::UnitLabel label() const { return label_; }
  SourceLocation at() const { return unpackLocation(where_ & ~kExecutionUnit); }
  bool executionUnit() const { return (where_ & kExecutionUnit) != 0; }
  // The unit that takes set plain variables fed as elements, while it may take more.
  class Batch;
  Batch* batch = nullptr;
  uint64_t batchMark = 0;  // the scheduler's queueChanges() when it was queued

 protected:
  virtual void complete() = 0;
  Evaluator& evaluator_;

 private:
  static constexpr uint64_t kExecutionUnit = uint64_t(1) << 63;
  runtime::UnitLabel label_;
  uint64_t where_;
  GradualSink* prev_ = nullptr;
  GradualSink* next_ = nullptr;
  uint32_t pending_ = 1;
};

// Takes the values of consecutive elements fed to a sink whose variables were set when they were
// fed (a list literal's references to set variables, say): one unit where each would have had one,
// queued where the first would be, that only takes more while nothing else was queued, so the
// values are taken in the same order at the same point (as AssignmentBatch).
class Evaluator::GradualSink::Batch final : public runtime::Waiter {
 public:
  Batch(runtime::Scheduler& scheduler, GradualSink* sink) : Waiter(scheduler), sink_(sink) {}
  void add(Variable* v) { values_.push_back(v); }
  void execute() override {
    if (sink_->batch == this) sink_->batch = nullptr;
    for (Variable* v : values_) {
      sink_->takeFrom(v, false);
      sink_->close();
    }
  }
  std::string describe() const override { return sink_->label().text(); }
  SourceLocation location() const override { return sink_->at(); }
  bool isExecutionUnit() const override { return sink_->executionUnit(); }

 private:
  GradualSink* sink_;
  runtime::VarList values_;
};

// Adds each value to a list relation, reporting errors as the assignment's; complete, it keeps the
// assignment's promise on the relation.
class Evaluator::RelationSink final : public GradualSink {
 public:
  RelationSink(Evaluator& evaluator, runtime::Instance* target, const model::Attribute* attr, runtime::Promise* promise,
               SourceLocation at)
      : GradualSink(evaluator, "relation assignment", at, true), target_(target), attr_(attr), promise_(promise) {}
  void take(const Value& value, bool) override { setAttribute(target_, attr_, value, at(), true); }
  void takeFrom(Variable* v, bool) override { setAttribute(target_, attr_, v, at()); }

 private:
  void complete() override { target_->slot(attr_)->fulfill(promise_); }
  runtime::Instance* target_;
  const model::Attribute* attr_;
  runtime::Promise* promise_;
};

// Runs a `for` loop's body for each known value (as the reference's GradualFor): unknown values
// are skipped, and a whole value that is not a list is refused. Complete, the loop commits.
class Evaluator::ForSink final : public GradualSink {
 public:
  ForSink(Evaluator& evaluator, const ast::For* f, Scope* scope, std::function<void()> commit)
      : GradualSink(evaluator, "for", f->loc(), false), for_(f), scope_(scope), commit_(std::move(commit)) {}
  void take(const Value& value, bool whole) override {
    if (value.isList()) {
      for (const Value& element : value.asList()) each(element);
      return;
    }
    if (whole && !value.isUnknown()) {
      // as the reference: a reference is named with what it resolves to
      std::string hint = referenceText(for_->iterable);
      hint = hint.empty() ? "'" + runtime::str(value) + "' is not a list."
                          : "'" + hint + "' resolves to '" + runtime::str(value) + "'.";
      fail(ErrorKind::TypingException, "A for loop can only be applied to lists and relations. Hint: " + hint,
           for_->loc());
    }
    each(value);
  }

 private:
  void complete() override { commit_(); }
  void each(const Value& value) {
    if (value.isUnknown()) return;
    Scope* inner = evaluator_.loopScope(scope_, for_->variable, value, for_->loc());
    evaluator_.declare(for_->body, inner);
    evaluator_.emitBlock(for_->body, inner, false);
  }
  const ast::For* for_;
  Scope* scope_;
  std::function<void()> commit_;
};

// A list comprehension fed gradually (as the reference's ListComprehensionCollector): each element
// of its iterable, as it arrives, gets a scope with the loop variable; once its guard holds, its
// value expression is fed on to the consumer (`out`, which waits for those feeds itself). Complete
// when its iterable is fed and every guard is known. An unknown element, or an unknown guard, gives
// an unknown.
class Evaluator::ComprehensionSink final : public GradualSink {
 public:
  ComprehensionSink(Evaluator& evaluator, const ast::ListComp* c, Scope* scope, GradualSink* out, const Lhs* lhs)
      : GradualSink(evaluator, "list comprehension", c->loc(), true),
        comp_(c),
        scope_(scope),
        out_(out),
        lhs_(lhs ? std::optional<Lhs>(*lhs) : std::nullopt) {
    out_->open();
  }
  void take(const Value& value, bool whole) override {
    if (value.isList()) {
      for (const Value& element : value.asList()) each(element);
      return;
    }
    if (whole && !value.isUnknown())
      fail(ErrorKind::TypingException,
           "A list comprehension can only be applied to lists and relations, got " + runtime::pythonTypeName(value),
           comp_->loc());
    each(value);
  }

 private:
  void complete() override { out_->close(); }
  void each(const Value& value) {
    Scope* inner = evaluator_.loopScope(scope_, comp_->variable, value, comp_->loc());
    if (comp_->guard == nullptr) return result(value, inner);
    Variable* guard = evaluator_.emit(comp_->guard, inner);
    open();
    evaluator_.scheduler_.unit(
        {guard},
        [this, guard, value, inner] {
          Value g = guard->get();
          if (g.isUnknown()) out_->take(Value::unknown(), false);
          else if (conditionHolds(g, comp_->loc())) result(value, inner);
          close();
        },
        label(), comp_->loc(), true);
  }
  void result(const Value& value, Scope* inner) {
    if (value.isUnknown()) return out_->take(Value::unknown(), false);
    evaluator_.feedGradual(comp_->value, inner, out_, lhs_ ? &*lhs_ : nullptr, false);
  }
  const ast::ListComp* comp_;
  Scope* scope_;
  GradualSink* out_;
  std::optional<Lhs> lhs_;
};

// ------------------------------------------------------------------ gradual execution (4.5, 4.6)

void Evaluator::emitFor(const ast::For* f, Scope* scope) {
  auto commit = eagerPromises(f->body, {std::string(f->variable.text())}, scope);
  // the values of the iterable each as it is known (a purely gradual consumer, 4.5)
  auto* sink = new ForSink(*this, f, scope, std::move(commit));
  feedGradual(f->iterable, scope, sink, nullptr, true);
  sink->close();
}

// (the sinks of a failed compile that were still waiting)
void Evaluator::deleteLiveSinks() {
  while (liveSinks_ != nullptr) delete liveSinks_;
}

Scope* Evaluator::loopScope(Scope* outer, const ast::Name& variable, const Value& value, SourceLocation at) {
  Scope* inner = &scopes_.emplace_back(outer, outer->ns);
  Variable* loopVar = scheduler_.makePlain();
  loopVar->set(value, at);
  inner->declare(variable, loopVar);
  return inner;
}

void Evaluator::assignGradual(const ast::Expr* value, Scope* scope, runtime::Instance* target,
                              const model::Attribute* attr, SourceLocation at, runtime::Promise* promise) {
  Lhs here{target, attr};
  auto* sink = new RelationSink(*this, target, attr, promise, at);
  feedGradual(value, scope, sink, &here, true);
  sink->close();
}

void Evaluator::feedGradual(const ast::Expr* e, Scope* scope, GradualSink* sink, const Lhs* lhs, bool whole) {
  switch (e->kind) {
    case ast::Kind::ListLit: {
      auto* list = static_cast<const ast::ListLit*>(e);
      if (list->elements.empty()) return sink->take(Value(ValueList{}), whole);
      for (const ast::Expr* element : list->elements) feedGradual(element, scope, sink, lhs, false);
      return;
    }
    case ast::Kind::Conditional: {
      // as the reference's conditional expression with a gradual consumer: once the condition is
      // known, the branch it chooses is fed in its turn (an unknown condition gives an unknown)
      auto* c = static_cast<const ast::Conditional*>(e);
      Variable* cond = emit(c->condition, scope);
      std::optional<Lhs> lhsCopy = lhs ? std::optional<Lhs>(*lhs) : std::nullopt;
      sink->open();
      scheduler_.unit(
          {cond},
          [this, cond, c, scope, sink, lhsCopy, whole] {
            Value v = cond->get();
            if (v.isUnknown()) sink->take(Value::unknown(), whole);
            else
              feedGradual(conditionHolds(v, c->loc()) ? c->whenTrue : c->whenFalse, scope, sink,
                          lhsCopy ? &*lhsCopy : nullptr, whole);
            sink->close();
          },
          "conditional", c->loc(), true);
      return;
    }
    case ast::Kind::ListComp: {
      auto* c = static_cast<const ast::ListComp*>(e);
      auto* elements = new ComprehensionSink(*this, c, scope, sink, lhs);
      feedGradual(c->iterable, scope, elements, nullptr, true);
      return elements->close();
    }
    case ast::Kind::Literal:
    case ast::Kind::StringFormat:
    case ast::Kind::FString:
    case ast::Kind::Regex:
    case ast::Kind::VarRef:
    case ast::Kind::AttrRef:
    case ast::Kind::MapLookup:
    case ast::Kind::IsDefined:
    case ast::Kind::Binary:
    case ast::Kind::Not:
    case ast::Kind::Call:
    case ast::Kind::Constructor:
    case ast::Kind::IndexLookup:
    case ast::Kind::ShortIndexLookup:
    case ast::Kind::DictLit:
    INMANTA_AST_STATEMENT_CASES:
      break;
  }
  auto fromVariable = [this, sink, whole](Variable* v) {
    // a list variable or relation passes its values on as they arrive
    if (v->kind() == Variable::Kind::List) {
      v->listen(sink, sink->at());
      return scheduler_.unit(
          {v}, [sink] { sink->close(); }, sink->label(), sink->at(), sink->executionUnit());
    }
    if (!whole && v->kind() == Variable::Kind::Plain && v->isReady()) {
      if (sink->batch == nullptr || scheduler_.queueChanges() != sink->batchMark) {
        sink->batch = new GradualSink::Batch(scheduler_, sink);
        sink->batch->add(v);
        scheduler_.submit(sink->batch);
        sink->batchMark = scheduler_.queueChanges();
      } else {
        sink->batch->add(v);
      }
      return;
    }
    scheduler_.unit(
        {v},
        [v, sink, whole] {
          sink->takeFrom(v, whole);
          sink->close();
        },
        sink->label(), sink->at(), sink->executionUnit());
  };
  sink->open();
  if (e->kind == ast::Kind::VarRef) return fromVariable(lookup(static_cast<const ast::VarRef*>(e)->name(), scope));
  if (e->kind == ast::Kind::AttrRef) return whenSlot(static_cast<const ast::AttrRef*>(e), scope, fromVariable);
  fromVariable(emit(e, scope, lhs));
}

namespace {
void declaredIn(const ast::Block& block, std::set<std::string>& names) {
  for (const ast::Stmt* s : block) {
    if (s->kind == ast::Kind::Assign) {
      auto* a = static_cast<const ast::Assign*>(s);
      if (a->target->kind == ast::Kind::VarRef)
        names.insert(std::string(static_cast<const ast::VarRef*>(a->target)->name().text()));
    } else if (s->kind == ast::Kind::For) {
      auto* f = static_cast<const ast::For*>(s);
      names.insert(std::string(f->variable.text()));
      declaredIn(f->body, names);
    } else if (s->kind == ast::Kind::If) {
      declaredIn(static_cast<const ast::If*>(s)->thenBlock, names);
      declaredIn(static_cast<const ast::If*>(s)->elseBlock, names);
    }
  }
}

const ast::VarRef* rootOf(const ast::Expr* e) {
  while (e->kind == ast::Kind::AttrRef) e = static_cast<const ast::AttrRef*>(e)->object;
  return e->kind == ast::Kind::VarRef ? static_cast<const ast::VarRef*>(e) : nullptr;
}

void attributeAssignments(const ast::Block& block, std::vector<const ast::AttrRef*>& out) {
  for (const ast::Stmt* s : block) {
    if (s->kind == ast::Kind::Assign) {
      auto* a = static_cast<const ast::Assign*>(s);
      if (a->target->kind == ast::Kind::AttrRef) out.push_back(static_cast<const ast::AttrRef*>(a->target));
    } else if (s->kind == ast::Kind::For) {
      attributeAssignments(static_cast<const ast::For*>(s)->body, out);
    } else if (s->kind == ast::Kind::If) {
      attributeAssignments(static_cast<const ast::If*>(s)->thenBlock, out);
      attributeAssignments(static_cast<const ast::If*>(s)->elseBlock, out);
    }
  }
}
}  // namespace

void Evaluator::whenInstance(const ast::Expr* expr, Scope* scope, std::function<void(const Value&)> then) {
  if (expr->kind != ast::Kind::AttrRef) {
    Variable* v = emit(expr, scope);
    scheduler_.unit(
        {v}, [v, then = std::move(then)] { then(v->get()); }, "eager promise", expr->loc(), false);
    return;
  }
  auto* ref = static_cast<const ast::AttrRef*>(expr);
  whenInstance(ref->object, scope, [this, ref, then = std::move(then)](const Value& o) {
    if (o.isUnknown()) return then(o);
    Variable* slot = attributeSlot(o, ref->attribute.text(), ref->object, ref->loc());
    scheduler_.unit(
        {slot},
        [slot, then] {
          const Value* v = nullptr;
          try {
            v = &slot->get();
          } catch (const CompileError& e) {
            if (e.diagnostic().kind == ErrorKind::OptionalValueException) return;  // unset: no promise
            throw;
          }
          then(*v);
        },
        "eager promise", ref->loc(), false);
  });
}

std::function<void()> Evaluator::eagerPromises(const ast::Block& body, const std::vector<std::string>& localNames,
                                               Scope* scope) {
  std::vector<const ast::AttrRef*> targets;
  attributeAssignments(body, targets);
  if (targets.empty()) return [] {};
  std::set<std::string> local(localNames.begin(), localNames.end());
  declaredIn(body, local);
  struct State {
    bool committed = false;
    std::vector<std::pair<Variable*, runtime::Promise*>> promises;
  };
  auto state = std::make_shared<State>();
  for (const ast::AttrRef* target : targets) {
    const ast::VarRef* root = rootOf(target);
    if (root == nullptr || local.count(std::string(root->name().text()))) continue;
    // acquire once the instance is known (the reference's VariableReferenceHook with
    // propagate_unset: an empty optional on the way means no promise; an attribute that does not
    // exist, or a value that is no instance, is an error)
    try {
      whenInstance(target->object, scope, [target, state](const Value& o) {
        if (o.isUnknown()) return;
        Variable* slot = attributeSlot(o, target->attribute.text(), target->object, target->loc());
        if (!slot->delayed()) return;
        runtime::Promise* p = slot->progressionPromise();
        if (p == nullptr) return;
        if (state->committed) slot->fulfill(p);
        else state->promises.emplace_back(slot, p);
      });
    } catch (const CompileError&) {
      continue;  // a name that does not resolve: the assignment reports it
    }
  }
  return [state] {
    if (state->committed) return;
    state->committed = true;
    for (auto& [slot, p] : state->promises) slot->fulfill(p);
    state->promises.clear();
  };
}

}  // namespace inmanta::compiler::exec
