#include "compiler/exec/evaluator_impl.h"

#include <algorithm>
#include <tuple>

namespace inmanta::compiler::exec {

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
        errors.emplace_back(ErrorKind::TypingException, "Relation annotation can not be Unknown", a.relation->loc(),
                            false);
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

}  // namespace inmanta::compiler::exec
