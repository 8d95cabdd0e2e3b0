// Normalisation (spec 3.4 step 5, 3.7, 3.10, 3.11): the static checks of a defined model before
// it runs, in the reference's order: entity defaults are constants valid for their attributes;
// then in implementation bodies, implement conditions and the top-level blocks, every type name
// an expression uses resolves, constructor arguments are attributes, constructors give their index
// attributes, and nested constructors get their entity inferred from the relation they are given
// to.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/ast/ast.h"
#include "compiler/model/model.h"
#include "compiler/sema/typecheck.h"

namespace inmanta::compiler::sema {

// Told the entity of each constructor call as it is resolved (with type inference where it has
// one), for the evaluator to keep.
using ConstructorResolved = std::function<void(const ast::Constructor*, const model::Entity*)>;

// Throws CompileError for the first failed check. `checkConstraint` evaluates a typedef's
// constraint (the evaluator's direct execution).
void normalize(const model::Model& model, const ConstraintCheck& checkConstraint, const ConstructorResolved& resolved);

// The entity a constructor call names in namespace `ns`; when `expected` (the entity of the
// relation it is given to) is set and the name is not qualified and not found, the one entity of
// that short name among `expected` and its subtypes (spec 3.11). Throws CompileError.
const model::Entity* constructorEntity(const model::Model& model, const ast::Constructor* ctor,
                                       const model::Namespace* ns, const model::Entity* expected);

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

// The "Invalid Constructor call:" message of a constructor of `entity` that lacks `missing`.
std::string missingIndexMessage(const model::Entity* entity, const std::vector<std::string_view>& missing);

}  // namespace inmanta::compiler::sema
