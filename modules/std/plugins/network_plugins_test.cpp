// Unit tests of the network plugins of std and of the Python `ipaddress` model behind them
// (spec A.1, A.8). Expected values come from CPython 3.13.
#include "modules/std/plugins/ip_address.h"
#include "modules/std/plugins/plugin_test_support.h"

namespace inmanta::stdmodule::testing {
namespace {

using NetworkPlugins = StdPluginTest;

std::string roundTrip(const std::string& text) {
  auto a = ip::parseAnyAddress(text);
  return a ? ip::format(*a) : "<invalid>";
}

// ------------------------------------------------------------------ the ipaddress model

TEST(IpAddress, Ipv4ParsingIsStrict) {
  for (const char* ok : {"0.0.0.0", "10.0.0.1", "255.255.255.255", "192.168.1.100"}) EXPECT_TRUE(ip::parseV4(ok)) << ok;
  for (const char* bad : {"", "010.0.0.1", "1.2.3", "1.2.3.4.5", "256.0.0.1", "1.2.3.4 ", " 1.2.3.4", "1.2.3.4/32",
                          "1..2.3", "1.2.3.-4", "1.2.3.+4", "1.2.3.0x4", "١.٢.٣.٤", "1.2.3.4\n", "1000.1.1.1"})
    EXPECT_FALSE(ip::parseV4(bad)) << bad;
}

TEST(IpAddress, Ipv6ParsingFollowsRfc4291) {
  for (const char* ok : {"::", "::1", "1::", "1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7::", "::2:3:4:5:6:7:8", "2001:DB8::1",
                         "::ffff:1.2.3.4", "1:2:3:4:5:6:1.2.3.4", "fe80::1%eth0", "0000:0000::0001"})
    EXPECT_TRUE(ip::parseV6(ok)) << ok;
  for (const char* bad : {"", ":", "1:2", "1::2::3", "12345::", "::1.2.3", "1.2.3.4::", "1:2:3:4:5:6:7:8:9",
                          ":1:2:3:4:5:6:7", "1:2:3:4:5:6:7:", "1:2:3:4:5:6:7:8::", "::1%", "::1%a%b", "::g",
                          "1:2:3:4:5:6:7:1.2.3.4", "::1/128", "::01.2.3.4", "1:::2"})
    EXPECT_FALSE(ip::parseV6(bad)) << bad;
}

TEST(IpAddress, Ipv6FormattingIsPythonsCompressedForm) {
  EXPECT_EQ(roundTrip("2001:DB8::1"), "2001:db8::1");
  EXPECT_EQ(roundTrip("2001:db8:0:0:1:0:0:1"), "2001:db8::1:0:0:1");
  EXPECT_EQ(roundTrip("0:0:0:0:0:0:0:0"), "::");
  EXPECT_EQ(roundTrip("1:0:0:0:0:0:0:0"), "1::");
  EXPECT_EQ(roundTrip("2001:db8:0:1:1:1:1:1"), "2001:db8:0:1:1:1:1:1");
  EXPECT_EQ(roundTrip("2001:0db8:0000:0000:0000:ff00:0042:8329"), "2001:db8::ff00:42:8329");
  EXPECT_EQ(roundTrip("::ffff:10.0.0.1"), "::ffff:10.0.0.1");  // IPv4-mapped: dotted, as 3.13 renders it
  EXPECT_EQ(roundTrip("::10.0.0.1"), "::a00:1");
  EXPECT_EQ(roundTrip("64:ff9b::192.0.2.33"), "64:ff9b::c000:221");
  EXPECT_EQ(roundTrip("fe80::1%eth0"), "fe80::1%eth0");
  EXPECT_EQ(roundTrip("0:1:0:1:0:1:0:1"), "0:1:0:1:0:1:0:1");  // a single zero is never compressed
  EXPECT_EQ(roundTrip("1:0:0:1:0:0:0:1"), "1:0:0:1::1");       // the longest run
  EXPECT_EQ(roundTrip("1:0:0:2:0:0:3:4"), "1::2:0:0:3:4");     // the first of equal runs
}

TEST(IpAddress, InterfacesAndNetworks) {
  EXPECT_EQ(ip::format(*ip::parseInterface(4, "10.0.0.1/24")), "10.0.0.1/24");
  EXPECT_EQ(ip::format(*ip::parseInterface(4, "10.0.0.1")), "10.0.0.1/32");
  EXPECT_EQ(ip::format(*ip::parseInterface(4, "10.0.0.1/255.255.0.0")), "10.0.0.1/16");
  EXPECT_EQ(ip::format(*ip::parseInterface(4, "10.0.0.1/0.0.255.255")), "10.0.0.1/16");  // a hostmask
  EXPECT_EQ(ip::format(*ip::parseInterface(4, "10.0.0.0/024")), "10.0.0.0/24");
  EXPECT_EQ(ip::format(*ip::parseNetwork(4, "10.0.0.0/0.0.0.255")), "10.0.0.0/24");
  EXPECT_EQ(ip::format(*ip::parseNetwork(6, "2001:db8::/32")), "2001:db8::/32");
  EXPECT_FALSE(ip::parseNetwork(4, "10.0.0.1/24"));  // host bits set
  EXPECT_FALSE(ip::parseNetwork(4, "10.0.0.0/0.0.0.0"));
  EXPECT_TRUE(ip::parseNetwork(4, "0.0.0.0/0.0.0.0"));
  for (const char* bad : {"10.0.0.0/33", "10.0.0.0/", "10.0.0.0/+24", "10.0.0.0/ 24", "10.0.0.0/24/1",
                          "10.0.0.0/255.0.255.0", "10.0.0.0/٢٤"})
    EXPECT_FALSE(ip::parseInterface(4, bad)) << bad;
  EXPECT_FALSE(ip::parseInterface(6, "1::/ffff::"));  // no netmask form for IPv6
  EXPECT_TRUE(ip::parseInterface(6, "fe80::1%eth0/64"));
}

TEST(IpAddress, DecimalOf129BitNumbers) {
  EXPECT_EQ(ip::decimal(0), "0");
  EXPECT_EQ(ip::decimal(12345, true), "-12345");
  EXPECT_EQ(ip::decimal(0, false, true), "340282366920938463463374607431768211456");
  EXPECT_EQ(ip::decimal(9223372036854775806ULL, false, true), "340282366920938463472597979468622987262");
}

// ------------------------------------------------------------------ the plugins

TEST_F(NetworkPlugins, PrefixlengthToNetmask) {
  EXPECT_EQ(str("prefixlength_to_netmask", {20}), "255.255.240.0");
  EXPECT_EQ(str("prefixlength_to_netmask", {24}), "255.255.255.0");
  EXPECT_EQ(str("prefixlength_to_netmask", {0}), "0.0.0.0");
  EXPECT_EQ(str("prefixlength_to_netmask", {1}), "128.0.0.0");
  EXPECT_EQ(str("prefixlength_to_netmask", {32}), "255.255.255.255");
  EXPECT_EQ(failure("prefixlength_to_netmask", {33}),
            "ValueError: '255.255.255.255/33' does not appear to be an IPv4 or IPv6 interface");
  EXPECT_EQ(failure("prefixlength_to_netmask", {-1}),
            "ValueError: '255.255.255.255/-1' does not appear to be an IPv4 or IPv6 interface");
  EXPECT_EQ(failure("prefixlength_to_netmask", {true}),
            "ValueError: '255.255.255.255/True' does not appear to be an IPv4 or IPv6 interface");
  EXPECT_EQ(spec("prefixlength_to_netmask").returnType, "std::ipv4_address");
}

TEST_F(NetworkPlugins, PrefixlenNetworkAddressAndNetmask) {
  EXPECT_EQ(call("prefixlen", {"192.168.1.100/24"}).asInt(), 24);
  EXPECT_EQ(call("prefixlen", {"192.168.1.100"}).asInt(), 32);
  EXPECT_EQ(call("prefixlen", {"2001:db8::1/64"}).asInt(), 64);
  EXPECT_EQ(call("prefixlen", {"2001:db8::1"}).asInt(), 128);
  EXPECT_EQ(call("prefixlen", {"10.0.0.1/255.255.0.0"}).asInt(), 16);
  EXPECT_EQ(str("network_address", {"192.168.1.100/24"}), "192.168.1.0");
  EXPECT_EQ(str("network_address", {"10.1.2.3/12"}), "10.0.0.0");
  EXPECT_EQ(str("network_address", {"2001:db8::1/64"}), "2001:db8::");
  EXPECT_EQ(str("network_address", {"fe80::1%eth0/64"}), "fe80::");
  EXPECT_EQ(str("network_address", {"fe80::%eth0/64"}), "fe80::%eth0");
  EXPECT_EQ(str("netmask", {"192.168.1.100/24"}), "255.255.255.0");
  EXPECT_EQ(str("netmask", {"10.1.2.3/12"}), "255.240.0.0");
  EXPECT_EQ(str("netmask", {"2001:db8::1/64"}), "ffff:ffff:ffff:ffff::");
  EXPECT_EQ(str("netmask", {"2001:db8::1"}), "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff");
  EXPECT_EQ(failure("prefixlen", {"nonsense"}),
            "ValueError: 'nonsense' does not appear to be an IPv4 or IPv6 interface");
}

TEST_F(NetworkPlugins, Ipindex) {
  EXPECT_EQ(str("ipindex", {"10.0.0.0/24", 5}), "10.0.0.5");
  EXPECT_EQ(str("ipindex", {"10.0.0.0/24", -2}), "10.0.0.254");
  EXPECT_EQ(str("ipindex", {"10.0.0.0/24", -256}), "10.0.0.0");
  EXPECT_EQ(str("ipindex", {"10.0.0.0/24", 1, true}), "10.0.0.1/24");
  EXPECT_EQ(str("ipindex", {"10.20.0.0/22", 100}), "10.20.0.100");
  EXPECT_EQ(str("ipindex", {"10.20.0.0/22", -2}), "10.20.3.254");
  EXPECT_EQ(str("ipindex", {"2001:db8::/64", -1}), "2001:db8::ffff:ffff:ffff:ffff");
  EXPECT_EQ(str("ipindex", {"2001:db8::/64", 5, true}), "2001:db8::5/64");
  EXPECT_EQ(str("ipindex", {"::/0", -1}), "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff");
  EXPECT_EQ(str("ipindex", {"10.0.0.7/32", 0}), "10.0.0.7");
  EXPECT_EQ(failure("ipindex", {"10.0.0.0/24", 256}), "IndexError: address out of range");
  EXPECT_EQ(failure("ipindex", {"10.0.0.0/24", -257}), "IndexError: address out of range");
  EXPECT_EQ(failure("ipindex", {"10.0.0.0/24", INT64_MIN}), "IndexError: address out of range");
  EXPECT_EQ(failure("ipindex", {"10.0.0.1/24", 1}),
            "ValueError: '10.0.0.1/24' does not appear to be an IPv4 or IPv6 network");
}

TEST_F(NetworkPlugins, AddToIp) {
  EXPECT_EQ(str("add_to_ip", {"10.0.0.255", 1}), "10.0.1.0");
  EXPECT_EQ(str("add_to_ip", {"10.0.0.250", 10}), "10.0.1.4");
  EXPECT_EQ(str("add_to_ip", {"10.0.0.1", -1}), "10.0.0.0");
  EXPECT_EQ(str("add_to_ip", {"::ffff:1.2.3.4", 1}), "::ffff:1.2.3.5");
  EXPECT_EQ(str("add_to_ip", {"fe80::1%eth0", 1}), "fe80::2");
  EXPECT_EQ(str("add_to_ip", {"::1", INT64_MAX}), "::8000:0:0:0");
  EXPECT_EQ(failure("add_to_ip", {"255.255.255.255", 1}),
            "AddressValueError: 4294967296 (>= 2**32) is not permitted as an IPv4 address");
  EXPECT_EQ(failure("add_to_ip", {"0.0.0.0", -1}), "AddressValueError: -1 (< 0) is not permitted as an IPv4 address");
  EXPECT_EQ(failure("add_to_ip", {"255.255.255.255", INT64_MAX}),
            "AddressValueError: 9223372041149743102 (>= 2**32) is not permitted as an IPv4 address");
  EXPECT_EQ(failure("add_to_ip", {"ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", 1}),
            "AddressValueError: 340282366920938463463374607431768211456 (>= 2**128) is not permitted as an IPv6 "
            "address");
  EXPECT_EQ(failure("add_to_ip", {"ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", INT64_MAX}),
            "AddressValueError: 340282366920938463472597979468622987262 (>= 2**128) is not permitted as an IPv6 "
            "address");
  EXPECT_EQ(failure("add_to_ip", {"::", -5}), "AddressValueError: -5 (< 0) is not permitted as an IPv6 address");
  EXPECT_EQ(failure("add_to_ip", {"::", INT64_MIN}),
            "AddressValueError: -9223372036854775808 (< 0) is not permitted as an IPv6 address");
}

TEST_F(NetworkPlugins, IpAddressFromInterface) {
  EXPECT_EQ(str("ip_address_from_interface", {"10.0.0.1/24"}), "10.0.0.1");
  EXPECT_EQ(str("ip_address_from_interface", {"10.1.2.3"}), "10.1.2.3");
  EXPECT_EQ(str("ip_address_from_interface", {"2001:db8::1/64"}), "2001:db8::1");
  EXPECT_EQ(str("ip_address_from_interface", {"fe80::1%eth0/64"}), "fe80::1");
}

TEST_F(NetworkPlugins, DeclaredTypesMakeTheCompilerValidateArguments) {
  EXPECT_EQ(spec("prefixlen").params[0].type, "std::ipv_any_interface");
  EXPECT_EQ(spec("ipindex").params[0].type, "std::ipv_any_network");
  EXPECT_EQ(spec("add_to_ip").params[0].type, "std::ipv_any_address");
  EXPECT_EQ(spec("add_to_ip").returnType, "std::ipv_any_address");
  EXPECT_EQ(spec("ipindex").returnType, "string");
}

}  // namespace
}  // namespace inmanta::stdmodule::testing
