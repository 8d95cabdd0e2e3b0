#include "compiler/exec/evaluator_impl.h"

namespace inmanta::compiler::exec {

const std::vector<const model::ImplementRule*>& Evaluator::implementRulesOf(const model::Entity* entity) {
  auto [it, added] = implementRules_.try_emplace(entity);
  if (added) {
    // own rules, then (with `parents`) the parents' rules, in that order, once per entity
    // as the reference's Entity.get_implements: the own rules, then, when one of them says
    // `using parents`, the parents' rules (each collected the same way), left to right
    std::vector<const model::ImplementRule*>& rules = it->second;
    std::function<void(const model::Entity*)> collect = [&](const model::Entity* e) {
      bool inherit = false;
      for (const model::ImplementRule& r : e->rules) {
        rules.push_back(&r);
        inherit = inherit || r.inheritParents;
      }
      if (inherit)
        for (const model::Entity* p : e->parents) collect(p);
    };
    collect(entity);
  }
  return it->second;
}

Scope* Evaluator::instanceScope(runtime::Instance* instance, model::Namespace* ns) {
  // it declares nothing (it holds `self`): the `when` conditions and implementations of one
  // namespace share it
  if (auto* known = static_cast<Scope*>(instance->scope); known != nullptr && known->ns == ns) return known;
  Scope* s = &scopes_.emplace_back(topScopes_.at(ns), ns, instance);
  instance->scope = s;
  return s;
}

void Evaluator::selectImplementations(runtime::Instance* instance) {
  // one unit per rule, as the reference's SubConstructor (an execution unit even without `when`)
  for (const model::ImplementRule* rule : implementRulesOf(instance->entity)) {
    if (rule->when == nullptr) {
      scheduler_.unit(
          {},
          [this, rule, instance] {
            for (const model::Implementation* impl : rule->implementations) runImplementation(instance, impl);
          },
          "implement", rule->location, true);
      continue;
    }
    Scope* scope = instanceScope(instance, rule->ns);
    Variable* cond = emit(rule->when, scope);
    scheduler_.unit(
        {cond},
        [this, cond, rule, instance] {
          Value c = cond->get();
          if (c.isUnknown()) return;
          if (!c.isBool())
            fail(ErrorKind::RuntimeException,
                 "Invalid value `" + runtime::str(c) +
                     "`: the condition for a conditional implementation can only be a boolean expression",
                 rule->when->loc());
          if (!c.asBool()) return;
          for (const model::Implementation* impl : rule->implementations) runImplementation(instance, impl);
        },
        "implement ... when", rule->location, true);
  }
}

void Evaluator::runImplementation(runtime::Instance* instance, const model::Implementation* impl) {
  if (!instance->markImplementation(impl)) return;  // (run already)
  const ast::Block& statements = impl->definition->body;
  if (statements.empty()) return;  // std::none and the like: nothing to declare or emit
  emitBlock(statements, blockScope(statements, instanceScope(instance, impl->ns)), false);
}

}  // namespace inmanta::compiler::exec
