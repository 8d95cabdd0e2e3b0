// The evaluator's own header (not for the driver: compiler/exec/evaluator.h is the public one).
// One class, Evaluator, spread over one file per construct, as Clang spreads Sema:
//   evaluator.cpp      setup, run, the helpers every part shares
//   statements.cpp     block scopes and statements (spec 2.5, 3.13)
//   expressions.cpp    one emit function per expression kind (spec 5)
//   operators.cpp      the operators on values, shared with direct execution (operators.h)
//   plugin_calls.cpp   the plugin context and plugin calls (spec 4.13)
//   constraints.cpp    typedef constraints and direct execution (spec 3.6)
//   constructors.cpp   entity plans, instances and constructor calls (spec 4.8)
//   assignments.cpp    attribute assignments and references (spec 4.8 step 6)
//   implementations.cpp implement rules and implementation bodies (spec 4.9)
//   indexes.cpp        index keys, tables and lookups (spec 4.10)
//   gradual.cpp        gradual execution and progression promises (spec 4.5, 4.6)
//   final_checks.cpp   what is checked after the scheduler stops (spec 4.14)
// The static checks it runs first are compiler/sema/'s.
#pragma once

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <memory_resource>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "compiler/ast/ast.h"
#include "compiler/diag/diagnostic.h"
#include "compiler/exec/evaluator.h"
#include "compiler/exec/fail.h"
#include "compiler/exec/index_table.h"
#include "compiler/exec/scope.h"
#include "compiler/model/model.h"
#include "compiler/parse/pyregex.h"
#include "compiler/plugin.h"
#include "compiler/resource_types.h"
#include "compiler/runtime/instance.h"
#include "compiler/runtime/scheduler.h"
#include "compiler/sema/normalize.h"
#include "compiler/source/source.h"

namespace inmanta::compiler::exec {

using runtime::Value;
using runtime::ValueDict;
using runtime::ValueList;
using runtime::Variable;

// Values by attribute name, as a construction or an index lookup has them (the names are the
// syntax tree's, the model's or a dictionary's, which outlive the list).
using NamedValue = std::pair<std::string_view, Value>;
using NamedValues = std::span<const NamedValue>;

// Unit labels rendered from the syntax only when "not all statements executed" needs them: an
// expression's, an assignment's (`x.a = ...`).
runtime::UnitLabel exprLabel(const ast::Expr* e);
runtime::UnitLabel assignLabel(const ast::Expr* target);

// The slot of attribute `attribute` of the instance `o`, the value of `objectExpr` (spec 5.8
// errors at `at`).
Variable* attributeSlot(const Value& o, std::string_view attribute, const ast::Expr* objectExpr, SourceLocation at);

// True when the direct value of `e` computes without plugin calls and constructions, whatever its
// inputs: the expressions with units of their own (attribute references, conditionals, ...)
// count as inputs.
bool computedPurely(const ast::Expr* e);

// Executing a defined model (spec 4): every top-level statement of every file is emitted into
// the scheduler as units that wait for the variables they read. Each expression is emitted
// into a result variable that its consumer waits on. The expressions the reference evaluates
// directly (operators, plugin calls, casts, literals, lookups, formatting) are computed in the
// unit that reads them; the others add units of their own where the reference stages them
// (conditionals, lazy boolean operators, attribute chains, index lookups).
class Evaluator {
 public:
  Evaluator(model::Model& model, const PluginRegistry& plugins, const SourceManager& sources, ExecOptions options);
  ~Evaluator();
  // Emits every file's top-level statements, runs the scheduler and the final checks. Throws
  // CompileError for the model's errors.
  void run();
  // Every instance made by the run, in creation order (read by the exporter).
  const std::vector<runtime::Instance*>& instances() const { return instances_.all(); }
  // The facts plugins could not get from the server, in the order they were asked.
  const std::vector<UnknownParameter>& unknownParameters() const { return unknownParameters_; }

 private:
  class Context;
  friend class Context;

  // Declares a variable of that name in `scope` unless it has one.
  void declareVariable(Scope* scope, const ast::Name& name);
  void declare(const ast::Block& block, Scope* scope);
  // The scope of a nested block, with the variables it declares: a new one inside `enclosing`,
  // or `enclosing` itself when the block declares none.
  Scope* blockScope(const ast::Block& block, Scope* enclosing);
  void emitBlock(const ast::Block& block, Scope* scope, bool topLevel);
  void emitStatement(const ast::Stmt* stmt, Scope* scope);
  // A `for` statement: its body for each value of its iterable as it is known (gradual.cpp).
  void emitFor(const ast::For* f, Scope* scope);

