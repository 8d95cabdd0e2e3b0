#include "util/thread_policy.h"

#include <sched.h>

#include <thread>

#include <gtest/gtest.h>

namespace inmanta::util {
namespace {

// Each test runs on a thread of its own, so the test binary's main thread keeps its policy.
template <typename F>
void onThread(F body) {
  std::thread thread(body);
  thread.join();
}

TEST(ThreadPolicy, BatchThenNormal) {
  onThread([] {
    ASSERT_EQ(sched_getscheduler(0), SCHED_OTHER);
    EXPECT_FALSE(batchScheduling());
    ASSERT_TRUE(useBatchScheduling());  // an unprivileged thread may: its nice value does not change
    EXPECT_EQ(sched_getscheduler(0), SCHED_BATCH);
    EXPECT_TRUE(batchScheduling());
    useNormalScheduling();
    EXPECT_EQ(sched_getscheduler(0), SCHED_OTHER);
    useNormalScheduling();  // already normal: stays
    EXPECT_EQ(sched_getscheduler(0), SCHED_OTHER);
  });
}

TEST(ThreadPolicy, ThreadsStartedByABatchThreadInheritIt) {
  // why handler calls set it back: what a worker starts would run with the worker's policy
  onThread([] {
    ASSERT_TRUE(useBatchScheduling());
    int inherited = -1, afterNormal = -1;
    onThread([&] {
      inherited = sched_getscheduler(0);
      useNormalScheduling();
      afterNormal = sched_getscheduler(0);
    });
    EXPECT_EQ(inherited, SCHED_BATCH);
    EXPECT_EQ(afterNormal, SCHED_OTHER);
    EXPECT_EQ(sched_getscheduler(0), SCHED_BATCH);  // the other thread's change is its own
  });
}

TEST(ThreadPolicy, NormalSchedulingScopeRestores) {
  onThread([] {
    ASSERT_TRUE(useBatchScheduling());
    {
      NormalScheduling normal;
      EXPECT_EQ(sched_getscheduler(0), SCHED_OTHER);
      {
        NormalScheduling nested;  // already normal: leaves it, and restores nothing
        EXPECT_EQ(sched_getscheduler(0), SCHED_OTHER);
      }
      EXPECT_EQ(sched_getscheduler(0), SCHED_OTHER);
    }
    EXPECT_EQ(sched_getscheduler(0), SCHED_BATCH);
  });
  onThread([] {
    { NormalScheduling normal; }  // a normal thread stays normal
    EXPECT_EQ(sched_getscheduler(0), SCHED_OTHER);
  });
}

}  // namespace
}  // namespace inmanta::util
