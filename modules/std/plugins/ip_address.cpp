#include "modules/std/plugins/ip_address.h"

#include <algorithm>
#include <cstdio>
#include <vector>

namespace inmanta::stdmodule::ip {

namespace {

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  size_t pos = 0;
  while (true) {
    size_t hit = s.find(sep, pos);
    if (hit == std::string_view::npos) break;
    parts.push_back(s.substr(pos, hit - pos));
    pos = hit + 1;
  }
  parts.push_back(s.substr(pos));
  return parts;
}

bool allAsciiDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// IPv4Address._ip_int_from_string: four decimal octets, no leading zeros, each <= 255.
std::optional<uint32_t> v4IntFromString(std::string_view s) {
  if (s.empty()) return std::nullopt;
  std::vector<std::string_view> octets = split(s, '.');
  if (octets.size() != 4) return std::nullopt;
  uint32_t value = 0;
  for (std::string_view o : octets) {
    if (!allAsciiDigits(o) || o.size() > 3) return std::nullopt;
    if (o.size() > 1 && o[0] == '0') return std::nullopt;
    unsigned n = 0;
    for (char c : o) n = n * 10 + static_cast<unsigned>(c - '0');
    if (n > 255) return std::nullopt;
    value = (value << 8) | n;
  }
  return value;
}

std::optional<uint16_t> parseHextet(std::string_view s) {
  if (s.empty() || s.size() > 4) return std::nullopt;
  unsigned n = 0;
  for (char c : s) {
    int h = hexValue(c);
    if (h < 0) return std::nullopt;
    n = n * 16 + static_cast<unsigned>(h);
  }
  return static_cast<uint16_t>(n);
}

// IPv6Address._ip_int_from_string (CPython 3.13), scope id already removed.
std::optional<U128> v6IntFromString(std::string_view s) {
  if (s.empty()) return std::nullopt;
  std::vector<std::string_view> partViews = split(s, ':');
  if (partViews.size() < 3) return std::nullopt;
  std::vector<std::string> parts(partViews.begin(), partViews.end());
  if (parts.back().find('.') != std::string::npos) {
    if (parts.back().find('/') != std::string::npos) return std::nullopt;
    std::optional<uint32_t> v4 = v4IntFromString(parts.back());
    if (!v4) return std::nullopt;
    parts.pop_back();
    char buf[8];
    std::snprintf(buf, sizeof buf, "%x", (*v4 >> 16) & 0xFFFF);
    parts.emplace_back(buf);
    std::snprintf(buf, sizeof buf, "%x", *v4 & 0xFFFF);
    parts.emplace_back(buf);
  }
  if (parts.size() > 9) return std::nullopt;
  std::optional<size_t> skip;
  for (size_t i = 1; i + 1 < parts.size(); ++i) {
    if (parts[i].empty()) {
      if (skip) return std::nullopt;  // at most one '::'
      skip = i;
    }
  }
  size_t hi = 0, lo = 0, skipped = 0;
  if (skip) {
    hi = *skip;
    lo = parts.size() - *skip - 1;
    if (parts.front().empty() && --hi != 0) return std::nullopt;
    if (parts.back().empty() && --lo != 0) return std::nullopt;
    if (hi + lo >= 8) return std::nullopt;
    skipped = 8 - (hi + lo);
  } else {
    if (parts.size() != 8 || parts.front().empty() || parts.back().empty()) return std::nullopt;
    hi = parts.size();
  }
  U128 value = 0;
  for (size_t i = 0; i < hi; ++i) {
    std::optional<uint16_t> h = parseHextet(parts[i]);
    if (!h) return std::nullopt;
    value = (value << 16) | *h;
  }
  value = skipped >= 8 ? 0 : value << (16 * skipped);
  for (size_t i = parts.size() - lo; i < parts.size(); ++i) {
    std::optional<uint16_t> h = parseHextet(parts[i]);
    if (!h) return std::nullopt;
    value = (value << 16) | *h;
  }
  return value;
}

// _prefix_from_ip_int: the prefix length of a netmask (ones then zeros).
std::optional<int> prefixFromMask(int version, U128 mask) {
  int bits = version == 4 ? 32 : 128;
  int trailingZeros = 0;
  while (trailingZeros < bits && ((mask >> trailingZeros) & 1) == 0) ++trailingZeros;
  int prefixlen = bits - trailingZeros;
  U128 leadingOnes = trailingZeros >= 128 ? 0 : mask >> trailingZeros;
  U128 expected = prefixlen >= 128 ? ~U128(0) : (U128(1) << prefixlen) - 1;
  if (leadingOnes != expected) return std::nullopt;
  return prefixlen;
}

// _make_netmask(str): a prefix length in decimal; for IPv4 also a netmask or hostmask in
// dotted-quad form.
std::optional<int> parseMask(int version, std::string_view s) {
  int maxPrefix = version == 4 ? 32 : 128;
  if (allAsciiDigits(s)) {
    // int() of ASCII digits: leading zeros allowed (`/024`)
    size_t i = 0;
    while (i + 1 < s.size() && s[i] == '0') ++i;
    if (s.size() - i > 3) return std::nullopt;
    int n = 0;
    for (; i < s.size(); ++i) n = n * 10 + (s[i] - '0');
    if (n > maxPrefix) return std::nullopt;
    return n;
  }
  if (version == 6) return std::nullopt;
  std::optional<uint32_t> mask = v4IntFromString(s);
  if (!mask) return std::nullopt;
  if (std::optional<int> p = prefixFromMask(4, *mask)) return p;
  return prefixFromMask(4, *mask ^ 0xFFFFFFFFu);
}

std::optional<Address> parseAddress(int version, std::string_view s) { return version == 4 ? parseV4(s) : parseV6(s); }

// _split_addr_prefix + the address and mask parsing shared by interfaces and networks.
std::optional<Prefixed> parsePrefixed(int version, std::string_view text) {
  std::vector<std::string_view> parts = split(text, '/');
  if (parts.size() > 2) return std::nullopt;
  std::optional<Address> address = parseAddress(version, parts[0]);
  if (!address) return std::nullopt;
  Prefixed p{*address, address->maxPrefix()};
  if (parts.size() == 2) {
    std::optional<int> prefix = parseMask(version, parts[1]);
    if (!prefix) return std::nullopt;
    p.prefixlen = *prefix;
  }
  return p;
}

std::string hex(unsigned v) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%x", v);
  return buf;
}

