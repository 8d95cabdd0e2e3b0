#include "util/sha1.h"

#include <openssl/evp.h>

#include <memory>
#include <stdexcept>

namespace inmanta::util {

namespace {

// OpenSSL 3 looks SHA-1's implementation up among its providers on every EVP_Digest() that names
// EVP_sha1() (a locked table look-up), and makes and frees a context each time: for the small
// contents of std::File (a compile, an upload and a deploy hash each of 10,000 files) that was
// most of the time. The implementation is fetched once per process and each thread keeps one
// context.
const EVP_MD* sha1Algorithm() {
  static EVP_MD* fetched = EVP_MD_fetch(nullptr, "SHA1", nullptr);
  if (fetched == nullptr) throw std::runtime_error("SHA-1 is not available");
  return fetched;
}

struct ContextFree {
  void operator()(EVP_MD_CTX* context) const { EVP_MD_CTX_free(context); }
};

}  // namespace

std::string sha1Hex(std::string_view data) {
  const EVP_MD* algorithm = sha1Algorithm();
  thread_local std::unique_ptr<EVP_MD_CTX, ContextFree> context(EVP_MD_CTX_new());
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (!context || EVP_DigestInit_ex2(context.get(), algorithm, nullptr) != 1 ||
      EVP_DigestUpdate(context.get(), data.data(), data.size()) != 1 ||
      EVP_DigestFinal_ex(context.get(), digest, &length) != 1)
    throw std::runtime_error("SHA-1 is not available");
  static const char* hex = "0123456789abcdef";
  std::string out(2 * length, '0');
  for (unsigned int i = 0; i < length; ++i) {
    out[2 * i] = hex[digest[i] >> 4];
    out[2 * i + 1] = hex[digest[i] & 15];
  }
  return out;
}

}  // namespace inmanta::util
