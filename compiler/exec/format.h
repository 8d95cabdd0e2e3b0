// String interpolation and f-string formatting with Python's str.format semantics (spec 5.4).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "compiler/runtime/value.h"

namespace inmanta::compiler::exec {

// The rendering of a `{{ x }}` value: str, except that a finite integral float renders as the
// int it equals, all its digits (`2.0` -> `2`, `1e30` -> `1000000000000000019884624838656`).
std::string renderInterpolated(const runtime::Value& v);

// Python's format(value, spec) for our values; nullopt with `error` set ("Unknown format code
// 'd' for object of type 'str'") when the spec does not apply.
// `wholeNumber`: the value is a float that is a whole number past 64 bits, formatted as the int it
// equals (the reference's f-strings turn such floats into Python ints).
std::optional<std::string> formatValue(const runtime::Value& v, const std::string& spec, std::string& error,
                                       bool wholeNumber = false);

// Formats an f-string body: `fields` maps each field name as written (whitespace included) to
// its value. On failure returns nullopt and sets `error` to the RuntimeException message.
std::optional<std::string> formatPython(const std::string& format,
                                        const std::vector<std::pair<std::string, runtime::Value>>& fields,
                                        std::string& error);

}  // namespace inmanta::compiler::exec
