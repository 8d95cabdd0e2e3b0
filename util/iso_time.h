// The text of a moment as the reference's records carry it: `2026-11-22T10:04:05.123456+00:00`
// (UTC, microseconds). Shared by the store and the handlers, which log a timestamp per line: a
// deploy of 10,000 resources writes 50,000 of them.
#pragma once

#include <chrono>
#include <string>

namespace inmanta::util {

std::string isoTimestamp(std::chrono::sys_time<std::chrono::microseconds> at);

}  // namespace inmanta::util
