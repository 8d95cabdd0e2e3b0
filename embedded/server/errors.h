// The errors a route or a service throws to answer a request with a 4xx/5xx (spec §3.4). The
// dispatcher (dispatcher.cpp) turns them into `{"message": …, "error_details": …}` bodies; it
// also maps the store's errors (store/errors.h): NotFound → 404, Conflict → 409, Invalid → 400.
#pragma once

#include <nlohmann/json.hpp>

#include <stdexcept>
#include <string>

namespace inmanta::server {

// The status line prefixes of spec §3.4.
inline constexpr const char* kBadRequestPrefix = "Invalid request: ";
inline constexpr const char* kNotFoundPrefix = "Request or referenced resource does not exist: ";
inline constexpr const char* kForbiddenPrefix = "Access denied: ";
inline constexpr const char* kUnauthorizedMessage = "Access to this resource is unauthorized";
inline constexpr const char* kConflictPrefix = "Request conflicts with the current state of the resource: ";
inline constexpr const char* kServerErrorPrefix =
    "An unexpected error occurred in the server while processing the request: ";
inline constexpr const char* kShutdownMessage = "Can not complete this request as a shutdown is on progress";

// An answer other than 200: its status and the complete message (prefix included).
class HttpError : public std::runtime_error {
 public:
  HttpError(int status, const std::string& message, nlohmann::json details = nullptr)
      : std::runtime_error(message), status_(status), details_(std::move(details)) {}
  int status() const { return status_; }
  // `error_details` of the body; null when there are none.
  const nlohmann::json& details() const { return details_; }

 private:
  int status_;
  nlohmann::json details_;
};

// The usual ones, each with its prefix before `message`.
inline HttpError badRequest(const std::string& message, nlohmann::json details = nullptr) {
  return HttpError(400, kBadRequestPrefix + message, std::move(details));
}
inline HttpError notFound(const std::string& message) { return HttpError(404, kNotFoundPrefix + message); }
inline HttpError forbidden(const std::string& message) { return HttpError(403, kForbiddenPrefix + message); }
inline HttpError conflict(const std::string& message) { return HttpError(409, kConflictPrefix + message); }
// A few v1 handlers answer a message without prefix (spec §4, "bare").
inline HttpError bare(int status, const std::string& message) { return HttpError(status, message); }

}  // namespace inmanta::server
