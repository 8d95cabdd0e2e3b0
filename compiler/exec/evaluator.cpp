#include "compiler/exec/evaluator.h"

#include <algorithm>
#include <regex>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <stdexcept>
#include <tuple>
#include <type_traits>
#include <variant>

#include <unistd.h>

#include "compiler/exec/format.h"
#include "compiler/exec/typecheck.h"
#include "compiler/model/define.h"
#include "compiler/parse/pyregex.h"

namespace inmanta::compiler::exec {

using runtime::ValueDict;
using runtime::ValueList;

namespace {

[[noreturn]] void fail(ErrorKind kind, std::string message, SourceLocation loc, bool column = false) {
  throw CompileError(Diagnostic(kind, std::move(message), loc, column));
}

// Unit labels rendered from the syntax only when "not all statements executed" needs them.
std::string renderExpr(const void* e) { return ast::dump(static_cast<const ast::Expr*>(e)); }
std::string renderAssign(const void* target) { return ast::dump(static_cast<const ast::Expr*>(target)) + " = ..."; }
runtime::UnitLabel exprLabel(const ast::Expr* e) { return runtime::UnitLabel::rendered<&renderExpr>(e); }
runtime::UnitLabel assignLabel(const ast::Expr* target) { return runtime::UnitLabel::rendered<&renderAssign>(target); }

bool isCastName(std::string_view n) {
  return n == "string" || n == "int" || n == "float" || n == "bool" || n == "number";
}

// The name a statement declares in its block (spec 3.13): an assignment's to a plain variable;
// else none.
std::optional<ast::Name> assignedName(const ast::Stmt* s) {
  if (s->kind != ast::Kind::Assign) return std::nullopt;
  const ast::Expr* target = static_cast<const ast::Assign*>(s)->target;
  if (target->kind != ast::Kind::VarRef) return std::nullopt;
  return static_cast<const ast::VarRef*>(target)->name();
}

// Calls `f` with each name assigned directly in a block and the assignment, in order.
template <class F>
void forEachAssigned(const ast::Block& block, F&& f) {
  for (const ast::Stmt* s : block)
    if (std::optional<ast::Name> n = assignedName(s)) f(*n, static_cast<const ast::Assign*>(s));
}

// `not v` (spec 5.1): an unknown stays unknown; anything but a bool is an error at `at`.
Value applyNot(const Value& v, SourceLocation at) {
  if (v.isUnknown()) return v;
  if (!v.isBool()) fail(ErrorKind::RuntimeException, "Invalid value `" + runtime::str(v) + "`: `not` expects a boolean", at);
  return Value(!v.asBool());
}

// The condition of a conditional expression (or a list comprehension's guard) once known and not
// unknown: a bool, else an error at `at`.
bool conditionHolds(const Value& v, SourceLocation at) {
  if (!v.isBool())
    fail(ErrorKind::RuntimeException,
         "Invalid value `" + runtime::str(v) + "`: the condition for a conditional expression must be a boolean expression", at);
  return v.asBool();
}

// A non-lazy binary operator on two values (spec 5.1): unknowns propagate except for `in`.
Value applyBinary(ast::BinaryOp op, const Value& l, const Value& r, SourceLocation at) {
  runtime::OpResult res;
  switch (op) {
    case ast::BinaryOp::In: res = runtime::contains(l, r); break;
    case ast::BinaryOp::Eq: case ast::BinaryOp::Ne:
      if (l.isUnknown() || r.isUnknown()) return Value::unknown();
      return Value(runtime::pyEquals(l, r) == (op == ast::BinaryOp::Eq));
    default:
      if (l.isUnknown() || r.isUnknown()) return Value::unknown();
      switch (op) {
        case ast::BinaryOp::Add: res = arithmetic(runtime::ArithOp::Add, l, r); break;
        case ast::BinaryOp::Sub: res = arithmetic(runtime::ArithOp::Sub, l, r); break;
        case ast::BinaryOp::Mul: res = arithmetic(runtime::ArithOp::Mul, l, r); break;
        case ast::BinaryOp::Div: res = arithmetic(runtime::ArithOp::Div, l, r); break;
        case ast::BinaryOp::Mod: res = arithmetic(runtime::ArithOp::Mod, l, r); break;
        case ast::BinaryOp::Pow: res = arithmetic(runtime::ArithOp::Pow, l, r); break;
        case ast::BinaryOp::Lt: res = compare(runtime::CompareOp::Lt, l, r); break;
        case ast::BinaryOp::Gt: res = compare(runtime::CompareOp::Gt, l, r); break;
        case ast::BinaryOp::Le: res = compare(runtime::CompareOp::Le, l, r); break;
        case ast::BinaryOp::Ge: res = compare(runtime::CompareOp::Ge, l, r); break;
        default: break;
      }
  }
  if (res.error) fail(res.error->typing ? ErrorKind::TypingException : ErrorKind::RuntimeException, res.error->message, at);
  return res.value;
}

// The slot of attribute `name` of the instance `o`, the value of `objectExpr` (spec 5.8 errors).
Variable* attributeSlot(const Value& o, std::string_view attribute, const ast::Expr* objectExpr, SourceLocation at) {
  auto* instance = o.isInstance() ? static_cast<runtime::Instance*>(o.asInstance()) : nullptr;
  if (instance != nullptr)
    if (Variable* slot = instance->slot(attribute)) return slot;
  std::string name(attribute);
  if (o.isList())
    fail(ErrorKind::RuntimeException, "can not get attribute " + name + ", " + runtime::repr(o) + " is not an entity but a list",
         at);
  if (!o.isInstance())
    fail(ErrorKind::RuntimeException,
         "can not get attribute " + name + ", " + ast::dump(objectExpr) + " is not an entity but a " +
             runtime::pythonTypeName(o) + " with value '" + runtime::str(o) + "'",
         at);
  fail(ErrorKind::NotFoundException, "could not find attribute with name: " + name + " in type " + instance->entity->fullName,
       at);
}

// `a` or `a.b.c` for a variable or attribute reference chain, else empty.
std::string referenceText(const ast::Expr* e) {
  if (e->kind == ast::Kind::VarRef) return std::string(static_cast<const ast::VarRef*>(e)->name().text());
  if (e->kind != ast::Kind::AttrRef) return {};
  auto* ref = static_cast<const ast::AttrRef*>(e);
  std::string object = referenceText(ref->object);
  return object.empty() ? std::string() : object + "." + std::string(ref->attribute.text());
}

// The index attributes of `entity` (its ancestors' indexes too) that `given` does not supply,
// once per index naming them, as the reference lists them.
template <class Given>
std::vector<std::string_view> missingIndexAttributes(const model::Entity* entity, Given given) {
  std::vector<std::string_view> missing;
  for (const model::Entity* owner : entity->lineage())
    for (const auto& idx : owner->indexes)
      for (const std::string& a : idx)
        if (!given(a)) missing.push_back(a);
  return missing;
}

}  // namespace

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

Scope::Names::~Names() {
  if (block_ == nullptr) return;
  delete block_->index;
  ::operator delete(block_);
}

void Scope::Names::push_back(const Entry& entry) {
  size_t n = size();
  if (block_ == nullptr || n == block_->capacity) {
    auto capacity = static_cast<uint32_t>(n == 0 ? 1 : n * 2);
    auto* bigger = static_cast<Block*>(::operator new(sizeof(Block) + capacity * sizeof(Entry)));
    bigger->size = static_cast<uint32_t>(n);
    bigger->capacity = capacity;
    bigger->index = nullptr;
    if (block_ != nullptr) {
      std::copy(begin(), end(), bigger->entries());  // (pairs of a view and a pointer: trivially copied)
      bigger->index = block_->index;
      ::operator delete(block_);
    }
    block_ = bigger;
  }
  block_->entries()[block_->size++] = entry;
}

std::vector<uint64_t>& Scope::Names::makeIndex() {
  if (block_->index == nullptr) block_->index = new std::vector<uint64_t>();
  return *block_->index;
}

const runtime::Instance* Scope::instance() const {
  return isInstance_ ? static_cast<const runtime::Instance*>(self_.value().asInstance()) : nullptr;
}

Variable* Scope::own(const ScopeName& name) const {
  if (isInstance_) return nullptr;  // (it declares nothing)
  // (the syntax tree's names are interned: the same text is most often the very same bytes)
  if (name.header != nullptr && name.header->scope == this && name.header->owner == bindings_ && bindings_ != 0)
    return static_cast<Variable*>(name.header->value);
  std::string_view text = name.text;
  uint32_t h = name.hash();
  if ((filter_ & filterBit(h)) == 0) return nullptr;
  if (const std::vector<uint64_t>* index = names_.index()) {
    const std::vector<uint64_t>& words = *index;
    size_t mask = words.size() - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      uint64_t word = words[i];
      if (word == 0) return nullptr;
      if (static_cast<uint32_t>(word >> 32) != h) continue;
      const auto& [n, v] = names_[static_cast<uint32_t>(word) - 1];
      if ((n.data() == text.data() && n.size() == text.size()) || n == text) return v;
    }
  }
  for (const auto& [n, v] : names_)
    if (n == text) return v;
  return nullptr;
}

void Scope::declare(const ScopeName& name, Variable* variable) {
  assert(!isInstance_ && "an instance's scope declares nothing");
  if (own(name) != nullptr) return;
  names_.push_back({name.text, variable});
  filter_ |= filterBit(name.hash());
  if (std::vector<uint64_t>* index = names_.index()) {
    if (names_.size() * 2 > index->size()) growIndex();
    else indexSlot(names_.size() - 1);
  } else if (names_.size() >= kIndexFrom) {
    names_.makeIndex();
    growIndex();
  }
  // the first scope of this evaluator to declare the name binds it (most names: their only one)
  if (SymbolHeader* h = name.header; h != nullptr && bindings_ != 0 && h->owner != bindings_) {
    h->owner = bindings_;
    h->scope = this;
    h->value = variable;
  }
}

void Scope::indexSlot(size_t position) {
  uint32_t h = NameHashing::hash(names_[position].first);
  freeSlotFor(*names_.index(), h, [](uint64_t word) { return word == 0; }) =
      (static_cast<uint64_t>(h) << 32) | static_cast<uint32_t>(position + 1);
}

void Scope::growIndex() {
  size_t size = 64;
  while (size < names_.size() * 2) size *= 2;
  names_.index()->assign(size * 2, 0);
  for (size_t position = 0; position < names_.size(); ++position) indexSlot(position);
}

Scope::Scope(Scope* enclosing, model::Namespace* owner, runtime::Instance* self)
    : parent(enclosing), ns(owner), bindings_(enclosing->bindings_), isInstance_(1) {
  new (&self_) runtime::ConstantVariable(Value(static_cast<runtime::InstanceBase*>(self)));
}

Scope::~Scope() {
  if (isInstance_) self_.~ConstantVariable();
  else names_.~Names();
}

Variable* Scope::find(const ScopeName& name) const {
  for (const Scope* s = this; s != nullptr; s = s->parent) {
    if (s->isInstance_) {
      if (name.text == "self") return const_cast<runtime::ConstantVariable*>(&s->self_);
      const runtime::Instance* instance = s->instance();
      if (const size_t* at = instance->entity->positions.find(name.text, name.hash())) return instance->slot(*at);
      continue;  // (it declares nothing)
    }
    if (Variable* v = s->own(name)) return v;
  }
  return nullptr;
}

// ------------------------------------------------------------------ the plugin context

