// JSON as the reference writes it (export spec 2.1): Python json.dumps defaults (", " and ": "
// separators, ASCII only with \uXXXX escapes and surrogate pairs) and `</` written `<\/`.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "compiler/runtime/value.h"
#include "exporter/resources.h"

namespace inmanta::exporter {

// Appends `"text"` with the escapes above (UTF-8 input; invalid bytes become U+FFFD).
void appendJsonString(std::string& out, std::string_view text);
// Appends a value: strings, ints, floats (Python repr), bools, null, lists, dicts. Instances
// and unknowns are the caller's to exclude (they throw ExportError).
void appendJsonValue(std::string& out, const compiler::runtime::Value& value);
// One resource object: its fields in order, then "requires" and "id" (rid + ",v=<version>").
void appendResourceJson(std::string& out, const Resource& resource, long long version = 0);
// The `-j` file: a JSON array of resource objects on one line, no trailing newline.
std::string resourcesJson(const std::vector<Resource>& resources);

}  // namespace inmanta::exporter
