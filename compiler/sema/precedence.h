// project.yml's relation_precedence_policy (experimental in the reference, spec 4.7): each rule
// `<entity>.<relation> before <entity>.<relation>` names relations declared on those entities (full
// names); the scheduler freezes the named relations in an order that respects every rule.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "compiler/model/model.h"
#include "compiler/project/project.h"

namespace inmanta::compiler::sema {

// (level, message): the reference's log lines, as its scheduler writes them
using PrecedenceLog = std::function<void(std::string_view level, const std::string& message)>;

// The place of each relation the rules name in the freeze order (a topological order of the
// rules, the first mentioned first among those that may come next). Throws a CompilerException for
// a rule that does not parse, names what is no relation, or closes a cycle.
std::unordered_map<const model::Attribute*, int> relationFreezeRanks(const model::Model& model,
                                                                     const std::vector<std::string>& rules,
                                                                     const PrecedenceLog& log);

}  // namespace inmanta::compiler::sema
