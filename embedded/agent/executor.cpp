#include "embedded/agent/executor.h"

#include <charconv>
#include <chrono>
#include <cstdlib>
#include <thread>

#include "util/json_text.h"

namespace inmanta::agent {

namespace {

using nlohmann::json;

// Python's repr of a string, as the reference's messages print lists and dicts of ids.
std::string pyRepr(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'' || c == '\\') out += '\\';
    out += c;
  }
  return out + "'";
}

std::string pyList(const std::vector<std::string>& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + pyRepr(items[i]);
  return out + "]";
}

std::string pyDict(const std::map<std::string, std::string>& items) {
  std::string out = "{";
  bool first = true;
  for (const auto& [key, value] : items) {
    out += (first ? "" : ", ") + pyRepr(key) + ": " + pyRepr(value);
    first = false;
  }
  return out + "}";
}

std::chrono::milliseconds testDelayFromEnvironment() {
  const char* text = std::getenv("INMANTA_TEST_HANDLER_DELAY_MS");
  if (!text || !*text) return std::chrono::milliseconds(0);
  char* end = nullptr;
  long value = std::strtol(text, &end, 10);
  return std::chrono::milliseconds(end && *end == '\0' && value > 0 ? value : 0);
}

}  // namespace

namespace {

// Where a Python traceback ends (the innermost `File "…", line N`): the handler code that failed.
std::string tracebackLocation(const handlers::LogLine& line) {
  const json kwargs = line.kwargsJson();
  if (!kwargs.is_object()) return "";
  auto traceback = kwargs.find("traceback");
  if (traceback == kwargs.end() || !traceback->is_string()) return "";
  const std::string& text = traceback->get_ref<const std::string&>();
  size_t at = text.rfind("File \"");
  if (at == std::string::npos) return "";
  size_t fileEnd = text.find('"', at + 6);
  size_t lineAt = text.find(", line ", fileEnd);
  if (fileEnd == std::string::npos || lineAt == std::string::npos) return "";
  size_t numberEnd = text.find_first_not_of("0123456789", lineAt + 7);
  return text.substr(at + 6, fileEnd - at - 6) + ":" + text.substr(lineAt + 7, numberEnd - lineAt - 7);
}

}  // namespace

std::string RunResult::firstError() const {
  for (const handlers::LogLine& line : logs) {
    if (line.level != "ERROR" && line.level != "CRITICAL") continue;
    std::string where = tracebackLocation(line);
    return line.msg + (where.empty() ? "" : " (at " + where + ")");
  }
  return "";
}

HandlerExecutor::HandlerExecutor(const handlers::HandlerRegistry& registry, handlers::HandlerServices services,
                                 std::function<std::string()> clock)
    : registry_(registry), services_(services), clock_(std::move(clock)), testDelay_(testDelayFromEnvironment()) {}

bool HandlerExecutor::dependenciesAllow(handlers::Context& ctx, const RunRequest& request) {
  const std::string rvid = request.intent->versionedId();
  std::map<std::string, std::string> unexpected, renewed;
  std::vector<std::string> failed;
  for (const auto& [rid, state] : request.dependencies) {
    if (state == "undefined" || state == "skipped_for_undefined" || state == "dry") unexpected[rid] = state;
    else if (state == "available" || state == "deploying") renewed[rid] = state;
    else if (state != "deployed") failed.push_back(rid);
  }
  if (!unexpected.empty()) {
    ctx.warning("Resource " + rvid + " skipped because a dependency is in an unexpected state: " + pyDict(unexpected),
                {{"resource", rvid}, {"unexpected_states", pyDict(unexpected)}});
  } else if (!renewed.empty()) {
    ctx.info("Resource " + rvid + " skipped because some dependencies " + pyDict(renewed) +
                 " got a new desired state while we were preparing to deploy. We will retry when all dependencies "
                 "get deployed successfully",
             {{"resource", rvid}, {"dependencies", pyDict(renewed)}});
  } else if (!failed.empty()) {
    ctx.info("Resource " + rvid + " skipped due to failed dependencies: " + pyList(failed),
             {{"resource", rvid}, {"failed", pyList(failed)}});
  } else {
    return true;
  }
  ctx.setStatus(handlers::ResultState::skipped_for_dependency);
  return false;
}

