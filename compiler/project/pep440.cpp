#include "compiler/project/pep440.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <algorithm>
#include <array>
#include <stdexcept>

namespace inmanta::compiler {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// digits only, at most 18 of them (fits int64)
std::optional<int64_t> number(const std::string& s) {
  if (s.empty() || s.size() > 18) return std::nullopt;
  return std::stoll(s);
}

// The canonical PEP 440 pattern (the one `packaging` uses), on lower-cased text; PCRE2, compiled
// once per process (std::regex compiled it on every compile and recursed per character).
constexpr size_t kVersionGroups = 13;
const pcre2_code* versionPattern() {
  static const pcre2_code* re = [] {
    static constexpr char kPattern[] = R"(^v?(?:([0-9]+)!)?([0-9]+(?:\.[0-9]+)*))"
                                       R"(([-_.]?(alpha|a|beta|b|preview|pre|c|rc)[-_.]?([0-9]+)?)?)"
                                       R"(((?:-([0-9]+))|(?:[-_.]?(post|rev|r)[-_.]?([0-9]+)?))?)"
                                       R"(([-_.]?(dev)[-_.]?([0-9]+)?)?)"
                                       R"((?:\+([a-z0-9]+(?:[-_.][a-z0-9]+)*))?$)";
    int code = 0;
    PCRE2_SIZE offset = 0;
    pcre2_code* compiled = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(kPattern), PCRE2_ZERO_TERMINATED,
                                         PCRE2_DOLLAR_ENDONLY, &code, &offset, nullptr);
    if (compiled == nullptr) throw std::logic_error("PEP 440 pattern does not compile");
    return compiled;
  }();
  return re;
}

// Group i of a match: matched or not, and its text.
struct Group {
  bool matched = false;
  std::string text;
  std::string str() const { return text; }
};
using VersionMatch = std::array<Group, kVersionGroups + 1>;

bool matchVersion(const std::string& s, VersionMatch& m) {
  const pcre2_code* re = versionPattern();
  pcre2_match_data* md = pcre2_match_data_create_from_pattern(re, nullptr);
  int rc = pcre2_match(re, reinterpret_cast<PCRE2_SPTR>(s.data()), s.size(), 0, 0, md, nullptr);
  if (rc > 0) {
    const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(md);
    for (size_t i = 0; i < m.size() && i < static_cast<size_t>(rc); ++i)
      if (ov[2 * i] != PCRE2_UNSET) m[i] = Group{true, s.substr(ov[2 * i], ov[2 * i + 1] - ov[2 * i])};
  }
  pcre2_match_data_free(md);
  return rc > 0;
}

int compareLocal(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  auto isNum = [](const std::string& s) {
    return std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    bool na = isNum(a[i]), nb = isNum(b[i]);
    if (na != nb) return na ? 1 : -1;  // numeric segments sort after alphanumeric ones
    if (na) {
      // compare as numbers without overflow: strip leading zeros, then length, then text
      std::string_view x = a[i], y = b[i];
      while (x.size() > 1 && x.front() == '0') x.remove_prefix(1);
      while (y.size() > 1 && y.front() == '0') y.remove_prefix(1);
      if (x.size() != y.size()) return x.size() < y.size() ? -1 : 1;
      if (x != y) return x < y ? -1 : 1;
    } else if (a[i] != b[i]) {
      return a[i] < b[i] ? -1 : 1;
    }
  }
  if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
  return 0;
}

template <typename T>
int cmp(const T& a, const T& b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

}  // namespace

