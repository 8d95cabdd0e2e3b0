#include "compiler/exec/evaluator_impl.h"

namespace inmanta::compiler::exec {

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

}  // namespace inmanta::compiler::exec
