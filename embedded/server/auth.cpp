#include "embedded/server/auth.h"

#include <jwt.h>
#include <openssl/evp.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <stdexcept>

#include "embedded/store/ids.h"

namespace inmanta::server {

namespace {

struct JwtFree {
  void operator()(jwt_t* jwt) const { jwt_free(jwt); }
};
using JwtPtr = std::unique_ptr<jwt_t, JwtFree>;

struct CharFree {
  void operator()(char* text) const { std::free(text); }
};
using CharPtr = std::unique_ptr<char, CharFree>;

// Python's base64.urlsafe_b64decode, lenient about missing padding; nullopt for bad input.
std::optional<std::string> urlsafeBase64Decode(std::string text) {
  std::replace(text.begin(), text.end(), '-', '+');
  std::replace(text.begin(), text.end(), '_', '/');
  while (text.size() % 4 != 0) text += '=';
  std::string out(text.size() / 4 * 3, '\0');
  int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(text.data()), static_cast<int>(text.size()));
  if (n < 0) return std::nullopt;
  size_t padding = static_cast<size_t>(std::count(text.end() - std::min<size_t>(2, text.size()), text.end(), '='));
  out.resize(static_cast<size_t>(n) - padding);
  return out;
}

unsigned parseClientTypes(const std::string& list, const std::string& where) {
  unsigned types = 0;
  std::stringstream in(list);
  std::string item;
  while (std::getline(in, item, ',')) {
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    if (item.empty()) continue;
    unsigned type = clientTypeFromName(item);
    if (type == 0) throw std::runtime_error(where + ": unknown client type '" + item + "' (api, agent or compiler)");
    types |= type;
  }
  return types;
}

// The header's algorithm and the claims of a token, without checking its signature (to find
// the section of its issuer); nullopt when it is not three dot-separated base64url JSON parts.
std::optional<nlohmann::json> unverifiedClaims(const std::string& token, std::string& alg) {
  size_t first = token.find('.');
  size_t second = first == std::string::npos ? first : token.find('.', first + 1);
  if (second == std::string::npos || token.find('.', second + 1) != std::string::npos) return std::nullopt;
  std::optional<std::string> header = urlsafeBase64Decode(token.substr(0, first));
  std::optional<std::string> payload = urlsafeBase64Decode(token.substr(first + 1, second - first - 1));
  if (!header || !payload) return std::nullopt;
  nlohmann::json headerJson = nlohmann::json::parse(*header, nullptr, false);
  nlohmann::json claims = nlohmann::json::parse(*payload, nullptr, false);
  if (!headerJson.is_object() || !claims.is_object()) return std::nullopt;
  // (an alg that is not a string is no algorithm: refused below with a reason, not a type error)
  const auto found = headerJson.find("alg");
  alg = found != headerJson.end() && found->is_string() ? found->get<std::string>() : std::string();
  return claims;
}

}  // namespace

unsigned clientTypeFromName(const std::string& name) {
  if (name == "api") return kApi;
  if (name == "agent") return kAgent;
  if (name == "compiler") return kCompiler;
  return 0;
}

std::string clientTypeNames(unsigned types) {
  std::string out;
  for (auto [bit, name] : {std::pair{kApi, "api"}, std::pair{kAgent, "agent"}, std::pair{kCompiler, "compiler"}})
    if (types & bit) out += (out.empty() ? "" : ", ") + std::string(name);
  return out;
}

std::string bearerToken(const std::string& header) {
  std::stringstream in(header);
  std::string scheme, token, extra;
  if (!(in >> scheme >> token) || (in >> extra)) return "";
  std::transform(scheme.begin(), scheme.end(), scheme.begin(),
                 [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); });
  return scheme == "bearer" ? token : "";
}

Auth::Auth(const util::Settings& settings) {
  const std::string prefix = "auth_jwt_";
  for (const std::string& section : settings.sections()) {
    if (section.rfind(prefix, 0) != 0) continue;
    JwtSection s;
    s.name = section;
    std::string where = "[" + section + "]";
    std::string algorithm = settings.getString(section, "algorithm", "HS256");
    if (algorithm != "HS256")
      throw std::runtime_error(where + ": algorithm " + algorithm + " is not supported (only HS256)");
    std::optional<std::string> key = urlsafeBase64Decode(settings.getString(section, "key", ""));
    if (!key || key->size() < 32) throw std::runtime_error(where + ": key must be urlsafe base64 of at least 32 bytes");
    s.key = *key;
    s.clientTypes = parseClientTypes(settings.getString(section, "client_types", ""), where + " client_types");
    if (s.clientTypes == 0) throw std::runtime_error(where + ": client_types is required");
    s.sign = settings.getBool(section, "sign", false);
    s.issuer = settings.getString(section, "issuer", s.issuer);
    s.audience = settings.getString(section, "audience", s.issuer);
    s.expire = settings.getInt(section, "expire", 0);
    sections_.push_back(std::move(s));
  }
}

