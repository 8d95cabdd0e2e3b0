// Timestamps of the store: UTC, microsecond precision (spec §10), kept in the databases as
// integer microseconds since the Unix epoch so both engines compare and order them alike.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace inmanta::store {

using Timestamp = std::chrono::time_point<std::chrono::system_clock, std::chrono::microseconds>;

// The current time, truncated to microseconds.
Timestamp now();

// ISO 8601 as the reference writes it: `2026-11-22T10:04:05.123456+00:00`.
std::string formatTimestamp(Timestamp t);

// Reads `YYYY-MM-DDTHH:MM:SS[.ffffff][Z|+HH:MM|-HH:MM]` (also a space instead of `T`; no zone =
// UTC); nullopt when the text is not such a timestamp.
std::optional<Timestamp> parseTimestamp(std::string_view text);

// Microseconds since the epoch and back (the stored form).
std::int64_t toMicros(Timestamp t);
Timestamp fromMicros(std::int64_t micros);

}  // namespace inmanta::store
