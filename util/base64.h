// Base64 of RFC 4648 (with padding) both ways: file contents in the REST API (upload_file,
// get_file) and in the calls of the modules' Python handlers.
#pragma once

#include <optional>
#include <string>

namespace inmanta::util {

std::string base64Encode(const std::string& bytes);
// nullopt for text that is not base64 (a character outside the alphabet, a bad length or padding).
std::optional<std::string> base64Decode(const std::string& text);

}  // namespace inmanta::util
