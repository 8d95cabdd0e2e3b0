#include "compiler/exec/evaluator_impl.h"

#include "compiler/exec/plugin_context.h"
#include "compiler/sema/precedence.h"
#include "compiler/sema/shadowing.h"

#include <atomic>

namespace inmanta::compiler::exec {

namespace {
std::string renderExpr(const void* e) { return ast::dump(static_cast<const ast::Expr*>(e)); }
std::string renderAssign(const void* target) { return ast::dump(static_cast<const ast::Expr*>(target)) + " = ..."; }
}  // namespace

runtime::UnitLabel exprLabel(const ast::Expr* e) { return runtime::UnitLabel::rendered<&renderExpr>(e); }
runtime::UnitLabel assignLabel(const ast::Expr* target) { return runtime::UnitLabel::rendered<&renderAssign>(target); }

Variable* attributeSlot(const Value& o, std::string_view attribute, const ast::Expr* objectExpr, SourceLocation at) {
  auto* instance = o.isInstance() ? static_cast<runtime::Instance*>(o.asInstance()) : nullptr;
  if (instance != nullptr)
    if (Variable* slot = instance->slot(attribute)) return slot;
  std::string name(attribute);
  if (o.isList())
    fail(ErrorKind::RuntimeException,
         "can not get attribute " + name + ", " + runtime::repr(o) + " is not an entity but a list", at);
  if (!o.isInstance())
    fail(ErrorKind::RuntimeException,
         "can not get attribute " + name + ", " + ast::dump(objectExpr) + " is not an entity but a " +
             runtime::pythonTypeName(o) + " with value '" + runtime::str(o) + "'",
         at);
  fail(ErrorKind::NotFoundException,
       "could not find attribute with name: " + name + " in type " + instance->entity->fullName, at);
}

// ------------------------------------------------------------------ setup and run

Evaluator::Evaluator(model::Model& model, const PluginRegistry& plugins, const SourceManager& sources,
                     ExecOptions options)
    : model_(model),
      plugins_(plugins),
      sources_(sources),
      options_(std::move(options)),
      scheduler_(runtime::MessageContext{[this](const SourceLocation& l) { return where(l); }}),
      context_(std::make_unique<Context>(*this)) {
  static std::atomic<uint64_t> evaluators{0};
  generation_ = ++evaluators;
}

std::string Evaluator::where(const SourceLocation& loc) const { return sources_.format(loc, false); }

Evaluator::~Evaluator() { deleteLiveSinks(); }

void Evaluator::run() {
  sema::normalize(
      model_, [this](const model::Typedef& t, const Value& x) { return checkConstraint(t, x); },
      [this](const ast::Constructor* ctor, const model::Entity* entity) { annotateEntity(ctor, entity); });
  freezeRanks_ = sema::relationFreezeRanks(model_, options_.relationPrecedencePolicy,
                                           [this](std::string_view level, const std::string& message) {
                                             if (options_.log)
                                               options_.log("inmanta.execute.scheduler", level, message);
                                           });
  // every file's top-level scope first: qualified references may point into any of them
  std::vector<TopLevel> tops;
  tops.reserve(model_.namespaces().size());
  for (const auto& ns : model_.namespaces()) {
    Scope* top = &scopes_.emplace_back(nullptr, ns.get(), symbolBindings_);
    topScopes_[ns.get()] = top;
    declareTopLevel(tops.emplace_back(TopLevel{&ns->file->statements, top, {}}));
  }
  // a variable that hides one of an enclosing block is reported (as the reference does before
  // it runs a file's statements); the top level hides nothing, and its variables are its scope's
  for (TopLevel& top : tops)
    sema::warnShadowedVariables(
        *top.block, top.withBlocks, [&top](std::string_view name) { return top.scope->own(name) != nullptr; }, sources_,
        options_.warn);
  for (const auto& ns : model_.namespaces()) emitBlock(ns->file->statements, topScopes_[ns.get()], true);
  std::vector<runtime::Waiter*> left = scheduler_.run(options_.maxIterations);
  finalChecks();
  if (!left.empty()) {
    runtime::Waiter* first = left.front();
    for (runtime::Waiter* w : left)
      if (w->isExecutionUnit()) {
        first = w;
        break;
      }
    std::string names;
    for (runtime::Waiter* w : left) names += (names.empty() ? "" : ", ") + w->describe();
    fail(ErrorKind::RuntimeException, "not all statements executed: [" + names + "]", first->location());
  }
}

Execution::Execution(model::Model& model, const PluginRegistry& plugins, const SourceManager& sources,
                     ExecOptions options)
    : evaluator_(new Evaluator(model, plugins, sources, std::move(options))) {}

Execution::~Execution() {
  if (owned_) delete evaluator_;
}

void Execution::run() { evaluator_->run(); }

const std::vector<runtime::Instance*>& Execution::instances() const { return evaluator_->instances(); }

const std::vector<UnknownParameter>& Execution::unknownParameters() const { return evaluator_->unknownParameters(); }

}  // namespace inmanta::compiler::exec
