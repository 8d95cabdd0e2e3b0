#include "compiler/exec/evaluator_impl.h"

namespace inmanta::compiler::exec {

void Evaluator::setAttribute(runtime::Instance* instance, const model::Attribute* attribute, Variable* value,
                             SourceLocation at) {
  // as the reference's SetAttributeHelper: an error while computing the value (a direct
  // expression, a constructor) is an error of this assignment too
  const Value* v = nullptr;
  try {
    v = &value->get();
  } catch (const CompileError& e) {
    if (e.diagnostic().kind == ErrorKind::AttributeException) throw;
    Diagnostic cause = e.diagnostic();
    if (!cause.location.valid()) cause.location = at;
    attributeFailure(instance, attribute, std::move(cause), at);
  }
  setAttribute(instance, attribute, *v, at, true);
}

void Evaluator::attributeFailure(runtime::Instance* instance, const model::Attribute* attribute, Diagnostic cause,
                                 SourceLocation at) {
  Diagnostic d(ErrorKind::AttributeException,
               "Could not set attribute `" + attribute->name + "` on instance `" + instance->display() + "`", at,
               false);
  // a cause without a statement of its own (a value the type refuses) is the assignment's, as
  // the reference sets it
  if (!cause.location.valid()) {
    cause.location = at;
    cause.showColumn = false;
  }
  d.causes.push_back(std::move(cause));
  throw CompileError(std::move(d));
}

void Evaluator::pointAtAssignedPart(Diagnostic& d, const ast::Node* source, const model::Attribute* attribute) {
  // only the AttributeException made at the statement itself, once
  if (source == nullptr || d.kind != ErrorKind::AttributeException || !d.notes.empty()) return;
  SourceLocation statement = source->loc();
  auto atStatement = [&statement](const SourceLocation& l) {
    return l.file == statement.file && l.line == statement.line && l.col == statement.col;
  };
  if (!atStatement(d.location)) return;
  SourceLocation part;
  SourceLocation partEnd;
  SourceLocation value;
  const char* note = nullptr;
  if (source->kind == ast::Kind::Constructor) {
    for (const ast::KwArg& kw : static_cast<const ast::Constructor*>(source)->named.kwargs)
      if (kw.name.text() == attribute->name) {
        part = kw.name.loc;
        partEnd = {part.file, part.line, kw.name.endCol() - 1};  // the argument's name, underlined
        value = kw.value->loc();
        note = "in this constructor call";
      }
  } else if (source->kind == ast::Kind::Assign) {
    part = value = static_cast<const ast::Assign*>(source)->value->loc();
    note = "in this assignment";
  }
  if (note == nullptr || !part.valid()) return;  // a `**dict` argument: no smaller construct
  // (the cause keeps the reference's FILE:LINE form: scripts read its message with it)
  for (Diagnostic& cause : d.causes)
    if (atStatement(cause.location) && value.valid()) cause.location = value;
  d.location = part;
  d.end = partEnd;
  d.showColumn = true;
  d.notes.push_back({note, statement});
}

// Its own class rather than a FunctionUnit: at 100,000 services 360,000 of them wait at once, and
// this one keeps its location and its label's parts once, and no evaluator (80 bytes instead of
// 152).
class Evaluator::AssignmentUnit final : public runtime::Waiter {
 public:
  AssignmentUnit(Evaluator& evaluator, runtime::Instance* instance, const model::Attribute* attribute, Variable* value,
                 runtime::Promise* promise, SourceLocation at, AssignmentOf of, const ast::Node* source)
      : Waiter(evaluator.scheduler_),
        instance_(instance),
        attribute_(attribute),
        value_(value),
        promise_(promise),
        source_(source),
        where_(packLocation(at) | (uint64_t(of) << kPackedLocationBits)) {
    inputs_ = runtime::VarList{value};
    waitForInputs();
  }
  void execute() override {
    try {
      setAttribute(instance_, attribute_, value_, location());
    } catch (CompileError& e) {
      pointAtAssignedPart(e.diagnostic(), source_, attribute_);
      throw;
    }
    if (promise_ != nullptr) promise_->owner->fulfill(promise_);
  }
  std::string describe() const override {
    switch (static_cast<AssignmentOf>(where_ >> kPackedLocationBits)) {
      case AssignmentOf::Argument: return instance_->entity->shortName + "(" + attribute_->name + "=...)";
      case AssignmentOf::Default: return "default " + attribute_->name;
      case AssignmentOf::Statement: break;
    }
    return ast::dump(static_cast<const ast::Assign*>(source_)->target) + " = ...";
  }
  SourceLocation location() const override { return unpackLocation(where_); }
  bool isExecutionUnit() const override { return true; }