std::optional<Version> Version::parse(std::string_view text) {
  if (text.size() > 200) return std::nullopt;  // no real version comes near this
  std::string s = lower(trim(text));
  VersionMatch m;
  if (!matchVersion(s, m)) return std::nullopt;
  Version v;
  if (m[1].matched) {
    auto e = number(m[1].str());
    if (!e) return std::nullopt;
    v.epoch_ = *e;
  }
  std::string release = m[2].str();
  size_t start = 0;
  while (true) {
    size_t dot = release.find('.', start);
    auto part = number(release.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (!part) return std::nullopt;
    v.release_.push_back(*part);
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  if (m[3].matched) {
    std::string label = m[4].str();
    int kind = (label == "a" || label == "alpha") ? 0 : (label == "b" || label == "beta") ? 1 : 2;
    int64_t n = 0;
    if (m[5].matched) {
      auto x = number(m[5].str());
      if (!x) return std::nullopt;
      n = *x;
    }
    v.pre_ = std::make_pair(kind, n);
  }
  if (m[6].matched) {
    std::string n = m[7].matched ? m[7].str() : (m[9].matched ? m[9].str() : "0");
    auto x = number(n);
    if (!x) return std::nullopt;
    v.post_ = *x;
  }
  if (m[10].matched) {
    auto x = m[12].matched ? number(m[12].str()) : std::optional<int64_t>(0);
    if (!x) return std::nullopt;
    v.dev_ = *x;
  }
  if (m[13].matched) {
    std::string local = m[13].str();
    std::string seg;
    for (char c : local) {
      if (c == '-' || c == '_' || c == '.') {
        v.local_.push_back(seg);
        seg.clear();
      } else {
        seg += c;
      }
    }
    v.local_.push_back(seg);
  }
  return v;
}

Version Version::public_() const {
  Version v = *this;
  v.local_.clear();
  return v;
}

Version Version::base() const {
  Version v;
  v.epoch_ = epoch_;
  v.release_ = release_;
  return v;
}

std::string Version::str() const {
  std::string out;
  if (epoch_ != 0) out += std::to_string(epoch_) + "!";
  for (size_t i = 0; i < release_.size(); ++i) out += (i ? "." : "") + std::to_string(release_[i]);
  if (pre_) out += std::string(pre_->first == 0 ? "a" : pre_->first == 1 ? "b" : "rc") + std::to_string(pre_->second);
  if (post_) out += ".post" + std::to_string(*post_);
  if (dev_) out += ".dev" + std::to_string(*dev_);
  if (!local_.empty()) {
    out += "+";
    for (size_t i = 0; i < local_.size(); ++i) out += (i ? "." : "") + local_[i];
  }
  return out;
}

int Version::compare(const Version& o) const {
  if (int c = cmp(epoch_, o.epoch_)) return c;
  // release, ignoring trailing zeros
  size_t n = std::max(release_.size(), o.release_.size());
  for (size_t i = 0; i < n; ++i) {
    int64_t a = i < release_.size() ? release_[i] : 0;
    int64_t b = i < o.release_.size() ? o.release_[i] : 0;
    if (int c = cmp(a, b)) return c;
  }
  // pre: a dev release without pre or post sorts before every pre-release; no pre sorts after
  auto preKey = [](const Version& v) -> std::pair<int, std::pair<int, int64_t>> {
    if (!v.pre_ && !v.post_ && v.dev_) return {-1, {0, 0}};
    if (!v.pre_) return {1, {0, 0}};
    return {0, *v.pre_};
  };
  if (int c = cmp(preKey(*this), preKey(o))) return c;
  auto postKey = [](const Version& v) { return v.post_ ? std::make_pair(1, *v.post_) : std::make_pair(0, int64_t{0}); };
  if (int c = cmp(postKey(*this), postKey(o))) return c;
  auto devKey = [](const Version& v) { return v.dev_ ? std::make_pair(0, *v.dev_) : std::make_pair(1, int64_t{0}); };
  if (int c = cmp(devKey(*this), devKey(o))) return c;
  return compareLocal(local_, o.local_);
}

bool Specifier::contains(const Version& candidate) const {
  auto equal = [&]() {
    if (wildcard) {
      // epochs agree and the release, padded with zeros, starts with the prefix
      if (candidate.epoch() != version.epoch()) return false;
      const auto& prefix = version.release();
      const auto& rel = candidate.release();
      for (size_t i = 0; i < prefix.size(); ++i)
        if ((i < rel.size() ? rel[i] : 0) != prefix[i]) return false;
      return true;
    }
    return version.hasLocal() ? candidate == version : candidate.public_() == version;
  };
  switch (op) {
    case Op::Equal: return equal();
    case Op::NotEqual: return !equal();
    case Op::LessEqual: return candidate.public_() <= version;
    case Op::GreaterEqual: return candidate.public_() >= version;
    case Op::Less: {
      Version c = candidate.public_();
      if (!(c < version)) return false;
      if (!version.isPrerelease() && c.isPrerelease() && c.base() == version.base()) return false;
      return true;
    }
    case Op::Greater: {
      Version c = candidate.public_();
      if (!(c > version)) return false;
      if (!version.isPostrelease() && c.isPostrelease() && c.base() == version.base()) return false;
      if (candidate.hasLocal() && candidate.base() == version.base()) return false;
      return true;
    }
    case Op::Compatible: {
      if (candidate.public_() < version) return false;
      const auto& rel = version.release();
      const auto& crel = candidate.release();
      if (candidate.epoch() != version.epoch()) return false;
      for (size_t i = 0; i + 1 < rel.size(); ++i)
        if ((i < crel.size() ? crel[i] : 0) != rel[i]) return false;
      return true;
    }
    case Op::Arbitrary: return lower(candidate.str()) == lower(trim(versionText));
  }
  return false;
}

std::string Specifier::str() const {
  const char* ops[] = {"~=", "==", "!=", "<", "<=", ">", ">=", "==="};
  return std::string(ops[static_cast<int>(op)]) + " " + versionText;
}

Requirement Requirement::parse(std::string_view text) {
  std::string_view s = trim(text);
  size_t i = 0;
  auto nameChar = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
           c == '.';
  };
  while (i < s.size() && nameChar(s[i])) ++i;
  if (i == 0) throw std::invalid_argument("expected a module name at the start of '" + std::string(s) + "'");
  Requirement req;
  req.name = std::string(s.substr(0, i));
  std::replace(req.name.begin(), req.name.end(), '-', '_');
  std::string_view rest = trim(s.substr(i));
  if (rest.empty()) return req;
  while (true) {
    size_t comma = rest.find(',');
    std::string_view clause = trim(rest.substr(0, comma));
    if (clause.empty()) throw std::invalid_argument("empty version constraint in '" + std::string(s) + "'");
    Specifier spec;
    static const std::pair<const char*, Specifier::Op> kOps[] = {
        {"===", Specifier::Op::Arbitrary}, {"~=", Specifier::Op::Compatible}, {"==", Specifier::Op::Equal},
        {"!=", Specifier::Op::NotEqual},   {"<=", Specifier::Op::LessEqual},  {">=", Specifier::Op::GreaterEqual},
        {"<", Specifier::Op::Less},        {">", Specifier::Op::Greater}};
    bool found = false;
    for (const auto& [text2, op] : kOps) {
      std::string_view t(text2);
      if (clause.substr(0, t.size()) == t) {
        spec.op = op;
        clause = trim(clause.substr(t.size()));
        found = true;
        break;
      }
    }
    if (!found)
      throw std::invalid_argument("expected an operator (==, !=, <, <=, >, >=, ~=) before '" + std::string(clause) +
                                  "' in '" + std::string(s) + "'");
    spec.versionText = std::string(clause);
    std::string_view versionPart = clause;
    if (spec.op == Specifier::Op::Equal || spec.op == Specifier::Op::NotEqual) {
      if (versionPart.size() >= 2 && versionPart.substr(versionPart.size() - 2) == ".*") {
        spec.wildcard = true;
        versionPart.remove_suffix(2);
      }
    }
    if (spec.op != Specifier::Op::Arbitrary) {
      auto v = Version::parse(versionPart);
      if (!v)
        throw std::invalid_argument("'" + std::string(clause) + "' is not a PEP 440 version in '" + std::string(s) +
                                    "'");
      if (spec.wildcard && (v->isPrerelease() || v->isPostrelease() || v->hasLocal()))
        throw std::invalid_argument("a '.*' prefix may only follow release numbers in '" + std::string(s) + "'");
      if (spec.op == Specifier::Op::Compatible && v->release().size() < 2)
        throw std::invalid_argument("'~=' needs at least two release numbers ('~= 1.0') in '" + std::string(s) + "'");
      if (v->hasLocal() && spec.op != Specifier::Op::Equal && spec.op != Specifier::Op::NotEqual)
        throw std::invalid_argument("a local version (+...) is only allowed with == and != in '" + std::string(s) +
                                    "'");
      spec.version = *v;
    } else if (spec.versionText.empty()) {
      throw std::invalid_argument("'===' needs a version in '" + std::string(s) + "'");
    }
    req.specifiers.push_back(std::move(spec));
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  return req;
}

bool Requirement::namesPrerelease() const {
  for (const Specifier& s : specifiers)
    if (s.op != Specifier::Op::NotEqual && s.op != Specifier::Op::Arbitrary && s.version.isPrerelease()) return true;
  return false;
}

bool Requirement::contains(const Version& candidate, bool allowPrereleases) const {
  if (candidate.isPrerelease() && !allowPrereleases && !namesPrerelease()) return false;
  for (const Specifier& s : specifiers)
    if (!s.contains(candidate)) return false;
  return true;
}

std::string Requirement::specifierText() const {
  std::string out;
  for (const Specifier& s : specifiers) out += (out.empty() ? "" : ",") + s.str();
  return out;
}

std::string Requirement::str() const {
  std::string spec = specifierText();
  return spec.empty() ? name : name + " " + spec;
}

}  // namespace inmanta::compiler
