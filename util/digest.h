// Message digests as lowercase hex: SHA-1 for the ids of the files a version uploads (std::File's
// hash) and the version hashes of modules (export spec 1.8, 3.4); MD5 for attribute hashes
// (attribute_hash.h) and std's password/hash plugins.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

namespace inmanta::util {

enum class DigestAlgorithm { Sha1, Md5 };

// The lowercase hex digest of the concatenation of `parts`. Throws std::runtime_error naming the
// algorithm when OpenSSL cannot compute it (a libcrypto without it, as under some FIPS
// configurations).
std::string digestHex(DigestAlgorithm algorithm, std::initializer_list<std::string_view> parts);

// The 40 lowercase hex digits of the SHA-1 of `data`.
inline std::string sha1Hex(std::string_view data) { return digestHex(DigestAlgorithm::Sha1, {data}); }

// The 32 lowercase hex digits of the MD5 of `data`.
inline std::string md5Hex(std::string_view data) { return digestHex(DigestAlgorithm::Md5, {data}); }

// A UUID made from `name` (RFC 4122 version 5, SHA-1, in inmanta-cpp's own namespace), in the
// canonical lowercase form: the same name always gives the same id.
std::string nameBasedUuid(std::string_view name);

}  // namespace inmanta::util
