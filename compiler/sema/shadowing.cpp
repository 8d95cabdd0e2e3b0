#include "compiler/sema/shadowing.h"

#include <optional>
#include <unordered_map>
#include <utility>

#include "compiler/ast/walk.h"
#include "compiler/runtime/instance.h"

namespace inmanta::compiler::sema {

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
  ast::forEachAssigned(block, [&](const ast::Name& name, const ast::Assign* a) { add(name.text(), a->loc()); });
  if (loop != nullptr) add(loop->variable.text(), loop->loc());
  return out;
}

// The check of one file: the variables of the enclosing blocks by name, with where they were
// declared (looked up only: hash order does not leak).
class ShadowCheck {
 public:
  ShadowCheck(const ast::Block& topLevel, const std::function<bool(std::string_view)>& declaredAtTop,
              const SourceManager& sources, const WarningSink& warn)
      : topLevel_(topLevel), declaredAtTop_(declaredAtTop), sources_(sources), warn_(warn) {}
  // Where a variable was declared (most names once).
  using Places = runtime::MostlyOne<SourceLocation>;
  using ShadowScope = std::unordered_map<std::string_view, Places, NameHash>;
  // Each variable of `block` (a `for` body when `loop` is given) or of a block in it that hides
  // one of `outer` or of the file's top level (`outer` is left as it was found).
  void check(const ast::Block& block, const ast::For* loop, ShadowScope& outer);
  // The same for the blocks nested in the statements of `block` and its implementations.
  void within(const ast::Block& block, ShadowScope& outer);

 private:
  const ast::Block& topLevel_;
  const std::function<bool(std::string_view)>& declaredAtTop_;
  const SourceManager& sources_;
  const WarningSink& warn_;
  // where the top level's variables were declared, worked out when a nested block hides one
  // (few do)
  std::optional<ShadowScope> topPlaces_;
};
}  // namespace

void ShadowCheck::check(const ast::Block& block, const ast::For* loop, ShadowScope& outer) {
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
    if (original == nullptr && declaredAtTop_(name)) {
      // a variable of the file's top level: where it was declared, worked out once per file
      if (!topPlaces_) {
        topPlaces_.emplace();
        for (auto& [n, p] : declaredIn(topLevel_, nullptr)) topPlaces_->emplace(n, std::move(p));
      }
      original = &topPlaces_->at(name);
    }
    if (original != nullptr) {
      Diagnostic d(ErrorKind::CompilerException, "Variable `" + std::string(name) +
                                                     "` shadowed: originally declared at " + places(*original) +
                                                     ", shadowed at " + places(at));
      d.warningName = "VariableShadowWarning";
      if (warn_) warn_(d);
    }
    // (a top-level variable's places stay where they are)
    if (known != outer.end()) hidden.push_back({name, std::exchange(known->second, std::move(at))});
    else {
      hidden.push_back({name, std::nullopt});
      outer.emplace(name, std::move(at));
    }
  }
  within(block, outer);
  for (auto it = hidden.rbegin(); it != hidden.rend(); ++it) {
    if (it->second) outer[it->first] = std::move(*it->second);
    else outer.erase(it->first);
  }
}

void ShadowCheck::within(const ast::Block& block, ShadowScope& outer) {
  // the nested blocks of the statements, then (at a file's top level) of the implementations
  auto nested = [&](const ast::Block& inner, const ast::For* loop) { check(inner, loop, outer); };
  for (const ast::Stmt* s : block)
    if (s->kind != ast::Kind::Implementation) ast::forEachBlock(s, nested);
  for (const ast::Stmt* s : block)
    if (s->kind == ast::Kind::Implementation) ast::forEachBlock(s, nested);
}

void warnShadowedVariables(const ast::Block& topLevel, const ast::Block& withBlocks,
                           const std::function<bool(std::string_view)>& declaredAtTop, const SourceManager& sources,
                           const WarningSink& warn) {
  ShadowCheck check(topLevel, declaredAtTop, sources, warn);
  ShadowCheck::ShadowScope variables;
  check.within(withBlocks, variables);
}

}  // namespace inmanta::compiler::sema
