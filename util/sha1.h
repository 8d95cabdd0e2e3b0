// SHA-1 as lowercase hex: the ids of the files a version uploads (std::File's hash) and the
// version hashes of modules (export spec 1.8, 3.4).
#pragma once

#include <string>
#include <string_view>

namespace inmanta::util {

// The 40 lowercase hex digits of the SHA-1 of `data`. Throws std::runtime_error when OpenSSL
// cannot compute it (a libcrypto without SHA-1, as under some FIPS configurations).
std::string sha1Hex(std::string_view data);

}  // namespace inmanta::util