class Evaluator::Context : public PluginContext {
 public:
  explicit Context(Evaluator& e) : e_(e) {}
  std::ostream& out() override { return *e_.options_.out; }
  void warn(const std::string& kind, const std::string& message) override {
    if (!e_.options_.warn) return;
    Diagnostic d(ErrorKind::CompilerException, message, location);
    d.warningName = kind;
    e_.options_.warn(d);
  }
  Value attribute(const Value& instance, std::string_view name) override {
    auto* i = static_cast<runtime::Instance*>(instance.asInstance());
    Variable* slot = i->slot(name);
    if (slot == nullptr)
      throw PluginFailure("AttributeError", "'" + i->entity->fullName + "' object has no attribute '" + std::string(name) + "'");
    return read(slot);
  }
  Value variable(std::string_view name) override {
    Variable* slot = scope != nullptr ? scope->find(name) : nullptr;
    if (slot == nullptr) fail(ErrorKind::NotFoundException, "variable " + std::string(name) + " not found", location, true);
    return read(slot);
  }
  bool isInstanceOf(const Value& instance, std::string_view entityName) override {
    const model::Entity* wanted = nullptr;
    for (const auto& e : e_.model_.entities())
      if (e->fullName == entityName) wanted = e.get();
    if (wanted == nullptr) {
      // a typedef (the reference's type table has them too) never takes an instance
      size_t sep = entityName.rfind("::");
      if (sep != std::string_view::npos)
        if (const model::Namespace* ns = e_.model_.findNamespace(entityName.substr(0, sep))) {
          auto it = ns->definitions.find(std::string(entityName.substr(sep + 2)));
          if (it != ns->definitions.end() && it->second.kind == model::Definition::Kind::Typedef) return false;
        }
      throw PluginFailure("AttributeError", "no entity type named " + std::string(entityName));
    }
    if (!instance.isInstance()) return false;
    return static_cast<runtime::Instance*>(instance.asInstance())->entity->isA(wanted);
  }
  std::string entityName(const Value& instance) override {
    return static_cast<runtime::Instance*>(instance.asInstance())->entity->fullName;
  }
  size_t instanceOrdinal(const Value& instance) override {
    return static_cast<runtime::Instance*>(instance.asInstance())->ordinal;
  }
  std::string moduleDir(std::string_view module) override {
    if (module == "__config__") return {};  // main.cf's namespace is not a module
    for (const auto& ns : e_.model_.namespaces()) {
      if (ns->name != module) continue;
      std::filesystem::path file(e_.sources_.file(ns->fileId).path);
      return file.parent_path().parent_path().string();  // <module>/model/_init.cf
    }
    return {};
  }
  std::string callingModule() override { return callingNs != nullptr ? callingNs->module : "__config__"; }
  std::string projectDir() override { return e_.options_.projectDir; }
  std::optional<std::string> setting(std::string_view section, std::string_view key) override {
    if (!e_.options_.settings) return std::nullopt;
    return e_.options_.settings(section, key);
  }
  ServerConnection* server() override { return e_.options_.server; }
  void reportUnknown(UnknownParameter parameter) override { e_.unknownParameters_.push_back(std::move(parameter)); }
  void log(std::string_view level, const std::string& message) override {
    if (e_.options_.log) e_.options_.log("inmanta_plugins.std", level, message);
  }
  ResourceIdentity resourceId(const Value& value) override {
    ResourceIdentity result;
    if (!value.isInstance() || e_.options_.resourceTypes == nullptr) return result;
    auto* instance = static_cast<runtime::Instance*>(value.asInstance());
    const ResourceTypeSpec* type = nullptr;
    for (const model::Entity* e : instance->entity->lineage()) {  // the entity itself, then its parents
      for (const ResourceTypeSpec& t : e_.options_.resourceTypes->types())
        if (t.entity == e->fullName) type = &t;
      if (type != nullptr) break;
    }
    if (type == nullptr) return result;
    // the agent: follow the path (the first of a list, as the reference does)
    Value at = value;
    for (const std::string& element : type->agentPath) {
      if (at.isList() && !at.asList().empty()) at = at.asList().front();
      if (!at.isInstance() || static_cast<runtime::Instance*>(at.asInstance())->slot(element) == nullptr)
        throw PluginFailure("Exception", agentPathError(*type, instance->display(), element));
      at = attribute(at, element);
      if (at.isUnknown()) break;
    }
    Value id = at.isUnknown() ? at : attribute(value, type->idAttribute);
    if (id.isUnknown()) {
      result.state = ResourceIdentity::State::Unknown;
      return result;
    }
    if (!at.isString()) throw PluginFailure("ResourceException", agentNotStringError(at));
    std::string agent = at.asString(), idValue = runtime::printForm(id);
    // the reference's Id() refuses what would not parse back (export spec 1.4)
    if (std::string why = idPartError(agent, idValue); !why.empty()) throw PluginFailure("ValueError", why);
    result.state = ResourceIdentity::State::Known;
    result.id = compiler::resourceId(*type, agent, idValue);
    return result;
  }
  Value callPlugin(std::string_view fullName, const std::vector<Value>& args,
                   const std::vector<std::pair<std::string, Value>>& kwargs) override {
    const PluginSpec* plugin = e_.plugins_.find(fullName);
    if (plugin == nullptr) throw PluginFailure("KeyError", runtime::pyReprString(fullName));
    return e_.callPlugin(*plugin, location, args, kwargs, true);
  }
  std::vector<std::string> pluginNames() override { return e_.plugins_.names(); }
  SourceLocation callLocation() override { return location; }
  std::shared_ptr<void>& compileState(std::string_view key) override {
    auto it = state_.find(key);
    if (it == state_.end()) it = state_.emplace(std::string(key), nullptr).first;
    return it->second;
  }

  // The call being made: where it is written, its namespace and the scope its names resolve in
  // (none in a typedef constraint).
  SourceLocation location;
  const model::Namespace* callingNs = nullptr;
  const Scope* scope = nullptr;

 private:
  // A value a plugin reads: not ready yet suspends the call (spec 4.13).
  static Value read(Variable* slot) {
    try {
      return slot->get();
    } catch (const runtime::UnsetSignal& unset) {
      throw PluginSuspend(unset.variable);
    }
  }

  Evaluator& e_;
  std::map<std::string, std::shared_ptr<void>, std::less<>> state_;
};

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

void Evaluator::declareVariable(Scope* scope, const ast::Name& name) {
  if (scope->own(name) == nullptr) scope->declare(name, scheduler_.makePlain());
}

void Evaluator::declare(const ast::Block& block, Scope* scope) {
  forEachAssigned(block, [&](const ast::Name& n, const ast::Assign*) { declareVariable(scope, n); });
}

void Evaluator::declareTopLevel(TopLevel& top) {
  for (ast::Stmt* s : *top.block) {
    if (std::optional<ast::Name> n = assignedName(s)) declareVariable(top.scope, *n);
    else if (s->kind == ast::Kind::If || s->kind == ast::Kind::For || s->kind == ast::Kind::Implementation)
      top.withBlocks.push_back(s);
  }
}

Scope* Evaluator::blockScope(const ast::Block& block, Scope* enclosing) {
  // a block that declares nothing would only pass every lookup on: it reads the enclosing scope
  Scope* scope = enclosing;
  forEachAssigned(block, [&](const ast::Name& n, const ast::Assign*) {
    if (scope == enclosing) scope = &scopes_.emplace_back(enclosing, enclosing->ns);
    declareVariable(scope, n);
  });
  return scope;
}

