// Ids of the store: UUIDs as canonical lowercase text (`xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace inmanta::store {

// A fresh random (version 4) UUID.
std::string newUuid();

// A fresh time-ordered (version 7, RFC 9562) UUID: the Unix time in milliseconds, then the
// sub-millisecond fraction in 12 bits, then random bits. Ids made one after the other sort in the
// order they were made (to the 1/4096 ms), so a table keyed by them — the resource actions — grows
// at the end of its index instead of writing to a random page of it at every insert.
std::string newTimeOrderedUuid();

// The canonical lowercase form of a UUID written in any case, with or without braces or dashes as
// Python's uuid.UUID accepts; nullopt when `text` is not a UUID.
std::optional<std::string> canonicalUuid(std::string_view text);

}  // namespace inmanta::store