// IPv6Address._string_from_ip_int with _compress_hextets: the first longest run of two or
// more zero hextets becomes `::`.
std::string v6String(U128 value) {
  std::vector<std::string> hextets;
  for (int i = 7; i >= 0; --i) hextets.push_back(hex(static_cast<unsigned>((value >> (16 * i)) & 0xFFFF)));
  int bestStart = -1, bestLen = 0, start = -1, len = 0;
  for (int i = 0; i < 8; ++i) {
    if (hextets[static_cast<size_t>(i)] == "0") {
      ++len;
      if (start == -1) start = i;
      if (len > bestLen) {
        bestLen = len;
        bestStart = start;
      }
    } else {
      len = 0;
      start = -1;
    }
  }
  std::string out;
  if (bestLen > 1) {
    for (int i = 0; i < bestStart; ++i) out += (i ? ":" : "") + hextets[static_cast<size_t>(i)];
    out += "::";
    for (int i = bestStart + bestLen; i < 8; ++i)
      out += (i > bestStart + bestLen ? ":" : "") + hextets[static_cast<size_t>(i)];
    return out;
  }
  for (int i = 0; i < 8; ++i) out += (i ? ":" : "") + hextets[static_cast<size_t>(i)];
  return out;
}

std::string v4String(uint32_t v) {
  return std::to_string(v >> 24) + "." + std::to_string((v >> 16) & 0xFF) + "." + std::to_string((v >> 8) & 0xFF) +
         "." + std::to_string(v & 0xFF);
}

}  // namespace

U128 allOnes(int version) { return version == 4 ? U128(0xFFFFFFFFu) : ~U128(0); }

