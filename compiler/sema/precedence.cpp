#include "compiler/sema/precedence.h"

#include <algorithm>

namespace inmanta::compiler::sema {

std::unordered_map<const model::Attribute*, int> relationFreezeRanks(const model::Model& model,
                                                                     const std::vector<std::string>& rules,
                                                                     const PrecedenceLog& log) {
  std::unordered_map<const model::Attribute*, int> ranks;
  // project.yml's relation_precedence_policy (experimental in the reference): each rule
  // `<entity>.<relation> before <entity>.<relation>` names relations declared on those entities
  // (full names); the relations are frozen in an order that respects every rule (spec 4.7)
  if (rules.empty()) return ranks;
  // as the reference's scheduler announces it (each rule is logged before it is checked)
  log("WARNING",
      "[EXPERIMENTAL FEATURE] Using the relation precedence policy defined in the project.yml file to determine list "
      "freeze order.");
  auto invalid = [](const std::string& message) -> const model::Attribute* {
    throw CompileError(Diagnostic(ErrorKind::CompilerException, message));
  };
  auto relationOf = [&](const std::string& type, const std::string& name) -> const model::Attribute* {
    size_t sep = type.rfind("::");
    const model::Namespace* ns = sep == std::string::npos ? nullptr : model.findNamespace(type.substr(0, sep));
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
  for (const std::string& text : rules) {
    std::optional<PrecedenceRule> rule = parsePrecedenceRule(text);
    if (!rule)
      throw CompileError(Diagnostic(ErrorKind::CompilerException, "Invalid relation precedence rule: " + text));
    log("INFO", "Loaded relation precedence rule: " + rule->firstType + "." + rule->firstRelation + " before " +
                    rule->thenType + "." + rule->thenRelation);
    size_t first = node(relationOf(rule->firstType, rule->firstRelation));
    size_t then = node(relationOf(rule->thenType, rule->thenRelation));
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
    ranks[nodes[next]] = rank;
    for (auto [first, then] : edges)
      if (first == next) --before[then];
  }
  return ranks;
}

}  // namespace inmanta::compiler::sema
