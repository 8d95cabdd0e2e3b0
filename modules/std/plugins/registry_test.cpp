// The std plugin table of spec A.8: every plugin of std 5.2.8 is registered with the reference's
// signature, return type and flags (the compiler binds and type-checks calls from these).
#include "modules/std/plugins/plugin_test_support.h"

namespace inmanta::stdmodule::testing {
namespace {

// `name:type`, `name:type=default` (repr of the default) or `name:type=None`.
std::string describe(const compiler::PluginParam& p) {
  std::string out = p.name + ":" + p.type;
  if (p.defaultIsNone) out += "=None";
  else if (p.defaultValue) out += "=" + compiler::runtime::repr(*p.defaultValue);
  return out;
}

std::string signature(const PluginSpec& s) {
  std::string out = "(";
  for (size_t i = 0; i < s.params.size(); ++i) out += (i ? ", " : "") + describe(s.params[i]);
  if (s.varKeywords) out += std::string(s.params.empty() ? "" : ", ") + "**kwargs";
  out += ") -> " + (s.returnType.empty() ? std::string("(unchecked)") : s.returnType);
  if (s.contextAware) out += " ctx";
  if (s.acceptsUnknown) out += " unknowns";
  if (s.deprecated) out += " deprecated";
  return out;
}

TEST(StdRegistry, EveryPluginOfTheReferenceWithItsSignature) {
  compiler::PluginRegistry registry;
  registerStdPlugins(registry);
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"add_to_ip", "(addr:std::ipv_any_address, n:int) -> std::ipv_any_address"},
      {"assert", "(expression:bool, message:string='') -> null"},
      {"at", "(objects:list, index:int) -> any"},
      {"attr", "(obj:any, attr:string) -> any"},
      {"capitalize", "(string:string) -> string"},
      {"contains", "(dct:dict, key:string) -> bool deprecated"},
      {"count", "(item_list:list) -> int"},
      {"dict_get", "(dct:dict, key:string) -> string deprecated"},
      {"environment", "() -> string"},
      {"environment_name", "() -> string ctx"},
      {"environment_server", "() -> string ctx"},
      {"equals", "(arg1:any, arg2:any, desc:string=None) -> (unchecked) deprecated"},
      {"familyof", "(member:std::OS, family:string) -> bool"},
      {"file", "(path:string) -> string ctx"},
      {"filter", "(values:list, not_item:std::Entity) -> list deprecated"},
      {"flatten", "(item_list:list) -> list"},
      {"generate_password", "(pw_id:string, length:int=20) -> string ctx"},
      {"get_env", "(name:string, default_value:string=None) -> string"},
      {"get_env_int", "(name:string, default_value:int=None) -> int"},
      {"getattr",
       "(entity:std::Entity, attribute_name:string, default_value:any=None, no_unknown:bool=True) -> any unknowns"},
      {"getfact", "(resource:any, fact_name:string, default_value:any=None) -> any ctx"},
      {"hostname", "(fqdn:string) -> string"},
      {"inlineif", "(conditional:bool, a:any, b:any) -> any"},
      {"invert", "(value:bool) -> bool deprecated"},
      {"ip_address_from_interface", "(ip_interface:std::ipv_any_interface) -> std::ipv_any_address"},
      {"ipindex", "(addr:std::ipv_any_network, position:int, keep_prefix:bool=False) -> string"},
      {"is_base64_encoded", "(s:string) -> bool"},
      {"is_instance", "(obj:any, cls:string) -> bool ctx"},
      {"is_unknown", "(value:any) -> bool unknowns"},
      {"isset", "(value:any) -> bool"},
      {"item", "(objects:list, index:int) -> list"},
      {"key_sort", "(items:list, key:any) -> list"},
      {"len", "(item_list:list) -> int"},
      {"length", "(value:string) -> int"},
      {"limit", "(string:string, length:int) -> string"},
      {"list_files", "(path:string) -> list ctx"},
      {"lower", "(string:string) -> string"},
      {"netmask", "(addr:std::ipv_any_interface) -> std::ipv_any_address"},
      {"network_address", "(addr:std::ipv_any_interface) -> std::ipv_any_address"},
      {"objid", "(value:any) -> string"},
      {"password", "(pw_id:string) -> string ctx"},
      {"prefixlen", "(addr:std::ipv_any_interface) -> int"},
      {"prefixlength_to_netmask", "(prefixlen:int) -> std::ipv4_address"},
      {"print", "(message:any) -> null"},
      {"replace", "(string:string, old:string, new:string) -> string"},
      {"select", "(objects:list, attr:string) -> list deprecated"},
      {"sequence", "(i:int, start:int=0, offset:int=0) -> list"},
      {"server_ca", "() -> string"},
      {"server_port", "() -> int"},
      {"server_ssl", "() -> bool"},
      {"server_token", "(client_types:string[]=['agent']) -> string ctx"},
      {"source", "(path:string) -> string ctx"},
      {"split", "(string_list:string, delim:string) -> list"},
      {"template", "(path:string, **kwargs) -> string ctx"},
      {"timestamp", "(dummy:any=None) -> int"},
      {"to_number", "(value:any) -> number deprecated"},
      {"type", "(obj:any) -> any"},
      {"unique", "(item_list:list) -> bool"},
      {"unique_file", "(prefix:string, seed:string, suffix:string, length:int=20) -> string"},
      {"upper", "(string:string) -> string"},
      {"validate_type", "(fq_type_name:string, value:any, validation_parameters:dict=None) -> bool"},
  };
  std::vector<const PluginSpec*> all = registry.inNamespace("std");
  ASSERT_EQ(all.size(), expected.size());
  for (size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(all[i]->name, expected[i].first);
    EXPECT_EQ(signature(*all[i]), expected[i].second) << all[i]->name;
    EXPECT_EQ(all[i]->ns, "std");
    EXPECT_TRUE(static_cast<bool>(all[i]->run)) << all[i]->name;
  }
}

TEST(StdRegistry, NoDictKeysJsonOrFormat) {
  compiler::PluginRegistry registry;
  registerStdPlugins(registry);
  for (const char* later : {"std::dict_keys", "std::json_loads", "std::json_dumps", "std::format"})
    EXPECT_EQ(registry.find(later), nullptr) << later;
}

}  // namespace
}  // namespace inmanta::stdmodule::testing