  // The relation a value is assigned to, for the implicit inverse of constructors (spec 4.8).
  struct Lhs {
    runtime::Instance* instance;
    const model::Attribute* attribute;
  };
  // Emits `expr` and returns the variable its value will be in.
  Variable* emit(const ast::Expr* expr, Scope* scope, const Lhs* lhs = nullptr);
  Variable* lookup(const ast::Name& name, Scope* scope);
  // The ready variable holding a literal's value: made once per literal and compile, when an
  // expression reads the literal as a variable.
  // The ready variable of a value that is the same every time a node is evaluated (a literal, a
  // list or dict of literals): made once per node and compile, kept in the node's annotation.
  template <class F>
  Variable* constantVariable(ast::Annotation& annotation, F value);
  // An expression used as a statement: emitted, and read by a unit when nothing else reads it.
  void evaluateStatement(const ast::Expr* expr, Scope* scope);
  // Binds, checks and runs a plugin call written at `at` (spec 4.13). A nested call (a plugin
  // calling another through its context) lets the callee's failures pass unwrapped. `written`:
  // the call's syntax, when the call is the model's, whose arguments are where a value the
  // plugin's types refuse is reported (issue 32), the call a note.
  Value callPlugin(const PluginSpec& plugin, SourceLocation at, const std::vector<Value>& positional,
                   const std::vector<std::pair<std::string, Value>>& named, bool nested = false,
                   const ast::Call* written = nullptr);
  Value formatString(const ast::StringFormat* fmt, const std::vector<Value>& values);
  Value formatFString(const ast::FString* fmt, const std::vector<Value>& values);
  std::optional<Diagnostic> checkConstraint(const model::Typedef& t, const Value& v);
  std::optional<Diagnostic> evaluateConstraint(const model::Typedef& t, const Value& v);
  struct ConstraintMemo {
    static constexpr size_t kLimit = 4096;
    bool pure = false;  // no plugin calls: the verdict depends on the value alone
    std::unordered_set<std::string> strings;
    std::unordered_set<int64_t> ints;
  };
  std::unordered_map<const model::Typedef*, ConstraintMemo> constraintMemos_;
  struct EntityPlan;
  runtime::Instance* createInstance(const model::Entity* entity, const EntityPlan& plan, SourceLocation at);
  // Fails when options_.memoryExceeded says the compile has grown past its limit (the instance
  // just made at `at`).
  void checkMemory(SourceLocation at) const;
  // (static: the units that assign keep no evaluator)
  static void setAttribute(runtime::Instance* instance, const model::Attribute* attribute, const Value& value,
                           SourceLocation at, bool recur);
  // Sets it to the value of `value`, read here: a failure to compute it is the assignment's too.
  static void setAttribute(runtime::Instance* instance, const model::Attribute* attribute, Variable* value,
                           SourceLocation at);
  // The AttributeException of a failed assignment, caused by `cause`.
  [[noreturn]] static void attributeFailure(runtime::Instance* instance, const model::Attribute* attribute,
                                            Diagnostic cause, SourceLocation at);
  // Moves the AttributeException `d` of an assignment that `source` made (issue 32) to the
  // smallest construct that is wrong: a constructor's argument (`content=1`, `source` the
  // constructor), an assignment statement's value (`source` the statement); the statement
  // becomes a note, and a cause with no place of its own (a value the type refuses) is the
  // value's. Anything else is left as it is.
  static void pointAtAssignedPart(Diagnostic& d, const ast::Node* source, const model::Attribute* attribute);
  class AssignmentBatch;
  // The unit of an attribute assignment: sets the attribute from `value` once it is ready, then
  // keeps `promise` (on the slot), if any. It names itself (for "not all statements executed")
  // by what it assigns: a constructor's argument (`Entity(attr=...)`), a default (`default
  // attr`) or the target of an assignment statement (`x.attr = ...`). `source` is the
  // constructor of an argument or the assignment statement (pointAtAssignedPart).
  class AssignmentUnit;
  enum class AssignmentOf : uint8_t { Argument, Default, Statement };
  void assignmentUnit(runtime::Instance* instance, const model::Attribute* attribute, Variable* value,
                      runtime::Promise* promise, SourceLocation at, AssignmentOf of, const ast::Node* source = nullptr);
  // The same from an attribute reference's slot itself, as the reference's SetAttributeHelper waits
  // for the attribute: a failure to read it (an empty optional) is this assignment's.
  void assignFromAttribute(runtime::Instance* instance, const model::Attribute* attribute, const ast::AttrRef* ref,
                           Scope* scope, runtime::Promise* promise, SourceLocation at, AssignmentOf of,
                           const ast::Node* source = nullptr);
  // Calls `then` with the slot `ref` names once its object is known (in a unit named by `ref`).
  template <class F>
  void whenSlot(const ast::AttrRef* ref, Scope* scope, F then);
  // One emit function per expression kind (emit dispatches; expressions.cpp unless named).
  Variable* emitBinary(const ast::Binary* b, Scope* scope);
  Variable* emitConditional(const ast::Conditional* c, Scope* scope, const Lhs* lhs);
  Variable* emitList(const ast::ListLit* l, Scope* scope, const Lhs* lhs);
  Variable* emitDict(const ast::DictLit* d, Scope* scope);
  Variable* emitMapLookup(const ast::MapLookup* m, Scope* scope);
  Variable* emitIsDefined(const ast::IsDefined* d, Scope* scope);
  Variable* emitStringFormat(const ast::StringFormat* f, Scope* scope);
  Variable* emitFString(const ast::FString* f, Scope* scope);
  Variable* emitListComp(const ast::ListComp* c, Scope* scope, const Lhs* lhs);
  Variable* emitCall(const ast::Call* call, Scope* scope);
  Variable* emitIndexLookup(const ast::IndexLookup* l, Scope* scope);
  Variable* emitShortIndexLookup(const ast::ShortIndexLookup* l, Scope* scope);
  Variable* emitConstructor(const ast::Constructor* ctor, Scope* scope, const Lhs* lhs);  // constructors.cpp
  Variable* emitAttrRef(const ast::AttrRef* ref, Scope* scope);                           // assignments.cpp
  // An operator (isOperator) and the operators nested in it, as one direct value over the other
  // operands (emitOperands: their variables, in the order written).
  Variable* emitOperators(const ast::Expr* e, Scope* scope);
  void emitOperands(const ast::Expr* e, Scope* scope, runtime::VarList& out);
  void emitAttributeAssign(const ast::Assign* assign, Scope* scope);
  // Adds the values of `value` to a list relation as soon as each is known (spec 4.5), then keeps
  // `promise` (if any) on it.
  void assignGradual(const ast::Expr* value, Scope* scope, runtime::Instance* target, const model::Attribute* attr,
                     SourceLocation at, runtime::Promise* promise);
  // A consumer of gradual execution (spec 4.5): a list relation being assigned, a `for` loop, a
  // list comprehension's iterable.
  class GradualSink;
  class RelationSink;
  class ForSink;
  class ComprehensionSink;
  GradualSink* liveSinks_ = nullptr;  // those not complete (deleted with the evaluator)
  void deleteLiveSinks();
  // Feeds the values of `e` to `sink` one by one as each becomes known (spec 4.5): the values of
  // a list variable or relation as they arrive, the elements of a list literal and the results of
  // a list comprehension each as soon as it is computed, the branch a conditional chooses; any
  // other expression's value once computed. The sink stays open until every value is fed.
  // `whole`: `e` is the whole expression the sink consumes, not an element of a list built around
  // it. `lhs`: the relation the values go to (for constructors in `e`), if any.
  void feedGradual(const ast::Expr* e, Scope* scope, GradualSink* sink, const Lhs* lhs, bool whole);
  // The scope of one iteration of a `for` or a list comprehension: `variable` set to `value`.
  Scope* loopScope(Scope* outer, const ast::Name& variable, const Value& value, SourceLocation at);
  // Progression promises of an if/for on the attributes its body assigns (spec 4.6); returns the
  // function that fulfils them once the statement has committed.
  std::function<void()> eagerPromises(const ast::Block& body, const std::vector<std::string>& localNames, Scope* scope);
  // Calls `then` with the value of an attribute chain once it is known; an empty optional on the
  // way ends it quietly (for eager promises, spec 4.6).
  void whenInstance(const ast::Expr* expr, Scope* scope, std::function<void(const Value&)> then);
  void selectImplementations(runtime::Instance* instance);
  void runImplementation(runtime::Instance* instance, const model::Implementation* impl);
  class AttributePolicy;  // the runtime::SlotPolicy of an attribute's slots
  const runtime::SlotPolicy* slotPolicy(const model::Attribute* attribute);
  std::unordered_map<const model::Attribute*, int> freezeRanks_;
  // What creating an instance of an entity needs, worked out at its first instance.
  struct EntityPlan {
    std::vector<const runtime::SlotPolicy*> policies;  // parallel to entity->order
    runtime::SlotLayout layout;                        // of its instances' blocks
    struct Default {
      const std::string* name;
      const model::Attribute* attribute;
      size_t position;  // of its slot
      const ast::Expr* expr;
      Scope* scope;  // where the default is evaluated: its namespace's top level
      // an index attribute's literal default: a construction value when no argument gives it
      bool literalIndexDefault;
    };
    std::vector<Default> defaults;  // in the reference's order (entity->defaultOrder)
    // the slot of a plain attribute named `self`, which each instance's own `self` binding takes
    // (spec 3.7 [QUIRK]); -1 when the entity has none
    int selfSlot = -1;
  };
  const EntityPlan& planOf(const model::Entity* entity);
  // What evaluating a constructor expression needs beyond its values, worked out at its first
  // evaluation (kept on the syntax node): its entity, the attribute of each argument, which
  // arguments are index arguments, and the order of the other arguments' and the defaults' units.
  struct ConstructorPlan {
    const ast::Constructor* shapeOf = nullptr;  // the first call it was made for (its argument names)
    const model::Entity* entity = nullptr;
    const EntityPlan* entityPlan = nullptr;
    const std::vector<std::string>* indexAttributes = nullptr;
    std::vector<const model::Attribute*> attributes;  // parallel to the arguments
    std::vector<uint32_t> early;                      // the index arguments
    std::vector<uint32_t> late;                       // the others
    // an argument (kwarg >= 0) or a default (dflt: its place in entityPlan->defaults)
    struct Step {
      int32_t kwarg;
      int32_t dflt;
    };
    // for the construction values the plan assumes: the index arguments and the index
    // attributes' literal defaults
    std::vector<Step> steps;
  };
  const ConstructorPlan& constructorPlan(const ast::Constructor* ctor, Scope* scope);
  // What a constructor call's annotation holds for this evaluator: the entity, resolved before the
  // run with the type inference of a relation's argument (normalisation), until the plan is made
  // at its first evaluation, then the plan (which names the entity); null when it holds neither.
  const model::Entity* annotatedEntity(const ast::Constructor* ctor) const;
  const ConstructorPlan* annotatedPlan(const ast::Constructor* ctor) const;
  void annotateEntity(const ast::Constructor* ctor, const model::Entity* entity) const;
  void annotatePlan(const ast::Constructor* ctor, const ConstructorPlan* plan) const;
  static constexpr uintptr_t kPlanTag = 1;  // (the low bit of the word: both are 8-byte aligned)
  std::vector<ConstructorPlan::Step> constructorSteps(
      const ConstructorPlan& plan, const std::function<bool(const EntityPlan::Default&)>& isConstructionValue);
  std::deque<ConstructorPlan> constructorPlans_;  // stable addresses
  // the plans by a hash of their shape: entity and argument names
  std::unordered_multimap<uint64_t, ConstructorPlan*> plansByShape_;
  const std::vector<std::string>& indexAttributesOf(const model::Entity* entity);
  const std::vector<const model::ImplementRule*>& implementRulesOf(const model::Entity* entity);
  Scope* instanceScope(runtime::Instance* instance, model::Namespace* ns);
  // The key of `values` under the index of `attributes`, as messages show it (complete: false when
  // a value is missing).
  std::string indexKey(const std::vector<std::string>& attributes, NamedValues values, bool& complete) const;
  // The same as the bytes the index tables are keyed by (IndexKeyWriter); false when a value is
  // missing.
  bool indexKeyBytes(const std::vector<std::string>& attributes, NamedValues values, std::pmr::string& out);
  // The number of an index in keys: one per list of attributes (the same list declared on two
  // entities is one index, as the reference's key text makes it).
  uint32_t indexNumber(const std::vector<std::string>& attributes);
  void finalChecks();
  // A file's top level: its scope (its variables, declared first) and its statements with blocks
  // of their own (if, for, implementation), whose variables may hide the top level's.
  struct TopLevel {
    const ast::Block* block;
    Scope* scope;
    ast::Block withBlocks;
  };
  // Declares the variables of a file's top level in its scope and notes the statements with
  // blocks of their own, in one pass over its statements (at 100,000 services each pass is half a
  // million statements, most not in any cache).
  void declareTopLevel(TopLevel& top);
  // A plain attribute of type float or float?: index keys take ints given for it as floats.
  bool floatTyped(const model::Attribute* a);
  Variable* lookupInIndex(const model::Entity* entity, std::vector<std::pair<std::string, Variable*>> args,
                          std::vector<Variable*> wrapped, std::vector<std::pair<std::string, Value>> fixed,
                          const ast::Node* at);
  // The index keys of one construction's values, each worked out once.
  class IndexKeys {
   public:
    IndexKeys(Evaluator& evaluator, NamedValues values) : evaluator_(evaluator), values_(values) {}
    IndexKeys(const IndexKeys&) = delete;
    IndexKeys& operator=(const IndexKeys&) = delete;
    // The key (IndexKeyWriter's bytes) under `index` in `key`, or false when a value of it is
    // missing (valid as long as this).
    bool key(const std::vector<std::string>& index, std::string_view& key);
    // The key under `index` as messages show it: `name='a', host=#3`.
    std::string text(const std::vector<std::string>& index) const;

