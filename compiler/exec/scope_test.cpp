// exec::Scope: declarations and lookups through enclosing scopes, with and without the index a
// scope builds once it declares many names.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "compiler/ast/arena.h"
#include "compiler/ast/ast.h"
#include "compiler/exec/scope.h"
#include "compiler/runtime/instance.h"
#include "compiler/runtime/scheduler.h"

namespace inmanta::compiler::exec {
namespace {

TEST(Scope, FindsOwnNamesThenTheEnclosingScopesWhateverTheirNumber) {
  runtime::Scheduler scheduler;
  for (size_t count : {size_t{3}, size_t{15}, size_t{16}, size_t{17}, size_t{5000}}) {
    Scope top(nullptr, nullptr);
    std::vector<std::string> names;  // (the scope keeps views: the texts outlive it)
    names.reserve(count);
    std::vector<runtime::Variable*> variables;
    for (size_t i = 0; i < count; ++i) {
      names.push_back("svc_" + std::to_string(i));
      variables.push_back(scheduler.makePlain());
      top.declare(names.back(), variables.back());
    }
    // a second declaration of a name keeps the first variable
    top.declare(std::string(names.front()), scheduler.makePlain());
    Scope inner(&top, nullptr);
    std::string local = "svc_1";  // hides the enclosing svc_1 (another text, same name)
    runtime::Variable* hiding = scheduler.makePlain();
    inner.declare(local, hiding);
    for (size_t i = 0; i < count; ++i) {
      std::string copy = names[i];  // not the declared bytes: found by text
      EXPECT_EQ(top.own(copy), variables[i]) << count << " " << copy;
      EXPECT_EQ(inner.find(copy), i == 1 ? hiding : variables[i]) << count << " " << copy;
      EXPECT_EQ(inner.own(copy), i == 1 ? hiding : nullptr);
    }
    EXPECT_EQ(top.own("svc_"), nullptr);
    EXPECT_EQ(top.own("svc_" + std::to_string(count)), nullptr);
    EXPECT_EQ(inner.find("nothing"), nullptr);
  }
}

// The names of a syntax tree are interned: the first scope of an evaluator to declare one binds
// it in the name's header, and lookups of that name through the header find the same variables as
// lookups by text, in every scope, for that evaluator's scopes only.
TEST(Scope, BindsInternedNamesToTheFirstDeclaringScopeOfItsEvaluator) {
  runtime::Scheduler scheduler;
  SymbolTable symbols;
  auto name = [&](std::string_view text) { return ast::Name::interned(symbols.intern(text), {}); };
  for (size_t count : {size_t{3}, size_t{40}}) {
    // (an evaluator's scopes live as long as it: each round is another evaluator's)
    const uint32_t first = SymbolHeader::nextOwner();
    const uint32_t second = SymbolHeader::nextOwner();
    Scope top(nullptr, nullptr, first);
    std::vector<runtime::Variable*> variables;
    for (size_t i = 0; i < count; ++i) {
      variables.push_back(scheduler.makePlain());
      top.declare(name("v" + std::to_string(i)), variables.back());
    }
    Scope inner(&top, nullptr);  // (the enclosing scope's bindings)
    runtime::Variable* hiding = scheduler.makePlain();
    inner.declare(name("v1"), hiding);  // bound to `top` already: found by text in `inner`
    // another evaluator's scope declaring the same names: its own variables, not the bound ones
    Scope other(nullptr, nullptr, second);
    runtime::Variable* mine = scheduler.makePlain();
    other.declare(name("v0"), mine);
    // a scope that keeps no bindings
    Scope plain(nullptr, nullptr);
    runtime::Variable* unbound = scheduler.makePlain();
    plain.declare(name("v2"), unbound);
    for (size_t i = 0; i < count; ++i) {
      ast::Name n = name("v" + std::to_string(i));
      ASSERT_NE(n.header(), nullptr);
      EXPECT_EQ(top.own(n), variables[i]);
      EXPECT_EQ(top.own(std::string(n.text())), variables[i]);
      EXPECT_EQ(inner.find(n), i == 1 ? hiding : variables[i]);
      EXPECT_EQ(inner.own(n), i == 1 ? hiding : nullptr);
      EXPECT_EQ(other.own(n), i == 0 ? mine : nullptr);
      EXPECT_EQ(plain.own(n), i == 2 ? unbound : nullptr);
    }
    EXPECT_EQ(top.own(name("absent")), nullptr);
    EXPECT_EQ(inner.find(name("absent")), nullptr);
  }
  // a constant name has no header: found by its text
  EXPECT_EQ(ast::Name("v0", {}).header(), nullptr);
}

// An instance made on its own: an entity without attributes and its layout.
struct LoneInstance {
  model::Entity entity;
  runtime::SlotLayout layout;
  std::function<std::string(const SourceLocation&)> where = [](const SourceLocation&) { return std::string("here"); };
  alignas(runtime::Instance) std::byte memory[sizeof(runtime::Instance)];
  runtime::Instance* instance;
  LoneInstance() {
    entity.fullName = "__config__::E";
    entity.defined = true;
    layout.size = sizeof(runtime::Instance);
    layout.where = &where;
    instance = new (memory) runtime::Instance(&entity, 1, &layout, {});
  }
  ~LoneInstance() { instance->~Instance(); }
};

// An instance's scope declares nothing: it holds `self` (the same ready variable each time, the
// instance as its value) and passes every other name on to the enclosing scope.
TEST(Scope, AnInstancesScopeHoldsSelfAndDeclaresNothing) {
  runtime::Scheduler scheduler;
  LoneInstance lone;
  Scope top(nullptr, nullptr);
  runtime::Variable* x = scheduler.makePlain();
  top.declare("x", x);
  Scope scope(&top, nullptr, lone.instance);
  EXPECT_EQ(scope.instance(), lone.instance);
  runtime::Variable* self = scope.find("self");
  ASSERT_NE(self, nullptr);
  EXPECT_TRUE(self->isReady());
  EXPECT_EQ(self->get().asInstance(), static_cast<runtime::InstanceBase*>(lone.instance));
  EXPECT_EQ(scope.find("self"), self);
  EXPECT_EQ(scope.own("self"), nullptr);
  EXPECT_EQ(scope.find("x"), x);
  EXPECT_EQ(scope.find("y"), nullptr);
  EXPECT_EQ(top.find("self"), nullptr);
  Scope block(&scope, nullptr);  // an implementation's block: `self` through its enclosing scope
  EXPECT_EQ(block.find("self"), self);
}

// Which implementations ran for an instance: each once, beyond the 32 the header keeps as bits.
TEST(Instance, RecordsEachImplementationOnce) {
  LoneInstance lone;
  EXPECT_FALSE(lone.instance->ranImplementations());
  std::vector<model::Implementation> implementations(70);
  for (int round = 0; round < 2; ++round)
    for (const model::Implementation& impl : implementations)
      EXPECT_EQ(lone.instance->markImplementation(&impl), round == 0);
  EXPECT_TRUE(lone.instance->ranImplementations());
  LoneInstance late;  // only the 66th implementation of the entity's numbering
  for (size_t i = 0; i < 65; ++i) late.layout.implementationNumber(&implementations[i]);
  EXPECT_TRUE(late.instance->markImplementation(&implementations[65]));
  EXPECT_TRUE(late.instance->ranImplementations());
  EXPECT_FALSE(late.instance->markImplementation(&implementations[65]));
  EXPECT_TRUE(late.instance->markImplementation(&implementations[3]));
  LoneInstance boundary;  // the 32nd and 33rd: the last bit of the header, the first kept aside
  for (size_t i = 0; i < 31; ++i) boundary.layout.implementationNumber(&implementations[i]);
  EXPECT_TRUE(boundary.instance->markImplementation(&implementations[32]));
  EXPECT_TRUE(boundary.instance->markImplementation(&implementations[31]));
  EXPECT_FALSE(boundary.instance->markImplementation(&implementations[32]));
  EXPECT_FALSE(boundary.instance->markImplementation(&implementations[31]));
}

// Where an instance was constructed, and the later constructor calls that matched it (kept aside
// for the few instances that have them, and dropped with the instance).
TEST(Instance, ShowsWhereItWasConstructedAndMatched) {
  for (int round = 0; round < 2; ++round) {  // (the second instance may reuse the first's memory)
    auto lone = std::make_unique<LoneInstance>();
    lone->where = [](const SourceLocation& l) { return "f" + std::to_string(l.file) + ":" + std::to_string(l.line); };
    lone->instance->~Instance();
    lone->instance = new (lone->memory)
        runtime::Instance(&lone->entity, 1, &lone->layout, SourceLocation{4, 2000000, 300});
    EXPECT_EQ(lone->instance->constructedAt().file, 4u);
    EXPECT_EQ(lone->instance->constructedAt().line, 2000000u);
    EXPECT_EQ(lone->instance->constructedAt().col, 300u);
    EXPECT_EQ(lone->instance->display(), "__config__::E (instantiated at f4:2000000)");
    if (round == 0) {
      lone->instance->matchedAt(SourceLocation{0, 7, 1});
      lone->instance->matchedAt(SourceLocation{1, 9, 1});
      EXPECT_EQ(lone->instance->display(), "__config__::E (instantiated at f4:2000000,f0:7,f1:9)");
    }
  }
}

}  // namespace
}  // namespace inmanta::compiler::exec
