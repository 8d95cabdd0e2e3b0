#include "util/thread_policy.h"

#include <sched.h>

namespace inmanta::util {
namespace {

// (pid 0: the calling thread; the static priority of both policies is 0)
bool setPolicy(int policy) {
  sched_param param{};
  param.sched_priority = 0;
  return sched_setscheduler(0, policy, &param) == 0;
}

}  // namespace

bool useBatchScheduling() { return setPolicy(SCHED_BATCH); }

bool batchScheduling() { return sched_getscheduler(0) == SCHED_BATCH; }

void useNormalScheduling() {
  if (batchScheduling()) setPolicy(SCHED_OTHER);
}

NormalScheduling::NormalScheduling() : wasBatch_(batchScheduling()) {
  if (wasBatch_) setPolicy(SCHED_OTHER);
}

NormalScheduling::~NormalScheduling() {
  if (wasBatch_) setPolicy(SCHED_BATCH);
}

}  // namespace inmanta::util
