// PEP 440 versions, specifiers and module requirements (`mod ~= 1.0,!=1.0.3`). The compiler
// needs them to validate module.yml/project.yml fields (spec/export.md 4.3-4.4) and to check
// `compiler_version`; the installer (project/) selects module versions with them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace inmanta::compiler {

// A parsed PEP 440 version; ordering follows PEP 440 (1.0.dev0 < 1.0a1 < 1.0 < 1.0.post1).
class Version {
 public:
  // Accepts the PEP 440 forms with normalisation (`v1.0`, `1.0-RC1`, `1.0.post`); nullopt if
  // the text is not a version.
  static std::optional<Version> parse(std::string_view text);

  bool isPrerelease() const { return pre_.has_value() || dev_.has_value(); }
  bool isPostrelease() const { return post_.has_value(); }
  bool hasLocal() const { return !local_.empty(); }
  int64_t epoch() const { return epoch_; }
  const std::vector<int64_t>& release() const { return release_; }
  // The same version without its local part (`1.0+abc` -> `1.0`).
  Version public_() const;
  // The same version without pre, post, dev and local parts.
  Version base() const;
  // The normalised text (`1.0rc1`, `2!1.0.post2.dev3+ubuntu.1`).
  std::string str() const;

  int compare(const Version& other) const;
  bool operator==(const Version& o) const { return compare(o) == 0; }
  bool operator<(const Version& o) const { return compare(o) < 0; }
  bool operator>(const Version& o) const { return compare(o) > 0; }
  bool operator<=(const Version& o) const { return compare(o) <= 0; }
  bool operator>=(const Version& o) const { return compare(o) >= 0; }

 private:
  int64_t epoch_ = 0;
  std::vector<int64_t> release_;
  std::optional<std::pair<int, int64_t>> pre_;  // 0 = a, 1 = b, 2 = rc
  std::optional<int64_t> post_;
  std::optional<int64_t> dev_;
  std::vector<std::string> local_;  // lower-case segments
};

// One clause of a specifier set: `~= 1.0`, `== 1.*`, `!= 2.0.1`.
struct Specifier {
  enum class Op { Compatible, Equal, NotEqual, Less, LessEqual, Greater, GreaterEqual, Arbitrary };
  Op op = Op::Equal;
  std::string versionText;  // as written (for ===, and for messages)
  Version version;
  bool wildcard = false;  // == 1.* / != 1.*

  bool contains(const Version& candidate) const;
  std::string str() const;
};

// A module requirement: a name with zero or more specifiers (all must hold).
struct Requirement {
  std::string name;  // `-` normalised to `_`
  std::vector<Specifier> specifiers;

  // `std`, `std ~= 5.0`, `mod>=1.0,<2`. Throws std::invalid_argument with the reason.
  static Requirement parse(std::string_view text);

  // True when `candidate` satisfies every specifier. Pre-releases only match when
  // `allowPrereleases` is set or a specifier names a pre-release itself (PEP 440).
  bool contains(const Version& candidate, bool allowPrereleases = false) const;
  bool namesPrerelease() const;
  // `mod ~= 1.0,!= 1.0.3`, or just the name
  std::string str() const;
  std::string specifierText() const;  // `~= 1.0,!= 1.0.3`, empty when unconstrained
};

// The compiler version modules' `compiler_version` is checked against. The reference stopped
// versioning its compiler and compares with its newest known version, 2026.1; so do we.
inline constexpr std::string_view kCompilerVersion = "2026.1";

}  // namespace inmanta::compiler