namespace {
// The variables a block declares (spec 3.13), each with where: its assignments in order, then a
// `for` body's loop variable; a name declared twice has both places, in the order written.
using Declared = std::vector<std::pair<std::string_view, runtime::MostlyOne<SourceLocation>>>;
Declared declaredIn(const ast::Block& block, const ast::For* loop) {
  Declared out;
  // a name's place in `out` (looked up only; a file's top level declares many: no rehashing)
  std::unordered_map<std::string_view, size_t, NameHash> at(block.size() + 1);
  auto add = [&](std::string_view name, SourceLocation where) {
    auto [it, added] = at.try_emplace(name, out.size());
    if (added) out.emplace_back(name, runtime::MostlyOne<SourceLocation>());
    out[it->second].second.push_back(where);
  };
  forEachAssigned(block, [&](const ast::Name& name, const ast::Assign* a) { add(name.text(), a->loc()); });
  if (loop != nullptr) add(loop->variable.text(), loop->loc());
  return out;
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
    evaluator_.scheduler_.unit({guard}, [this, guard, value, inner] {
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

// (the sinks of a failed compile that were still waiting)
Evaluator::~Evaluator() {
  while (liveSinks_ != nullptr) delete liveSinks_;
}

void Evaluator::warnShadowed(const ast::Block& block, const ast::For* loop, ShadowScope& outer, TopLevel& top) {
  auto places = [this](const Places& at) {
    std::string text;
    for (size_t i = 0; i < at.size(); ++i) text += (text.empty() ? "" : ",") + sources_.format(at[i], false);
    return text;
  };
  // this block's variables hide the enclosing ones while its nested blocks are checked; what they
  // hid (or that nothing was there) is put back when it is done
  Declared declared = declaredIn(block, loop);
  if (declared.size() > 64) outer.reserve(outer.size() + declared.size());
  std::vector<std::pair<std::string_view, std::optional<Places>>> hidden;
  hidden.reserve(declared.size());
  for (auto& [name, at] : declared) {
    auto known = outer.find(name);
    const Places* original = known != outer.end() ? &known->second : nullptr;
    if (original == nullptr && top.scope->own(name) != nullptr) {
      // a variable of the file's top level: where it was declared, worked out once per file
      if (!top.places) {
        top.places.emplace();
        for (auto& [n, p] : declaredIn(*top.block, nullptr)) top.places->emplace(n, std::move(p));
      }
      original = &top.places->at(name);
    }
    if (original != nullptr) {
      Diagnostic d(ErrorKind::CompilerException, "Variable `" + std::string(name) + "` shadowed: originally declared at " +
                                                      places(*original) + ", shadowed at " + places(at));
      d.warningName = "VariableShadowWarning";
      if (options_.warn) options_.warn(d);
    }
    // (a top-level variable's places stay where they are)
    if (known != outer.end()) hidden.push_back({name, std::exchange(known->second, std::move(at))});
    else {
      hidden.push_back({name, std::nullopt});
      outer.emplace(name, std::move(at));
    }
  }
  warnShadowedWithin(block, outer, top);
  for (auto it = hidden.rbegin(); it != hidden.rend(); ++it) {
    if (it->second) outer[it->first] = std::move(*it->second);
    else outer.erase(it->first);
  }
}

void Evaluator::warnShadowedWithin(const ast::Block& block, ShadowScope& outer, TopLevel& top) {
  // the nested blocks of the statements, then (at a file's top level) of the implementations
  for (const ast::Stmt* s : block) {
    if (s->kind == ast::Kind::If) {
      auto* i = static_cast<const ast::If*>(s);
      warnShadowed(i->thenBlock, nullptr, outer, top);
      warnShadowed(i->elseBlock, nullptr, outer, top);
    } else if (s->kind == ast::Kind::For) {
      auto* f = static_cast<const ast::For*>(s);
      warnShadowed(f->body, f, outer, top);
    }
  }
  for (const ast::Stmt* s : block)
    if (s->kind == ast::Kind::Implementation)
      warnShadowed(static_cast<const ast::Implementation*>(s)->body, nullptr, outer, top);
}

void Evaluator::run() {
  normalize();
  loadPrecedencePolicy();
  // every file's top-level scope first: qualified references may point into any of them
  std::vector<TopLevel> tops;
  tops.reserve(model_.namespaces().size());
  for (const auto& ns : model_.namespaces()) {
    Scope* top = &scopes_.emplace_back(nullptr, ns.get(), symbolBindings_);
    topScopes_[ns.get()] = top;
    declareTopLevel(tops.emplace_back(TopLevel{&ns->file->statements, top, std::nullopt, {}}));
  }
  // a variable that hides one of an enclosing block is reported (as the reference does before
  // it runs a file's statements); the top level hides nothing, and its variables are its scope's
  for (TopLevel& top : tops) {
    ShadowScope variables;
    warnShadowedWithin(top.withBlocks, variables, top);
  }
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

void Evaluator::emitBlock(const ast::Block& block, Scope* scope, bool topLevel) {
  // spec 2.5: block statements are emitted in reverse, the top level in order
  if (topLevel) {
    for (const ast::Stmt* s : block) emitStatement(s, scope);
  } else {
    for (auto it = block.rbegin(); it != block.rend(); ++it) emitStatement(*it, scope);
  }
}

// ------------------------------------------------------------------ statements

void Evaluator::evaluateStatement(const ast::Expr* expr, Scope* scope) {
  Variable* v = emit(expr, scope);
  // an expression evaluated directly needs a unit of its own when nothing reads its value
  if (v->kind() == Variable::Kind::Direct)
    scheduler_.unit({v}, [v] { (void)v->get(); },
                                               ast::kindName(expr->kind), expr->loc(), true);
}

void Evaluator::emitStatement(const ast::Stmt* stmt, Scope* scope) {
  switch (stmt->kind) {
    case ast::Kind::Import: case ast::Kind::Entity: case ast::Kind::Implementation: case ast::Kind::Implement:
    case ast::Kind::Typedef: case ast::Kind::Index:
      return;  // definitions were handled by the definition phase
    case ast::Kind::Relation: {
      // its annotations are evaluated (each by a unit, as the reference's DefineRelation.emit) and
      // otherwise ignored; an unknown one is reported by the final checks
      auto* r = static_cast<const ast::Relation*>(stmt);
      int ends = (r->leftAttr.empty() ? 0 : 1) + (r->rightAttr.empty() ? 0 : 1);
      if (ends == 2 && r->left.text() == r->right.text() && r->leftAttr.text() == r->rightAttr.text()) ends = 1;  // self-inverse
      for (const ast::Expr* e : r->annotations) {
        Variable* v = emit(e, scope);
        scheduler_.unit({v}, [v] { (void)v->get(); }, "relation annotation", e->loc(), true);
        annotations_.push_back({v, r, ends});
      }
      return;
    }
    case ast::Kind::ExprStmt:
      evaluateStatement(static_cast<const ast::ExprStmt*>(stmt)->expr, scope);
      return;
    case ast::Kind::Assign: {
      auto* a = static_cast<const ast::Assign*>(stmt);
      if (a->target->kind != ast::Kind::VarRef) return emitAttributeAssign(a, scope);
      auto* ref = static_cast<const ast::VarRef*>(a->target);
      Variable* target = scope->find(ref->name());
      Variable* value = emit(a->value, scope);
      scheduler_.unit({value}, [target, value, a] { target->set(value->get(), a->loc()); },
          assignLabel(ref), a->loc(), true);
      return;
    }
    case ast::Kind::If: {
      auto* i = static_cast<const ast::If*>(stmt);
      ast::Block both = i->thenBlock;
      both.insert(both.end(), i->elseBlock.begin(), i->elseBlock.end());
      auto commit = eagerPromises(both, {}, scope);
      Variable* cond = emit(i->condition, scope);
      scheduler_.unit({cond}, [this, cond, i, scope, commit] {
            struct Committer {
              const std::function<void()>& f;  // (the unit's own: no copy per run)
              ~Committer() { f(); }
            } committer{commit};
            Value c = cond->get();
            if (c.isUnknown()) return;
            if (!c.isBool())
              fail(ErrorKind::RuntimeException,
                   "Invalid value `" + runtime::str(c) + "`: the condition for an if statement can only be a boolean expression",
                   i->loc());
            const ast::Block& branch = c.asBool() ? i->thenBlock : i->elseBlock;
            emitBlock(branch, blockScope(branch, scope), false);
          },
          "if", i->loc(), false);
      return;
    }
    case ast::Kind::For: {
      auto* f = static_cast<const ast::For*>(stmt);
      auto commit = eagerPromises(f->body, {std::string(f->variable.text())}, scope);
      // the values of the iterable each as it is known (a purely gradual consumer, 4.5)
      auto* sink = new ForSink(*this, f, scope, std::move(commit));
      feedGradual(f->iterable, scope, sink, nullptr, true);
      sink->close();
      return;
    }
    default:
      evaluateStatement(static_cast<const ast::Expr*>(static_cast<const ast::Node*>(stmt)), scope);
      return;
  }
}

// ------------------------------------------------------------------ expressions

Variable* Evaluator::lookup(const ast::Name& name, Scope* scope) {
  std::string_view text = name.text();
  size_t sep = text.rfind("::");
  if (sep != std::string_view::npos) {
    std::string_view prefix = text.substr(0, sep);
    auto vis = scope->ns->visible.find(prefix);
    if (vis == scope->ns->visible.end())
      fail(ErrorKind::NotFoundException,
           "Namespace " + std::string(prefix) + " not found. Try importing it with `import " + std::string(prefix) + "`",
           name.loc, true);
    Scope* top = topScopes_.at(vis->second);
    Variable* found = top->own(text.substr(sep + 2));
    if (found == nullptr)
      fail(ErrorKind::NotFoundException, "variable " + std::string(text.substr(sep + 2)) + " not found", name.loc, true);
    return found;
  }
  if (Variable* v = scope->find(name)) return v;
  fail(ErrorKind::NotFoundException, "variable " + std::string(text) + " not found", name.loc, true);
}

namespace {
bool isLiteral(const ast::Expr* e) { return e->kind == ast::Kind::Literal; }

// An operator computed directly from its operands' values: a binary operator other than `and`
// and `or` (which wait for their left operand first), or `not`.
bool isOperator(const ast::Expr* e) {
  if (e->kind == ast::Kind::Not) return true;
  if (e->kind != ast::Kind::Binary) return false;
  ast::BinaryOp op = static_cast<const ast::Binary*>(e)->op;
  return op != ast::BinaryOp::And && op != ast::BinaryOp::Or;
}

// The value of the operators of `e` over the values of its operands that are not such operators
// (`in`, from `next` on, in the order written): each operator takes its left operand's value first,
// as the reference's Operator does, so the left one's error is the one reported.
Value applyOperators(const ast::Expr* e, const runtime::VarList& in, size_t& next) {
  if (!isOperator(e)) return in[next++]->get();
  if (e->kind == ast::Kind::Not) {
    auto* n = static_cast<const ast::Not*>(e);
    return applyNot(applyOperators(n->operand, in, next), n->loc());
  }
  auto* b = static_cast<const ast::Binary*>(e);
  Value left = applyOperators(b->lhs, in, next);
  Value right = applyOperators(b->rhs, in, next);
  return applyBinary(b->op, left, right, b->loc());
}
}  // namespace

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

Variable* Evaluator::emit(const ast::Expr* expr, Scope* scope, const Lhs* lhs) {
  switch (expr->kind) {
    case ast::Kind::Literal: {
      // one ready variable per literal in the source, read by every evaluation of it
      return static_cast<const ast::Literal*>(expr)->variable();
    }
    case ast::Kind::VarRef:
      return lookup(static_cast<const ast::VarRef*>(expr)->name(), scope);
    case ast::Kind::Regex:
      return lookup(ast::Name("self", expr->loc()), scope);
    case ast::Kind::Binary: {
      auto* b = static_cast<const ast::Binary*>(expr);
      if (b->op == ast::BinaryOp::And || b->op == ast::BinaryOp::Or) {
        Variable* left = emit(b->lhs, scope);
        Variable* result = scheduler_.makePlain();
        bool isAnd = b->op == ast::BinaryOp::And;
        scheduler_.unit({left}, [this, left, result, b, scope, isAnd] {
              Value l = left->get();
              if (l.isUnknown()) return result->set(Value::unknown(), b->loc());
              if (!l.isBool())
                fail(ErrorKind::RuntimeException,
                     "Invalid left hand value `" + runtime::str(l) + "`: `" + (isAnd ? "and" : "or") +
                         "` expects a boolean",
                     b->loc());
              if (l.asBool() != isAnd) return result->set(l, b->loc());
              Variable* right = emit(b->rhs, scope);
              scheduler_.unit({right}, [right, result, b] {
                    Value r = right->get();
                    if (!r.isUnknown() && !r.isBool())
                      fail(ErrorKind::RuntimeException, "Invalid value '" + runtime::str(r) + "', expected bool", b->loc());
                    result->set(r, b->loc());
                  },
                  "and/or", b->loc(), true);
            },
            "and/or", b->loc(), true);
        return result;
      }
      return emitOperators(b, scope);
    }
    case ast::Kind::Not: return emitOperators(expr, scope);
    case ast::Kind::Conditional: {
      auto* c = static_cast<const ast::Conditional*>(expr);
      Variable* cond = emit(c->condition, scope);
      Variable* result = scheduler_.makePlain();
      scheduler_.unit({cond}, [this, cond, result, c, scope, lhsCopy = lhs ? std::optional<Lhs>(*lhs) : std::nullopt] {
            Value v = cond->get();
            if (v.isUnknown()) return result->set(Value::unknown(), c->loc());
            Variable* branch = emit(conditionHolds(v, c->loc()) ? c->whenTrue : c->whenFalse, scope, lhsCopy ? &*lhsCopy : nullptr);
            scheduler_.unit({branch}, [branch, result, c] { result->set(branch->get(), c->loc()); },
                                                       "conditional", c->loc(), true);
          },
          "conditional", c->loc(), true);
      return result;
    }
    case ast::Kind::ListLit: {
      // (a list's elements that are lists are spliced in)
      auto* l = static_cast<const ast::ListLit*>(expr);
      auto build = [](size_t n, auto&& element) {
        ValueList out;
        for (size_t i = 0; i < n; ++i) {
          Value x = element(i);
          if (x.isList()) out.insert(out.end(), x.asList().begin(), x.asList().end());
          else out.push_back(x);
        }
        return Value(std::move(out));
      };
      if (std::all_of(l->elements.begin(), l->elements.end(), isLiteral))
        return constantVariable(l->cache, [&] {
          return build(l->elements.size(), [&](size_t i) { return static_cast<const ast::Literal*>(l->elements[i])->value(); });
        });
      runtime::VarList elements;
      for (const ast::Expr* e : l->elements) elements.push_back(emit(e, scope, lhs));
      return scheduler_.makeDirect(std::move(elements), [build](const runtime::VarList& in) -> Value {
        return build(in.size(), [&](size_t i) { return in[i]->get(); });
      });
    }
    case ast::Kind::DictLit: {
      auto* d = static_cast<const ast::DictLit*>(expr);
      auto build = [d](auto&& value) {
        ValueDict out;
        out.items.reserve(d->entries.size());
        for (size_t i = 0; i < d->entries.size(); ++i) out.items.emplace_back(d->entries[i].key, value(i));
        return Value(std::move(out));
      };
      if (std::all_of(d->entries.begin(), d->entries.end(), [](const auto& entry) { return isLiteral(entry.value); }))
        return constantVariable(d->cache, [&] {
          return build([&](size_t i) { return static_cast<const ast::Literal*>(d->entries[i].value)->value(); });
        });
      runtime::VarList values;
      for (const auto& [k, v] : d->entries) values.push_back(emit(v, scope));
      return scheduler_.makeDirect(std::move(values), [build](const runtime::VarList& in) -> Value {
        return build([&](size_t i) { return in[i]->get(); });
      });
    }
    case ast::Kind::MapLookup: {
      auto* m = static_cast<const ast::MapLookup*>(expr);
      Variable* map = emit(m->map, scope);
      Variable* key = emit(m->key, scope);
      return scheduler_.makeDirect({map, key}, [map, key, m]() -> Value {
        Value d = map->get();
        Value k = key->get();
        if (d.isUnknown() || k.isUnknown()) return Value::unknown();
        if (!d.isDict())
          fail(ErrorKind::TypingException, "dict lookup is only possible on dicts, " + runtime::str(d) + " is not an object",
               m->loc());
        if (!k.isString())
          fail(ErrorKind::TypingException, "dict keys must be string, " + runtime::str(k) + " is not a string", m->loc());
        const Value* found = d.asDict().find(k.asString());
        if (found == nullptr) {
          std::string options;
          for (const auto& [name, v] : d.asDict().items) options += (options.empty() ? "" : ",") + name;
          fail(ErrorKind::KeyException, "key " + k.asString() + " not found in dict, options are [" + options + "]", m->loc());
        }
        return *found;
      });
    }
    case ast::Kind::IsDefined: {
      auto* d = static_cast<const ast::IsDefined*>(expr);
      Variable* result = scheduler_.makePlain();
      // spec 4.11: a relation is defined as soon as a known value arrives; otherwise decide once
      // the slot is complete
      auto onSlot = [this, result, d](Variable* slot) {
        if (slot->kind() == Variable::Kind::List) {
          collectors_.push_back(std::make_unique<IsDefinedListener>(result, d->loc()));
          slot->listen(collectors_.back().get(), d->loc());
        }
        scheduler_.unit({slot}, [slot, result, d] {
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
      scheduler_.unit({object}, [object, d, onSlot] {
            Value o = object->get();
            Variable* slot = attributeSlot(o, d->attribute.text(), d->object, d->loc());
            onSlot(slot);
          },
          "is defined", d->loc(), true);
      return result;
    }
    case ast::Kind::StringFormat: {
      auto* f = static_cast<const ast::StringFormat*>(expr);
      runtime::VarList refs;
      for (const auto& p : f->parts) refs.push_back(emit(p.ref, scope));
      return scheduler_.makeDirect(std::move(refs), [this, f](const runtime::VarList& in) -> Value {
        std::vector<Value> values;
        values.reserve(in.size());
        for (Variable* v : in) values.push_back(v->get());
        return formatString(f, values);
      });
    }
    case ast::Kind::FString: {
      auto* f = static_cast<const ast::FString*>(expr);
      runtime::VarList refs;
      for (const auto& r : f->refs) refs.push_back(emit(r.ref, scope));
      return scheduler_.makeDirect(std::move(refs), [this, f](const runtime::VarList& in) -> Value {
        std::vector<Value> values;
        values.reserve(in.size());
        for (Variable* v : in) values.push_back(v->get());
        return formatFString(f, values);
      });
    }
    case ast::Kind::ListComp: {
      auto* c = static_cast<const ast::ListComp*>(expr);
      Variable* iterable = emit(c->iterable, scope);
      Variable* result = scheduler_.makePlain();
      scheduler_.unit({iterable}, [this, iterable, result, c, scope, lhsCopy = lhs ? std::optional<Lhs>(*lhs) : std::nullopt] {
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
                scheduler_.unit({v}, [v, part, c] { part->set(v->get(), c->loc()); },
                                                           "list comprehension", c->loc(), true);
              };
              if (c->guard == nullptr) {
                emitValue();
                continue;
              }
              Variable* guard = emit(c->guard, inner);
              scheduler_.unit({guard}, [guard, part, c, element, emitValue] {
                    Value g = guard->get();
                    if (g.isUnknown()) return part->set(Value::unknown(), c->loc());
                    if (!conditionHolds(g, c->loc())) return part->set(Value(ValueList{}), c->loc());
                    emitValue();
                  },
                  "list comprehension", c->loc(), true);
            }
            scheduler_.unit(runtime::VarList(parts), [parts, result, c] {
                  ValueList out;
                  for (Variable* p : parts) {
                    Value v = p->get();
                    if (v.isList()) out.insert(out.end(), v.asList().begin(), v.asList().end());
                    else out.push_back(v);
                  }
                  result->set(Value(std::move(out)), c->loc());
                },
                "list comprehension", c->loc(), true);
          },
          "list comprehension", c->loc(), true);
      return result;
    }
    case ast::Kind::Call: {
      auto* call = static_cast<const ast::Call*>(expr);
      std::string_view name = call->function.text();
      if (isCastName(name)) {
        if (!call->named.kwargs.empty() || !call->named.wrapped.empty() || call->args.size() != 1) {
          // as the reference's cast function: the arguments are evaluated, then refused
          runtime::VarList all;
          for (const ast::Expr* a : call->args) all.push_back(emit(a, scope));
          for (const ast::KwArg& kw : call->named.kwargs) all.push_back(emit(kw.value, scope));
          for (const ast::Expr* w : call->named.wrapped) all.push_back(emit(w, scope));
          return scheduler_.makeDirect(std::move(all), [call](const runtime::VarList& in) -> Value {
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
        runtime::CastType to = name == "string" ? runtime::CastType::String
                               : name == "int"  ? runtime::CastType::Int
                               : name == "float" ? runtime::CastType::Float
                               : name == "bool" ? runtime::CastType::Bool
                                                : runtime::CastType::Number;
        return scheduler_.makeDirect({arg}, [arg, to, call]() -> Value {
          runtime::OpResult r = runtime::cast(to, arg->get());
          if (r.error) fail(ErrorKind::RuntimeException, r.error->message, call->loc(), true);
          return r.value;
        });
      }
      const model::Type* primitive = nullptr;
      const model::Definition* def = model::resolveName(model_, scope->ns, call->function, &primitive);
      if (def == nullptr || def->kind != model::Definition::Kind::Plugin)
        fail(ErrorKind::RuntimeException,
             "Can not call '" + std::string(name) + "', can only call plugin or primitive type cast", call->loc(), true);
      const PluginSpec* plugin = def->plugin();
      // the inputs: the positional arguments, the named ones, then the ** dicts, in that order
      runtime::VarList all;
      for (const ast::Expr* a : call->args) all.push_back(emit(a, scope));
      for (const ast::KwArg& kw : call->named.kwargs) all.push_back(emit(kw.value, scope));
      for (const ast::Expr* w : call->named.wrapped) all.push_back(emit(w, scope));
      model::Namespace* ns = scope->ns;
      return scheduler_.makeDirect(std::move(all), [this, plugin, call, ns, scope](const runtime::VarList& in) -> Value {
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
                fail(ErrorKind::RuntimeException, "Keyword argument " + k + " repeated in function call", call->loc(), true);
            kwargs.emplace_back(k, v);
          }
        }
        context_->callingNs = ns;
        context_->location = call->loc();
        context_->scope = scope;
        return callPlugin(*plugin, call->loc(), args, kwargs);
      });
    }
    case ast::Kind::AttrRef: return emitAttrRef(static_cast<const ast::AttrRef*>(expr), scope);
    case ast::Kind::Constructor: return emitConstructor(static_cast<const ast::Constructor*>(expr), scope, lhs);
    case ast::Kind::IndexLookup: {
      auto* l = static_cast<const ast::IndexLookup*>(expr);
      const model::Type* primitive = nullptr;
      const model::Definition* def = model::resolveName(model_, scope->ns, l->type, &primitive);
      if (def == nullptr || def->kind != model::Definition::Kind::Entity)
        fail(ErrorKind::TypingException, std::string(l->type.text()) + " is not an entity", l->loc());
      std::vector<std::pair<std::string, Variable*>> args;
      for (const ast::KwArg& kw : l->named.kwargs) args.emplace_back(std::string(kw.name.text()), emit(kw.value, scope));
      std::vector<Variable*> wrapped;
      for (const ast::Expr* w : l->named.wrapped) wrapped.push_back(emit(w, scope));
      return emitIndexLookup(def->entity(), std::move(args), std::move(wrapped), {}, l);
    }
    case ast::Kind::ShortIndexLookup: {
      auto* l = static_cast<const ast::ShortIndexLookup*>(expr);
      Variable* object = emit(l->object, scope);
      std::vector<std::pair<std::string, Variable*>> args;
      for (const ast::KwArg& kw : l->named.kwargs) args.emplace_back(std::string(kw.name.text()), emit(kw.value, scope));
      std::vector<Variable*> wrapped;
      for (const ast::Expr* w : l->named.wrapped) wrapped.push_back(emit(w, scope));
      Variable* result = scheduler_.makePlain();
      scheduler_.unit({object}, [this, object, l, args, wrapped, result] {
            Value o = object->get();
            std::string rel(l->relation.text());
            if (!o.isInstance())
              fail(ErrorKind::TypingException,
                   "short index lookup is only possible on an instance, " + runtime::repr(o) + " is not an instance", l->loc());
            auto* instance = static_cast<runtime::Instance*>(o.asInstance());
            const model::Attribute* attr = instance->entity->attribute(rel);
            // (a name that is no attribute at all is not a relation either: the reference names it None)
            if (attr == nullptr)
              fail(ErrorKind::TypingException, "short index lookup is only possible on relations, None is an attribute",
                   l->loc());
            if (!attr->isRelation)
              fail(ErrorKind::TypingException, "short index lookup is only possible on relations, " + rel + " is an attribute",
                   l->loc());
            if (attr->inverse == nullptr)
              fail(ErrorKind::TypingException,
                   "short index lookup is only possible on bi-drectional relations, " + attr->entity->fullName + "." +
                       rel + " is unidirectional",
                   l->loc());
            Variable* found = emitIndexLookup(attr->target(), args, wrapped,
                                              {{attr->inverse->name, Value(static_cast<runtime::InstanceBase*>(instance))}}, l);
            scheduler_.unit({found}, [found, result, l] { result->set(found->get(), l->loc()); },
                                                       "index lookup", l->loc(), true);
          },
          "index lookup", l->loc(), true);
      return result;
    }
    default:  // every expression kind is handled above; a new one must be added there
      throw std::logic_error(std::string("no evaluation for the expression kind ") + ast::kindName(expr->kind));
  }
}

// ------------------------------------------------------------------ plugins

Value Evaluator::callPlugin(const PluginSpec& plugin, SourceLocation at, const std::vector<Value>& positional,
                            const std::vector<std::pair<std::string, Value>>& named, bool nested) {
  const std::string full = plugin.fullName();
  size_t positionalParams = 0;
  for (const PluginParam& p : plugin.params)
    if (!p.keywordOnly) ++positionalParams;
  if (positional.size() > positionalParams)
    fail(ErrorKind::RuntimeException,
         full + "() takes " + std::to_string(positionalParams) + " positional arguments but " +
             std::to_string(positional.size()) + " were given",
         at, true);
  // as the reference's Plugin.check_args: (1) too many positional arguments (above), (2) the
  // missing ones, positional then keyword-only, (3) the types of the positional values in order,
  // (4) each keyword argument in call order: its name, whether it was given positionally too,
  // its type
  auto named_ = [&](const std::string& name) {
    return std::any_of(named.begin(), named.end(), [&](const auto& n) { return n.first == name; });
  };
  std::vector<std::string> missingPositional, missingKeyword;
  for (size_t i = 0, position = 0; i < plugin.params.size(); ++i) {
    const PluginParam& p = plugin.params[i];
    bool hasDefault = p.defaultValue.has_value() || p.defaultIsNone;
    if (!p.keywordOnly) {
      if (position >= positional.size() && !named_(p.name) && !hasDefault) missingPositional.push_back(p.name);
      ++position;
    } else if (!named_(p.name) && !hasDefault) {
      missingKeyword.push_back(p.name);
    }
  }
  for (const auto& [missing, sort] : {std::pair{&missingPositional, "positional"}, std::pair{&missingKeyword, "keyword-only"}}) {
    if (missing->empty()) continue;
    std::string names;
    for (size_t i = 0; i < missing->size(); ++i)
      names += (i == 0 ? "" : i + 1 == missing->size() ? " and " : ", ") + ("'" + (*missing)[i] + "'");
    fail(ErrorKind::RuntimeException,
         full + "() missing " + std::to_string(missing->size()) + " required " + sort + " argument" +
             (missing->size() > 1 ? "s" : "") + ": " + names,
         at, true);
  }
  bool anyUnknown = false;
  auto check = [&](const PluginParam& p, const Value& v) {
    if (v.isUnknown()) {
      anyUnknown = true;
      return;
    }
    if (auto err = validatePluginType(model_, model_.findNamespace(plugin.ns), p.type, v,
                                        [this](const model::Typedef& t, const Value& x) { return checkConstraint(t, x); })) {
      Diagnostic d(ErrorKind::PluginTypeException,
                   "Value " + runtime::repr(v) + " for argument " + p.name + " of plugin " + full +
                       " has incompatible type. Expected type: " + p.type,
                   at, true);
      d.causes.push_back(*err);
      throw CompileError(std::move(d));
    }
  };
  std::vector<std::optional<Value>> bound(plugin.params.size());
  for (size_t i = 0; i < positional.size(); ++i) {
    check(plugin.params[i], positional[i]);
    bound[i] = positional[i];
  }
  std::vector<std::pair<std::string, Value>> extra;
  for (const auto& [name, value] : named) {
    auto it = std::find_if(plugin.params.begin(), plugin.params.end(), [&](const PluginParam& p) { return p.name == name; });
    if (it == plugin.params.end()) {
      if (!plugin.varKeywords)
        fail(ErrorKind::RuntimeException, full + "() got an unexpected keyword argument: '" + name + "'", at, true);
      if (value.isUnknown()) anyUnknown = true;
      extra.emplace_back(name, value);
      continue;
    }
    size_t index = static_cast<size_t>(it - plugin.params.begin());
    if (index < positional.size())
      fail(ErrorKind::RuntimeException, full + "() got multiple values for argument '" + name + "'", at, true);
    check(*it, value);
    bound[index] = value;
  }
  std::vector<Value> args;
  args.reserve(plugin.params.size());
  for (size_t i = 0; i < plugin.params.size(); ++i) {
    if (bound[i]) args.push_back(*bound[i]);
    else if (plugin.params[i].defaultValue) args.push_back(*plugin.params[i].defaultValue);
    else args.push_back(Value());  // (a None default)
  }
  if (anyUnknown && !plugin.acceptsUnknown) return Value::unknown();
  if (plugin.deprecated)
    context_->warn("PluginDeprecationWarning",
                   "Plugin '" + full + "' is deprecated." +
                       (plugin.replacedBy.empty() ? std::string() : " It should be replaced by '" + plugin.replacedBy + "'."));
  Value result;
  try {
    result = plugin.run(*context_, args, extra);
  } catch (const PluginSuspend& suspend) {
    if (nested) throw;
    throw runtime::UnsetSignal{static_cast<Variable*>(suspend.variable())};  // run again once it is ready
  } catch (const PluginFailure& f) {
    if (nested) throw;  // a plugin calling another sees the callee's failure as it is
    Diagnostic d(ErrorKind::ExternalException, "Exception in plugin " + full, at, true);
    d.nativeCause = f.pythonType() + ": " + f.message();
    throw CompileError(std::move(d));
  } catch (const ExplicitPluginFailure& f) {
    if (nested) throw;
    throw CompileError(Diagnostic(ErrorKind::ExplicitPluginException, "PluginException in plugin " + full + ": " + f.message(),
                                  at, true));
  } catch (const CompileError& e) {
    if (nested) throw;
    Diagnostic d(ErrorKind::WrappingRuntimeException, "Exception in plugin " + full, at, true);
    d.causes.push_back(e.diagnostic());
    throw CompileError(std::move(d));
  }
  // an unknown the plugin made gets an identity of the compile's own (a plugin of a shared module
  // counts its unknowns apart); one of its arguments handed back stays the same unknown
  if (result.isUnknown() &&
      std::none_of(args.begin(), args.end(), [&](const Value& a) { return a.isUnknown() && a.unknownId() == result.unknownId(); }))
    result = Value::unknown();
  if (!plugin.returnType.empty() && plugin.returnType != "null" && plugin.returnType != "any" && !result.isUnknown()) {
    if (auto err = validatePluginType(model_, model_.findNamespace(plugin.ns), plugin.returnType, result,
                                        [this](const model::Typedef& t, const Value& x) { return checkConstraint(t, x); })) {
      Diagnostic d(ErrorKind::PluginTypeException,
                   "Return value " + runtime::repr(result) + " of plugin " + full +
                       " has incompatible type. Expected type: " + plugin.returnType,
                   at, true);
      d.causes.push_back(*err);
      throw CompileError(std::move(d));
    }
  }
  return result;
}

// ------------------------------------------------------------------ strings

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


// ------------------------------------------------------------------ typedef constraints (3.6)

namespace {
std::string pretty(const ast::Expr* e) {
  switch (e->kind) {
    case ast::Kind::Literal: {
      auto* lit = static_cast<const ast::Literal*>(e);
      return lit->value().isNull() ? std::string("null") : runtime::repr(lit->value());
    }
    case ast::Kind::VarRef: return std::string(static_cast<const ast::VarRef*>(e)->name().text());
    case ast::Kind::Regex: return "/" + static_cast<const ast::Regex*>(e)->pattern + "/";
    case ast::Kind::Binary: {
      auto* b = static_cast<const ast::Binary*>(e);
      return "(" + pretty(b->lhs) + " " + ast::binaryOpText(b->op) + " " + pretty(b->rhs) + ")";
    }
    case ast::Kind::Not: return "not " + pretty(static_cast<const ast::Not*>(e)->operand);
    case ast::Kind::Call: {
      auto* c = static_cast<const ast::Call*>(e);
      std::string out = std::string(c->function.text()) + "(";
      bool first = true;
      for (const ast::Expr* a : c->args) {
        if (!first) out += ",";
        first = false;
        out += pretty(a);
      }
      for (const ast::KwArg& kw : c->named.kwargs) {
        if (!first) out += ",";
        first = false;
        out += std::string(kw.name.text()) + "=" + pretty(kw.value);
      }
      return out + ")";
    }
    case ast::Kind::ListLit: {
      std::string out = "[";
      bool first = true;
      for (const ast::Expr* x : static_cast<const ast::ListLit*>(e)->elements) {
        if (!first) out += ", ";
        first = false;
        out += pretty(x);
      }
      return out + "]";
    }
    case ast::Kind::DictLit: {
      std::string out = "{";
      bool first = true;
      for (const auto& [k, v] : static_cast<const ast::DictLit*>(e)->entries) {
        if (!first) out += ", ";
        first = false;
        out += runtime::pyReprString(k) + ": " + pretty(v);
      }
      return out + "}";
    }
    case ast::Kind::Conditional: {
      auto* c = static_cast<const ast::Conditional*>(e);
      return pretty(c->condition) + " ? " + pretty(c->whenTrue) + " : " + pretty(c->whenFalse);
    }
    case ast::Kind::StringFormat:  // the reference's repr of its StringFormat node
      return "Format(" + runtime::pyReprString(static_cast<const ast::StringFormat*>(e)->text) + ")";
    default: return ast::dump(e);
  }
}
}  // namespace

namespace {
// True when `test` holds for every part of `e` that is computed with it inline: the operands of
// an operator, the elements of a list or dict literal, the parts of a conditional or a dict lookup
// (true for an expression without parts).
bool everyPart(const ast::Expr* e, bool (*test)(const ast::Expr*)) {
  switch (e->kind) {
    case ast::Kind::Binary: {
      auto* b = static_cast<const ast::Binary*>(e);
      return test(b->lhs) && test(b->rhs);
    }
    case ast::Kind::Not: return test(static_cast<const ast::Not*>(e)->operand);
    case ast::Kind::Conditional: {
      auto* c = static_cast<const ast::Conditional*>(e);
      return test(c->condition) && test(c->whenTrue) && test(c->whenFalse);
    }
    case ast::Kind::ListLit: {
      auto* l = static_cast<const ast::ListLit*>(e);
      return std::all_of(l->elements.begin(), l->elements.end(), test);
    }
    case ast::Kind::DictLit: {
      auto* d = static_cast<const ast::DictLit*>(e);
      return std::all_of(d->entries.begin(), d->entries.end(), [test](const auto& entry) { return test(entry.value); });
    }
    case ast::Kind::MapLookup: {
      auto* m = static_cast<const ast::MapLookup*>(e);
      return test(m->map) && test(m->key);
    }
    default: return true;
  }
}

// True when the direct value of `e` computes without plugin calls and constructions, whatever its
// inputs: the expressions with units of their own (attribute references, conditionals, ...)
// count as inputs.
bool computedPurely(const ast::Expr* e) {
  switch (e->kind) {
    case ast::Kind::Literal: case ast::Kind::VarRef: case ast::Kind::Regex: case ast::Kind::AttrRef:
    case ast::Kind::StringFormat: case ast::Kind::FString: case ast::Kind::Conditional: case ast::Kind::IsDefined:
    case ast::Kind::ListComp: case ast::Kind::IndexLookup: case ast::Kind::ShortIndexLookup:
      return true;
    case ast::Kind::Binary: {
      auto* b = static_cast<const ast::Binary*>(e);
      return b->op == ast::BinaryOp::And || b->op == ast::BinaryOp::Or || everyPart(e, computedPurely);
    }
    case ast::Kind::Not: case ast::Kind::ListLit: case ast::Kind::DictLit: case ast::Kind::MapLookup:
      return everyPart(e, computedPurely);
    default: return false;  // plugin calls and casts, constructors
  }
}

// True when evaluating `e` directly can only compute (no plugin call that might print or ask a
// server): its result then depends on `self` alone.
bool computesOnly(const ast::Expr* e) {
  switch (e->kind) {
    case ast::Kind::Literal: case ast::Kind::VarRef: case ast::Kind::Regex: return true;
    case ast::Kind::Binary: case ast::Kind::Not: case ast::Kind::Conditional: case ast::Kind::ListLit:
    case ast::Kind::DictLit:
      return everyPart(e, computesOnly);
    default: return false;
  }
}
}  // namespace

std::optional<Diagnostic> Evaluator::checkConstraint(const model::Typedef& t, const Value& v) {
  // a constraint without plugin calls accepts the same string or integer every time: the
  // accepted ones are remembered (a bounded number per typedef; rejections are evaluated again
  // for their message)
  auto [memo, added] = constraintMemos_.try_emplace(&t);
  if (added) memo->second.pure = computesOnly(t.definition->constraint);
  ConstraintMemo& m = memo->second;
  if (m.pure) {
    if (v.isString() && m.strings.count(v.asString())) return std::nullopt;
    if (v.isInt() && m.ints.count(v.asInt())) return std::nullopt;
  }
  std::optional<Diagnostic> verdict = evaluateConstraint(t, v);
  if (!verdict && m.pure && m.strings.size() + m.ints.size() < ConstraintMemo::kLimit) {
    if (v.isString()) m.strings.insert(v.asString());
    else if (v.isInt()) m.ints.insert(v.asInt());
  }
  return verdict;
}

std::optional<Diagnostic> Evaluator::evaluateConstraint(const model::Typedef& t, const Value& v) {
  Value result;
  try {
    result = evalDirect(t.definition->constraint, v, t);
  } catch (const CompileError& e) {
    return e.diagnostic();
  }
  if (result.isUnknown() || runtime::pyTruthy(result)) return std::nullopt;
  return Diagnostic(ErrorKind::RuntimeException,
                    "Invalid value " + runtime::repr(v) + ", does not match constraint `" + pretty(t.definition->constraint) + "`",
                    t.location, false);
}

template <class F>
Variable* Evaluator::constantVariable(ast::EvalCache& cache, F value) {
  if (cache.owner != generation_) {
    cache.owner = generation_;
    cache.value = scheduler_.makeWrapped(value());
  }
  return static_cast<Variable*>(cache.value);
}

Value Evaluator::evalDirect(const ast::Expr* e, const Value& self, const model::Typedef& t, const DirectLocal* locals) {
  auto bad = [&](const ast::Expr* x) -> Value {
    fail(ErrorKind::DirectExecuteException, "The statement " + pretty(x) + " can not be executed in this context", x->loc());
  };
  switch (e->kind) {
    case ast::Kind::Literal: {
      return static_cast<const ast::Literal*>(e)->value();
    }
    case ast::Kind::VarRef: {
      std::string_view n = static_cast<const ast::VarRef*>(e)->name().text();
      for (const DirectLocal* l = locals; l != nullptr; l = l->outer)
        if (l->name == n) return l->value;
      if (n == "self") return self;  // (not the typedef's own name: only `self` is bound, spec 3.6)
      fail(ErrorKind::NotFoundException,
           "Unable to resolve `" + std::string(n) + "`: a type constraint can not reference variables.", e->loc(), true);
    }
    case ast::Kind::Regex: {
      auto* r = static_cast<const ast::Regex*>(e);
      if (!self.isString())
        fail(ErrorKind::TypingException,
             "Regex can only be match with strings. " + runtime::str(self) + " is of type <class '" +
                 runtime::pythonTypeName(self) + "'>",
             r->loc(), true);
      auto it = regexes_.find(r->pattern);
      if (it == regexes_.end()) {
        std::string error;
        it = regexes_.emplace(r->pattern, PyRegex::compile(r->pattern, error)).first;
      }
      return Value(it->second && it->second->matchPrefix(self.asString()));
    }
    case ast::Kind::Binary: {
      auto* b = static_cast<const ast::Binary*>(e);
      Value l = evalDirect(b->lhs, self, t, locals);
      if (b->op == ast::BinaryOp::And || b->op == ast::BinaryOp::Or) {
        bool isAnd = b->op == ast::BinaryOp::And;
        if (l.isUnknown()) return l;
        if (!l.isBool())
          fail(ErrorKind::RuntimeException,
               "Invalid left hand value `" + runtime::str(l) + "`: `" + (isAnd ? "and" : "or") + "` expects a boolean",
               b->loc());
        if (l.asBool() != isAnd) return l;
        Value r = evalDirect(b->rhs, self, t, locals);
        if (!r.isUnknown() && !r.isBool())
          fail(ErrorKind::RuntimeException,
               "Invalid right hand value `" + runtime::str(r) + "`: `" + (isAnd ? "and" : "or") + "` expects a boolean",
               b->loc());
        return r;
      }
      return applyBinary(b->op, l, evalDirect(b->rhs, self, t, locals), b->loc());
    }
    case ast::Kind::Not: {
      return applyNot(evalDirect(static_cast<const ast::Not*>(e)->operand, self, t, locals), e->loc());
    }
    case ast::Kind::Conditional: {
      auto* c = static_cast<const ast::Conditional*>(e);
      Value cond = evalDirect(c->condition, self, t, locals);
      if (cond.isUnknown()) return cond;
      return evalDirect(conditionHolds(cond, c->loc()) ? c->whenTrue : c->whenFalse, self, t, locals);
    }
    case ast::Kind::ListLit: {
      ValueList out;
      for (const ast::Expr* x : static_cast<const ast::ListLit*>(e)->elements) {
        Value v = evalDirect(x, self, t, locals);
        if (v.isList()) out.insert(out.end(), v.asList().begin(), v.asList().end());
        else out.push_back(v);
      }
      return Value(std::move(out));
    }
    case ast::Kind::ListComp: {
      // as the reference's ListComprehension.execute_direct: the results in order, those the guard
      // filters out and null results left out, nested lists kept
      auto* c = static_cast<const ast::ListComp*>(e);
      Value iterable = evalDirect(c->iterable, self, t, locals);
      if (iterable.isUnknown()) return iterable;
      if (!iterable.isList())
        fail(ErrorKind::TypingException,
             "A list comprehension in a direct execute context can only be applied to lists, got " +
                 runtime::pythonTypeName(iterable),
             c->loc());
      ValueList out;
      for (const Value& element : iterable.asList()) {
        DirectLocal local{c->variable.text(), element, locals};
        if (c->guard != nullptr) {
          Value guard = evalDirect(c->guard, self, t, &local);
          if (!guard.isBool())
            fail(ErrorKind::TypingException,
                 "Invalid value `" + runtime::str(guard) +
                     "`: the guard condition for a list comprehension must be a boolean expression",
                 c->loc());
          if (!guard.asBool()) continue;
        }
        Value v = evalDirect(c->value, self, t, &local);
        if (!v.isNull()) out.push_back(std::move(v));
      }
      return Value(std::move(out));
    }
    case ast::Kind::DictLit: {
      ValueDict out;
      for (const auto& [k, x] : static_cast<const ast::DictLit*>(e)->entries) out.items.emplace_back(k, evalDirect(x, self, t, locals));
      return Value(std::move(out));
    }
    case ast::Kind::Call: {
      auto* call = static_cast<const ast::Call*>(e);
      std::string_view name = call->function.text();
      std::vector<Value> args;
      for (const ast::Expr* a : call->args) args.push_back(evalDirect(a, self, t, locals));
      if (isCastName(name) && args.size() == 1 && call->named.kwargs.empty()) {
        runtime::CastType to = name == "string" ? runtime::CastType::String
                               : name == "int"  ? runtime::CastType::Int
                               : name == "float" ? runtime::CastType::Float
                               : name == "bool" ? runtime::CastType::Bool
                                                : runtime::CastType::Number;
        runtime::OpResult r = runtime::cast(to, args[0]);
        if (r.error) fail(ErrorKind::RuntimeException, r.error->message, call->loc(), true);
        return r.value;
      }
      const model::Type* primitive = nullptr;
      const model::Definition* def = model::resolveName(model_, t.ns, call->function, &primitive);
      if (def == nullptr || def->kind != model::Definition::Kind::Plugin)
        fail(ErrorKind::RuntimeException,
             "Can not call '" + std::string(name) + "', can only call plugin or primitive type cast", call->loc(), true);
      std::vector<std::pair<std::string, Value>> kwargs;
      for (const ast::KwArg& kw : call->named.kwargs) kwargs.emplace_back(std::string(kw.name.text()), evalDirect(kw.value, self, t, locals));
      // as the reference's direct calls: an unknown argument is an error, not an unknown result
      bool unknownArgument = std::any_of(args.begin(), args.end(), [](const Value& a) { return a.isUnknown(); }) ||
                             std::any_of(kwargs.begin(), kwargs.end(), [](const auto& k) { return k.second.isUnknown(); });
      if (unknownArgument && !def->plugin()->acceptsUnknown)
        fail(ErrorKind::RuntimeException, "Received unknown value during direct execution", call->loc(), true);
      if (def->plugin()->contextAware)
        fail(ErrorKind::RuntimeException, "Context Aware functions are not allowed in direct execution", call->loc(), true);
      context_->callingNs = t.ns;
      context_->location = call->loc();
      context_->scope = nullptr;
      return callPlugin(*def->plugin(), call->loc(), args, kwargs);
    }
    default:
      return bad(e);
  }
}


// ------------------------------------------------------------------ entities (4.8)

// The checks and inverse of an attribute's slots, one object per attribute.
class Evaluator::AttributePolicy : public runtime::SlotPolicy {
 public:
  AttributePolicy(Evaluator* evaluator, const model::Attribute* attribute)
      : evaluator_(evaluator),
        attribute_(attribute),
        checkConstraint_([evaluator](const model::Typedef& t, const Value& x) { return evaluator->checkConstraint(t, x); }),
        selfBinding_(isSelfBinding(attribute)) {}

  // A plain attribute named `self`: its slot holds the instance itself, untyped (spec 3.7).
  static bool isSelfBinding(const model::Attribute* attribute) { return !attribute->isRelation && attribute->name == "self"; }

  std::optional<Diagnostic> validate(const Value& v) const override {
    if (!attribute_->isRelation)
      return selfBinding_ ? std::nullopt : validateValue(attribute_->type, v, checkConstraint_);
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
    evaluator_->setAttribute(static_cast<runtime::Instance*>(other.asInstance()), attribute_->inverse, Value(self.owner()),
                             location, false);
  }

 private:
  Evaluator* evaluator_;
  const model::Attribute* attribute_;
  ConstraintCheck checkConstraint_;  // made once: validate() runs on every value set
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
      plan.defaults.push_back({&name, attr, entity->positionOf(attr), dflt.expr, topScopes_.at(dflt.ns), literalIndexDefault});
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

void Evaluator::loadPrecedencePolicy() {
  // project.yml's relation_precedence_policy (experimental in the reference): each rule
  // `<entity>.<relation> before <entity>.<relation>` names relations declared on those entities
  // (full names); the relations are frozen in an order that respects every rule (spec 4.7)
  if (options_.relationPrecedencePolicy.empty()) return;  // (most projects: no regex to compile)
  // as the reference's scheduler announces it (each rule is logged before it is checked)
  auto log = [this](std::string_view level, const std::string& message) {
    if (options_.log) options_.log("inmanta.execute.scheduler", level, message);
  };
  log("WARNING",
      "[EXPERIMENTAL FEATURE] Using the relation precedence policy defined in the project.yml file to determine list "
      "freeze order.");
  static const std::regex rule(R"(^\s*([\w:]+)\.(\w+)\s+before\s+([\w:]+)\.(\w+)\s*$)");
  auto invalid = [](const std::string& message) -> const model::Attribute* {
    throw CompileError(Diagnostic(ErrorKind::CompilerException, message));
  };
  auto relationOf = [&](const std::string& type, const std::string& name) -> const model::Attribute* {
    size_t sep = type.rfind("::");
    const model::Namespace* ns = sep == std::string::npos ? nullptr : model_.findNamespace(type.substr(0, sep));
    const model::Definition* def = nullptr;
    if (ns != nullptr) {
      auto it = ns->definitions.find(type.substr(sep + 2));
      if (it != ns->definitions.end()) def = &it->second;
    }
    if (def == nullptr)
      return invalid("A relation precedence rule was defined for " + type + ", but no such type was defined");
    const model::Entity* entity = def->entity();
    if (entity == nullptr) return invalid("A relation precedence rule was defined for non-entity type " + type);
    for (const model::Attribute* a : entity->own) {
      if (a->name != name) continue;
      if (!a->isRelation)
        return invalid("A relation precedence rule was defined for " + type + "." + name + ", but attribute " + name +
                       " is not a relationship attribute.");
      return a;
    }
    return invalid("A relation precedence rule was defined for " + type + "." + name + ", but entity " + type +
                   " doesn't have an attribute " + name + ".");
  };
  // the graph, nodes in order of first mention
  std::vector<const model::Attribute*> nodes;
  std::vector<std::pair<size_t, size_t>> edges;  // first, then
  auto node = [&](const model::Attribute* a) {
    auto it = std::find(nodes.begin(), nodes.end(), a);
    if (it != nodes.end()) return static_cast<size_t>(it - nodes.begin());
    nodes.push_back(a);
    return nodes.size() - 1;
  };
  for (const std::string& text : options_.relationPrecedencePolicy) {
    std::smatch m;
    if (!std::regex_match(text, m, rule))
      throw CompileError(Diagnostic(ErrorKind::CompilerException, "Invalid relation precedence rule: " + text));
    log("INFO", "Loaded relation precedence rule: " + std::string(m[1]) + "." + std::string(m[2]) + " before " +
                    std::string(m[3]) + "." + std::string(m[4]));
    size_t first = node(relationOf(m[1], m[2]));
    size_t then = node(relationOf(m[3], m[4]));
    edges.emplace_back(first, then);
  }
  // a topological order; among the relations that may come next, the first mentioned
  std::vector<size_t> before(nodes.size(), 0);
  for (auto [first, then] : edges) ++before[then];
  std::vector<bool> placed(nodes.size(), false);
  for (int rank = 0; rank < static_cast<int>(nodes.size()); ++rank) {
    size_t next = nodes.size();
    for (size_t i = 0; i < nodes.size() && next == nodes.size(); ++i)
      if (!placed[i] && before[i] == 0) next = i;
    if (next == nodes.size())
      throw CompileError(Diagnostic(ErrorKind::CompilerException, "A cycle exists in the relation precedence policy"));
    placed[next] = true;
    freezeRanks_[nodes[next]] = rank;
    for (auto [first, then] : edges)
      if (first == next) --before[then];
  }
}

runtime::Instance* Evaluator::createInstance(const model::Entity* entity, const EntityPlan& plan, SourceLocation at) {
  // the instance and its slots in one block (plan.layout)
  auto* instance = new (instances_.allocate(plan.layout))
      runtime::Instance(entity, instances_.size() + 1, &plan.layout, at);
  instances_.add(instance);
  if (options_.maxMemory != 0 && instances_.size() % kMemoryCheckEvery == 0) checkMemory(at);
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
  if (plan.selfSlot >= 0) instance->slot(static_cast<size_t>(plan.selfSlot))
        ->set(Value(static_cast<runtime::InstanceBase*>(instance)), SourceLocation{}, false);
  return instance;
}

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

void Evaluator::checkMemory(SourceLocation at) const {
  // the resident size, from /proc (Linux): the second number of statm, in pages
  std::ifstream statm("/proc/self/statm");
  size_t size = 0;
  size_t resident = 0;
  if (!(statm >> size >> resident)) return;
  size_t bytes = resident * static_cast<size_t>(sysconf(_SC_PAGESIZE));
  if (bytes <= options_.maxMemory) return;
  constexpr size_t kMiB = size_t(1) << 20;
  fail(ErrorKind::CompilerException,
       "Could not complete model: the compile uses " + std::to_string(bytes / kMiB) + " MiB of memory, over its limit of " +
           std::to_string(options_.maxMemory / kMiB) + " MiB, after constructing " + std::to_string(instances_.size()) +
           " instances, the latest here.\nA model that constructs instances without end never completes (an implementation "
           "that constructs an instance of its own entity, for example). INMANTA_MAX_MEMORY sets the limit, in MiB (by "
           "default half of the machine's memory).",
       at);
}

void Evaluator::attributeFailure(runtime::Instance* instance, const model::Attribute* attribute, Diagnostic cause,
                                 SourceLocation at) {
  Diagnostic d(ErrorKind::AttributeException,
               "Could not set attribute `" + attribute->name + "` on instance `" + instance->display() + "`", at, false);
  // a cause without a statement of its own (a value the type refuses) is the assignment's, as
  // the reference sets it
  if (!cause.location.valid()) {
    cause.location = at;
    cause.showColumn = false;
  }
  d.causes.push_back(std::move(cause));
  throw CompileError(std::move(d));
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
  AssignmentBatch(Evaluator& evaluator, runtime::Instance* instance, SourceLocation at, size_t expected)
      : Waiter(evaluator.scheduler_), instance_(instance), at_(packLocation(at)) {
    entries_.reserve(expected);
  }
  void add(const model::Attribute* attribute, Variable* source, runtime::Promise* promise) {
    entries_.push_back({attribute, promise, source});
  }
  void execute() override {
    for (const Entry& e : entries_) {
      setAttribute(instance_, e.attribute, e.source, location());
      if (e.promise != nullptr) e.promise->owner->fulfill(e.promise);
    }
  }
  std::string describe() const override {
    return instance_->entity->shortName + "(" + (entries_.empty() ? std::string() : entries_.front().attribute->name) + "=...)";
  }
  SourceLocation location() const override { return unpackLocation(at_); }
  bool isExecutionUnit() const override { return true; }

 private:
  struct Entry {
    const model::Attribute* attribute;
    runtime::Promise* promise;
    Variable* source;  // read when the batch runs (a literal's: the node's constant)
  };
  runtime::Instance* instance_;
  uint64_t at_;  // (packLocation)
  std::vector<Entry> entries_;
};

// Its own class rather than a FunctionUnit: at 100,000 services 360,000 of them wait at once, and
// this one keeps its location and its label's parts once, and no evaluator (80 bytes instead of
// 152).
class Evaluator::AssignmentUnit final : public runtime::Waiter {
 public:
  AssignmentUnit(Evaluator& evaluator, runtime::Instance* instance, const model::Attribute* attribute, Variable* value,
                 runtime::Promise* promise, SourceLocation at, AssignmentOf of, const ast::Expr* target)
      : Waiter(evaluator.scheduler_),
        instance_(instance),
        attribute_(attribute),
        value_(value),
        promise_(promise),
        target_(target),
        where_(packLocation(at) | (uint64_t(of) << kPackedLocationBits)) {
    inputs_ = runtime::VarList{value};
    waitForInputs();
  }
  void execute() override {
    setAttribute(instance_, attribute_, value_, location());
    if (promise_ != nullptr) promise_->owner->fulfill(promise_);
  }
  std::string describe() const override {
    switch (static_cast<AssignmentOf>(where_ >> kPackedLocationBits)) {
      case AssignmentOf::Argument: return instance_->entity->shortName + "(" + attribute_->name + "=...)";
      case AssignmentOf::Default: return "default " + attribute_->name;
      case AssignmentOf::Statement: break;
    }
    return ast::dump(target_) + " = ...";
  }
  SourceLocation location() const override { return unpackLocation(where_); }
  bool isExecutionUnit() const override { return true; }

 private:
  runtime::Instance* instance_;
  const model::Attribute* attribute_;
  Variable* value_;  // (its inputs are what it waits for: a direct value's own inputs)
  runtime::Promise* promise_;
  const ast::Expr* target_;  // of a statement's assignment
  uint64_t where_;           // its location (packLocation), and above it what it assigns (AssignmentOf)
};

void Evaluator::assignmentUnit(runtime::Instance* instance, const model::Attribute* attribute, Variable* value,
                               runtime::Promise* promise, SourceLocation at, AssignmentOf of, const ast::Expr* target) {
  scheduler_.submit(new AssignmentUnit(*this, instance, attribute, value, promise, at, of, target));
}

template <class F>
void Evaluator::whenSlot(const ast::AttrRef* ref, Scope* scope, F then) {
  Variable* object = emit(ref->object, scope);
  scheduler_.unit({object}, [object, ref, then] { then(attributeSlot(object->get(), ref->attribute.text(), ref->object, ref->loc())); },
                  exprLabel(ref), ref->loc(), true);
}

void Evaluator::assignFromAttribute(runtime::Instance* instance, const model::Attribute* attribute, const ast::AttrRef* ref,
                                    Scope* scope, runtime::Promise* promise, SourceLocation at, AssignmentOf of,
                                    const ast::Expr* target) {
  whenSlot(ref, scope, [this, instance, attribute, promise, at, of, target](Variable* slot) {
    assignmentUnit(instance, attribute, slot, promise, at, of, target);
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

std::string Evaluator::indexKey(const std::vector<std::string>& attributes, NamedValues values, bool& complete) const {
  std::string key;
  complete = true;
  for (const std::string& a : attributes) {
    auto it = std::find_if(values.begin(), values.end(), [&](const auto& p) { return p.first == a; });
    if (it == values.end()) {
      complete = false;
      return {};
    }
    const Value& v = it->second;
    if (!key.empty()) key += ", ";
    key += a;
    key += '=';
    key += runtime::repr(v);  // (an instance as spec 9.7 renders it)
  }
  return key;
}

bool Evaluator::indexKeyBytes(const std::vector<std::string>& attributes, NamedValues values, std::pmr::string& out) {
  IndexKeyWriter key(out, indexNumber(attributes));
  for (const std::string& a : attributes) {
    auto it = std::find_if(values.begin(), values.end(), [&](const auto& p) { return p.first == a; });
    if (it == values.end()) return false;
    const Value& v = it->second;
    switch (v.type()) {
      case Value::Type::Null: key.null(); break;
      case Value::Type::Bool: key.boolean(v.asBool()); break;
      case Value::Type::Int: key.integer(v.asInt()); break;
      case Value::Type::Float: key.floating(v.asFloat()); break;
      case Value::Type::String: key.string(v.asString()); break;
      case Value::Type::Instance: key.instance(static_cast<runtime::Instance*>(v.asInstance())->ordinal); break;
      // (the reference keys an unknown by its object's repr: each unknown its own key)
      case Value::Type::Unknown: key.repr("<unknown " + std::to_string(v.unknownId()) + ">"); break;
      default: key.repr(runtime::repr(v)); break;
    }
  }
  return true;
}

uint32_t Evaluator::indexNumber(const std::vector<std::string>& attributes) {
  auto known = indexNumberOf_.find(&attributes);
  if (known != indexNumberOf_.end()) return known->second;
  auto [it, added] = indexNumbers_.emplace(attributes, static_cast<uint32_t>(indexNumbers_.size()));
  indexNumberOf_.emplace(&attributes, it->second);
  return it->second;
}

const Evaluator::ConstructorPlan& Evaluator::constructorPlan(const ast::Constructor* ctor, Scope* scope) {
  bool resolved = ctor->cache.owner == generation_;
  if (resolved && ctor->cache.plan() != nullptr) return *static_cast<const ConstructorPlan*>(ctor->cache.plan());
  ConstructorPlan plan;
  plan.entity = resolved ? static_cast<const model::Entity*>(ctor->cache.entity())
                         : constructorEntity(ctor, scope->ns, nullptr);
  auto keep = [&](ConstructorPlan& kept) -> const ConstructorPlan& {
    ctor->cache.setPlan(generation_, &kept);
    return kept;
  };
  const model::Entity* entity = plan.entity;
  // the plan depends on the entity and the argument names only: calls of the same shape share one
  const ast::Span<ast::KwArg>& arguments = ctor->named.kwargs;
  uint64_t shape = std::hash<const void*>()(entity);
  for (const ast::KwArg& kw : arguments) shape = (shape ^ reinterpret_cast<uintptr_t>(kw.name.symbol())) * 0x9E3779B97F4A7C15ull;
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
    else
      plan.late.push_back(i);
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
  return scheduler_.makeDirect(std::move(inputs), [this, ctor, &plan, scope, target](const runtime::VarList& in) -> Value {
        const size_t earlyCount = plan.early.size();
        const model::Entity* entity = plan.entity;
        const std::vector<std::string>& indexAttributes = *plan.indexAttributes;
        const ast::Span<ast::KwArg>& kwargs = ctor->named.kwargs;
        auto isLate = [&](std::string_view name) {
          return std::any_of(plan.late.begin(), plan.late.end(), [&](uint32_t i) { return kwargs[i].name.text() == name; });
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
            bool repeated = std::any_of(values.begin(), values.end(), [&](const auto& p) { return p.first == k; }) || isLate(k);
            if (repeated)
              fail(ErrorKind::RuntimeException,
                   "The attribute " + k + " is set twice in the constructor call of " + entity->shortName + ".", ctor->loc());
            values.emplace_back(k, v);
            planned = false;
          }
        }
        // the implicit inverse: `x.r = E(...)` sets E's index attribute that is r's inverse (4.8 step 3)
        if (target && target->attribute->inverse != nullptr) {
          const std::string& inv = target->attribute->inverse->name;
          bool given = std::any_of(values.begin(), values.end(), [&](const auto& p) { return p.first == inv; }) || isLate(inv);
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
               missingIndexMessage(entity, missingIndexAttributes(entity, given)), ctor->loc());
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
                 "Type found in index is not an exact match (original at (" + where(ctor->loc()) + ")) (duplicate at (" +
                     where(instance->constructedAt()) + "))",
                 ctor->loc());
          instance->matchedAt(ctor->loc());
        } else {
          instance = createInstance(entity, *plan.entityPlan, ctor->loc());
          if (!indexAttributes.empty()) registerInIndexes(instance, keys, ctor);
        }
        for (const auto& [name, v] : values) setAttribute(instance, entity->attribute(name), v, ctor->loc(), true);
        // the other arguments and the defaults, asynchronously (step 6)
        std::vector<ConstructorPlan::Step> dynamicSteps;
        if (!planned)
          dynamicSteps = constructorSteps(plan, [&](const EntityPlan::Default& d) { return given(*d.name); });
        const std::vector<ConstructorPlan::Step>& steps = planned ? plan.steps : dynamicSteps;
        // the assignments of known values go into one unit while nothing else is queued
        AssignmentBatch* batch = nullptr;
        uint64_t batchMark = 0;
        auto assignKnown = [&](const model::Attribute* attribute, Variable* value, runtime::Promise* promise, size_t step) {
          if (batch == nullptr || scheduler_.queueChanges() != batchMark) {
            batch = new AssignmentBatch(*this, instance, ctor->loc(), steps.size() - step);
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
              assignFromAttribute(instance, attr, static_cast<const ast::AttrRef*>(kw.value), scope, promise, ctor->loc(),
                                  AssignmentOf::Argument);
              continue;
            }
            Lhs here{instance, attr};
            Variable* value = emit(kw.value, scope, attr->isRelation ? &here : nullptr);
            if (knownNow(value, kw.value)) {
              assignKnown(attr, value, promise, stepIndex);
              continue;
            }
            assignmentUnit(instance, attr, value, promise, ctor->loc(), AssignmentOf::Argument);
            continue;
          }
          const EntityPlan::Default& dflt = plan.entityPlan->defaults[static_cast<size_t>(step.dflt)];
          Variable* slot = instance->slot(dflt.position);
          if (dflt.expr->kind == ast::Kind::Literal) {
            assignKnown(dflt.attribute, static_cast<const ast::Literal*>(dflt.expr)->variable(), slot->delayed() ? slot->setPromise() : nullptr, stepIndex);
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

const std::vector<std::string>& Evaluator::indexAttributesOf(const model::Entity* entity) {
  auto [it, added] = indexAttributes_.try_emplace(entity);
  if (added) {
    // the index attributes of the entity and its ancestors, sorted, once
    std::vector<std::string>& names = it->second;
    for (const model::Entity* e : entity->lineage())
      for (const auto& idx : e->indexes) names.insert(names.end(), idx.begin(), idx.end());
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
  }
  return it->second;
}

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
      scheduler_.unit({}, [this, rule, instance] {
            for (const model::Implementation* impl : rule->implementations) runImplementation(instance, impl);
          },
          "implement", rule->location, true);
      continue;
    }
    Scope* scope = instanceScope(instance, rule->ns);
    Variable* cond = emit(rule->when, scope);
    scheduler_.unit({cond}, [this, cond, rule, instance] {
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

Variable* Evaluator::emitAttrRef(const ast::AttrRef* ref, Scope* scope) {
  Variable* object = emit(ref->object, scope);
  Variable* result = scheduler_.makePlain();
  // as the reference's two units, one after the other: the first waits for the object and finds
  // the attribute's slot, the second waits for that slot and passes its value on (one unit that
  // runs twice; it keeps no evaluator: 260,000 wait at once at 100,000 services)
  scheduler_.unit({object}, [object, ref, result, slot = static_cast<Variable*>(nullptr)]() mutable {
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
  scheduler_.unit({object}, [this, object, target, assign, scope] {
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
                                     assign->loc(), AssignmentOf::Statement, target);
        Lhs here{instance, attr};
        Variable* value = emit(assign->value, scope, attr->isRelation ? &here : nullptr);
        assignmentUnit(instance, attr, value, promise, assign->loc(), AssignmentOf::Statement, target);
      },
      assignLabel(target), assign->loc(), true);
}

// ------------------------------------------------------------------ final checks (4.14)

void Evaluator::finalChecks() {
  std::vector<Diagnostic> errors;
  {
    // by entity, then by key text, as the lookups were filed before the tables were keyed by bytes
    std::vector<std::tuple<const model::Entity*, std::string_view, const std::vector<PendingLookup>*>> left;
    for (const auto& [entity, byKey] : pending_)
      for (const auto& [key, lookups] : byKey)
        if (!lookups.empty()) left.emplace_back(entity, lookups.front().key, &lookups);
    std::sort(left.begin(), left.end(), [](const auto& a, const auto& b) {
      if (std::get<0>(a) != std::get<0>(b)) return std::less<const model::Entity*>()(std::get<0>(a), std::get<0>(b));
      return std::get<1>(a) < std::get<1>(b);
    });
    for (const auto& [entity, text, lookups] : left)
      for (const PendingLookup& p : *lookups)
        errors.emplace_back(ErrorKind::NotFoundException,
                            "No match in index on type " + entity->fullName + " with key " + p.key, p.at->loc(), false);
  }
  for (const Annotation& a : annotations_)
    if (a.value->isReady() && a.value->get().isUnknown())
      for (int i = 0; i < a.ends; ++i)
        errors.emplace_back(ErrorKind::TypingException, "Relation annotation can not be Unknown", a.relation->loc(), false);
  const std::vector<runtime::Instance*>& all = instances_.all();
  for (size_t n = 0; n < all.size(); ++n) {
    runtime::Instance* instance = all[n];
    // the instance after next (its block: the instance, then its slots) is fetched while this
    // one is checked
    if (n + 2 < all.size()) {
      const char* ahead = reinterpret_cast<const char*>(all[n + 2]);
      for (int line = 0; line < 4; ++line) __builtin_prefetch(ahead + 64 * line);
    }
    if (!instance->ranImplementations())
      errors.emplace_back(ErrorKind::RuntimeException,
                          "Unable to select implementation for entity " + instance->entity->shortName,
                          instance->constructedAt(), false);
    for (size_t i = 0; i < instance->slotCount(); ++i) {
      Variable* slot = instance->slot(i);
      if (slot->isReady()) continue;
      if (slot->delayed() && slot->canGet()) {
        slot->freeze();
        continue;
      }
      const model::Attribute* attr = instance->entity->order[i];
      std::string message = "The object " + instance->display() + " is not complete: attribute " + attr->name + " (" +
                            sources_.format(attr->location, true) + ") ";
      if (attr->isMulti()) {
        size_t have = slot->current().isList() ? slot->current().asList().size() : 0;
        message += "requires " + std::to_string(attr->multiplicity.low) + " values but only " + std::to_string(have) +
                   " are set";
      } else {
        message += "is not set";
      }
      errors.emplace_back(ErrorKind::UnsetException, message);
    }
  }
  if (errors.empty()) return;
  if (errors.size() == 1) throw CompileError(std::move(errors.front()));
  std::stable_sort(errors.begin(), errors.end(), [this](const Diagnostic& a, const Diagnostic& b) {
    int ia = kindImportance(a.kind), ib = kindImportance(b.kind);
    if (ia != ib) return ia < ib;
    std::string fa = a.location.valid() ? sources_.file(a.location.file).display : "";
    std::string fb = b.location.valid() ? sources_.file(b.location.file).display : "";
    if (fa != fb) return fa < fb;
    return a.location.line < b.location.line;
  });
  Diagnostic multi(ErrorKind::MultiException, "Reported " + std::to_string(errors.size()) + " errors");
  multi.causes = std::move(errors);
  throw CompileError(std::move(multi));
}


// ------------------------------------------------------------------ indexes (4.10)

bool Evaluator::IndexKeys::key(const std::vector<std::string>& index, std::string_view& key) {
  // an entity lists its ancestors' indexes too: the same index is asked for several times
  for (const Known& k : known_)
    if (k.index == &index || *k.index == index) {
      key = k.key;
      return k.complete;
    }
  Known& k = known_.emplace_back(Known{&index, std::pmr::string(&memory_), false});
  k.key.reserve(32);
  k.complete = evaluator_.indexKeyBytes(index, values_, k.key);
  key = k.key;
  return k.complete;
}

std::string Evaluator::IndexKeys::text(const std::vector<std::string>& index) const {
  bool complete = false;
  return evaluator_.indexKey(index, values_, complete);
}

void Evaluator::registerInIndexes(runtime::Instance* instance, IndexKeys& keys, const ast::Node* at) {
  // in the table of the entity and of every ancestor, under every index that applies there
  for (const model::Entity* owner : instance->entity->lineage()) {
    auto& table = indexes_[owner];
    for (const model::Entity* declaring : owner->lineage())
      for (const auto& idx : declaring->indexes) {
        std::string_view key;
        if (!keys.key(idx, key)) continue;
        if (table.insert(key, instance->ordinal, indexKeys_) != instance->ordinal)
          fail(ErrorKind::DuplicateException, "Duplicate key in index. " + keys.text(idx), at->loc());
        auto pendingHere = pending_.find(owner);
        if (pendingHere == pending_.end()) continue;
        auto waiting = pendingHere->second.find(std::string(key));
        if (waiting != pendingHere->second.end()) {
          std::vector<PendingLookup> lookups = std::move(waiting->second);
          pendingHere->second.erase(waiting);
          for (const PendingLookup& p : lookups) p.result->set(Value(static_cast<runtime::InstanceBase*>(instance)), at->loc());
        }
      }
  }
}

Variable* Evaluator::emitIndexLookup(const model::Entity* entity, std::vector<std::pair<std::string, Variable*>> args,
                                     std::vector<Variable*> wrapped, std::vector<std::pair<std::string, Value>> fixed,
                                     const ast::Node* at) {
  std::vector<Variable*> inputs;
  for (auto& [n, v] : args) inputs.push_back(v);
  inputs.insert(inputs.end(), wrapped.begin(), wrapped.end());
  Variable* result = scheduler_.makePlain();
  scheduler_.unit(runtime::VarList(inputs), [this, entity, args, wrapped, fixed, at, result] {
        std::vector<std::pair<std::string, Value>> values = fixed;
        auto add = [&](const std::string& name, const Value& v) {
          if (std::any_of(values.begin(), values.end(), [&](const auto& p) { return p.first == name; }))
            fail(ErrorKind::RuntimeException, "Attribute " + name + " provided twice in index lookup", at->loc());
          values.emplace_back(name, v);
        };
        for (const auto& [n, v] : args) add(n, v->get());
        for (Variable* w : wrapped) {
          Value d = w->get();
          if (!d.isDict()) fail(ErrorKind::TypingException, "The ** operator can only be applied to dictionaries", at->loc());
          for (const auto& [k, v] : d.asDict().items) add(k, v);
        }
        for (auto& [n, v] : values)
          if (v.isInt() && floatTyped(entity->attribute(n))) v = Value(static_cast<double>(v.asInt()));
        std::vector<std::string> names;
        for (const auto& [n, v] : values) names.push_back(n);
        std::sort(names.begin(), names.end());
        const std::vector<std::string>* index = nullptr;
        for (const model::Entity* e : entity->lineage())
          for (const auto& idx : e->indexes)
            if (idx == names) index = &idx;
        if (index == nullptr) {
          std::string listed;
          for (const auto& [n, v] : values) listed += (listed.empty() ? "" : ", ") + ("('" + n + "', " + runtime::repr(v) + ")");
          fail(ErrorKind::NotFoundException, "No index defined on " + entity->fullName + " for this lookup: [" + listed + "]",
               at->loc());
        }
        std::vector<NamedValue> named(values.begin(), values.end());
        std::pmr::string key;
        indexKeyBytes(*index, named, key);  // (complete: the index is the lookup's attributes)
        if (uint32_t number = indexes_[entity].find(key)) {
          result->set(Value(static_cast<runtime::InstanceBase*>(instanceNumbered(number))), at->loc());
          return;
        }
        bool complete = false;
        pending_[entity][std::string(key)].push_back(PendingLookup{result, at, indexKey(*index, named, complete)});
      },
      "index lookup", at->loc(), true);
  return result;
}


// ------------------------------------------------------------------ normalisation (3.4, 3.7, 3.11)

namespace {
bool constantValue(const ast::Expr* e, Value& out) {
  switch (e->kind) {
    case ast::Kind::Literal:
      out = static_cast<const ast::Literal*>(e)->value();
      return true;
    case ast::Kind::ListLit: {
      ValueList items;
      for (const ast::Expr* x : static_cast<const ast::ListLit*>(e)->elements) {
        Value v;
        if (!constantValue(x, v)) return false;
        if (v.isList()) items.insert(items.end(), v.asList().begin(), v.asList().end());
        else items.push_back(v);
      }
      out = Value(std::move(items));
      return true;
    }
    case ast::Kind::DictLit: {
      ValueDict d;
      for (const auto& [k, x] : static_cast<const ast::DictLit*>(e)->entries) {
        Value v;
        if (!constantValue(x, v)) return false;
        d.items.emplace_back(k, v);
      }
      out = Value(std::move(d));
      return true;
    }
    default:
      return false;
  }
}
}  // namespace

const model::Entity* Evaluator::constructorEntity(const ast::Constructor* ctor, model::Namespace* ns,
                                                  const model::Entity* expected) {
  const model::Type* primitive = nullptr;
  const model::Definition* def = nullptr;
  try {
    def = model::resolveName(model_, ns, ctor->type, &primitive);
  } catch (const CompileError& e) {
    bool qualified = ctor->type.text().find("::") != std::string_view::npos;
    if (expected == nullptr || qualified || e.diagnostic().kind != ErrorKind::TypeNotFoundException) throw;
    // type inference (3.11): an entity of that name among the expected type and its subtypes
    std::vector<const model::Entity*> candidates;
    std::vector<const model::Entity*> todo{expected};
    std::set<const model::Entity*> seen;
    while (!todo.empty()) {
      const model::Entity* cur = todo.back();
      todo.pop_back();
      if (!seen.insert(cur).second) continue;
      if (cur->shortName == ctor->type.text()) candidates.push_back(cur);
      for (const model::Entity* c : cur->children) todo.push_back(c);
    }
    if (candidates.empty()) throw;
    if (candidates.size() > 1) {
      std::sort(candidates.begin(), candidates.end(),
                [](const model::Entity* a, const model::Entity* b) { return a->fullName < b->fullName; });
      std::string names;
      for (const model::Entity* c : candidates) names += (names.empty() ? "" : ", ") + c->fullName;
      fail(ErrorKind::AmbiguousTypeException,
           "Could not determine namespace for type " + std::string(ctor->type.text()) + ". " +
               std::to_string(candidates.size()) + " possible candidates exists: [" + names +
               "]. To resolve this, use the fully qualified name instead of the short name.",
           ctor->loc());
    }
    return candidates.front();
  }
  if (def == nullptr || def->kind != model::Definition::Kind::Entity)
    fail(ErrorKind::TypingException, std::string(ctor->type.text()) + " is not an entity", ctor->loc());
  const model::Entity* entity = def->entity();
  if (expected != nullptr && !entity->isA(expected))
    fail(ErrorKind::TypingException,
         "Can not assign a value of type " + entity->fullName + " to a variable of type " + expected->fullName, ctor->loc());
  return entity;
}

std::string Evaluator::missingIndexMessage(const model::Entity* entity, const std::vector<std::string_view>& missing) {
  std::string message = "Invalid Constructor call:";
  for (std::string_view a : missing) {
    // as the reference: a relation is named as one
    const model::Attribute* attribute = entity->attribute(a);
    std::string kind = attribute != nullptr && attribute->isRelation ? "relation" : "attribute";
    message += "\n\t* Missing " + kind + " '" + std::string(a) + "'. The " + kind + " " + entity->fullName + "." +
               std::string(a) + " is part of an index.";
  }
  return message;
}

void Evaluator::normalizeExpr(const ast::Expr* e, model::Namespace* ns, const model::Entity* expected, bool lhs) {
  if (e == nullptr) return;
  switch (e->kind) {
    case ast::Kind::Constructor: {
      auto* c = static_cast<const ast::Constructor*>(e);
      const model::Entity* entity = constructorEntity(c, ns, expected);
      c->cache.setEntity(generation_, entity);
      // index attributes neither given nor defaulted, once per index naming them (as the
      // reference lists them); without a `**` argument, only an assigned-to attribute's inverse
      // can still give one at run time: two or more, or none to give it, fail here (spec 3.10)
      auto given = [&](std::string_view a) {
        return entity->defaults.count(a) != 0 ||
               std::any_of(c->named.kwargs.begin(), c->named.kwargs.end(),
                           [&](const ast::KwArg& kw) { return kw.name.text() == a; });
      };
      std::vector<std::string_view> missing = missingIndexAttributes(entity, given);
      if (!missing.empty() && c->named.wrapped.empty() && (!lhs || missing.size() > 1))
        fail(ErrorKind::IndexAttributeMissingInConstructorException, missingIndexMessage(entity, missing), c->loc());
      const std::vector<std::string>& indexAttributes = indexAttributesOf(entity);
      for (const ast::KwArg& kw : c->named.kwargs) {
        const model::Attribute* attr = entity->attribute(kw.name.text());
        if (attr == nullptr)
          fail(ErrorKind::TypingException, "no attribute " + std::string(kw.name.text()) + " on type " + entity->fullName,
               kw.name.loc, true);
        if (!attr->isRelation && kw.value->kind == ast::Kind::Constructor)
          fail(ErrorKind::TypingException,
               "Can not assign a value of type " + std::string(static_cast<const ast::Constructor*>(kw.value)->type.text()) +
                   " to a variable of type " + attr->type->name(),
               kw.value->loc());
        normalizeExpr(kw.value, ns, attr->isRelation ? attr->target() : nullptr,
                      !std::binary_search(indexAttributes.begin(), indexAttributes.end(), kw.name.text()));
      }
      for (const ast::Expr* w : c->named.wrapped) normalizeExpr(w, ns, nullptr);
      return;
    }
    case ast::Kind::IndexLookup: {
      auto* l = static_cast<const ast::IndexLookup*>(e);
      const model::Type* primitive = nullptr;
      const model::Definition* def = model::resolveName(model_, ns, l->type, &primitive);
      if (def == nullptr || def->kind != model::Definition::Kind::Entity)
        fail(ErrorKind::TypingException, std::string(l->type.text()) + " is not an entity", l->loc());
      for (const ast::KwArg& kw : l->named.kwargs) normalizeExpr(kw.value, ns, nullptr);
      for (const ast::Expr* w : l->named.wrapped) normalizeExpr(w, ns, nullptr);
      return;
    }
    case ast::Kind::ShortIndexLookup: {
      auto* l = static_cast<const ast::ShortIndexLookup*>(e);
      normalizeExpr(l->object, ns, nullptr);
      for (const ast::KwArg& kw : l->named.kwargs) normalizeExpr(kw.value, ns, nullptr);
      for (const ast::Expr* w : l->named.wrapped) normalizeExpr(w, ns, nullptr);
      return;
    }
    case ast::Kind::Call: {
      auto* c = static_cast<const ast::Call*>(e);
      if (!isCastName(c->function.text())) {
        const model::Type* primitive = nullptr;
        const model::Definition* def = model::resolveName(model_, ns, c->function, &primitive);
        if (def == nullptr || def->kind != model::Definition::Kind::Plugin)
          fail(ErrorKind::RuntimeException,
               "Can not call '" + std::string(c->function.text()) + "', can only call plugin or primitive type cast", c->loc(),
               true);
      }
      for (const ast::Expr* a : c->args) normalizeExpr(a, ns, nullptr);
      for (const ast::KwArg& kw : c->named.kwargs) normalizeExpr(kw.value, ns, nullptr);
      for (const ast::Expr* w : c->named.wrapped) normalizeExpr(w, ns, nullptr);
      return;
    }
    case ast::Kind::VarRef: {
      std::string_view text = static_cast<const ast::VarRef*>(e)->name().text();
      size_t sep = text.rfind("::");
      if (sep != std::string_view::npos && ns->visible.find(text.substr(0, sep)) == ns->visible.end())
        fail(ErrorKind::NotFoundException,
             "Namespace " + std::string(text.substr(0, sep)) + " not found. Try importing it with `import " +
                 std::string(text.substr(0, sep)) + "`",
             e->loc(), true);
      return;
    }
    case ast::Kind::AttrRef: normalizeExpr(static_cast<const ast::AttrRef*>(e)->object, ns, nullptr); return;
    case ast::Kind::MapLookup: {
      auto* m = static_cast<const ast::MapLookup*>(e);
      normalizeExpr(m->map, ns, nullptr);
      normalizeExpr(m->key, ns, nullptr);
      return;
    }
    case ast::Kind::IsDefined: normalizeExpr(static_cast<const ast::IsDefined*>(e)->object, ns, nullptr); return;
    case ast::Kind::Binary: {
      auto* b = static_cast<const ast::Binary*>(e);
      normalizeExpr(b->lhs, ns, nullptr);
      normalizeExpr(b->rhs, ns, nullptr);
      return;
    }
    case ast::Kind::Not: normalizeExpr(static_cast<const ast::Not*>(e)->operand, ns, nullptr); return;
    case ast::Kind::Conditional: {
      auto* c = static_cast<const ast::Conditional*>(e);
      normalizeExpr(c->condition, ns, nullptr);
      normalizeExpr(c->whenTrue, ns, expected, lhs);
      normalizeExpr(c->whenFalse, ns, expected, lhs);
      return;
    }
    case ast::Kind::ListLit:
      for (const ast::Expr* x : static_cast<const ast::ListLit*>(e)->elements) normalizeExpr(x, ns, expected, lhs);
      return;
    case ast::Kind::ListComp: {
      auto* c = static_cast<const ast::ListComp*>(e);
      normalizeExpr(c->value, ns, expected, lhs);
      normalizeExpr(c->iterable, ns, nullptr);
      normalizeExpr(c->guard, ns, nullptr);
      return;
    }
    case ast::Kind::DictLit:
      for (const auto& [k, v] : static_cast<const ast::DictLit*>(e)->entries) normalizeExpr(v, ns, nullptr);
      return;
    case ast::Kind::StringFormat:
      for (const auto& p : static_cast<const ast::StringFormat*>(e)->parts) normalizeExpr(p.ref, ns, nullptr);
      return;
    case ast::Kind::FString:
      for (const auto& r : static_cast<const ast::FString*>(e)->refs) normalizeExpr(r.ref, ns, nullptr);
      return;
    case ast::Kind::Literal: case ast::Kind::Regex:
      return;
    default:
      return;
  }
}

void Evaluator::normalizeBlock(const ast::Block& block, model::Namespace* ns) {
  for (const ast::Stmt* s : block) {
    switch (s->kind) {
      case ast::Kind::ExprStmt: normalizeExpr(static_cast<const ast::ExprStmt*>(s)->expr, ns, nullptr); break;
      case ast::Kind::Assign: {
        auto* a = static_cast<const ast::Assign*>(s);
        normalizeExpr(a->target, ns, nullptr);
        normalizeExpr(a->value, ns, nullptr, a->target->kind == ast::Kind::AttrRef);
        break;
      }
      case ast::Kind::For: {
        auto* f = static_cast<const ast::For*>(s);
        normalizeExpr(f->iterable, ns, nullptr);
        normalizeBlock(f->body, ns);
        break;
      }
      case ast::Kind::If: {
        auto* i = static_cast<const ast::If*>(s);
        normalizeExpr(i->condition, ns, nullptr);
        normalizeBlock(i->thenBlock, ns);
        normalizeBlock(i->elseBlock, ns);
        break;
      }
      default: break;
    }
  }
}

void Evaluator::normalize() {
  // whether the last check failed inside a constraint's expression (a variable, a plugin, an
  // operator), rather than on the value (a base type, "does not match constraint")
  bool inExpression = false;
  auto check = [this, &inExpression](const model::Typedef& t, const Value& x) {
    std::optional<Diagnostic> verdict = checkConstraint(t, x);
    inExpression = verdict && !(verdict->location.file == t.location.file && verdict->location.line == t.location.line &&
                                verdict->location.col == t.location.col &&
                                verdict->message.find(", does not match constraint `") != std::string::npos);
    return verdict;
  };
  // entity defaults: constants, valid for the attribute's type (3.7)
  for (const auto& entity : model_.entities()) {
    if (entity->definition == nullptr) continue;
    for (const ast::Attribute& a : entity->definition->attributes) {
      if (a.defaultValue == nullptr) continue;
      Value v;
      if (!constantValue(a.defaultValue, v))
        fail(ErrorKind::RuntimeException, ast::dump(a.defaultValue) + " is not a constant", a.name.loc, true);
      const model::Attribute* attr = entity->attribute(a.name.text());
      if (attr == nullptr || attr->isRelation) continue;
      inExpression = false;
      if (auto err = validateValue(attr->type, v, check)) {
        // an error of the constraint's expression (a variable it reads, a plugin, an operator on
        // the wrong type) is reported where it is written, as the reference: its statement raised
        // it; a value the type or constraint refuses is reported at the attribute
        if (!inExpression) err->location = a.name.loc;
        throw CompileError(std::move(*err));
      }
    }
  }
  // implementation bodies, implement conditions, then the top-level blocks (3.4 step 5)
  for (const auto& ns : model_.namespaces())
    for (const auto& [name, def] : ns->definitions)
      if (const model::Implementation* impl = def.implementation()) normalizeBlock(impl->definition->body, impl->ns);
  for (const auto& entity : model_.entities())
    for (const model::ImplementRule& rule : entity->rules) normalizeExpr(rule.when, rule.ns, nullptr);
  for (const auto& ns : model_.namespaces()) normalizeBlock(ns->file->statements, ns.get());
}


// ------------------------------------------------------------------ gradual execution (4.5, 4.6)

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
      scheduler_.unit({cond}, [this, cond, c, scope, sink, lhsCopy, whole] {
            Value v = cond->get();
            if (v.isUnknown()) sink->take(Value::unknown(), whole);
            else feedGradual(conditionHolds(v, c->loc()) ? c->whenTrue : c->whenFalse, scope, sink, lhsCopy ? &*lhsCopy : nullptr, whole);
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
    default:
      break;
  }
  auto fromVariable = [this, sink, whole](Variable* v) {
    // a list variable or relation passes its values on as they arrive
    if (v->kind() == Variable::Kind::List) {
      v->listen(sink, sink->at());
      return scheduler_.unit({v}, [sink] { sink->close(); }, sink->label(), sink->at(), sink->executionUnit());
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
    scheduler_.unit({v}, [v, sink, whole] {
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
      if (a->target->kind == ast::Kind::VarRef) names.insert(std::string(static_cast<const ast::VarRef*>(a->target)->name().text()));
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
    scheduler_.unit({v}, [v, then = std::move(then)] { then(v->get()); }, "eager promise", expr->loc(), false);
    return;
  }
  auto* ref = static_cast<const ast::AttrRef*>(expr);
  whenInstance(ref->object, scope, [this, ref, then = std::move(then)](const Value& o) {
    if (o.isUnknown()) return then(o);
    Variable* slot = attributeSlot(o, ref->attribute.text(), ref->object, ref->loc());
    scheduler_.unit({slot}, [slot, then] {
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
