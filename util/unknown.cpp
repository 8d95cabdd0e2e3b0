#include "util/unknown.h"

#include <algorithm>

namespace inmanta::util {

using compiler::runtime::Value;

bool hasUnknown(const Value& v) {
  if (v.isUnknown()) return true;
  if (v.isList())
    return std::any_of(v.asList().begin(), v.asList().end(), [](const Value& e) { return hasUnknown(e); });
  if (v.isDict())
    return std::any_of(v.asDict().items.begin(), v.asDict().items.end(),
                       [](const auto& kv) { return hasUnknown(kv.second); });
  return false;
}

}  // namespace inmanta::util
