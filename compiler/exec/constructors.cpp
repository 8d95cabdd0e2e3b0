#include "compiler/exec/evaluator_impl.h"

#include <algorithm>
#include <type_traits>

#include "compiler/sema/typecheck.h"

namespace inmanta::compiler::exec {

// A [1] relation end: a plain slot whose value also sets the inverse end.
struct SingleHolder : runtime::Variable {
  explicit SingleHolder(runtime::Scheduler* s) : Variable(Kind::Single, s) {}
};

// The slot of each kind of attribute, in its instance's block: calls `f` with a
// std::type_identity of the attribute's slot type (its size for the layout, its type to make it).
// A slot `at` bytes into the block is an inline one (InlineSlot) where it can be, else one that
// keeps its policy and owner (AttributeSlot: only past 512 KiB, in an entity of thousands of
// attributes).
template <template <class> class Holder, class F>
void withSlotTypeHeld(const model::Attribute* attr, F&& f) {
  if (!attr->isRelation) f(std::type_identity<Holder<runtime::Scheduler::PlainSlot>>{});
  else if (attr->isOptional()) f(std::type_identity<Holder<runtime::OptionVariable>>{});
  else if (attr->isSingle()) f(std::type_identity<Holder<SingleHolder>>{});
  else f(std::type_identity<Holder<runtime::ListVariable>>{});
}
template <class F>
void withSlotType(const model::Attribute* attr, size_t at, F&& f) {
  if (runtime::InlineSlot<runtime::Variable>::fits(at)) withSlotTypeHeld<runtime::InlineSlot>(attr, f);
  else withSlotTypeHeld<runtime::AttributeSlot>(attr, f);
}
template <class Slot>
constexpr bool isOptionSlot = std::is_base_of_v<runtime::OptionVariable, Slot>;
template <class Slot>
constexpr bool isInlineSlot = Slot::kInline;

// Where the slots of an entity's instances go in an instance's block: after the instance, in the
// entity's attribute order; and the policy of each inline slot by its distance in 8-byte words.
runtime::SlotLayout slotLayout(const model::Entity* entity, const std::vector<const runtime::SlotPolicy*>& policies) {
  using runtime::Scheduler;
  runtime::SlotLayout layout;
  size_t at = (sizeof(runtime::Instance) + 7) & ~size_t(7);
  for (size_t i = 0; i < entity->order.size(); ++i) {
    layout.offsets.push_back(static_cast<uint32_t>(at));
    withSlotType(entity->order[i], at, [&](auto slot) {
      using Slot = typename decltype(slot)::type;
      if constexpr (isInlineSlot<Slot>) {
        layout.byWord.resize(at / 8 + 1, nullptr);
        layout.byWord[at / 8] = policies[i];
      }
      at += Scheduler::slotSize<Slot>();
    });
  }
  layout.size = static_cast<uint32_t>(at);
  return layout;
}

// ------------------------------------------------------------------ entities (4.8)

// The checks and inverse of an attribute's slots, one object per attribute.
class Evaluator::AttributePolicy : public runtime::SlotPolicy {
 public:
  AttributePolicy(Evaluator* evaluator, const model::Attribute* attribute)
      : evaluator_(evaluator),
        attribute_(attribute),
        checkConstraint_(
            [evaluator](const model::Typedef& t, const Value& x) { return evaluator->checkConstraint(t, x); }),
        selfBinding_(isSelfBinding(attribute)) {}

  // A plain attribute named `self`: its slot holds the instance itself, untyped (spec 3.7).
  static bool isSelfBinding(const model::Attribute* attribute) {
    return !attribute->isRelation && attribute->name == "self";
  }

