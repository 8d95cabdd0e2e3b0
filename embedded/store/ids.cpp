#include "embedded/store/ids.h"

#include <array>
#include <chrono>
#include <random>

namespace inmanta::store {
namespace {

using Bytes = std::array<unsigned char, 16>;

Bytes randomBytes() {
  // one generator per thread, seeded from the system's entropy
  thread_local std::mt19937_64 generator{[] {
    std::random_device device;
    std::seed_seq seed{device(), device(), device(), device(), device(), device(), device(), device()};
    return std::mt19937_64(seed);
  }()};
  Bytes bytes;
  for (std::size_t i = 0; i < bytes.size(); i += 8) {
    std::uint64_t word = generator();
    for (std::size_t j = 0; j < 8; ++j) bytes[i + j] = static_cast<unsigned char>(word >> (8 * j));
  }
  return bytes;
}

std::string formatUuid(Bytes bytes, unsigned version) {
  bytes[6] = static_cast<unsigned char>((bytes[6] & 0x0f) | (version << 4));
  bytes[8] = static_cast<unsigned char>((bytes[8] & 0x3f) | 0x80);  // RFC 4122 variant
  static const char* hex = "0123456789abcdef";
  std::string text;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) text += '-';
    text += hex[bytes[i] >> 4];
    text += hex[bytes[i] & 0x0f];
  }
  return text;
}

}  // namespace

std::string newUuid() { return formatUuid(randomBytes(), 4); }

std::string newTimeOrderedUuid() {
  auto since = std::chrono::system_clock::now().time_since_epoch();
  auto nanos = static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(since).count());
  std::uint64_t millis = nanos / 1000000;
  auto fraction = static_cast<unsigned>((nanos % 1000000) * 4096 / 1000000);  // 12 bits
  Bytes bytes = randomBytes();
  for (std::size_t i = 0; i < 6; ++i) bytes[i] = static_cast<unsigned char>(millis >> (8 * (5 - i)));
  bytes[6] = static_cast<unsigned char>(fraction >> 8);  // its high nibble becomes the version
  bytes[7] = static_cast<unsigned char>(fraction & 0xff);
  return formatUuid(bytes, 7);
}

std::optional<std::string> canonicalUuid(std::string_view text) {
  if (text.size() >= 2 && text.front() == '{' && text.back() == '}') text = text.substr(1, text.size() - 2);
  if (text.rfind("urn:uuid:", 0) == 0) text.remove_prefix(9);
  std::string digits;
  for (char c : text) {
    if (c == '-') continue;
    if (c >= '0' && c <= '9') digits += c;
    else if (c >= 'a' && c <= 'f') digits += c;
    else if (c >= 'A' && c <= 'F') digits += static_cast<char>(c - 'A' + 'a');
    else return std::nullopt;
  }
  if (digits.size() != 32) return std::nullopt;
  return digits.substr(0, 8) + "-" + digits.substr(8, 4) + "-" + digits.substr(12, 4) + "-" + digits.substr(16, 4) +
         "-" + digits.substr(20);
}

}  // namespace inmanta::store
