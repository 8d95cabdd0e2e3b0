#include "compiler/exec/evaluator_impl.h"

#include <algorithm>
#include <regex>

namespace inmanta::compiler::exec {

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

}  // namespace inmanta::compiler::exec
