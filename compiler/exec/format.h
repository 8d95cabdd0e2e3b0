// String interpolation and f-string formatting with Python's str.format semantics (spec 5.4).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "runtime/value.h"

namespace inmanta::compiler::exec {

// The rendering of a `{{ x }}` value: str, except that a finite integral float renders as an
// int (`2.0` -> `2`).
std::string renderInterpolated(const runtime::Value& v);

// Python's format(value, spec) for our values; nullopt with `error` set ("Unknown format code
// 'd' for object of type 'str'") when the spec does not apply.
std::optional<std::string> formatValue(const runtime::Value& v, const std::string& spec, std::string& error);

// Formats an f-string body: `fields` maps each field name as written (whitespace included) to
// its value. On failure returns nullopt and sets `error` to the RuntimeException message.
std::optional<std::string> formatPython(const std::string& format,
                                        const std::vector<std::pair<std::string, runtime::Value>>& fields,
                                        std::string& error);

}  // namespace inmanta::compiler::exec