  std::optional<Diagnostic> validate(const Value& v) const override {
    if (!attribute_->isRelation)
      return selfBinding_ ? std::nullopt : sema::validateValue(attribute_->type, v, checkConstraint_);
    const model::Entity* target = attribute_->target();
    if (v.isInstance()) {
      auto* other = static_cast<runtime::Instance*>(v.asInstance());
      if (other->entity->isA(target)) return std::nullopt;
      return Diagnostic(ErrorKind::RuntimeException,
                        "Invalid class type for " + other->display() + ", should be " + target->fullName);
    }
    if (v.isList())
      return Diagnostic(ErrorKind::RuntimeException,
                        "Invalid type for value '" + runtime::str(v) + "', should be type " + target->fullName);
    return Diagnostic(ErrorKind::RuntimeException,
                      "Invalid class type for " + runtime::str(v) + ", should be " + target->fullName);
  }

  std::string_view attributeName() const override { return attribute_->name; }
  bool hasInverse() const override { return attribute_->isRelation && attribute_->inverse != nullptr; }

  void setInverse(const Variable& self, const Value& other, SourceLocation location) const override {
    evaluator_->setAttribute(static_cast<runtime::Instance*>(other.asInstance()), attribute_->inverse,
                             Value(self.owner()), location, false);
  }

 private:
  Evaluator* evaluator_;
  const model::Attribute* attribute_;
  sema::ConstraintCheck checkConstraint_;  // made once: validate() runs on every value set
  bool selfBinding_;
};

const Evaluator::EntityPlan& Evaluator::planOf(const model::Entity* entity) {
  auto [it, added] = plans_.try_emplace(entity);
  EntityPlan& plan = it->second;
  if (added) {
    for (const model::Attribute* attr : entity->order) {
      if (AttributePolicy::isSelfBinding(attr)) plan.selfSlot = static_cast<int>(plan.policies.size());
      plan.policies.push_back(slotPolicy(attr));
    }
    plan.layout = slotLayout(entity, plan.policies);
    plan.layout.policiesByWord = plan.layout.byWord.data();
    plan.layout.where = &whereFormatter_;
    const std::vector<std::string>& indexAttributes = indexAttributesOf(entity);
    for (const std::string& name : entity->defaultOrder) {
      const model::DefaultValue& dflt = entity->defaults.find(name)->second;
      const model::Attribute* attr = entity->attribute(name);
      bool literalIndexDefault = dflt.expr->kind == ast::Kind::Literal &&
                                 std::binary_search(indexAttributes.begin(), indexAttributes.end(), name);
      plan.defaults.push_back(
          {&name, attr, entity->positionOf(attr), dflt.expr, topScopes_.at(dflt.ns), literalIndexDefault});
    }
  }
  return plan;
}

const runtime::SlotPolicy* Evaluator::slotPolicy(const model::Attribute* attribute) {
  auto& policy = policies_[attribute];
  if (!policy) {
    policy = std::make_unique<AttributePolicy>(this, attribute);
    auto rank = freezeRanks_.find(attribute);
    if (rank != freezeRanks_.end()) policy->freezeRank = rank->second;
    if (attribute->isRelation) policy->setBounds(attribute->multiplicity.low, attribute->multiplicity.high);
  }
  return policy.get();
}

runtime::Instance* Evaluator::createInstance(const model::Entity* entity, const EntityPlan& plan, SourceLocation at) {
  // the instance and its slots in one block (plan.layout)
  auto* instance = new (instances_.allocate(plan.layout))
      runtime::Instance(entity, instances_.size() + 1, &plan.layout, at);
  instances_.add(instance);
  if (options_.memoryExceeded && instances_.size() % ExecOptions::kMemoryCheckEvery == 0) checkMemory(at);
  for (size_t i = 0; i < entity->order.size(); ++i) {
    const model::Attribute* attr = entity->order[i];
    // the policy (checks, inverse, freeze rank) and owner are set before the scheduler first
    // looks at the slot
    withSlotType(attr, plan.layout.offsets[i], [&](auto type) {
      using Slot = typename decltype(type)::type;
      scheduler_.placeSlot<Slot>(instance->slotMemory(i), [&](Slot* v) {
        if constexpr (isInlineSlot<Slot>) v->bind(instance);
        else v->bind(plan.policies[i], instance);
        if constexpr (isOptionSlot<Slot>) v->entityName = entity->fullName;
      });
    });
  }
  // as the reference's instances: their own `self` binding takes the slot of an attribute of that
  // name, set to the instance with no location, so that setting the attribute is a
  // DoubleSetException (spec 3.7 [QUIRK])
  if (plan.selfSlot >= 0)
    instance->slot(static_cast<size_t>(plan.selfSlot))
        ->set(Value(static_cast<runtime::InstanceBase*>(instance)), SourceLocation{}, false);
  return instance;
}

void Evaluator::checkMemory(SourceLocation at) const {
  if (std::optional<std::string> message = options_.memoryExceeded(instances_.size()))
    fail(ErrorKind::CompilerException, *message, at);
}

// Consecutive attribute assignments of one construction whose values were known when it made
// them (literals, defaults, variables already set): one unit instead of one per assignment. It is
// queued where the first of them would be, and it only takes more while nothing else was queued
// or became ready, so the assignments run in the same order, at the same point, as separate units
// would (spec 4.8 step 6). Each value is read when the batch runs (a literal's is the node's);
// reading a set plain variable, or a direct value without calls whose inputs are set, cannot
// wait, so no assignment of a batch ever waits half-way.
class Evaluator::AssignmentBatch final : public runtime::Waiter {
 public:
  AssignmentBatch(Evaluator& evaluator, runtime::Instance* instance, const ast::Constructor* ctor, size_t expected)
      : Waiter(evaluator.scheduler_), instance_(instance), ctor_(ctor) {
    entries_.reserve(expected);
  }
  void add(const model::Attribute* attribute, Variable* source, runtime::Promise* promise) {
    entries_.push_back({attribute, promise, source});
  }
  void execute() override {
    for (const Entry& e : entries_) {
      try {
        setAttribute(instance_, e.attribute, e.source, location());
      } catch (CompileError& error) {
        pointAtAssignedPart(error.diagnostic(), ctor_, e.attribute);
        throw;
      }
      if (e.promise != nullptr) e.promise->owner->fulfill(e.promise);
    }
  }
  std::string describe() const override {
    return instance_->entity->shortName + "(" + (entries_.empty() ? std::string() : entries_.front().attribute->name) +
           "=...)";
  }
  SourceLocation location() const override { return ctor_->loc(); }
  bool isExecutionUnit() const override { return true; }

