// std plugins: network (spec Appendix A.8), on Python `ipaddress` semantics (ip_address.h).
#include "modules/std/plugins/ip_address.h"
#include "modules/std/plugins/std_plugins.h"
#include "modules/std/plugins/std_support.h"

namespace inmanta::stdmodule {

namespace {

// ipaddress.ip_interface / ip_network / ip_address, failing as Python does.
ip::Prefixed anyInterface(const std::string& text) {
  std::optional<ip::Prefixed> p = ip::parseAnyInterface(text);
  if (!p) fail("ValueError", runtime::pyReprString(text) + " does not appear to be an IPv4 or IPv6 interface");
  return *p;
}

ip::Prefixed anyNetwork(const std::string& text) {
  std::optional<ip::Prefixed> p = ip::parseAnyNetwork(text);
  if (!p) fail("ValueError", runtime::pyReprString(text) + " does not appear to be an IPv4 or IPv6 network");
  return *p;
}

ip::Address anyAddress(const std::string& text) {
  std::optional<ip::Address> a = ip::parseAnyAddress(text);
  if (!a) fail("ValueError", runtime::pyReprString(text) + " does not appear to be an IPv4 or IPv6 address");
  return *a;
}

// Python's f"{value}" of an int parameter (a bool renders as True/False).
std::string intText(const Value& v) {
  if (v.isBool()) return v.asBool() ? "True" : "False";
  return std::to_string(v.toInt());
}

// `address + n` (Python _BaseAddress.__add__): a new address of the same version, no scope.
ip::Address addToAddress(const ip::Address& a, int64_t n) {
  ip::U128 limit = ip::allOnes(a.version);
  std::string outOfRange;
  ip::U128 result = 0;
  if (n >= 0) {
    auto add = static_cast<ip::U128>(n);
    result = a.value + add;
    bool wrapped = result < a.value;
    if (wrapped || result > limit)
      fail("AddressValueError", ip::decimal(result, false, wrapped) + " (>= 2**" + std::to_string(a.maxPrefix()) +
                                    ") is not permitted as an IPv" + std::to_string(a.version) + " address");
  } else {
    // -n without overflow for INT64_MIN
    ip::U128 sub = static_cast<ip::U128>(-(n + 1)) + 1;
    if (sub > a.value)
      fail("AddressValueError", ip::decimal(sub - a.value, true) + " (< 0) is not permitted as an IPv" +
                                    std::to_string(a.version) + " address");
    result = a.value - sub;
  }
  return ip::Address{a.version, result, {}};
}

// `network[n]` (Python _BaseNetwork.__getitem__): negative positions count from the broadcast.
ip::Address networkIndex(const ip::Prefixed& net, int64_t n) {
  int version = net.address.version;
  ip::U128 network = net.address.value;
  ip::U128 broadcast = network | (ip::allOnes(version) & ~ip::netmaskBits(version, net.prefixlen));
  ip::U128 span = broadcast - network;
  if (n >= 0) {
    if (static_cast<ip::U128>(n) > span) fail("IndexError", "address out of range");
    return ip::Address{version, network + static_cast<ip::U128>(n), {}};
  }
  ip::U128 back = static_cast<ip::U128>(-(n + 1));  // n += 1; broadcast + n
  if (back > span) fail("IndexError", "address out of range");
  return ip::Address{version, broadcast - back, {}};
}

}  // namespace

void registerNetworkPlugins(PluginRegistry& registry) {
  addPlugin(registry, "prefixlength_to_netmask", {param("prefixlen", "int")}, "std::ipv4_address",
            [](PluginContext&, const Args& a, const Kwargs&) {
              // ipaddress.ip_interface(f"255.255.255.255/{prefixlen}").netmask
              ip::Prefixed iface = anyInterface("255.255.255.255/" + intText(a[0]));
              return Value(ip::format(ip::netmaskOf(iface)));
            });
  addPlugin(registry, "prefixlen", {param("addr", "std::ipv_any_interface")}, "int",
            [](PluginContext&, const Args& a, const Kwargs&) {
              return Value(static_cast<int64_t>(anyInterface(a[0].asString()).prefixlen));
            });
  addPlugin(registry, "network_address", {param("addr", "std::ipv_any_interface")}, "std::ipv_any_address",
            [](PluginContext&, const Args& a, const Kwargs&) {
              return Value(ip::format(ip::networkOf(anyInterface(a[0].asString())).address));
            });
  addPlugin(registry, "netmask", {param("addr", "std::ipv_any_interface")}, "std::ipv_any_address",
            [](PluginContext&, const Args& a, const Kwargs&) {
              return Value(ip::format(ip::netmaskOf(anyInterface(a[0].asString()))));
            });
  addPlugin(registry, "ipindex",
            {param("addr", "std::ipv_any_network"), param("position", "int"),
             param("keep_prefix", "bool", Value(false))},
            "string", [](PluginContext&, const Args& a, const Kwargs&) {
              ip::Prefixed net = anyNetwork(a[0].asString());
              std::string address = ip::format(networkIndex(net, a[1].toInt()));
              if (a[2].asBool()) address += "/" + std::to_string(net.prefixlen);
              return Value(address);
            });
  addPlugin(registry, "add_to_ip", {param("addr", "std::ipv_any_address"), param("n", "int")}, "std::ipv_any_address",
            [](PluginContext&, const Args& a, const Kwargs&) {
              return Value(ip::format(addToAddress(anyAddress(a[0].asString()), a[1].toInt())));
            });
  addPlugin(registry, "ip_address_from_interface", {param("ip_interface", "std::ipv_any_interface")},
            "std::ipv_any_address", [](PluginContext&, const Args& a, const Kwargs&) {
              // interface.ip is a new address from the integer: the scope id is dropped
              ip::Address address = anyInterface(a[0].asString()).address;
              address.scope.clear();
              return Value(ip::format(address));
            });
}

}  // namespace inmanta::stdmodule
