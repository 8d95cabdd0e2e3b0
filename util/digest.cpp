#include "util/digest.h"

#include <openssl/evp.h>

#include <array>
#include <memory>
#include <stdexcept>

namespace inmanta::util {

namespace {

// OpenSSL 3 looks an implementation up among its providers on every EVP_Digest() that names
// EVP_sha1() or EVP_md5() (a locked table look-up), and makes and frees a context each time: for
// the small contents of std::File (a compile, an upload and a deploy hash each of 10,000 files)
// and the attribute hash of every resource that was most of the time. Each algorithm is fetched
// once per process and each thread keeps one context.
struct Algorithm {
  const char* name;
  EVP_MD* fetched;
};

const Algorithm& algorithmOf(DigestAlgorithm algorithm) {
  static const std::array<Algorithm, 2> algorithms{
      Algorithm{"SHA-1", EVP_MD_fetch(nullptr, "SHA1", nullptr)},
      Algorithm{"MD5", EVP_MD_fetch(nullptr, "MD5", nullptr)},
  };
  return algorithms[static_cast<std::size_t>(algorithm)];
}

struct ContextFree {
  void operator()(EVP_MD_CTX* context) const { EVP_MD_CTX_free(context); }
};

}  // namespace

std::string digestHex(DigestAlgorithm algorithm, std::initializer_list<std::string_view> parts) {
  const Algorithm& implementation = algorithmOf(algorithm);
  thread_local std::unique_ptr<EVP_MD_CTX, ContextFree> context(EVP_MD_CTX_new());
  bool ok = implementation.fetched != nullptr && context &&
            EVP_DigestInit_ex2(context.get(), implementation.fetched, nullptr) == 1;
  for (std::string_view part : parts) ok = ok && EVP_DigestUpdate(context.get(), part.data(), part.size()) == 1;
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (!ok || EVP_DigestFinal_ex(context.get(), digest, &length) != 1)
    throw std::runtime_error(std::string(implementation.name) + " is not available from OpenSSL");
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(2 * length, '0');
  for (unsigned int i = 0; i < length; ++i) {
    out[2 * i] = kHex[digest[i] >> 4];
    out[2 * i + 1] = kHex[digest[i] & 15];
  }
  return out;
}

}  // namespace inmanta::util
