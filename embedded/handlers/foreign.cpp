#include "embedded/handlers/foreign.h"

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

#include "util/base64.h"
#include "util/digest.h"
#include "util/thread_policy.h"

namespace inmanta::handlers {

using nlohmann::json;

namespace {

std::atomic<int> abandoned{0};

// What the caller and a call that may outlive it share.
struct PendingCall {
  std::mutex mutex;
  std::condition_variable done;
  bool finished = false;
  std::string answer;
  std::string error;
};

std::optional<ResultState> resultNamed(const std::string& name) {
  for (ResultState state :
       {ResultState::deployed, ResultState::failed, ResultState::skipped, ResultState::skipped_for_dependency,
        ResultState::unavailable, ResultState::non_compliant, ResultState::dry})
    if (name == resultName(state)) return state;
  return std::nullopt;
}

bool isSha1(const std::string& text) {
  return text.size() == 40 && text.find_first_not_of("0123456789abcdef") == std::string::npos;
}

// The files the resource's attributes name by hash, as base64.
json filesNamedBy(const ResourceIntent& resource, FileStore& store) {
  json files = json::object();
  for (const auto& [name, value] : resource.attributes.items()) {
    if (!value.is_string() || !isSha1(value.get_ref<const std::string&>())) continue;
    const std::string& hash = value.get_ref<const std::string&>();
    if (files.contains(hash)) continue;
    if (std::optional<std::string> content = store.get(hash)) files[hash] = util::base64Encode(*content);
  }
  return files;
}

}  // namespace

void ForeignHandler::execute(Context& ctx, const ResourceIntent& resource) { run(ctx, resource, "execute"); }

void ForeignHandler::reload(Context& ctx, const ResourceIntent& resource) {
  // a reload reports logs only: the run's result stays the execute's
  std::optional<ResultState> status = ctx.status();
  run(ctx, resource, "reload");
  if (status) ctx.setStatus(*status);
}

void ForeignHandler::run(Context& ctx, const ResourceIntent& resource, const char* action) {
  json payload = resource.attributes;
  payload["id"] = resource.versionedId();
  json body{{"resource", std::move(payload)}, {"dry_run", ctx.dryRun()}, {"action", action}};
  if (files_ != nullptr) body["files"] = filesNamedBy(resource, *files_);
  std::string request = body.dump();

  auto pending = std::make_shared<PendingCall>();
  std::thread([pending, call = call_, request = std::move(request)] {
    // the module's code, and what it starts, with the normal policy, not the worker's (thread_policy.h)
    util::useNormalScheduling();
    std::string answer, error;
    try {
      answer = call(request);
    } catch (const std::exception& e) {
      error = e.what();
    }
    std::lock_guard<std::mutex> lock(pending->mutex);
    pending->answer = std::move(answer);
    pending->error = std::move(error);
    pending->finished = true;
    pending->done.notify_all();
  }).detach();

  std::unique_lock<std::mutex> lock(pending->mutex);
  if (!pending->done.wait_for(lock, timeout_, [&] { return pending->finished; })) {
    double seconds = std::chrono::duration<double>(timeout_).count();
    char text[32];
    std::snprintf(text, sizeof text, "%g", seconds);
    ctx.error("The handler of " + resource.resource_id + " did not finish within " + text +
                  " s: the call is abandoned and the resource fails",
              {{"resource_id", resource.resource_id}, {"timeout", seconds}});
    ctx.setStatus(ResultState::failed);
    ++abandoned;
    return;
  }
  if (!pending->error.empty()) {
    ctx.error("An error occurred during deployment of " + resource.resource_id + " (exception: " + "Exception(" +
                  pythonRepr(pending->error) + "))",
              {{"resource_id", resource.resource_id}});
    ctx.setStatus(ResultState::failed);
    return;
  }
  json answer = json::parse(pending->answer, nullptr, false);
  if (!answer.is_object()) {
    ctx.error("The handler of " + resource.resource_id + " answered something that is not a JSON object");
    ctx.setStatus(ResultState::failed);
    return;
  }
  canReload_ = answer.value("can_reload", false);
  if (files_ != nullptr && answer.contains("uploads") && answer["uploads"].is_object()) {
    for (const auto& [hash, text] : answer["uploads"].items()) {
      std::optional<std::string> content = text.is_string() ? util::base64Decode(text.get<std::string>())
                                                            : std::nullopt;
      if (!content)
        ctx.warning("The handler uploaded the file " + hash + " as something that is not base64: not stored");
      else if (util::sha1Hex(*content) != hash)
        ctx.warning("The handler uploaded a file under the hash " + hash + ", which is not its SHA-1: not stored");
      else files_->put(hash, *content);
    }
  }
  if (answer.contains("logs") && answer["logs"].is_array())
    for (const json& line : answer["logs"])
      if (line.is_object())
        ctx.log(line.value("level", "INFO"), line.value("msg", ""), line.value("kwargs", json::object()));
  if (answer.contains("changes") && answer["changes"].is_object()) ctx.addChanges(answer["changes"]);
  std::string change = answer.value("change", "nochange");
  if (change == "created") ctx.setCreated();
  else if (change == "updated") ctx.setUpdated();
  else if (change == "purged") ctx.setPurged();
  if (answer.contains("status") && answer["status"].is_string())
    if (std::optional<ResultState> state = resultNamed(answer["status"].get<std::string>())) ctx.setStatus(*state);
}

int abandonedForeignCalls() { return abandoned.load(); }

void registerForeignHandlers(HandlerRegistry& registry, const std::vector<std::string>& types, const ForeignCall& call,
                             std::chrono::milliseconds timeout) {
  for (const std::string& type : types)
    registry.add(
        type, "python", [](const HandlerServices&) { return true; },
        [call, timeout](const HandlerServices& services) {
          return std::make_unique<ForeignHandler>(call, timeout, services.files);
        });
}

}  // namespace inmanta::handlers
