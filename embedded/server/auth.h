// Authentication with HS256 JSON web tokens (spec §3.5, libjwt): the `[auth_jwt_<name>]` sections
// of the configuration, checking a token, and minting one (POST /api/v1/environment_auth and
// `inmanta token`).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "util/config.h"

namespace inmanta::server {

// Client types (spec §3.5), as a bit set.
enum ClientType : unsigned { kApi = 1, kAgent = 2, kCompiler = 4 };
// "api" → kApi; 0 for an unknown name.
unsigned clientTypeFromName(const std::string& name);
// "api, compiler" for a set, in that order.
std::string clientTypeNames(unsigned types);

// One `[auth_jwt_<name>]` section.
struct JwtSection {
  std::string name;  // the section's name
  std::string key;   // the decoded HMAC key
  unsigned clientTypes = 0;
  bool sign = false;
  std::string issuer = "https://localhost:8888/";
  std::string audience;  // = issuer when not set
  long long expire = 0;  // seconds, 0 = tokens without exp
};

// What a valid token says.
struct TokenClaims {
  unsigned clientTypes = kApi;
  std::optional<std::string> environment;  // urn:inmanta:env, canonical
};

class Auth {
 public:
  // Reads every [auth_jwt_*] section; throws std::runtime_error naming the section for a bad
  // one (an algorithm other than HS256, a key that is not urlsafe base64 of ≥ 32 bytes, an unknown
  // client type).
  explicit Auth(const util::Settings& settings);

  // Whether any section can mint tokens (sign=true).
  bool canSign() const;
  // A token for these client types, scoped to `environment` when given, signed with the signing
  // section. It expires after `expire` seconds when given, otherwise after the section's `expire`
  // (never when that is 0); an idempotent token has neither iat nor exp. Throws
  // std::runtime_error when no section signs.
  std::string mint(unsigned clientTypes, const std::optional<std::string>& environment, bool idempotent = false,
                   std::optional<long long> expire = std::nullopt) const;
  // The section with sign=true, if any.
  const JwtSection* signer() const;
  // The claims of a valid token; nullopt with `why` set when the token is not acceptable (it does
  // not decode, names no or an unknown issuer, another algorithm, a bad signature, a wrong
  // audience, an expired exp, an unknown client type).
  std::optional<TokenClaims> verify(const std::string& token, std::string& why) const;

  const std::vector<JwtSection>& sections() const { return sections_; }

 private:
  std::vector<JwtSection> sections_;
};

// The token of an `Authorization` header value: its second word when it is exactly two words
// and the first is `bearer` (any case); empty otherwise (treated as absent, spec §3.2).
std::string bearerToken(const std::string& header);

}  // namespace inmanta::server
