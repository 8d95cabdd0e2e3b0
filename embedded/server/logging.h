// The process's log (spdlog's default logger, "inmanta"), as `inmanta server` and `inmanta deploy`
// set it up: standard error, and a file when one is given, each at its own level.
#pragma once

#include <spdlog/spdlog.h>

#include <string>

namespace inmanta::server {

// `file` empty: standard error only. Lines at `flushOn` or above are flushed at once.
void installLogger(spdlog::level::level_enum console, const std::string& file, spdlog::level::level_enum fileLevel,
                   spdlog::level::level_enum flushOn);

}  // namespace inmanta::server
