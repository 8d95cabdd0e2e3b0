#include "embedded/server/logging.h"

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>

#include <algorithm>
#include <memory>
#include <vector>

namespace inmanta::server {

void installLogger(spdlog::level::level_enum console, const std::string& file, spdlog::level::level_enum fileLevel,
                   spdlog::level::level_enum flushOn) {
  std::vector<spdlog::sink_ptr> sinks;
  auto stderrSink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
  stderrSink->set_level(console);
  sinks.push_back(stderrSink);
  if (!file.empty()) {
    auto fileSink = std::make_shared<spdlog::sinks::basic_file_sink_mt>(file);
    fileSink->set_level(fileLevel);
    sinks.push_back(fileSink);
  }
  auto logger = std::make_shared<spdlog::logger>("inmanta", sinks.begin(), sinks.end());
  // the level the most verbose sink takes: a message below it is not even formatted (every
  // request's debug line, when no sink shows debug)
  logger->set_level(file.empty() ? console : std::min(console, fileLevel));
  logger->set_pattern("%Y-%m-%d %H:%M:%S.%e %-7l %v");
  logger->flush_on(flushOn);
  spdlog::set_default_logger(logger);
}

}  // namespace inmanta::server
