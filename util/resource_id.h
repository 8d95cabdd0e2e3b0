// Resource ids (orchestrator spec §2): `TYPE[AGENT,ATTR=VALUE]`, and resource version ids, the
// same plus `,v=VERSION` — the `id` of a resource in the exported JSON, the node names of
// dependencies.dot, and the ids the server stores and answers with. (The compiler computes the id
// without version itself, compiler::resourceId in compiler/resource_types.h, for std::getfact.)
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace inmanta::util {

// `rid` + `,v=` + `version`
std::string versionedId(std::string_view rid, long long version);

// The parts of a resource id or resource version id.
struct ResourceIdParts {
  std::string type;       // `std::File`: `::`-separated segments, at least two
  std::string agent;      // `localhost`
  std::string attribute;  // `path`
  std::string value;      // `/etc/motd`: may contain `/ , =`, never `]`
  // `,v=N` when present; 0 means "no version" (what `export -j` writes), as an absent one
  std::optional<long long> version;

  // `TYPE[AGENT,ATTR=VALUE]`, without the version
  std::string id() const;
};

// Parses `text` by the spec's grammar; nullopt when it is not a resource id (with or without
// version) — a type segment that is not word-or-dash characters, an empty part, text after `]`
// other than `,v=DIGITS`, or a version beyond 64 bits.
std::optional<ResourceIdParts> parseResourceId(std::string_view text);

// The id without its `,v=N` suffix when `text` parses, nullopt otherwise.
std::optional<std::string> stripVersion(std::string_view text);

}  // namespace inmanta::util
