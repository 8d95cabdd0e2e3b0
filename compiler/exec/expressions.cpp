#include "compiler/exec/evaluator_impl.h"
#include "compiler/exec/plugin_context.h"

#include <algorithm>

#include "compiler/exec/format.h"
#include "compiler/exec/operators.h"
#include "compiler/sema/define.h"

namespace inmanta::compiler::exec {

namespace {

bool isLiteral(const ast::Expr* e) { return e->kind == ast::Kind::Literal; }

// Sets an `is defined` result to true on the first known value of a relation (spec 4.11).
class IsDefinedListener : public runtime::ResultCollector {
 public:
  IsDefinedListener(Variable* result, SourceLocation at) : result_(result), at_(at) {}
  bool pureGradual() const override { return false; }
  bool receive(const Value& value, SourceLocation) override {
    if (value.isUnknown()) return false;
    if (!result_->isReady()) result_->set(Value(true), at_);
    return true;
  }

 private:
  Variable* result_;
  SourceLocation at_;
};

// The values of a direct value's inputs, in order.
std::vector<Value> valuesOf(const runtime::VarList& in) {
  std::vector<Value> values;
  values.reserve(in.size());
  for (Variable* v : in) values.push_back(v->get());
  return values;
}

}  // namespace

template <class F>
Variable* Evaluator::constantVariable(ast::Annotation& annotation, F value) {
  if (annotation.owner != generation_) {
    annotation.owner = generation_;
    annotation.word = reinterpret_cast<uintptr_t>(scheduler_.makeWrapped(value()));
  }
  return reinterpret_cast<Variable*>(annotation.word);
}

Variable* Evaluator::emit(const ast::Expr* expr, Scope* scope, const Lhs* lhs) {
  switch (expr->kind) {
    case ast::Kind::Literal:
      // one ready variable per literal in the source, read by every evaluation of it
      return static_cast<const ast::Literal*>(expr)->variable();
    case ast::Kind::VarRef: return lookup(static_cast<const ast::VarRef*>(expr)->name(), scope);
    case ast::Kind::Regex: return lookup(ast::Name("self", expr->loc()), scope);
    case ast::Kind::Binary: return emitBinary(static_cast<const ast::Binary*>(expr), scope);
    case ast::Kind::Not: return emitOperators(expr, scope);
    case ast::Kind::Conditional: return emitConditional(static_cast<const ast::Conditional*>(expr), scope, lhs);
    case ast::Kind::ListLit: return emitList(static_cast<const ast::ListLit*>(expr), scope, lhs);
    case ast::Kind::DictLit: return emitDict(static_cast<const ast::DictLit*>(expr), scope);
    case ast::Kind::MapLookup: return emitMapLookup(static_cast<const ast::MapLookup*>(expr), scope);
    case ast::Kind::IsDefined: return emitIsDefined(static_cast<const ast::IsDefined*>(expr), scope);
    case ast::Kind::StringFormat: return emitStringFormat(static_cast<const ast::StringFormat*>(expr), scope);
    case ast::Kind::FString: return emitFString(static_cast<const ast::FString*>(expr), scope);
    case ast::Kind::ListComp: return emitListComp(static_cast<const ast::ListComp*>(expr), scope, lhs);
    case ast::Kind::Call: return emitCall(static_cast<const ast::Call*>(expr), scope);
    case ast::Kind::AttrRef: return emitAttrRef(static_cast<const ast::AttrRef*>(expr), scope);
    case ast::Kind::Constructor: return emitConstructor(static_cast<const ast::Constructor*>(expr), scope, lhs);
    case ast::Kind::IndexLookup: return emitIndexLookup(static_cast<const ast::IndexLookup*>(expr), scope);
    case ast::Kind::ShortIndexLookup:
      return emitShortIndexLookup(static_cast<const ast::ShortIndexLookup*>(expr), scope);
    INMANTA_AST_STATEMENT_CASES:
      break;  // (statements are never emitted as expressions)
  }
  throw std::logic_error(std::string("no evaluation for the expression kind ") + ast::kindName(expr->kind));
}

Variable* Evaluator::lookup(const ast::Name& name, Scope* scope) {
  std::string_view text = name.text();
  size_t sep = text.rfind("::");
  if (sep != std::string_view::npos) {
    std::string_view prefix = text.substr(0, sep);
    auto vis = scope->ns->visible.find(prefix);
    if (vis == scope->ns->visible.end())
      fail(ErrorKind::NotFoundException,
           "Namespace " + std::string(prefix) + " not found. Try importing it with `import " + std::string(prefix) +
               "`",
           name.loc, true);
    Scope* top = topScopes_.at(vis->second);
    Variable* found = top->own(text.substr(sep + 2));
    if (found == nullptr)
      fail(ErrorKind::NotFoundException, "variable " + std::string(text.substr(sep + 2)) + " not found", name.loc,
           true);
    return found;
  }
  if (Variable* v = scope->find(name)) return v;
  fail(ErrorKind::NotFoundException, "variable " + std::string(text) + " not found", name.loc, true);
}

void Evaluator::emitOperands(const ast::Expr* e, Scope* scope, runtime::VarList& out) {
  if (!isOperator(e)) return out.push_back(emit(e, scope));
  if (e->kind == ast::Kind::Not) return emitOperands(static_cast<const ast::Not*>(e)->operand, scope, out);
  auto* b = static_cast<const ast::Binary*>(e);
  emitOperands(b->lhs, scope, out);
  emitOperands(b->rhs, scope, out);
}

Variable* Evaluator::emitOperators(const ast::Expr* e, Scope* scope) {
  // operators nested in one another make one direct value, not one each: the inner ones' values
  // were read by the outer one only
  runtime::VarList operands;
  emitOperands(e, scope, operands);
  return scheduler_.makeDirect(std::move(operands), [e](const runtime::VarList& in) -> Value {
    size_t next = 0;
    return applyOperators(e, in, next);
  });
}

Variable* Evaluator::emitBinary(const ast::Binary* b, Scope* scope) {
  if (b->op != ast::BinaryOp::And && b->op != ast::BinaryOp::Or) return emitOperators(b, scope);
  // lazy: the right operand is emitted only when the left one does not decide
  Variable* left = emit(b->lhs, scope);
  Variable* result = scheduler_.makePlain();
  scheduler_.unit(
      {left},
      [this, left, result, b, scope] {
        Value l = left->get();
        switch (lazyLeft(b->op, l, b->loc())) {
          case LazyOutcome::Unknown: return result->set(Value::unknown(), b->loc());
          case LazyOutcome::Left: return result->set(l, b->loc());
          case LazyOutcome::Right: break;
        }
        Variable* right = emit(b->rhs, scope);
        scheduler_.unit(
            {right}, [right, result, b] { result->set(lazyRight(b->op, right->get(), b->loc(), false), b->loc()); },
            "and/or", b->loc(), true);
      },
      "and/or", b->loc(), true);
  return result;
}

Variable* Evaluator::emitConditional(const ast::Conditional* c, Scope* scope, const Lhs* lhs) {
  Variable* cond = emit(c->condition, scope);
  Variable* result = scheduler_.makePlain();
  scheduler_.unit(
      {cond},
      [this, cond, result, c, scope, lhsCopy = lhs ? std::optional<Lhs>(*lhs) : std::nullopt] {
        Value v = cond->get();
        if (v.isUnknown()) return result->set(Value::unknown(), c->loc());
        Variable* branch =
            emit(conditionHolds(v, c->loc()) ? c->whenTrue : c->whenFalse, scope, lhsCopy ? &*lhsCopy : nullptr);
        scheduler_.unit(
            {branch}, [branch, result, c] { result->set(branch->get(), c->loc()); }, "conditional", c->loc(), true);
      },
      "conditional", c->loc(), true);
  return result;
}

Variable* Evaluator::emitList(const ast::ListLit* l, Scope* scope, const Lhs* lhs) {
  auto build = [](size_t n, auto&& element) {
    ValueList out;
    for (size_t i = 0; i < n; ++i) runtime::appendSpliced(out, element(i));
    return Value(std::move(out));
  };
  if (std::all_of(l->elements.begin(), l->elements.end(), isLiteral))
    return constantVariable(l->annotation, [&] {
      return build(l->elements.size(),
                   [&](size_t i) { return static_cast<const ast::Literal*>(l->elements[i])->value(); });
    });
  runtime::VarList elements;
  for (const ast::Expr* e : l->elements) elements.push_back(emit(e, scope, lhs));
  return scheduler_.makeDirect(std::move(elements), [build](const runtime::VarList& in) -> Value {
    return build(in.size(), [&](size_t i) { return in[i]->get(); });
  });
}

Variable* Evaluator::emitDict(const ast::DictLit* d, Scope* scope) {
  auto build = [d](auto&& value) {
    ValueDict out;
    out.items.reserve(d->entries.size());
    for (size_t i = 0; i < d->entries.size(); ++i) out.items.emplace_back(d->entries[i].key, value(i));
    return Value(std::move(out));
  };
  if (std::all_of(d->entries.begin(), d->entries.end(), [](const auto& entry) { return isLiteral(entry.value); }))
    return constantVariable(d->annotation, [&] {
      return build([&](size_t i) { return static_cast<const ast::Literal*>(d->entries[i].value)->value(); });
    });
  runtime::VarList values;
  for (const auto& [k, v] : d->entries) values.push_back(emit(v, scope));
  return scheduler_.makeDirect(std::move(values), [build](const runtime::VarList& in) -> Value {
    return build([&](size_t i) { return in[i]->get(); });
  });
}

Variable* Evaluator::emitMapLookup(const ast::MapLookup* m, Scope* scope) {
  Variable* map = emit(m->map, scope);
  Variable* key = emit(m->key, scope);
  return scheduler_.makeDirect({map, key}, [map, key, m]() -> Value {
    Value d = map->get();
    Value k = key->get();
    if (d.isUnknown() || k.isUnknown()) return Value::unknown();
    if (!d.isDict())
      fail(ErrorKind::TypingException,
           "dict lookup is only possible on dicts, " + runtime::str(d) + " is not an object", m->loc());
    if (!k.isString())
      fail(ErrorKind::TypingException, "dict keys must be string, " + runtime::str(k) + " is not a string", m->loc());
    const Value* found = d.asDict().find(k.asString());
    if (found == nullptr) {
      std::string options;
      for (const auto& [name, v] : d.asDict().items) options += (options.empty() ? "" : ",") + name;
      fail(ErrorKind::KeyException, "key " + k.asString() + " not found in dict, options are [" + options + "]",
           m->loc());
    }
    return *found;
  });
}

Variable* Evaluator::emitIsDefined(const ast::IsDefined* d, Scope* scope) {
  Variable* result = scheduler_.makePlain();
  // spec 4.11: a relation is defined as soon as a known value arrives; otherwise decide once
  // the slot is complete
  auto onSlot = [this, result, d](Variable* slot) {
    if (slot->kind() == Variable::Kind::List) {
      collectors_.push_back(std::make_unique<IsDefinedListener>(result, d->loc()));
      slot->listen(collectors_.back().get(), d->loc());
    }
    scheduler_.unit(
        {slot},
        [slot, result, d] {
          if (result->isReady()) return;
          // an empty optional relation is not defined (reading it would raise)
          if (slot->kind() == Variable::Kind::Option && slot->isReady() && slot->current().isNull())
            return result->set(Value(false), d->loc());
          const Value& x = slot->get();
          if (x.isUnknown()) return result->set(Value::unknown(), d->loc());
          if (x.isNull()) return result->set(Value(false), d->loc());
          if (x.isList()) {
            if (x.asList().empty()) return result->set(Value(false), d->loc());
            if (std::all_of(x.asList().begin(), x.asList().end(), [](const Value& e) { return e.isUnknown(); }))
              return result->set(Value::unknown(), d->loc());
          }
          result->set(Value(true), d->loc());
        },
        "is defined", d->loc(), true);
  };
  if (d->object == nullptr) {
    onSlot(lookup(d->attribute, scope));
    return result;
  }
  Variable* object = emit(d->object, scope);
  scheduler_.unit(
      {object},
      [object, d, onSlot] {
        Value o = object->get();
        Variable* slot = attributeSlot(o, d->attribute.text(), d->object, d->loc());
        onSlot(slot);
      },
      "is defined", d->loc(), true);
  return result;
}

Variable* Evaluator::emitStringFormat(const ast::StringFormat* f, Scope* scope) {
  runtime::VarList refs;
  for (const auto& p : f->parts) refs.push_back(emit(p.ref, scope));
  return scheduler_.makeDirect(std::move(refs), [this, f](const runtime::VarList& in) -> Value {
    return formatString(f, valuesOf(in));
  });
}

Variable* Evaluator::emitFString(const ast::FString* f, Scope* scope) {
  runtime::VarList refs;
  for (const auto& r : f->refs) refs.push_back(emit(r.ref, scope));
  return scheduler_.makeDirect(std::move(refs), [this, f](const runtime::VarList& in) -> Value {
    return formatFString(f, valuesOf(in));
  });
}

Variable* Evaluator::emitListComp(const ast::ListComp* c, Scope* scope, const Lhs* lhs) {
  Variable* iterable = emit(c->iterable, scope);
  Variable* result = scheduler_.makePlain();
  scheduler_.unit(
      {iterable},
      [this, iterable, result, c, scope, lhsCopy = lhs ? std::optional<Lhs>(*lhs) : std::nullopt] {
        Value it = iterable->get();
        if (it.isUnknown()) return result->set(Value(ValueList{Value::unknown()}), c->loc());
        if (!it.isList())
          fail(ErrorKind::TypingException,
               "A list comprehension can only be applied to lists and relations, got " + runtime::pythonTypeName(it),
               c->loc());
        // per element: the guard, then the value when the guard holds
        std::vector<Variable*> parts;
        for (const Value& element : it.asList()) {
          Scope* inner = loopScope(scope, c->variable, element, c->loc());
          Variable* part = scheduler_.makePlain();
          parts.push_back(part);
          auto emitValue = [this, c, inner, part, element, lhsCopy] {
            if (element.isUnknown()) return part->set(Value::unknown(), c->loc());
            Variable* v = emit(c->value, inner, lhsCopy ? &*lhsCopy : nullptr);
            scheduler_.unit(
                {v}, [v, part, c] { part->set(v->get(), c->loc()); }, "list comprehension", c->loc(), true);
          };
          if (c->guard == nullptr) {
            emitValue();
            continue;
          }
          Variable* guard = emit(c->guard, inner);
          scheduler_.unit(
              {guard},
              [guard, part, c, element, emitValue] {
                Value g = guard->get();
                if (g.isUnknown()) return part->set(Value::unknown(), c->loc());
                if (!conditionHolds(g, c->loc())) return part->set(Value(ValueList{}), c->loc());
                emitValue();
              },
              "list comprehension", c->loc(), true);
        }
        scheduler_.unit(
            runtime::VarList(parts),
            [parts, result, c] {
              ValueList out;
              for (Variable* p : parts) runtime::appendSpliced(out, p->get());
              result->set(Value(std::move(out)), c->loc());
            },
            "list comprehension", c->loc(), true);
      },
      "list comprehension", c->loc(), true);
  return result;
}

Variable* Evaluator::emitCall(const ast::Call* call, Scope* scope) {
  std::string_view name = call->function.text();
  // the inputs: the positional arguments, the named ones, then the ** dicts, in that order
  auto emitArguments = [&] {
    runtime::VarList all;
    for (const ast::Expr* a : call->args) all.push_back(emit(a, scope));
    for (const ast::KwArg& kw : call->named.kwargs) all.push_back(emit(kw.value, scope));
    for (const ast::Expr* w : call->named.wrapped) all.push_back(emit(w, scope));
    return all;
  };
  if (std::optional<runtime::CastType> to = runtime::castTypeNamed(name)) {
    if (!call->named.kwargs.empty() || !call->named.wrapped.empty() || call->args.size() != 1) {
      // as the reference's cast function: the arguments are evaluated, then refused
      return scheduler_.makeDirect(emitArguments(), [call](const runtime::VarList& in) -> Value {
        for (Variable* v : in) (void)v->get();
        if (!call->named.kwargs.empty() || !call->named.wrapped.empty())
          fail(ErrorKind::RuntimeException, "Only positional arguments allowed in type cast", call->loc(), true);
        std::string args;
        for (size_t i = 0; i < call->args.size(); ++i) args += (i ? "," : "") + runtime::repr(in[i]->get());
        fail(ErrorKind::RuntimeException, "Illegal arguments " + args + ": type cast expects exactly 1 argument",
             call->loc(), true);
      });
    }
    Variable* arg = emit(call->args[0], scope);
    return scheduler_.makeDirect({arg},
                                 [arg, to = *to, call]() -> Value { return applyCast(to, arg->get(), call->loc()); });
  }
  const model::Type* primitive = nullptr;
  const model::Definition* def = sema::resolveName(model_, scope->ns, call->function, &primitive);
  if (def == nullptr || def->kind != model::Definition::Kind::Plugin)
    fail(ErrorKind::RuntimeException,
         "Can not call '" + std::string(name) + "', can only call plugin or primitive type cast", call->loc(), true);
  const PluginSpec* plugin = def->plugin();
  model::Namespace* ns = scope->ns;
  return scheduler_.makeDirect(emitArguments(), [this, plugin, call, ns, scope](const runtime::VarList& in) -> Value {
    size_t next = 0;
    std::vector<Value> args;
    args.reserve(call->args.size());
    for (size_t i = 0; i < call->args.size(); ++i) args.push_back(in[next++]->get());
    std::vector<std::pair<std::string, Value>> kwargs;
    for (const ast::KwArg& kw : call->named.kwargs) kwargs.emplace_back(std::string(kw.name.text()), in[next++]->get());
    for (; next < in.size(); ++next) {
      Value d = in[next]->get();
      // (an unknown is not a dict either: the reference's WrappedKwargs refuses it)
      if (!d.isDict())
        fail(ErrorKind::TypingException, "The ** operator can only be applied to dictionaries", call->loc(), true);
      for (const auto& [k, v] : d.asDict().items) {
        for (const auto& existing : kwargs)
          if (existing.first == k)
            fail(ErrorKind::RuntimeException, "Keyword argument " + k + " repeated in function call", call->loc(),
                 true);
        kwargs.emplace_back(k, v);
      }
    }
    context_->callingNs = ns;
    context_->location = call->loc();
    context_->scope = scope;
    return callPlugin(*plugin, call->loc(), args, kwargs, false, call);
  });
}

Variable* Evaluator::emitIndexLookup(const ast::IndexLookup* l, Scope* scope) {
  const model::Type* primitive = nullptr;
  const model::Definition* def = sema::resolveName(model_, scope->ns, l->type, &primitive);
  if (def == nullptr || def->kind != model::Definition::Kind::Entity)
    fail(ErrorKind::TypingException, std::string(l->type.text()) + " is not an entity", l->loc());
  std::vector<std::pair<std::string, Variable*>> args;
  for (const ast::KwArg& kw : l->named.kwargs) args.emplace_back(std::string(kw.name.text()), emit(kw.value, scope));
  std::vector<Variable*> wrapped;
  for (const ast::Expr* w : l->named.wrapped) wrapped.push_back(emit(w, scope));
  return lookupInIndex(def->entity(), std::move(args), std::move(wrapped), {}, l);
}

Variable* Evaluator::emitShortIndexLookup(const ast::ShortIndexLookup* l, Scope* scope) {
  Variable* object = emit(l->object, scope);
  std::vector<std::pair<std::string, Variable*>> args;
  for (const ast::KwArg& kw : l->named.kwargs) args.emplace_back(std::string(kw.name.text()), emit(kw.value, scope));
  std::vector<Variable*> wrapped;
  for (const ast::Expr* w : l->named.wrapped) wrapped.push_back(emit(w, scope));
  Variable* result = scheduler_.makePlain();
  scheduler_.unit(
      {object},
      [this, object, l, args, wrapped, result] {
        Value o = object->get();
        std::string rel(l->relation.text());
        if (!o.isInstance())
          fail(ErrorKind::TypingException,
               "short index lookup is only possible on an instance, " + runtime::repr(o) + " is not an instance",
               l->loc());
        auto* instance = static_cast<runtime::Instance*>(o.asInstance());
        const model::Attribute* attr = instance->entity->attribute(rel);
        // (a name that is no attribute at all is not a relation either: the reference names it None)
        if (attr == nullptr)
          fail(ErrorKind::TypingException, "short index lookup is only possible on relations, None is an attribute",
               l->loc());
        if (!attr->isRelation)
          fail(ErrorKind::TypingException,
               "short index lookup is only possible on relations, " + rel + " is an attribute", l->loc());
        if (attr->inverse == nullptr)
          fail(ErrorKind::TypingException,
               "short index lookup is only possible on bi-drectional relations, " + attr->entity->fullName + "." + rel +
                   " is unidirectional",
               l->loc());
        Variable* found = lookupInIndex(attr->target(), args, wrapped,
                                        {{attr->inverse->name, Value(static_cast<runtime::InstanceBase*>(instance))}},
                                        l);
        scheduler_.unit(
            {found}, [found, result, l] { result->set(found->get(), l->loc()); }, "index lookup", l->loc(), true);
      },
      "index lookup", l->loc(), true);
  return result;
}

// ------------------------------------------------------------------ strings (spec 1.7, 5.4)

Value Evaluator::formatString(const ast::StringFormat* fmt, const std::vector<Value>& values) {
  std::string out = fmt->text;
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i].isUnknown()) return Value::unknown();
    std::string rendered = renderInterpolated(values[i]);
    const std::string& match = fmt->parts[i].match;
    for (size_t pos = out.find(match); pos != std::string::npos; pos = out.find(match, pos + rendered.size()))
      out.replace(pos, match.size(), rendered);
  }
  return Value(out);
}

Value Evaluator::formatFString(const ast::FString* fmt, const std::vector<Value>& values) {
  std::vector<std::pair<std::string, Value>> fields;
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i].isUnknown()) return Value::unknown();
    fields.emplace_back(fmt->refs[i].key, values[i]);
  }
  std::string error;
  std::optional<std::string> result = formatPython(fmt->format, fields, error);
  if (!result) fail(ErrorKind::RuntimeException, error, fmt->loc(), true);
  return Value(*result);
}

}  // namespace inmanta::compiler::exec
