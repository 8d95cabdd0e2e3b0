// Unit tests of request arguments (spec §3.1) and of tokens (spec §3.5).
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "embedded/server/arguments.h"
#include "embedded/server/auth.h"
#include "embedded/server/errors.h"
#include "embedded/server/reply.h"
#include "embedded/server/router.h"

namespace inmanta::server {
namespace {

using nlohmann::json;

// The status and message of the HttpError `f` throws.
template <class F>
std::pair<int, std::string> failure(F f) {
  try {
    f();
  } catch (const HttpError& e) {
    return {e.status(), e.what()};
  }
  return {0, "no error"};
}

// A pre-serialised list (the resource list's) must send the bytes the JSON envelope would.
TEST(Reply, SerialisedDataIsTheSameTextAsData) {
  json value = json::array({{{"b", 1}, {"a", "x\"y"}}, {{"resource_id", "std::File[h,path=/\u00e9]"}}});
  json metadata = {{"total", 2}, {"page_size", 1000}, {"deploy_summary", {{"total", 2}}}, {"bad", "\xff"}};
  json links = {{"self", "/api/v2/resource?limit=1000"}};
  Reply plain = Reply::data(value, metadata, links);
  Reply text = Reply::serialisedData(Reply::dumpText(value), metadata, links);
  ASSERT_TRUE(text.serialised);
  EXPECT_FALSE(text.body);
  EXPECT_EQ(*text.serialised, Reply::dumpText(*plain.body));
  // without links, as data(value, metadata)
  EXPECT_EQ(*Reply::serialisedData(Reply::dumpText(value), metadata, nullptr).serialised,
            Reply::dumpText(*Reply::data(value, metadata).body));
}

TEST(Arguments, QueryValuesBecomeTheDeclaredTypes) {
  RawArguments raw;
  raw.query = parseQueryString(
      "limit=10&x=a&x=b%2Fc&filter.status=deployed&filter.status=failed&filter.agent=a+1"
      "&flag=Yes&ratio=0.5");
  std::vector<Arg> declared = {opt("limit", ArgType::integer), opt("x", ArgType::list, nullptr, ArgType::string),
                               opt("filter", ArgType::dict),   req("flag", ArgType::boolean),
                               opt("ratio", ArgType::number),  opt("sort", ArgType::string, "name.asc")};
  json args = validateArguments(declared, raw, false);
  EXPECT_EQ(args["limit"], 10);
  EXPECT_EQ(args["x"], json::array({"a", "b/c"}));
  EXPECT_EQ(args["filter"]["status"], json::array({"deployed", "failed"}));
  EXPECT_EQ(args["filter"]["agent"], "a 1");
  EXPECT_EQ(args["flag"], true);
  EXPECT_EQ(args["ratio"], 0.5);
  EXPECT_EQ(args["sort"], "name.asc");

  raw.query = parseQueryString("x=single&flag=off");
  args = validateArguments(declared, raw, false);
  EXPECT_EQ(args["x"], json::array({"single"}));  // one occurrence is still a list
  EXPECT_EQ(args["flag"], false);
  EXPECT_FALSE(args.contains("limit"));
}

TEST(Arguments, TheReferencesMessages) {
  std::vector<Arg> declared = {req("name", ArgType::string), opt("project_id", ArgType::uuid)};
  RawArguments raw;
  raw.body = {{"name", "a"}, {"x", 1}, {"b", 2}};
  EXPECT_EQ(failure([&] { validateArguments(declared, raw, false); }),
            (std::pair<int, std::string>{400,
                                         "Invalid request: request contains fields {'b', 'x'} that are not "
                                         "declared in method and no kwargs argument is provided."}));
  EXPECT_EQ(validateArguments(declared, raw, true)["x"], 1);  // put_partial's kwargs

  raw.body = {{"project_id", "4e5ad3c6-0e6e-4c5c-8a0e-6fb2a8e3c9a1"}};
  EXPECT_EQ(failure([&] { validateArguments(declared, raw, false); }),
            (std::pair<int, std::string>{400, "Invalid request: Field 'name' is required."}));

  raw.body = {{"name", "a"}, {"project_id", "nope"}};
  try {
    validateArguments(declared, raw, false);
    FAIL() << "no error";
  } catch (const HttpError& e) {
    EXPECT_EQ(e.status(), 400);
    EXPECT_EQ(std::string(e.what()).rfind("Invalid request: Failed to validate argument", 0), 0u) << e.what();
    ASSERT_TRUE(e.details()["validation_errors"].is_array());
    EXPECT_EQ(e.details()["validation_errors"][0]["loc"][0], "project_id");
  }

  raw.body = {{"name", 5}};
  EXPECT_EQ(failure([&] { validateArguments(declared, raw, false); }).first, 400);
  // a UUID in another form is normalised
  raw.body = {{"name", "a"}, {"project_id", "{4E5AD3C60E6E4C5C8A0E6FB2A8E3C9A1}"}};
  EXPECT_EQ(validateArguments(declared, raw, false)["project_id"], "4e5ad3c6-0e6e-4c5c-8a0e-6fb2a8e3c9a1");
}

TEST(Arguments, EscapesMustSpellText) {
  // %FF decodes to a byte that is no UTF-8: a 400, before any store sees it
  std::vector<Arg> declared = {req("id", ArgType::string), opt("filter", ArgType::dict)};
  RawArguments raw;
  raw.path = {{"id", percentDecode("%FF", false)}};
  EXPECT_EQ(failure([&] { validateArguments(declared, raw, false); }).first, 400);
  raw.path = {{"id", percentDecode("caf%C3%A9", false)}};
  raw.query = parseQueryString("filter.agent=%C3");
  auto [status, message] = failure([&] { validateArguments(declared, raw, false); });
  EXPECT_EQ(status, 400);
  EXPECT_NE(message.find("filter.agent"), std::string::npos) << message;
  raw.query = parseQueryString("filter.agent=%C3%A9");
  EXPECT_EQ(validateArguments(declared, raw, false)["id"], "caf\xc3\xa9");
}

TEST(Arguments, IntegersAndBooleans) {
  Arg limit = opt("limit", ArgType::integer);
  EXPECT_EQ(convertArgument(limit, "42"), 42);
  EXPECT_EQ(convertArgument(limit, 3.0), 3);
  EXPECT_THROW(convertArgument(limit, "4x"), std::invalid_argument);
  EXPECT_THROW(convertArgument(limit, " 4"), std::invalid_argument);
  EXPECT_THROW(convertArgument(limit, 2.5), std::invalid_argument);
  EXPECT_THROW(convertArgument(limit, json::array()), std::invalid_argument);
  Arg flag = opt("flag", ArgType::boolean);
  for (const char* yes : {"true", "TRUE", "1", "yes", "on"}) EXPECT_EQ(convertArgument(flag, yes), true) << yes;
  for (const char* no : {"false", "False", "0", "no", "off"}) EXPECT_EQ(convertArgument(flag, no), false) << no;
  EXPECT_THROW(convertArgument(flag, "maybe"), std::invalid_argument);
}

TEST(Arguments, TidFromTheHeaderMustAgreeWithTheBody) {
  std::vector<Arg> declared = {req("tid", ArgType::uuid)};
  RawArguments raw;
  raw.tidHeader = "4e5ad3c6-0e6e-4c5c-8a0e-6fb2a8e3c9a1";
  EXPECT_EQ(validateArguments(declared, raw, false)["tid"], "4e5ad3c6-0e6e-4c5c-8a0e-6fb2a8e3c9a1");
  raw.body = {{"tid", "4E5AD3C6-0E6E-4C5C-8A0E-6FB2A8E3C9A1"}};  // the same id, other case
  EXPECT_NO_THROW(validateArguments(declared, raw, false));
  raw.body = {{"tid", "11111111-0e6e-4c5c-8a0e-6fb2a8e3c9a1"}};
  auto [status, message] = failure([&] { validateArguments(declared, raw, false); });
  EXPECT_EQ(status, 400);
  EXPECT_NE(message.find("Value for argument tid was provided via a header and a non-header argument, but both "
                         "values don't match"),
            std::string::npos)
      << message;
}

TEST(Router, TemplatesMethodsAndPercentDecoding) {
  Router router;
  auto handler = [](Request&) { return Reply::empty(); };
  router.add({.method = "GET", .path = "/api/v2/resource/<rid>", .handler = handler});
  router.add({.method = "PUT", .path = "/api/v1/project", .handler = handler});
  router.add({.method = "GET", .path = "/api/v1/project", .handler = handler});
  Router::Match m = router.match("GET", "/api/v2/resource/std%3A%3AFile%5Blocalhost%2Cpath%3D%2Fetc%2Fmotd%5D");
  ASSERT_NE(m.endpoint, nullptr);
  EXPECT_EQ(m.path["rid"], "std::File[localhost,path=/etc/motd]");
  EXPECT_EQ(router.match("GET", "/api/v2/resource/a/b").endpoint, nullptr);  // one segment only
  m = router.match("PATCH", "/api/v1/project");
  EXPECT_EQ(m.endpoint, nullptr);
  EXPECT_EQ(m.allowedMethods, (std::vector<std::string>{"PUT", "GET"}));
  EXPECT_NE(router.match("HEAD", "/api/v1/project").endpoint, nullptr);  // HEAD takes GET's
  EXPECT_TRUE(router.match("GET", "/api/v9/nothing").allowedMethods.empty());
}

// A configuration with one signing section and one verifying-only section of another issuer.
util::Settings authSettings(const std::string& key = "c2VjcmV0LWtleS1vZi1hdC1sZWFzdC0zMi1ieXRlcy1sb25nLW9r") {
  util::Settings s;
  s.set("auth_jwt_default", "algorithm", "HS256");
  s.set("auth_jwt_default", "sign", "true");
  s.set("auth_jwt_default", "client_types", "api,agent,compiler");
  s.set("auth_jwt_default", "key", key);
  s.set("auth_jwt_default", "expire", "0");
  return s;
}

TEST(Auth, MintedTokensVerify) {
  Auth auth(authSettings());
  ASSERT_TRUE(auth.canSign());
  std::string why;
  std::optional<TokenClaims> claims = auth.verify(auth.mint(kApi | kCompiler, std::nullopt), why);
  ASSERT_TRUE(claims) << why;
  EXPECT_EQ(claims->clientTypes, kApi | kCompiler);
  EXPECT_FALSE(claims->environment);
  claims = auth.verify(auth.mint(kAgent, "4E5AD3C6-0E6E-4C5C-8A0E-6FB2A8E3C9A1"), why);
  ASSERT_TRUE(claims) << why;
  EXPECT_EQ(claims->environment, "4e5ad3c6-0e6e-4c5c-8a0e-6fb2a8e3c9a1");
}

TEST(Auth, BadTokensAreRefusedWithAReason) {
  Auth auth(authSettings());
  Auth other(authSettings("b3RoZXIta2V5LW9mLWF0LWxlYXN0LTMyLWJ5dGVzLWxvbmctb2s"));
  std::string why;
  EXPECT_FALSE(auth.verify("garbage", why));
  EXPECT_FALSE(why.empty());
  EXPECT_FALSE(auth.verify(other.mint(kApi, std::nullopt), why));
  EXPECT_NE(why.find("signature"), std::string::npos) << why;

  // a header whose alg is not a string (base64 of {"alg":5,"typ":"JWT"} and of {"iss":"x"}): a
  // reason, not an exception (which the server answered with a 500)
  EXPECT_FALSE(auth.verify("eyJhbGciOjUsInR5cCI6IkpXVCJ9.eyJpc3MiOiJ4In0.c2ln", why));
  EXPECT_NE(why.find("algorithm"), std::string::npos) << why;

  util::Settings expiring = authSettings();
  expiring.set("auth_jwt_default", "expire", "1");
  std::string token = Auth(expiring).mint(kApi, std::nullopt);
  std::this_thread::sleep_for(std::chrono::milliseconds(2100));
  EXPECT_FALSE(auth.verify(token, why));
  EXPECT_NE(why.find("expired"), std::string::npos) << why;

  util::Settings otherIssuer = authSettings();
  otherIssuer.set("auth_jwt_default", "issuer", "https://elsewhere/");
  EXPECT_FALSE(auth.verify(Auth(otherIssuer).mint(kApi, std::nullopt), why));
  EXPECT_NE(why.find("issuer"), std::string::npos) << why;

  util::Settings otherAudience = authSettings();
  otherAudience.set("auth_jwt_default", "audience", "someone-else");
  EXPECT_FALSE(auth.verify(Auth(otherAudience).mint(kApi, std::nullopt), why));
  EXPECT_NE(why.find("audience"), std::string::npos) << why;
}

TEST(Auth, ConfigurationErrorsNameTheSection) {
  util::Settings s = authSettings("c2hvcnQ");
  try {
    Auth auth(s);
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("[auth_jwt_default]"), std::string::npos) << e.what();
  }
  util::Settings rs = authSettings();
  rs.set("auth_jwt_default", "algorithm", "RS256");
  EXPECT_THROW(Auth{rs}, std::runtime_error);
}

TEST(Auth, BearerHeader) {
  EXPECT_EQ(bearerToken("Bearer abc"), "abc");
  EXPECT_EQ(bearerToken("bearer abc"), "abc");
  EXPECT_EQ(bearerToken("Basic abc"), "");
  EXPECT_EQ(bearerToken("Bearer a b"), "");
  EXPECT_EQ(bearerToken("Bearer"), "");
}

}  // namespace
}  // namespace inmanta::server
