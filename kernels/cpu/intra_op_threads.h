// How many threads one CPU op may use. The count is per calling thread: a
// scope sets it for the calls a Run makes on this thread and restores the
// caller's afterwards, so two models with different settings can run side by
// side. Ops run on smrt's own teams (thread_team.h), oneDNN's included, so an
// application's own OpenMP settings (omp_set_num_threads) do not apply.
#ifndef SMRT_KERNELS_CPU_INTRA_OP_THREADS_H_
#define SMRT_KERNELS_CPU_INTRA_OP_THREADS_H_

namespace smrt::kernels {

// The threads an op started on this thread may use now: the innermost scope's
// count, else DefaultIntraOpThreads(). Inside a part of a team, the count of
// the thread that started the region.
int IntraOpThreads();

// The process's default: OMP_NUM_THREADS (its first value) when set, else the
// CPUs this process may really use (core/cpu_budget.h: the affinity mask and
// the cgroup's CPU quota). Read once.
int DefaultIntraOpThreads();

class IntraOpThreadsScope {
 public:
  // threads <= 0 leaves the current setting.
  explicit IntraOpThreadsScope(int threads);
  ~IntraOpThreadsScope();
  IntraOpThreadsScope(const IntraOpThreadsScope&) = delete;
  IntraOpThreadsScope& operator=(const IntraOpThreadsScope&) = delete;

 private:
  bool set_ = false;
  int previous_ = 0;  // the thread's count before (0: the default)
};

// One Run's thread count, for Runs that many threads make at once on one CPU:
// a scope counts the Runs in flight in the process, and with `threads` 0 (the
// default) a Run that starts while k - 1 others are running uses
// DefaultIntraOpThreads() / k threads (at least 1), so that concurrent callers
// share the cores instead of each asking for all of them. A positive
// `threads` is used as it is.
class RunThreadsScope {
 public:
  explicit RunThreadsScope(int threads);
  ~RunThreadsScope();
  RunThreadsScope(const RunThreadsScope&) = delete;
  RunThreadsScope& operator=(const RunThreadsScope&) = delete;

 private:
  IntraOpThreadsScope scope_;
};

// Runs inside a RunThreadsScope in this process now.
int RunsInFlight();

}  // namespace smrt::kernels

#endif  // SMRT_KERNELS_CPU_INTRA_OP_THREADS_H_