 private:
  runtime::Instance* instance_;
  const model::Attribute* attribute_;
  Variable* value_;  // (its inputs are what it waits for: a direct value's own inputs)
  runtime::Promise* promise_;
  const ast::Node* source_;  // the constructor of an argument, the statement of a statement's
  uint64_t where_;           // its location (packLocation), and above it what it assigns (AssignmentOf)
};

void Evaluator::assignmentUnit(runtime::Instance* instance, const model::Attribute* attribute, Variable* value,
                               runtime::Promise* promise, SourceLocation at, AssignmentOf of, const ast::Node* source) {
  scheduler_.submit(new AssignmentUnit(*this, instance, attribute, value, promise, at, of, source));
}

void Evaluator::assignFromAttribute(runtime::Instance* instance, const model::Attribute* attribute,
                                    const ast::AttrRef* ref, Scope* scope, runtime::Promise* promise, SourceLocation at,
                                    AssignmentOf of, const ast::Node* source) {
  whenSlot(ref, scope, [this, instance, attribute, promise, at, of, source](Variable* slot) {
    assignmentUnit(instance, attribute, slot, promise, at, of, source);
  });
}

void Evaluator::setAttribute(runtime::Instance* instance, const model::Attribute* attribute, const Value& value,
                             SourceLocation at, bool recur) {
  Variable* slot = instance->slot(attribute);
  try {
    slot->set(value, at, recur);
  } catch (const CompileError& e) {
    if (e.diagnostic().kind == ErrorKind::AttributeException) throw;
    attributeFailure(instance, attribute, e.diagnostic(), at);
  }
}

Variable* Evaluator::emitAttrRef(const ast::AttrRef* ref, Scope* scope) {
  Variable* object = emit(ref->object, scope);
  Variable* result = scheduler_.makePlain();
  // as the reference's two units, one after the other: the first waits for the object and finds
  // the attribute's slot, the second waits for that slot and passes its value on (one unit that
  // runs twice; it keeps no evaluator: 260,000 wait at once at 100,000 services)
  scheduler_.unit(
      {object},
      [object, ref, result, slot = static_cast<Variable*>(nullptr)]() mutable {
        if (slot == nullptr) {
          slot = attributeSlot(object->get(), ref->attribute.text(), ref->object, ref->loc());
          return runtime::Scheduler::active()->runAgainWhen(slot);
        }
        try {
          result->set(slot->get(), ref->loc());
        } catch (CompileError& e) {
          if (e.diagnostic().kind == ErrorKind::OptionalValueException && !e.diagnostic().location.valid())
            e.diagnostic().location = ref->loc();
          throw;
        }
      },
      exprLabel(ref), ref->loc(), true);
  return result;
}

void Evaluator::emitAttributeAssign(const ast::Assign* assign, Scope* scope) {
  auto* target = static_cast<const ast::AttrRef*>(assign->target);
  Variable* object = emit(target->object, scope);
  scheduler_.unit(
      {object},
      [this, object, target, assign, scope] {
        Value o = object->get();
        std::string name(target->attribute.text());
        if (!o.isInstance())
          fail(ErrorKind::TypingException,
               "The object at " + ast::dump(target->object) + " is not an Entity but a <class '" +
                   runtime::pythonTypeName(o) + "'> with value " + runtime::str(o),
               assign->loc());
        auto* instance = static_cast<runtime::Instance*>(o.asInstance());
        const model::Attribute* attr = instance->entity->attribute(name);
        if (attr == nullptr)
          fail(ErrorKind::NotFoundException,
               "could not find attribute with name: " + name + " in type " + instance->entity->fullName, assign->loc());
        if (assign->listOnly && !attr->isMulti())
          fail(ErrorKind::TypingException, "Can not use += on relations with multiplicity 1", assign->loc());
        Variable* slot = instance->slot(name);
        runtime::Promise* promise = slot->delayed() ? slot->setPromise() : nullptr;
        if (attr->isMulti()) {
          assignGradual(assign->value, scope, instance, attr, assign->loc(), promise);
          return;
        }
        if (assign->value->kind == ast::Kind::AttrRef)
          return assignFromAttribute(instance, attr, static_cast<const ast::AttrRef*>(assign->value), scope, promise,
                                     assign->loc(), AssignmentOf::Statement, assign);
        Lhs here{instance, attr};
        Variable* value = emit(assign->value, scope, attr->isRelation ? &here : nullptr);
        assignmentUnit(instance, attr, value, promise, assign->loc(), AssignmentOf::Statement, assign);
      },
      assignLabel(target), assign->loc(), true);
}

}  // namespace inmanta::compiler::exec
