#include "util/digest.h"

#include "util/config.h"

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

std::string nameBasedUuid(std::string_view name) {
  // the namespace: the version 4 UUID 6f1d3c2a-8b4e-4f7a-9c35-2e8d1b7a4c60, as its 16 bytes
  static constexpr unsigned char kNamespace[16] = {0x6f, 0x1d, 0x3c, 0x2a, 0x8b, 0x4e, 0x4f, 0x7a,
                                                   0x9c, 0x35, 0x2e, 0x8d, 0x1b, 0x7a, 0x4c, 0x60};
  std::string hex = digestHex(DigestAlgorithm::Sha1,
                              {std::string_view(reinterpret_cast<const char*>(kNamespace), sizeof kNamespace), name});
  hex[12] = '5';                                                                // the version
  hex[16] = "89ab"[(hex[16] <= '9' ? hex[16] - '0' : hex[16] - 'a' + 10) & 3];  // the variant
  return normaliseUuid(hex.substr(0, 32));
}

}  // namespace inmanta::util
