// Ids of the store: UUIDs as canonical lowercase text (`xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace inmanta::store {

// A fresh random (version 4) UUID.
std::string newUuid();

// The canonical lowercase form of a UUID written in any case, with or without braces or dashes as
// Python's uuid.UUID accepts; nullopt when `text` is not a UUID.
std::optional<std::string> canonicalUuid(std::string_view text);

}  // namespace inmanta::store