U128 netmaskBits(int version, int prefixlen) {
  int bits = version == 4 ? 32 : 128;
  if (prefixlen <= 0) return 0;
  U128 hostBits = bits - prefixlen >= 128 ? ~U128(0) : (U128(1) << (bits - prefixlen)) - 1;
  return allOnes(version) & ~hostBits;
}

std::optional<Address> parseV4(std::string_view text) {
  if (text.find('/') != std::string_view::npos) return std::nullopt;
  std::optional<uint32_t> v = v4IntFromString(text);
  if (!v) return std::nullopt;
  return Address{4, *v, {}};
}

std::optional<Address> parseV6(std::string_view text) {
  if (text.find('/') != std::string_view::npos) return std::nullopt;
  std::string_view addr = text;
  std::string scope;
  size_t percent = text.find('%');
  if (percent != std::string_view::npos) {
    addr = text.substr(0, percent);
    std::string_view s = text.substr(percent + 1);
    if (s.empty() || s.find('%') != std::string_view::npos) return std::nullopt;
    scope = std::string(s);
  }
  std::optional<U128> v = v6IntFromString(addr);
  if (!v) return std::nullopt;
  return Address{6, *v, scope};
}

std::optional<Prefixed> parseInterface(int version, std::string_view text) { return parsePrefixed(version, text); }

std::optional<Prefixed> parseNetwork(int version, std::string_view text) {
  std::optional<Prefixed> p = parsePrefixed(version, text);
  if (!p) return std::nullopt;
  if ((p->address.value & netmaskBits(version, p->prefixlen)) != p->address.value)
    return std::nullopt;  // host bits set
  return p;
}

std::optional<Address> parseAnyAddress(std::string_view text) {
  if (auto a = parseV4(text)) return a;
  return parseV6(text);
}

std::optional<Prefixed> parseAnyInterface(std::string_view text) {
  if (auto p = parseInterface(4, text)) return p;
  return parseInterface(6, text);
}

std::optional<Prefixed> parseAnyNetwork(std::string_view text) {
  if (auto p = parseNetwork(4, text)) return p;
  return parseNetwork(6, text);
}

std::string format(const Address& a) {
  if (a.version == 4) return v4String(static_cast<uint32_t>(a.value));
  std::string out;
  if ((a.value >> 32) == 0xFFFF) out = "::ffff:" + v4String(static_cast<uint32_t>(a.value & 0xFFFFFFFFu));
  else out = v6String(a.value);
  if (!a.scope.empty()) out += "%" + a.scope;
  return out;
}

std::string format(const Prefixed& p) { return format(p.address) + "/" + std::to_string(p.prefixlen); }

Prefixed networkOf(const Prefixed& iface) {
  Prefixed net = iface;
  U128 masked = iface.address.value & netmaskBits(iface.address.version, iface.prefixlen);
  if (masked != iface.address.value) net.address = Address{iface.address.version, masked, {}};
  return net;
}

Address netmaskOf(const Prefixed& p) {
  return Address{p.address.version, netmaskBits(p.address.version, p.prefixlen), {}};
}

std::string decimal(U128 magnitude, bool negative, bool carry) {
  // carry * 2**128 + magnitude, by schoolbook division of a 129-bit number by 10
  std::string digits;
  bool high = carry;
  U128 low = magnitude;
  do {
    // (high * 2**128 + low) / 10 and % 10
    U128 q, r;
    if (high) {
      // 2**128 = 10 * 34028236692093846346337460743176821145 + 6
      static const U128 kTwo128Div10 = (~U128(0)) / 10;  // (2**128 - 1) / 10 = 2**128 / 10 (remainder 5 vs 6)
      U128 lq = low / 10;
      U128 lr = low % 10;
      r = lr + 6;
      q = kTwo128Div10 + lq + r / 10;
      r %= 10;
      high = false;
    } else {
      q = low / 10;
      r = low % 10;
    }
    digits.push_back(static_cast<char>('0' + static_cast<int>(r)));
    low = q;
  } while (low != 0 || high);
  if (negative) digits.push_back('-');
  std::reverse(digits.begin(), digits.end());
  return digits;
}

}  // namespace inmanta::stdmodule::ip
