#include "util/sha1.h"

#include <openssl/evp.h>

#include <stdexcept>

namespace inmanta::util {

std::string sha1Hex(std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_Digest(data.data(), data.size(), digest, &length, EVP_sha1(), nullptr) != 1)
    throw std::runtime_error("SHA-1 is not available");
  static const char* hex = "0123456789abcdef";
  std::string out;
  out.reserve(2 * length);
  for (unsigned int i = 0; i < length; ++i) {
    out += hex[digest[i] >> 4];
    out += hex[digest[i] & 15];
  }
  return out;
}

}  // namespace inmanta::util
