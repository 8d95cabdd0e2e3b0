// nlohmann's compact `dump()` text, written faster. The deploy's records are JSON (each run's log
// lines, its changes: about 1 KB per resource) and nlohmann's serializer checks every byte of
// every string as UTF-8 one at a time; for 10,000 runs that was a sixth of the time spent making
// the records.
// Here a string of plain ASCII is copied in runs, and whatever is rarer (non-ASCII text, floats,
// binary values) is left to nlohmann itself, so the text is always the one dump() gives.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace inmanta::util {

// Appends `value.dump()` to `out` (compact, no spaces, UTF-8 as is). Throws nlohmann's
// type_error, as dump() does, for a string that is not valid UTF-8.
void appendCompactJson(std::string& out, const nlohmann::json& value);

// `value.dump()`.
std::string compactJson(const nlohmann::json& value);

// Appends `nlohmann::json(text).dump()`: `text` as a JSON string.
void appendJsonString(std::string& out, const std::string& text);

// Appends `before` as it is (say `,"name":`) and then `text` as a JSON string: the members of an
// object written out by hand.
void appendJsonMember(std::string& out, const char* before, const std::string& text);

}  // namespace inmanta::util
