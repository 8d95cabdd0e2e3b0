#include "embedded/handlers/handler.h"

#include <chrono>
#include <cstdio>

#include "util/iso_time.h"
#include "util/json_text.h"

namespace inmanta::handlers {

const char* changeName(Change change) {
  switch (change) {
    case Change::nochange: return "nochange";
    case Change::created: return "created";
    case Change::updated: return "updated";
    case Change::purged: return "purged";
  }
  return "nochange";
}

const char* resultName(ResultState state) {
  switch (state) {
    case ResultState::deployed: return "deployed";
    case ResultState::failed: return "failed";
    case ResultState::skipped: return "skipped";
    case ResultState::skipped_for_dependency: return "skipped_for_dependency";
    case ResultState::unavailable: return "unavailable";
    case ResultState::non_compliant: return "non_compliant";
    case ResultState::dry: return "dry";
  }
  return "failed";
}

std::string pythonRepr(const std::string& text) {
  // Python prefers single quotes and switches to double quotes only to avoid escaping a quote.
  bool hasSingle = text.find('\'') != std::string::npos;
  char quote = hasSingle && text.find('"') == std::string::npos ? '"' : '\'';
  std::string out;
  out.reserve(text.size() + 2);
  out += quote;
  for (char c : text) {
    auto byte = static_cast<unsigned char>(c);
    if (c == quote || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (byte < 0x20 || byte == 0x7f) {
      char escaped[5];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", byte);
      out += escaped;
    } else {
      out += c;  // printable ASCII and UTF-8 sequences stay as they are, as Python 3 prints them
    }
  }
  out += quote;
  return out;
}

nlohmann::json ResourceIntent::idFields() const {
  nlohmann::json::object_t fields;  // the keys in their order, each placed at the end (every run logs them)
  fields.emplace_hint(fields.end(), "agent_name", agent);
  fields.emplace_hint(fields.end(), "attribute", id_attribute);
  fields.emplace_hint(fields.end(), "attribute_value", id_value);
  fields.emplace_hint(fields.end(), "entity_type", type);
  fields.emplace_hint(fields.end(), "version", version);
  return fields;
}

bool ResourceIntent::flag(const std::string& name, bool fallback) const {
  auto it = attributes.find(name);
  return it != attributes.end() && it->is_boolean() ? it->get<bool>() : fallback;
}

std::string ResourceIntent::text(const std::string& name, const std::string& fallback) const {
  auto it = attributes.find(name);
  return it != attributes.end() && it->is_string() ? it->get<std::string>() : fallback;
}

// --- Context ------------------------------------------------------------------------------------

namespace {

// `2026-11-22T10:04:05.123456+00:00`, the form of the store's timestamps (from util, so that
// handlers do not depend on the store)
std::string systemTimestamp() {
  return util::isoTimestamp(std::chrono::time_point_cast<std::chrono::microseconds>(std::chrono::system_clock::now()));
}

}  // namespace

Context::Context(bool dryRun, std::function<std::string()> clock)
    : dryRun_(dryRun), clock_(clock ? std::move(clock) : systemTimestamp) {}

LogLine makeLogLine(const std::string& level, const std::string& msg, nlohmann::json kwargs, std::string timestamp) {
  return LogLine{level, msg, std::move(kwargs), std::move(timestamp), {}};
}

nlohmann::json LogLine::toJson() const {
  // the keys in their order, each placed at the end: no look-ups
  nlohmann::json::object_t line;
  line.emplace_hint(line.end(), "args", nlohmann::json::array());
  line.emplace_hint(line.end(), "kwargs", kwargsJson());
  line.emplace_hint(line.end(), "level", level);
  line.emplace_hint(line.end(), "msg", msg);
  line.emplace_hint(line.end(), "timestamp", timestamp);
  return line;
}

void appendLogLineText(std::string& text, const LogLine& line) {
  text += R"({"args":[],"kwargs":)";
  if (line.kwargsText.empty()) util::appendCompactJson(text, line.kwargs);
  else text += line.kwargsText;
  util::appendJsonMember(text, R"(,"level":)", line.level);
  util::appendJsonMember(text, R"(,"msg":)", line.msg);
  util::appendJsonMember(text, R"(,"timestamp":)", line.timestamp);
  text += '}';
}

void appendLogLinesText(std::string& text, const std::vector<LogLine>& lines) {
  for (const LogLine& line : lines) {
    if (!text.empty() && text.back() != '[') text += ',';
    appendLogLineText(text, line);
  }
}

void Context::log(const std::string& level, const std::string& msg, nlohmann::json kwargs) {
  logs_.push_back(makeLogLine(level, msg, std::move(kwargs), clock_()));
}

void Context::logWritten(const std::string& level, const std::string& msg, std::string kwargsText) {
  LogLine line{level, msg, nullptr, clock_(), std::move(kwargsText)};
  logs_.push_back(std::move(line));
}

void Context::addChange(const std::string& attribute, nlohmann::json current, nlohmann::json desired) {
  changes_[attribute] = {{"current", std::move(current)}, {"desired", std::move(desired)}};
}

void Context::addChanges(const nlohmann::json& changes) {
  for (const auto& [attribute, values] : changes.items()) changes_[attribute] = values;
}

void Context::setChange(Change change) {
  // The reference raises InvalidOperation on a second set, whatever the two kinds are: a handler
  // that reports two kinds has a bug worth a failed run.
  if (changeSet_)
    throw HandlerError("InvalidOperation", std::string("Unable to set ") + changeName(change) + " operation, " +
                                               changeName(change_) + " already set.");
  change_ = change;
  changeSet_ = true;
}

// --- HandlerRegistry ----------------------------------------------------------------------------

void HandlerRegistry::add(const std::string& type, const std::string& name, Available available, Factory factory) {
  entries_[type].push_back(Entry{name, std::move(available), std::move(factory)});
}

std::unique_ptr<Handler> HandlerRegistry::find(const std::string& type, const HandlerServices& services,
                                               std::string& why) const {
  auto it = entries_.find(type);
  if (it == entries_.end()) {
    why = "no handler is registered for " + type;
    return nullptr;
  }
  const Entry* chosen = nullptr;
  std::string names;
  for (const Entry& entry : it->second) {
    if (!entry.available(services)) continue;
    if (chosen) {
      why = "more than one handler is available for " + type + ": " + chosen->name + ", " + entry.name;
      return nullptr;
    }
    chosen = &entry;
  }
  if (!chosen) {
    for (const Entry& entry : it->second) names += (names.empty() ? "" : ", ") + entry.name;
    why = "no handler for " + type + " is available on this machine (tried: " + names + ")";
    return nullptr;
  }
  return chosen->factory(services);
}

}  // namespace inmanta::handlers