 private:
  struct Entry {
    const model::Attribute* attribute;
    runtime::Promise* promise;
    Variable* source;  // read when the batch runs (a literal's: the node's constant)
  };
  runtime::Instance* instance_;
  const ast::Constructor* ctor_;  // its location, and its arguments' for a failure
  std::vector<Entry> entries_;
};

const model::Entity* Evaluator::annotatedEntity(const ast::Constructor* ctor) const {
  const ast::Annotation& a = ctor->annotation;
  if (a.owner != generation_ || (a.word & kPlanTag) != 0) return nullptr;
  return reinterpret_cast<const model::Entity*>(a.word);
}

const Evaluator::ConstructorPlan* Evaluator::annotatedPlan(const ast::Constructor* ctor) const {
  const ast::Annotation& a = ctor->annotation;
  if (a.owner != generation_ || (a.word & kPlanTag) == 0) return nullptr;
  return reinterpret_cast<const ConstructorPlan*>(a.word & ~kPlanTag);
}

void Evaluator::annotateEntity(const ast::Constructor* ctor, const model::Entity* entity) const {
  ctor->annotation = ast::Annotation{generation_, reinterpret_cast<uintptr_t>(entity)};
}

void Evaluator::annotatePlan(const ast::Constructor* ctor, const ConstructorPlan* plan) const {
  ctor->annotation = ast::Annotation{generation_, reinterpret_cast<uintptr_t>(plan) | kPlanTag};
}

const Evaluator::ConstructorPlan& Evaluator::constructorPlan(const ast::Constructor* ctor, Scope* scope) {
  if (const ConstructorPlan* known = annotatedPlan(ctor)) return *known;
  ConstructorPlan plan;
  const model::Entity* resolved = annotatedEntity(ctor);
  plan.entity = resolved != nullptr ? resolved : sema::constructorEntity(model_, ctor, scope->ns, nullptr);
  auto keep = [&](ConstructorPlan& kept) -> const ConstructorPlan& {
    annotatePlan(ctor, &kept);
    return kept;
  };
  const model::Entity* entity = plan.entity;
  // the plan depends on the entity and the argument names only: calls of the same shape share one
  const ast::Span<ast::KwArg>& arguments = ctor->named.kwargs;
  uint64_t shape = std::hash<const void*>()(entity);
  for (const ast::KwArg& kw : arguments)
    shape = (shape ^ reinterpret_cast<uintptr_t>(kw.name.symbol())) * 0x9E3779B97F4A7C15ull;
  auto [first, last] = plansByShape_.equal_range(shape);
  for (auto it = first; it != last; ++it) {
    ConstructorPlan& other = *it->second;
    const ast::Span<ast::KwArg>& theirs = other.shapeOf->named.kwargs;
    if (other.entity == entity && theirs.size() == arguments.size() &&
        std::equal(arguments.begin(), arguments.end(), theirs.begin(),
                   [](const ast::KwArg& a, const ast::KwArg& b) { return a.name.symbol() == b.name.symbol(); }))
      return keep(other);
  }
  plan.shapeOf = ctor;
  plan.entityPlan = &planOf(entity);
  plan.indexAttributes = &indexAttributesOf(entity);
  // static part (3.11): every argument is an attribute
  for (const ast::KwArg& kw : ctor->named.kwargs) {
    const model::Attribute* attr = entity->attribute(kw.name.text());
    if (attr == nullptr)
      fail(ErrorKind::TypingException, "no attribute " + std::string(kw.name.text()) + " on type " + entity->fullName,
           kw.name.loc, true);
    plan.attributes.push_back(attr);
  }
  // index arguments are needed to construct; the others are emitted once the instance exists
  for (uint32_t i = 0; i < ctor->named.kwargs.size(); ++i) {
    std::string_view name = ctor->named.kwargs[i].name.text();
    if (std::binary_search(plan.indexAttributes->begin(), plan.indexAttributes->end(), name, std::less<>()))
      plan.early.push_back(i);
    else plan.late.push_back(i);
  }
  // the order of the other arguments and defaults when the construction values are the index
  // arguments and the index attributes' literal defaults (no `**`, no implicit inverse)
  plan.steps = constructorSteps(plan, [&](const EntityPlan::Default& d) {
    return d.literalIndexDefault || std::any_of(plan.early.begin(), plan.early.end(),
                                                [&](uint32_t i) { return plan.attributes[i] == d.attribute; });
  });
  ConstructorPlan& kept = constructorPlans_.emplace_back(std::move(plan));
  plansByShape_.emplace(shape, &kept);
  return keep(kept);
}

std::vector<Evaluator::ConstructorPlan::Step> Evaluator::constructorSteps(
    const ConstructorPlan& plan, const std::function<bool(const EntityPlan::Default&)>& isConstructionValue) {
  // the reference's order: the defaults' order, an argument taking the place of the default it
  // overrides, then the other arguments as written (an attribute has one default and at most one
  // argument: they are matched by identity)
  std::vector<ConstructorPlan::Step> steps;
  const std::vector<EntityPlan::Default>& defaults = plan.entityPlan->defaults;
  auto argumentFor = [&](const model::Attribute* attribute) -> int32_t {
    for (uint32_t i : plan.late)
      if (plan.attributes[i] == attribute) return static_cast<int32_t>(i);
    return -1;
  };
  for (size_t d = 0; d < defaults.size(); ++d) {
    if (isConstructionValue(defaults[d])) continue;
    if (int32_t kw = argumentFor(defaults[d].attribute); kw >= 0) steps.push_back({kw, -1});
    else steps.push_back({-1, static_cast<int32_t>(d)});
  }
  for (uint32_t i : plan.late)
    if (std::none_of(defaults.begin(), defaults.end(),
                     [&](const EntityPlan::Default& d) { return d.attribute == plan.attributes[i]; }))
      steps.push_back({static_cast<int32_t>(i), -1});
  return steps;
}

bool Evaluator::floatTyped(const model::Attribute* a) {
  return a != nullptr && !a->isRelation &&
         (a->type == model_.primitive(model::Primitive::Float) ||
          a->type == model_.nullableOf(model_.primitive(model::Primitive::Float)));
}

Variable* Evaluator::emitConstructor(const ast::Constructor* ctor, Scope* scope, const Lhs* lhs) {
  const ConstructorPlan& plan = constructorPlan(ctor, scope);
  // its inputs: the index arguments (in plan.early's order), then the `**` dicts
  runtime::VarList inputs;
  for (uint32_t i : plan.early) inputs.push_back(emit(ctor->named.kwargs[i].value, scope));
  for (const ast::Expr* w : ctor->named.wrapped) inputs.push_back(emit(w, scope));
  std::optional<Lhs> target = lhs ? std::optional<Lhs>(*lhs) : std::nullopt;
  // Like the reference's Constructor (a RequiresEmitStatement), the construction runs in the unit
  // that reads its value (an assignment, an attribute, an argument): that unit waits for the index
  // arguments and `**` dicts, creates the instance and its attribute units, and only then sets its
  // own target.
  return scheduler_.makeDirect(
      std::move(inputs), [this, ctor, &plan, scope, target](const runtime::VarList& in) -> Value {
        const size_t earlyCount = plan.early.size();
        const model::Entity* entity = plan.entity;
        const std::vector<std::string>& indexAttributes = *plan.indexAttributes;
        const ast::Span<ast::KwArg>& kwargs = ctor->named.kwargs;
        auto isLate = [&](std::string_view name) {
          return std::any_of(plan.late.begin(), plan.late.end(),
                             [&](uint32_t i) { return kwargs[i].name.text() == name; });
        };
        // construction-time values: index arguments and **dict entries (most constructions have
        // a few: they take no memory of the heap)
        alignas(std::max_align_t) std::byte buffer[512];
        std::pmr::monotonic_buffer_resource memory(buffer, sizeof buffer);
        std::pmr::vector<NamedValue> values(&memory);
        values.reserve(earlyCount + 4);
        for (size_t i = 0; i < earlyCount; ++i) values.emplace_back(kwargs[plan.early[i]].name.text(), in[i]->get());
        bool planned = true;  // the construction values are those the plan's steps assume
        for (size_t i = earlyCount; i < in.size(); ++i) {
          const Value& d = in[i]->get();  // (a set variable's value: its keys outlive `values`)
          if (!d.isDict())
            fail(ErrorKind::TypingException, "The ** operator can only be applied to dictionaries", ctor->loc());
          for (const auto& [k, v] : d.asDict().items) {
            if (entity->attribute(k) == nullptr)
              fail(ErrorKind::TypingException, "no attribute " + k + " on type " + entity->fullName, ctor->loc());
            bool repeated = std::any_of(values.begin(), values.end(), [&](const auto& p) { return p.first == k; }) ||
                            isLate(k);
            if (repeated)
              fail(ErrorKind::RuntimeException,
                   "The attribute " + k + " is set twice in the constructor call of " + entity->shortName + ".",
                   ctor->loc());
            values.emplace_back(k, v);
            planned = false;
          }
        }
        // the implicit inverse: `x.r = E(...)` sets E's index attribute that is r's inverse (4.8 step 3)
        if (target && target->attribute->inverse != nullptr) {
          const std::string& inv = target->attribute->inverse->name;
          bool given = std::any_of(values.begin(), values.end(), [&](const auto& p) { return p.first == inv; }) ||
                       isLate(inv);
          if (!given && std::binary_search(indexAttributes.begin(), indexAttributes.end(), inv) &&
              entity->attribute(inv) == target->attribute->inverse) {
            values.emplace_back(inv, Value(static_cast<runtime::InstanceBase*>(target->instance)));
            planned = false;
          }
        }
        // defaults of index attributes count as construction-time values
        for (const std::string& a : indexAttributes) {
          bool given = std::any_of(values.begin(), values.end(), [&](const auto& p) { return p.first == a; });
          if (given) continue;
          auto dflt = entity->defaults.find(a);
          if (dflt != entity->defaults.end() && dflt->second.expr->kind == ast::Kind::Literal) {
            auto* lit = static_cast<const ast::Literal*>(dflt->second.expr);
            values.emplace_back(a, lit->value());
          }
        }
        // index matching (4.8 step 4), in the entity's own indexes (they include its subtypes)
        runtime::Instance* found = nullptr;
        auto given = [&](std::string_view a) {
          return std::any_of(values.begin(), values.end(), [&](const auto& p) { return p.first == a; });
        };
        if (!std::all_of(indexAttributes.begin(), indexAttributes.end(), given)) {
          fail(ErrorKind::IndexAttributeMissingInConstructorException,
               sema::missingIndexMessage(entity, sema::missingIndexAttributes(entity, given)), ctor->loc());
        }
        // as the reference's index lookup: an int given for a float attribute is looked up as a
        // float (only the key: the attribute is still set to the int, an error for a new instance)
        std::pmr::vector<NamedValue> keyValues(&memory);
        for (size_t i = 0; i < values.size(); ++i)
          if (values[i].second.isInt() && floatTyped(entity->attribute(values[i].first))) {
            if (keyValues.empty()) keyValues.assign(values.begin(), values.end());
            keyValues[i].second = Value(static_cast<double>(values[i].second.asInt()));
          }
        IndexKeys keys(*this, keyValues.empty() ? NamedValues(values) : NamedValues(keyValues));
        if (!indexAttributes.empty()) {
          auto& table = indexes_[entity];
          for (const model::Entity* e : entity->lineage())
            for (const auto& idx : e->indexes) {
              std::string_view key;
              if (!keys.key(idx, key)) continue;  // (cannot happen: every index attribute is given)
              if (uint32_t number = table.find(key)) {
                runtime::Instance* known = instanceNumbered(number);
                if (found != nullptr && found != known)
                  fail(ErrorKind::IndexCollisionException, "Inconsistent indexes detected!", ctor->loc());
                found = known;
              }
            }
        }
        runtime::Instance* instance = found;
        if (instance != nullptr) {
          if (instance->entity != entity)
            fail(ErrorKind::DuplicateException,
                 "Type found in index is not an exact match (original at (" + where(ctor->loc()) +
                     ")) (duplicate at (" + where(instance->constructedAt()) + "))",
                 ctor->loc());
          instance->matchedAt(ctor->loc());
        } else {
          instance = createInstance(entity, *plan.entityPlan, ctor->loc());
          if (!indexAttributes.empty()) registerInIndexes(instance, keys, ctor);
        }
        for (const auto& [name, v] : values) {
          const model::Attribute* attribute = entity->attribute(name);
          try {
            setAttribute(instance, attribute, v, ctor->loc(), true);
          } catch (CompileError& e) {
            pointAtAssignedPart(e.diagnostic(), ctor, attribute);
            throw;
          }
        }
        // the other arguments and the defaults, asynchronously (step 6)
        std::vector<ConstructorPlan::Step> dynamicSteps;
        if (!planned)
          dynamicSteps = constructorSteps(plan, [&](const EntityPlan::Default& d) { return given(*d.name); });
        const std::vector<ConstructorPlan::Step>& steps = planned ? plan.steps : dynamicSteps;
        // the assignments of known values go into one unit while nothing else is queued
        AssignmentBatch* batch = nullptr;
        uint64_t batchMark = 0;
        auto assignKnown = [&](const model::Attribute* attribute, Variable* value, runtime::Promise* promise,
                               size_t step) {
          if (batch == nullptr || scheduler_.queueChanges() != batchMark) {
            batch = new AssignmentBatch(*this, instance, ctor, steps.size() - step);
            batch->add(attribute, value, promise);
            scheduler_.submit(batch);
            batchMark = scheduler_.queueChanges();
          } else {
            batch->add(attribute, value, promise);
          }
        };
        // a unit reading `v` would be ready at once, and reading it can neither wait nor call a
        // plugin: a plain variable that is set, or a direct value without calls or constructions
        // whose inputs are set
        auto knownNow = [](Variable* v, const ast::Expr* e) {
          if (v->kind() == Variable::Kind::Plain) return v->isReady();
          return v->kind() == Variable::Kind::Direct && computedPurely(e) && runtime::readyToRead(v);
        };
        for (size_t stepIndex = 0; stepIndex < steps.size(); ++stepIndex) {
          const ConstructorPlan::Step& step = steps[stepIndex];
          if (step.kwarg >= 0) {
            const ast::KwArg& kw = kwargs[static_cast<size_t>(step.kwarg)];
            const model::Attribute* attr = plan.attributes[static_cast<size_t>(step.kwarg)];
            Variable* slot = instance->slot(attr);
            runtime::Promise* promise = slot->delayed() ? slot->setPromise() : nullptr;
            if (attr->isMulti()) {
              assignGradual(kw.value, scope, instance, attr, ctor->loc(), promise);
              continue;
            }
            if (kw.value->kind == ast::Kind::Literal) {
              assignKnown(attr, static_cast<const ast::Literal*>(kw.value)->variable(), promise, stepIndex);
              continue;
            }
            if (kw.value->kind == ast::Kind::AttrRef) {
              assignFromAttribute(instance, attr, static_cast<const ast::AttrRef*>(kw.value), scope, promise,
                                  ctor->loc(), AssignmentOf::Argument, ctor);
              continue;
            }
            Lhs here{instance, attr};
            Variable* value = emit(kw.value, scope, attr->isRelation ? &here : nullptr);
            if (knownNow(value, kw.value)) {
              assignKnown(attr, value, promise, stepIndex);
              continue;
            }
            assignmentUnit(instance, attr, value, promise, ctor->loc(), AssignmentOf::Argument, ctor);
            continue;
          }
          const EntityPlan::Default& dflt = plan.entityPlan->defaults[static_cast<size_t>(step.dflt)];
          Variable* slot = instance->slot(dflt.position);
          if (dflt.expr->kind == ast::Kind::Literal) {
            assignKnown(dflt.attribute, static_cast<const ast::Literal*>(dflt.expr)->variable(),
                        slot->delayed() ? slot->setPromise() : nullptr, stepIndex);
            continue;
          }
          Variable* value = emit(dflt.expr, dflt.scope);
          runtime::Promise* promise = slot->delayed() ? slot->setPromise() : nullptr;
          if (knownNow(value, dflt.expr)) {
            assignKnown(dflt.attribute, value, promise, stepIndex);
            continue;
          }
          assignmentUnit(instance, dflt.attribute, value, promise, ctor->loc(), AssignmentOf::Default);
        }
        selectImplementations(instance);
        return Value(static_cast<runtime::InstanceBase*>(instance));
      });
}

}  // namespace inmanta::compiler::exec
