// Unknown values in what a resource exports (export spec 1.7): a field with an unknown anywhere
// in it is written as the marker below and the resource's state is `undefined`.
#pragma once

#include <string_view>

#include "compiler/runtime/value.h"

namespace inmanta::util {

// What an unknown field becomes in a resource's JSON (the reference's const.UNKNOWN_STRING).
inline constexpr std::string_view kUnknownMarker = "<<undefined>>";

// Whether `value` is unknown or holds an unknown at any depth of its lists and dicts.
bool hasUnknown(const compiler::runtime::Value& value);

}  // namespace inmanta::util
