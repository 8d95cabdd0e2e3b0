// Unit tests of std::validate_type: the typedef edge cases of spec A.1, e-mail addresses, and the
// Python errors that escape the plugin (A.8). The bulk comparison with pydantic is in
// validate_type_oracle_test.cpp.
#include "modules/std/plugins/plugin_test_support.h"

namespace inmanta::stdmodule::testing {
namespace {

class ValidateType : public StdPluginTest {
 protected:
  bool valid(const std::string& type, Value value, Value parameters = Value()) {
    return truth("validate_type", {Value(type), std::move(value), std::move(parameters)});
  }
  std::string error(const std::string& type, Value value, Value parameters = Value()) {
    return failure("validate_type", {Value(type), std::move(value), std::move(parameters)});
  }
};

// ------------------------------------------------------------------ spec A.1 typedefs

TEST_F(ValidateType, Date) {
  EXPECT_TRUE(valid("datetime.date", "2024-01-31"));
  EXPECT_TRUE(valid("datetime.date", "2024-02-29"));
  EXPECT_FALSE(valid("datetime.date", "2024-02-31"));
  EXPECT_FALSE(valid("datetime.date", "2023-02-29"));
  EXPECT_FALSE(valid("datetime.date", "2024-1-3"));
  EXPECT_FALSE(valid("datetime.date", "20240131"));
  EXPECT_FALSE(valid("datetime.date", "0000-01-01"));  // Python has no year 0
}

TEST_F(ValidateType, Time) {
  EXPECT_TRUE(valid("datetime.time", "10:20"));
  EXPECT_TRUE(valid("datetime.time", "10:20:30.5+02:00"));
  EXPECT_TRUE(valid("datetime.time", "10:20:30Z"));
  EXPECT_FALSE(valid("datetime.time", "25:00"));
  EXPECT_FALSE(valid("datetime.time", "10:20:60"));
  EXPECT_FALSE(valid("datetime.time", "10:20+24:00"));
}

TEST_F(ValidateType, DateTime) {
  EXPECT_TRUE(valid("datetime.datetime", "2024-01-31"));
  EXPECT_TRUE(valid("datetime.datetime", "2024-01-31 10:20"));
  EXPECT_TRUE(valid("datetime.datetime", "2024-01-31T10:20:30.123456+02:00"));
  EXPECT_TRUE(valid("datetime.datetime", "2024-01-31T10:20Z"));
  EXPECT_FALSE(valid("datetime.datetime", "2024-01-31T10"));
  EXPECT_FALSE(valid("datetime.datetime", "2024-01-31x10:20"));
  EXPECT_FALSE(valid("datetime.datetime", "31/01/2024"));
}

TEST_F(ValidateType, Ipv4) {
  EXPECT_TRUE(valid("ipaddress.IPv4Address", "10.0.0.1"));
  EXPECT_FALSE(valid("ipaddress.IPv4Address", "010.0.0.1"));
  EXPECT_FALSE(valid("ipaddress.IPv4Address", "10.0.0.256"));
  EXPECT_TRUE(valid("ipaddress.IPv4Interface", "10.0.0.1/24"));
  EXPECT_TRUE(valid("ipaddress.IPv4Interface", "10.0.0.1/255.255.255.0"));
  EXPECT_TRUE(valid("ipaddress.IPv4Network", "10.0.0.0/24"));
  EXPECT_TRUE(valid("ipaddress.IPv4Network", "10.0.0.0/255.255.255.0"));
  EXPECT_TRUE(valid("ipaddress.IPv4Network", "10.0.0.0/0.0.0.255"));
  EXPECT_FALSE(valid("ipaddress.IPv4Network", "10.0.0.1/24"));
}

TEST_F(ValidateType, Ipv6AndAny) {
  EXPECT_TRUE(valid("ipaddress.IPv6Address", "2001:db8::1"));
  EXPECT_FALSE(valid("ipaddress.IPv6Address", "2001:db8::1::2"));
  EXPECT_TRUE(valid("ipaddress.IPv6Interface", "2001:db8::1/64"));
  EXPECT_TRUE(valid("ipaddress.IPv6Network", "2001:db8::/64"));
  EXPECT_FALSE(valid("ipaddress.IPv6Network", "2001:db8::1/64"));
  EXPECT_TRUE(valid("pydantic.IPvAnyAddress", "10.0.0.1"));
  EXPECT_TRUE(valid("pydantic.IPvAnyAddress", "::1"));
  EXPECT_TRUE(valid("pydantic.IPvAnyInterface", "2001:db8::1/64"));
  EXPECT_TRUE(valid("pydantic.IPvAnyNetwork", "10.0.0.0/8"));
  EXPECT_FALSE(valid("pydantic.IPvAnyNetwork", "10.0.0.1/8"));
}

TEST_F(ValidateType, Uuid) {
  EXPECT_TRUE(valid("uuid.UUID", "12345678-1234-5678-1234-567812345678"));
  EXPECT_TRUE(valid("uuid.UUID", "12345678123456781234567812345678"));
  EXPECT_TRUE(valid("uuid.UUID", "urn:uuid:12345678-1234-5678-1234-567812345678"));
  // spec A.1: the braced form is rejected
  EXPECT_FALSE(valid("uuid.UUID", "{12345678-1234-5678-1234-567812345678}"));
  EXPECT_FALSE(valid("uuid.UUID", "{12345678123456781234567812345678}"));
  EXPECT_FALSE(valid("uuid.UUID", "12345678-1234-5678-1234-56781234567g"));
}

TEST_F(ValidateType, Urls) {
  EXPECT_TRUE(valid("pydantic.AnyUrl", "ftp://x.y/z"));
  EXPECT_FALSE(valid("pydantic.AnyUrl", "x"));
  EXPECT_TRUE(valid("pydantic.AnyHttpUrl", "https://example.com"));
  EXPECT_FALSE(valid("pydantic.AnyHttpUrl", "ftp://x.y/z"));
  EXPECT_TRUE(valid("pydantic.HttpUrl", "http://localhost/x"));  // no TLD needed
  EXPECT_TRUE(valid("pydantic.HttpUrl", "http://example.com/" + std::string(2064, 'a')));
  EXPECT_FALSE(valid("pydantic.HttpUrl", "http://example.com/" + std::string(2065, 'a')));  // 2084 characters
}

TEST_F(ValidateType, Numbers) {
  EXPECT_TRUE(valid("pydantic.NegativeFloat", -1));
  EXPECT_TRUE(valid("pydantic.NegativeFloat", -0.5));
  EXPECT_FALSE(valid("pydantic.NegativeFloat", 0));
  EXPECT_TRUE(valid("pydantic.PositiveFloat", 0.5));
  EXPECT_TRUE(valid("pydantic.PositiveInt", true));  // passes as 1
  EXPECT_FALSE(valid("pydantic.PositiveInt", 0));
  EXPECT_TRUE(valid("pydantic.NegativeInt", -3));
  EXPECT_FALSE(valid("pydantic.NegativeInt", 1.5));
  EXPECT_FALSE(valid("pydantic.conint", 5, dict({{"ge", 0}, {"le", 4}})));
  EXPECT_TRUE(valid("pydantic.conint", 4, dict({{"ge", 0}, {"le", 4}})));
}

TEST_F(ValidateType, StdConstrainedStrings) {
  Value alfanum = dict({{"regex", "^[a-zA-Z0-9]*$"}, {"strict", true}});
  EXPECT_TRUE(valid("pydantic.constr", "abc123", alfanum));
  EXPECT_FALSE(valid("pydantic.constr", "abc-123", alfanum));
  Value printable = dict({{"regex", "^[\\x20-\\x7e]*$"}, {"strict", true}});
  EXPECT_TRUE(valid("pydantic.constr", "hello world ~", printable));
  EXPECT_FALSE(valid("pydantic.constr", "tab\there", printable));
  EXPECT_FALSE(valid("pydantic.constr", "é", printable));
  Value word = dict({{"regex", "^[\\x21-\\x7e]*$"}, {"strict", true}});
  EXPECT_TRUE(valid("pydantic.constr", "a!~", word));
  EXPECT_FALSE(valid("pydantic.constr", "a b", word));
}

TEST_F(ValidateType, RegexIsReMatchPatternIsSearch) {
  // `regex` (inmanta) anchors at the start like re.match; `pattern` (pydantic) searches
  EXPECT_TRUE(valid("pydantic.constr", "abcx", dict({{"regex", "abc"}})));
  EXPECT_FALSE(valid("pydantic.constr", "xabc", dict({{"regex", "abc"}})));
  EXPECT_TRUE(valid("pydantic.constr", "xabc", dict({{"pattern", "abc"}})));
  EXPECT_FALSE(valid("pydantic.constr", "xabc", dict({{"pattern", "^abc"}})));
  // the regex sees the value after to_upper
  EXPECT_TRUE(valid("pydantic.constr", "abc", dict({{"to_upper", true}, {"regex", "^[A-Z]+$"}})));
}

// ------------------------------------------------------------------ e-mail addresses

TEST_F(ValidateType, EmailAddresses) {
  for (const char* ok : {"a@example.com", "A@EXAMPLE.COM", "first.last@example.com", "a+tag@sub.example.co.uk",
                         "  a@example.com  ", "Fred Bloggs <fred.bloggs@example.com>", "<fred@example.com>",
                         "\"Fred Bloggs\" <fred@example.com>", "o'hara@example.com", "user@xn--bcher-kva.example",
                         "用户@例子.广告", "x@a-b.example.org", "!#$%&'*+-/=?^_`{|}~@example.com"})
    EXPECT_TRUE(valid("pydantic.EmailStr", ok)) << ok;
  for (const char* bad : {"a@b",
                          "",
                          "a",
                          "@example.com",
                          "a@",
                          "a@example",
                          ".a@example.com",
                          "a.@example.com",
                          "a..b@example.com",
                          "a b@example.com",
                          "\"a b\"@example.com",
                          "a@localhost",
                          "a@x.local",
                          "a@x.test",
                          "a@x.invalid",
                          "a@example.onion",
                          "a@1.arpa",
                          "a@example.123",
                          "a@-example.com",
                          "a@example-.com",
                          "a@ex_ample.com",
                          "a@[1.2.3.4]",
                          "a@b@example.com",
                          "John <a@b>",
                          "a.b <a@example.com>",
                          "a@exa mple.com",
                          "a@ab--cd.com",
                          "<a@example.com",
                          "a@example..com"})
    EXPECT_FALSE(valid("pydantic.EmailStr", bad)) << bad;
  EXPECT_FALSE(valid("pydantic.EmailStr", std::string(250, 'a') + "@example.com"));  // over 254 octets
  EXPECT_FALSE(valid("pydantic.EmailStr", 5));
}

TEST_F(ValidateType, NameEmail) {
  EXPECT_TRUE(valid("pydantic.NameEmail", "Fred Bloggs <fred@example.com>"));
  EXPECT_TRUE(valid("pydantic.NameEmail", "fred@example.com"));
  EXPECT_FALSE(valid("pydantic.NameEmail", "Fred Bloggs <fred@example>"));
  EXPECT_FALSE(valid("pydantic.NameEmail", Value()));
}

// ------------------------------------------------------------------ names and parameters

TEST_F(ValidateType, NamesOutsideTheFourModulesAreFalse) {
  EXPECT_FALSE(valid("foo.Bar", 1));
  EXPECT_FALSE(valid("pydantic", 1));
  EXPECT_FALSE(valid("std::port", 1));
  EXPECT_FALSE(valid("Pydantic.PositiveInt", 1));
}

TEST_F(ValidateType, UnknownNamesInsideThemAreAttributeErrors) {
  EXPECT_EQ(error("pydantic.Foo", 1), "AttributeError: module 'pydantic' has no attribute 'Foo'");
  EXPECT_EQ(error("datetime.Date", 1), "AttributeError: module 'datetime' has no attribute 'Date'");
  EXPECT_EQ(error("ipaddress.networks.IPv4Address", 1),
            "AttributeError: module 'ipaddress' has no attribute 'networks.IPv4Address'");
  EXPECT_EQ(error("uuid.", 1), "AttributeError: module 'uuid' has no attribute ''");
}

TEST_F(ValidateType, NamesWeDoNotImplementSaySo) {
  EXPECT_EQ(error("datetime.timedelta", 1).substr(0, 20), "NotImplementedError:");
  EXPECT_EQ(error("pydantic.Base64Str", "eA==").substr(0, 20), "NotImplementedError:");
}

// (checked with pydantic 2.13.4's TypeAdapter)
TEST_F(ValidateType, SecretsBytesJsonAndNewerUuids) {
  EXPECT_TRUE(valid("pydantic.SecretStr", "x"));
  EXPECT_FALSE(valid("pydantic.SecretStr", 1));
  EXPECT_FALSE(valid("pydantic.StrictBytes", "x"));
  EXPECT_TRUE(valid("pydantic.Json", "{\"a\": [1, 2]}"));
  EXPECT_TRUE(valid("pydantic.Json", "[NaN, -Infinity]"));
  EXPECT_TRUE(valid("pydantic.Json", "\"NaN\""));
  EXPECT_FALSE(valid("pydantic.Json", "{a"));
  EXPECT_FALSE(valid("pydantic.Json", "NaNx"));
  EXPECT_TRUE(valid("pydantic.UUID7", "01890a5d-ac96-774b-bcce-b302099a8057"));
  EXPECT_FALSE(valid("pydantic.UUID6", "01890a5d-ac96-774b-bcce-b302099a8057"));
}

// (checked with pydantic 2.13.4's TypeAdapter on 35 values)
TEST_F(ValidateType, ByteSize) {
  for (const char* ok :
       {"1kb", "1 KiB", " 2 GB ", "10", "1 k", ".5kb", "5.kb", "1 kb extra", "1 bit", "1_000", "1 EiB"})
    EXPECT_TRUE(valid("pydantic.ByteSize", ok)) << ok;
  for (const char* bad : {"abc", "1xb", "1e3", "", "kb", "3 ZB", "1 000", "-5", "1kb2"})
    EXPECT_FALSE(valid("pydantic.ByteSize", bad)) << bad;
  EXPECT_TRUE(valid("pydantic.ByteSize", 1));
  EXPECT_FALSE(valid("pydantic.ByteSize", -1));
}

TEST_F(ValidateType, ParametersForATypeWithoutThemAreFalse) {
  EXPECT_FALSE(valid("pydantic.PositiveInt", 5, dict({{"gt", 1}})));
  EXPECT_TRUE(valid("pydantic.PositiveInt", 5, dict({})));
  EXPECT_FALSE(valid("ipaddress.IPv4Address", "1.2.3.4", dict({{"x", 1}})));
}

TEST_F(ValidateType, BadParametersArePythonErrors) {
  // pydantic 2's constr has no curtail_length (the parameter of pydantic 1)
  EXPECT_EQ(error("pydantic.constr", "x", dict({{"curtail_length", 3}})),
            "TypeError: constr() got an unexpected keyword argument 'curtail_length'");
  EXPECT_EQ(error("pydantic.conint", 1, dict({{"foo", 3}})),
            "TypeError: conint() got an unexpected keyword argument 'foo'");
  EXPECT_EQ(error("pydantic.confloat", 1, dict({{"lt", 1}, {"bar", 1}})),
            "TypeError: confloat() got an unexpected keyword argument 'bar'");
  EXPECT_EQ(error("pydantic.conint", 1, dict({{"gt", 1.5}})).substr(0, 12), "SchemaError:");
  EXPECT_EQ(error("pydantic.conint", 1, dict({{"gt", "x"}})).substr(0, 12), "SchemaError:");
  EXPECT_EQ(error("pydantic.confloat", 1, dict({{"gt", "x"}})).substr(0, 12), "SchemaError:");
  EXPECT_EQ(error("pydantic.constr", "x", dict({{"regex", "("}})).substr(0, 13), "PatternError:");
  EXPECT_EQ(error("pydantic.constr", "x", dict({{"pattern", "("}})).substr(0, 12), "SchemaError:");
}

TEST_F(ValidateType, NullParametersAreNotSet) {
  EXPECT_TRUE(valid("pydantic.conint", 3, dict({{"ge", Value()}})));
  EXPECT_TRUE(valid("pydantic.constr", "x", dict({{"regex", Value()}})));
}

TEST_F(ValidateType, UnknownParametersMakeTheResultUnknown) {
  EXPECT_TRUE(call("validate_type", {"pydantic.conint", 3, dict({{"ge", Value::unknown()}})}).isUnknown());
}

TEST_F(ValidateType, IsUsableInTypedefConstraints) {
  EXPECT_FALSE(spec("validate_type").contextAware);
  EXPECT_FALSE(spec("is_base64_encoded").contextAware);
  EXPECT_EQ(spec("validate_type").params[2].type, "dict");
  EXPECT_TRUE(spec("validate_type").params[2].defaultIsNone);
}

}  // namespace
}  // namespace inmanta::stdmodule::testing
