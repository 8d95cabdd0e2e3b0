#include "embedded/server/dispatcher.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>

#include "embedded/server/errors.h"
#include "embedded/store/errors.h"
#include "util/json_parse.h"

namespace inmanta::server {

namespace {

std::string lowerCase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); });
  return text;
}

std::string join(const std::vector<std::string>& items, const std::string& separator) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : separator) + item;
  return out;
}

bool hasBody(const std::string& method) { return method == "POST" || method == "PUT" || method == "PATCH"; }

// The JSON object of a request body; HttpError 400 when it is not one (spec §3.4, D5).
nlohmann::json parseBody(const RawRequest& request) {
  if (!hasBody(request.method)) return nlohmann::json::object();
  bool blank = std::all_of(request.body.begin(), request.body.end(),
                           [](char c) { return std::isspace(static_cast<unsigned char>(c)); });
  if (blank) return nlohmann::json::object();
  nlohmann::json body;
  try {
    body = util::parseJson(request.body);  // (a version upload's resources on two threads)
  } catch (const nlohmann::json::parse_error& e) {
    throw HttpError(400, std::string("The request body couldn't be decoded as a JSON: ") + e.what());
  }
  // The reference fails with 500 here; we say what is wrong (D5).
  if (!body.is_object())
    throw badRequest(std::string("the request body must be a JSON object, not ") + body.type_name() + ".");
  return body;
}

}  // namespace

Dispatcher::Dispatcher(const Router& router, Services& services) : router_(router), services_(services) {}

Reply Dispatcher::errorReply(int status, const std::string& message, const nlohmann::json& details) {
  nlohmann::json body{{"message", message}};
  if (!details.is_null()) body["error_details"] = details;
  return Reply{status, std::move(body), {}};
}

Reply Dispatcher::handle(const RawRequest& request) const {
  // counted for serverstatus's core.transport slice
  struct InFlight {
    std::atomic<int>& count;
    explicit InFlight(std::atomic<int>& c) : count(c) { ++count; }
    ~InFlight() { --count; }
  } inFlight(services_.inflight);
  Reply reply;
  try {
    reply = dispatch(request);
  } catch (const HttpError& e) {
    reply = errorReply(e.status(), e.what(), e.details());
  } catch (const store::NotFound& e) {
    reply = errorReply(404, kNotFoundPrefix + std::string(e.what()));
  } catch (const store::Conflict& e) {
    reply = errorReply(409, kConflictPrefix + std::string(e.what()));
  } catch (const store::Invalid& e) {
    reply = errorReply(400, kBadRequestPrefix + std::string(e.what()));
  } catch (const std::exception& e) {
    spdlog::error("{} {}: {}", request.method, request.target, e.what());
    reply = errorReply(500, kServerErrorPrefix + std::string(e.what()));
  }
  if (!services_.options.accessControlAllowOrigin.empty())
    reply.headers.emplace_back("Access-Control-Allow-Origin", services_.options.accessControlAllowOrigin);
  return reply;
}

Reply Dispatcher::options(const std::string& rawPath) const {
  Router::Match match = router_.match("OPTIONS", rawPath);
  if (match.allowedMethods.empty()) return errorReply(404, "Request or referenced resource does not exist");
  std::string allowHeaders = "X-Inmanta-tid, Content-Type, Content-Encoding, Accept-Encoding";
  if (services_.options.auth) allowHeaders += ", Authorization";
  if (!services_.options.authAdditionalHeader.empty()) allowHeaders += ", " + services_.options.authAdditionalHeader;
  Reply reply = Reply::empty();
  reply.headers = {{"Access-Control-Allow-Methods", "HEAD, GET, POST, PUT, OPTIONS, DELETE, PATCH"},
                   {"Access-Control-Allow-Headers", allowHeaders}};
  return reply;
}

Reply Dispatcher::dispatch(const RawRequest& raw) const {
  if (shuttingDown_) return errorReply(503, kShutdownMessage);
  size_t question = raw.target.find('?');
  std::string rawPath = raw.target.substr(0, question);
  std::string query = question == std::string::npos ? "" : raw.target.substr(question + 1);
  if (raw.method == "OPTIONS") return options(rawPath);

  Router::Match match = router_.match(raw.method, rawPath);
  if (match.endpoint == nullptr) {
    if (match.allowedMethods.empty()) return errorReply(404, "Request or referenced resource does not exist");
    Reply reply = errorReply(405, raw.method + " is not supported for this url. Supported methods: " +
                                      join(match.allowedMethods, ", "));
    reply.headers.emplace_back("Allow", join(match.allowedMethods, ", "));
    return reply;
  }
  const Endpoint& endpoint = *match.endpoint;

  Request request;
  request.method = raw.method;
  request.path = percentDecode(rawPath, false);
  for (const auto& [name, value] : raw.headers) request.headers[lowerCase(name)] = value;

  authenticate(endpoint, request);

  RawArguments arguments;
  arguments.query = parseQueryString(query);
  arguments.body = parseBody(raw);
  arguments.path = std::move(match.path);
  if (auto it = request.headers.find("x-inmanta-tid"); it != request.headers.end()) arguments.tidHeader = it->second;
  request.args = validateArguments(endpoint.args, std::move(arguments), endpoint.acceptsExtraFields);

  if (endpoint.scope == Scope::environment) {
    try {
      request.environment = services_.store.getEnvironment(request.str("tid"));
    } catch (const store::NotFound&) {
      throw notFound("The given environment id does not exist!");
    }
  }
  authorize(endpoint, request);
  return endpoint.handler(request);
}

void Dispatcher::authenticate(const Endpoint& endpoint, Request& request) const {
  if (!services_.options.auth || !endpoint.enforceAuth) return;
  std::string token;
  if (auto it = request.headers.find("authorization"); it != request.headers.end()) token = bearerToken(it->second);
  if (token.empty() && !services_.options.authAdditionalHeader.empty())
    if (auto it = request.headers.find(lowerCase(services_.options.authAdditionalHeader)); it != request.headers.end())
      token = bearerToken(it->second);
  if (token.empty()) throw HttpError(401, kUnauthorizedMessage + std::string(": no bearer token was given"));
  std::string why;
  request.token = services_.auth.verify(token, why);
  if (!request.token) throw forbidden(why);
}

void Dispatcher::authorize(const Endpoint& endpoint, const Request& request) const {
  if (!request.token) return;
  const TokenClaims& claims = *request.token;
  if (claims.environment) {
    std::optional<std::string> wanted;
    if (endpoint.scope == Scope::environment) wanted = request.envId();
    else if (endpoint.scope == Scope::pathId && request.has("id")) wanted = request.str("id");
    if (endpoint.scope == Scope::none) throw forbidden("The authorization token is scoped to a specific environment.");
    if (wanted && *wanted != *claims.environment)
      throw forbidden("The authorization token is not valid for the requested environment.");
  }
  if ((claims.clientTypes & endpoint.clientTypes) == 0)
    throw forbidden("The authorization token does not have a valid client type for this call. (" +
                    clientTypeNames(claims.clientTypes) + " provided, " + clientTypeNames(endpoint.clientTypes) +
                    " expected)");
}

}  // namespace inmanta::server
