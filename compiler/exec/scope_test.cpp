// exec::Scope: declarations and lookups through enclosing scopes, with and without the index a
// scope builds once it declares many names.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "exec/evaluator.h"
#include "runtime/engine.h"

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

}  // namespace
}  // namespace inmanta::compiler::exec