RunResult HandlerExecutor::run(const RunRequest& request) {
  const handlers::ResourceIntent& intent = *request.intent;
  const std::string rvid = intent.versionedId();
  handlers::Context ctx(request.dryRun, clock_);
  auto started = std::chrono::steady_clock::now();
  // Every run logs this line and the last one: their kwargs are written out as text at once, as
  // the compact JSON of {"deploy_id", "reason", "resource": intent.idFields()} (keys in order).
  std::string startKwargs;
  util::appendJsonMember(startKwargs, R"({"deploy_id":)", request.deployId);
  util::appendJsonMember(startKwargs, R"(,"reason":)", request.reason);
  util::appendJsonMember(startKwargs, R"(,"resource":{"agent_name":)", intent.agent);
  util::appendJsonMember(startKwargs, R"(,"attribute":)", intent.id_attribute);
  util::appendJsonMember(startKwargs, R"(,"attribute_value":)", intent.id_value);
  util::appendJsonMember(startKwargs, R"(,"entity_type":)", intent.type);
  startKwargs += R"(,"version":)" + std::to_string(intent.version) + "}}";
  ctx.logWritten("DEBUG", "Start run because " + request.reason + " (deploy_id: " + request.deployId + ").",
                 std::move(startKwargs));

  RunResult result;
  std::string why;
  std::unique_ptr<handlers::Handler> handler;
  if (!intent.attributes.is_object()) {
    ctx.error("Unable to deserialize " + rvid + ": the attributes are not an object", {{"resource_id", rvid}});
    ctx.setStatus(handlers::ResultState::unavailable);
  } else if (!(handler = registry_.find(intent.type, services_, why)) &&
             !(fallback_ && !registry_.knows(intent.type) && (handler = fallback_(intent, why)))) {
    ctx.error("Unable to find a handler for " + rvid, {{"resource_id", rvid}, {"reason", why}});
    ctx.setStatus(handlers::ResultState::unavailable);
  } else if (request.dryRun || intent.flag("report_only") || dependenciesAllow(ctx, request)) {
    if (testDelay_.count() > 0) std::this_thread::sleep_for(testDelay_);
    handler->execute(ctx, intent);
    bool succeeded = ctx.status() == handlers::ResultState::deployed;
    if (!request.dryRun && succeeded && request.reloadRequired && handler->canReload()) handler->reload(ctx, intent);
  }

  if (!ctx.status()) {
    ctx.warning("Deploy status field is None, failing!");
    ctx.setStatus(handlers::ResultState::failed);
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  // "%.3f", as the reference formats it; to_chars gives the same digits without printf's
  // machinery (a tenth of a null handler's run)
  char duration[32];
  *std::to_chars(duration, duration + sizeof duration - 1, seconds, std::chars_format::fixed, 3).ptr = '\0';
  std::string endKwargs;  // {"deploy_id", "duration", "r_id"}
  util::appendJsonMember(endKwargs, R"({"deploy_id":)", request.deployId);
  util::appendJsonMember(endKwargs, R"(,"duration":)", duration);
  util::appendJsonMember(endKwargs, R"(,"r_id":)", rvid);
  endKwargs += '}';
  ctx.logWritten("DEBUG",
                 "End run for resource " + rvid + ". (deploy_id: " + request.deployId + ") - duration: " + duration +
                     " s",
                 std::move(endKwargs));

  handlers::ResultState state = *ctx.status();
  result.skippedForDependency = state == handlers::ResultState::skipped_for_dependency;
  result.status = result.skippedForDependency ? "skipped" : handlers::resultName(state);
  result.change = ctx.change();
  result.changes = ctx.changes();
  result.facts = ctx.facts();
  result.logs = ctx.takeLogs();
  return result;
}

}  // namespace inmanta::agent
