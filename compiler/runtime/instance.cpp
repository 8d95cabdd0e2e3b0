// What few instances have, kept aside (Instance::Extras): by instance, for the process (compiles
// may run on several threads of a server), found through the bit the header keeps for it.
#include "compiler/runtime/instance.h"

#include <mutex>
#include <unordered_map>

namespace inmanta::compiler::runtime {

namespace {
struct InstanceExtras {
  std::mutex mutex;
  std::unordered_map<const Instance*, std::unique_ptr<Instance::Extras>> byInstance;
};
InstanceExtras& instanceExtras() {
  static InstanceExtras* extras = new InstanceExtras();  // (never destroyed: instances may outlive statics)
  return *extras;
}
}  // namespace

Instance::Extras& Instance::extras() {
  InstanceExtras& all = instanceExtras();
  std::lock_guard<std::mutex> lock(all.mutex);
  std::unique_ptr<Extras>& mine = all.byInstance[this];
  if (!mine) {
    mine = std::make_unique<Extras>();
    constructed_ |= kHasExtras;
  }
  return *mine;
}

void Instance::dropExtras() {
  InstanceExtras& all = instanceExtras();
  std::lock_guard<std::mutex> lock(all.mutex);
  all.byInstance.erase(this);
}

}  // namespace inmanta::compiler::runtime
