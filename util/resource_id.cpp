#include "util/resource_id.h"

namespace inmanta::util {

std::string versionedId(std::string_view rid, long long version) {
  std::string out(rid);
  out += ",v=";
  out += std::to_string(version);
  return out;
}

}  // namespace inmanta::util