bool Auth::canSign() const { return signer() != nullptr; }

const JwtSection* Auth::signer() const {
  auto found = std::find_if(sections_.begin(), sections_.end(), [](const JwtSection& s) { return s.sign; });
  return found == sections_.end() ? nullptr : &*found;
}

std::string Auth::mint(unsigned clientTypes, const std::optional<std::string>& environment, bool idempotent,
                       std::optional<long long> expire) const {
  const JwtSection* signer = this->signer();
  if (signer == nullptr) throw std::runtime_error("no [auth_jwt_*] section of the configuration has sign=true");
  nlohmann::json claims{{"iss", signer->issuer}, {"aud", nlohmann::json::array({signer->audience})}};
  std::string ct;
  for (auto [bit, name] : {std::pair{kApi, "api"}, std::pair{kAgent, "agent"}, std::pair{kCompiler, "compiler"}})
    if (clientTypes & bit) ct += (ct.empty() ? "" : ",") + std::string(name);
  claims["urn:inmanta:ct"] = ct.empty() ? "api" : ct;
  if (environment) claims["urn:inmanta:env"] = *environment;
  if (!idempotent) {
    auto now =
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
    claims["iat"] = now;
    // an explicit lifetime wins over the section's, as the reference's encode_token
    long long lifetime = expire.value_or(signer->expire);
    if (lifetime > 0) claims["exp"] = now + lifetime;
  }
  jwt_t* raw = nullptr;
  if (jwt_new(&raw) != 0) throw std::runtime_error("cannot create a token (libjwt)");
  JwtPtr jwt(raw);
  if (jwt_add_grants_json(jwt.get(), claims.dump().c_str()) != 0 ||
      jwt_set_alg(jwt.get(), JWT_ALG_HS256, reinterpret_cast<const unsigned char*>(signer->key.data()),
                  static_cast<int>(signer->key.size())) != 0)
    throw std::runtime_error("cannot sign a token (libjwt)");
  CharPtr token(jwt_encode_str(jwt.get()));
  if (!token) throw std::runtime_error("cannot encode a token (libjwt)");
  return token.get();
}

std::optional<TokenClaims> Auth::verify(const std::string& token, std::string& why) const {
  std::string alg;
  std::optional<nlohmann::json> claims = unverifiedClaims(token, alg);
  if (!claims) {
    why = "Unable to decode the authorization token.";
    return std::nullopt;
  }
  if (!claims->contains("iss") || !(*claims)["iss"].is_string()) {
    why = "The authorization token has no issuer (iss).";
    return std::nullopt;
  }
  const std::string issuer = (*claims)["iss"].get<std::string>();
  if (alg != "HS256") {
    why = "The authorization token's algorithm is not supported (HS256 only).";
    return std::nullopt;
  }
  why = "The authorization token's issuer " + issuer + " is not known to this server.";
  for (const JwtSection& section : sections_) {
    if (section.issuer != issuer) continue;
    jwt_t* raw = nullptr;
    if (jwt_decode(&raw, token.c_str(), reinterpret_cast<const unsigned char*>(section.key.data()),
                   static_cast<int>(section.key.size())) != 0 ||
        raw == nullptr) {
      why = "The authorization token's signature is not valid.";
      continue;
    }
    jwt_free(raw);
    const nlohmann::json& aud = (*claims)["aud"];
    bool audienceOk = (aud.is_string() && aud == section.audience) ||
                      (aud.is_array() && std::find(aud.begin(), aud.end(), section.audience) != aud.end());
    if (!audienceOk) {
      why = "The authorization token is not meant for this audience (" + section.audience + ").";
      continue;
    }
    if (claims->contains("exp")) {
      const nlohmann::json& exp = (*claims)["exp"];
      auto now =
          std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
      if (!exp.is_number() || exp.get<double>() <= static_cast<double>(now)) {
        why = "The authorization token has expired.";
        return std::nullopt;
      }
    }
    TokenClaims result;
    if (claims->contains("urn:inmanta:ct")) {
      const nlohmann::json& ct = (*claims)["urn:inmanta:ct"];
      try {
        result.clientTypes = parseClientTypes(ct.is_string() ? ct.get<std::string>() : "", "urn:inmanta:ct");
      } catch (const std::runtime_error& e) {
        why = std::string("The authorization token has an invalid claim: ") + e.what();
        return std::nullopt;
      }
      if (result.clientTypes == 0) result.clientTypes = kApi;
    }
    if (claims->contains("urn:inmanta:env")) {
      const nlohmann::json& env = (*claims)["urn:inmanta:env"];
      std::optional<std::string> id = env.is_string() ? store::canonicalUuid(env.get<std::string>()) : std::nullopt;
      if (!id) {
        why = "The authorization token's environment (urn:inmanta:env) is not a UUID.";
        return std::nullopt;
      }
      result.environment = *id;
    }
    why.clear();
    return result;
  }
  return std::nullopt;
}

}  // namespace inmanta::server
