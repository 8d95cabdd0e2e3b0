// Validation of values against declared types (spec 3.5): attribute types, plugin parameter and
// return types, typedef bases and constraints.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "compiler/diag/diagnostic.h"
#include "compiler/model/model.h"
#include "compiler/runtime/value.h"

namespace inmanta::compiler::sema {

// Evaluates a typedef's constraint for a value: nullopt when it holds, else the error.
using ConstraintCheck = std::function<std::optional<Diagnostic>(const model::Typedef&, const runtime::Value&)>;

// Null when `v` is valid for `type`; else the error (a RuntimeException "Invalid value 'v',
// expected T", or the typedef's constraint failure). Unknown values are always valid.
std::optional<Diagnostic> validateValue(const model::Type* type, const runtime::Value& v, const ConstraintCheck& check);

// The same for a plugin's declared type written as text (`string`, `int[]`, `std::Entity`,
// `std::ipv_any_network`, `any`), resolved in the plugin's namespace.
std::optional<Diagnostic> validatePluginType(const model::Model& model, const model::Namespace* ns,
                                             const std::string& type, const runtime::Value& v,
                                             const ConstraintCheck& check);

}  // namespace inmanta::compiler::sema
