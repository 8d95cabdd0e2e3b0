// IPv4 and IPv6 addresses, interfaces and networks with the parsing rules and text forms of
// Python's `ipaddress` module (CPython 3.13), which std's typedefs and network plugins follow
// (spec A.1, A.8).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace inmanta::stdmodule::ip {

__extension__ using U128 = unsigned __int128;

struct Address {
  int version = 4;    // 4 or 6
  U128 value = 0;     // < 2**32 for IPv4
  std::string scope;  // IPv6 scope id (`fe80::1%eth0`), empty when none
  int maxPrefix() const { return version == 4 ? 32 : 128; }
};

// An interface (`10.0.0.1/24`: an address with a prefix) or a network (`10.0.0.0/24`: the
// address is the network address).
struct Prefixed {
  Address address;
  int prefixlen = 32;
};

U128 allOnes(int version);
U128 netmaskBits(int version, int prefixlen);

// Python IPv4Address(str) / IPv6Address(str); nullopt when Python raises (AddressValueError).
std::optional<Address> parseV4(std::string_view text);
std::optional<Address> parseV6(std::string_view text);
// Python IPv4Interface(str) / IPv6Interface(str): an optional `/prefix` or (IPv4) `/netmask`
// or `/hostmask`; host bits allowed.
std::optional<Prefixed> parseInterface(int version, std::string_view text);
// Python IPv4Network(str) / IPv6Network(str) with strict=True: host bits must be zero.
std::optional<Prefixed> parseNetwork(int version, std::string_view text);
// ip_address / ip_interface / ip_network: IPv4 first, then IPv6.
std::optional<Address> parseAnyAddress(std::string_view text);
std::optional<Prefixed> parseAnyInterface(std::string_view text);
std::optional<Prefixed> parseAnyNetwork(std::string_view text);

// str() of an address: dotted quad; IPv6 compressed lower case (`::ffff:1.2.3.4` for an
// IPv4-mapped address, as 3.13 renders it) with `%scope`.
std::string format(const Address& a);
// str() of an interface or network: `address/prefixlen`.
std::string format(const Prefixed& p);

// The network of an interface (Python `interface.network`, strict=False): host bits cleared.
Prefixed networkOf(const Prefixed& iface);
Address netmaskOf(const Prefixed& p);

// Decimal text of the 129-bit signed number `negative ? -magnitude : carry * 2**128 + magnitude`
// (messages about addresses out of range).
std::string decimal(U128 magnitude, bool negative = false, bool carry = false);

}  // namespace inmanta::stdmodule::ip