   private:
    struct Known {
      const std::vector<std::string>* index;
      std::pmr::string key;
      bool complete;
    };
    Evaluator& evaluator_;
    NamedValues values_;
    // (a construction asks for a key or two: they take no memory of the heap)
    alignas(std::max_align_t) std::byte buffer_[384];
    std::pmr::monotonic_buffer_resource memory_{buffer_, sizeof buffer_};
    std::pmr::vector<Known> known_{&memory_};
  };
  void registerInIndexes(runtime::Instance* instance, IndexKeys& keys, const ast::Node* at);
  // Evaluates a typedef constraint with only `self` bound (spec 3.6).
  // The loop variables of the list comprehensions a direct expression is inside, innermost first.
  struct DirectLocal {
    std::string_view name;
    const Value& value;
    const DirectLocal* outer;
  };
  Value evalDirect(const ast::Expr* e, const Value& self, const model::Typedef& t, const DirectLocal* locals = nullptr);
  std::string where(const SourceLocation& loc) const;
  // where(), for the instances' messages
  const std::function<std::string(const SourceLocation&)> whereFormatter_ = [this](const SourceLocation& l) {
    return where(l);
  };

  model::Model& model_;
  const PluginRegistry& plugins_;
  const SourceManager& sources_;
  ExecOptions options_;
  runtime::Scheduler scheduler_;
  std::deque<Scope> scopes_;  // stable addresses
  std::map<const model::Namespace*, Scope*> topScopes_;
  std::unique_ptr<Context> context_;
  std::map<std::string, std::unique_ptr<PyRegex>> regexes_;
  std::vector<UnknownParameter> unknownParameters_;
  // this evaluator among all (ast::Literal::cache belongs to one evaluator at a time)
  uint64_t generation_ = 0;
  // the number its scopes keep their bindings in the names' SymbolTable headers under
  const uint32_t symbolBindings_ = SymbolHeader::nextOwner();
  std::vector<std::unique_ptr<runtime::ResultCollector>> collectors_;
  // per entity, computed on first use (node-based maps: references stay valid)
  std::unordered_map<const model::Entity*, std::vector<std::string>> indexAttributes_;
  std::unordered_map<const model::Attribute*, std::unique_ptr<runtime::SlotPolicy>> policies_;
  std::unordered_map<const model::Entity*, EntityPlan> plans_;
  // the values of relation annotations, checked at the end (unknown is an error per relation end)
  struct Annotation {
    Variable* value;
    const ast::Relation* relation;
    int ends;
  };
  std::vector<Annotation> annotations_;
  std::unordered_map<const model::Entity*, std::vector<const model::ImplementRule*>> implementRules_;
  // per entity that declares or inherits an index: key -> instance (its ordinal), the keys' bytes
  // in indexKeys_; looked up only, never iterated: hash order cannot leak into results
  std::unordered_map<const model::Entity*, IndexTable> indexes_;
  runtime::Instance* instanceNumbered(uint32_t ordinal) const { return instances_.all()[ordinal - 1]; }
  Arena indexKeys_;
  std::map<std::vector<std::string>, uint32_t> indexNumbers_;
  std::unordered_map<const std::vector<std::string>*, uint32_t> indexNumberOf_;
  // the lookups waiting for an instance, per entity and key (bytes); `key` is as messages show it
  // (the final checks sort what is left: hash order does not leak)
  struct PendingLookup {
    Variable* result;
    const ast::Node* at;
    std::string key;
  };
  std::unordered_map<const model::Entity*, std::unordered_map<std::string, std::vector<PendingLookup>>> pending_;
  // last: the instances use their entities' plans (layouts) until they are destroyed
  runtime::InstanceStore instances_;
};

template <class F>
void Evaluator::whenSlot(const ast::AttrRef* ref, Scope* scope, F then) {
  Variable* object = emit(ref->object, scope);
  scheduler_.unit(
      {object},
      [object, ref, then] { then(attributeSlot(object->get(), ref->attribute.text(), ref->object, ref->loc())); },
      exprLabel(ref), ref->loc(), true);
}

}  // namespace inmanta::compiler::exec
