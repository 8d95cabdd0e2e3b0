// Resource version ids (export spec 2.1): `TYPE[AGENT,ATTR=VALUE],v=VERSION`, the `id` of a
// resource in the exported JSON and the node names of dependencies.dot. (The id without version,
// `TYPE[AGENT,ATTR=VALUE]`, is compiler::resourceId in compiler/resource_types.h: std::getfact
// computes it during the compile.)
#pragma once

#include <string>
#include <string_view>

namespace inmanta::util {

// `rid` + `,v=` + `version`
std::string versionedId(std::string_view rid, long long version);

}  // namespace inmanta::util
