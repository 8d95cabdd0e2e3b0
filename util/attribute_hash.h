// The attribute hash of a resource (orchestrator spec §2): it decides whether a resource's
// desired state changed between two versions, so it must not depend on key order, and it matches
// the reference's (MD5 over the id and Python's `json.dumps(attributes, sort_keys=True)`) so
// that hashes stay comparable with a reference server's.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace inmanta::util {

// The text Python's `json.dumps(value, sort_keys=True)` writes: `", "` and `": "` separators,
// keys in code point order, non-ASCII and control characters as `\uXXXX` (surrogate pairs above
// U+FFFF), floats as Python's repr (`1.0`, `1e-05`, `1e+16`, `Infinity`). With `indent` ≥ 0, as
// `json.dumps(value, sort_keys=True, indent=indent)`: one element per line, `","` at line ends.
std::string pythonJsonDumps(const nlohmann::json& value, int indent = -1);

// Lowercase hex MD5 of `rid` (without version) followed by pythonJsonDumps of `attributes`
// without `id`, `requires`, `provides` and `version`. `attributes` must be a JSON object.
// Throws std::runtime_error when OpenSSL cannot compute MD5 (a FIPS-only libcrypto).
std::string attributeHash(std::string_view rid, const nlohmann::json& attributes);

}  // namespace inmanta::util
