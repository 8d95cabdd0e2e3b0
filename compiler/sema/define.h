// The definition phase (the first pass of sema/) (spec 3.1-3.10, 3.4 steps 1-4): from the trees of every loaded file to
// a resolved Model. The first error aborts the compile (definition errors are not collected).
#pragma once

#include <string_view>
#include <vector>

#include "compiler/compile.h"
#include "compiler/model/model.h"

namespace inmanta::compiler::sema {

// Registers every definition of every loaded file, resolves types, inheritance, attributes and
// defaults, relations, implementations, indexes and implement rules. Throws CompileError.
void defineModel(model::Model& model, const std::vector<LoadedFile>& files, const PluginRegistry& plugins,
                 const SourceManager& sources, const WarningSink& warn);

// Resolves a type name as written in namespace `from` (spec 3.3). Throws TypeNotFoundException /
// MissingImportException located at the name. Primitive names resolve to null with
// `primitive` set.
const model::Definition* resolveName(const model::Model& model, const model::Namespace* from, const ast::Name& name,
                                     const model::Type** primitive = nullptr);

}  // namespace inmanta::compiler::sema
