// The Linux scheduling policy of the calling thread, for the scheduler's workers (issue 31).
//
// The scheduler's workers run with SCHED_BATCH while more than one agent has work: a worker that
// wakes does not preempt the thread that stores the runs' records (the journal's writer, whose
// work every run waits for in the end) or the REST server's threads. Their share of the CPU is
// that of any thread (the nice value does not change); only the wake-up preemption goes. On 2 CPUs
// with 4 agents of quick handler calls, the workers woke on the writer's CPU at every run and took
// it from it: with the batch policy a fifth less time from the release to the end and a seventh
// less CPU (inmanta_scheduler_bench 100000 4: 18.7 against 23.9 µs per resource, CPU 30.3 against
// 36.2 µs, medians of 5 alternating runs). A lone agent's worker keeps the normal policy: the runs
// wait for it, and an unchanged re-run of 10,000 files on one agent was 5-8% slower with it.
//
// The policy is inherited by threads and processes a thread starts, and handler calls start both
// (commands, the modules' Python code): they run with the normal policy (NormalScheduling), so
// that nothing the model runs behaves differently.
#pragma once

namespace inmanta::util {

// The calling thread to SCHED_BATCH; false when the system refuses it (the thread keeps its
// policy; nothing else depends on it).
bool useBatchScheduling();

// The calling thread to SCHED_OTHER when it runs with SCHED_BATCH (a thread started by a worker).
void useNormalScheduling();

// For its lifetime, the calling thread with SCHED_OTHER when it had SCHED_BATCH: around
// posix_spawn, whose child takes the policy of the thread that starts it.
class NormalScheduling {
 public:
  NormalScheduling();
  ~NormalScheduling();
  NormalScheduling(const NormalScheduling&) = delete;
  NormalScheduling& operator=(const NormalScheduling&) = delete;

 private:
  bool wasBatch_ = false;
};

// Whether the calling thread runs with SCHED_BATCH.
bool batchScheduling();

}  // namespace inmanta::util
