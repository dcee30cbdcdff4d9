#include "kernels/cpu/parallel_for.h"

#include <algorithm>

#include "kernels/cpu/intra_op_threads.h"
#include "kernels/cpu/tsan.h"

#ifdef SMRT_TSAN
#include <sanitizer/tsan_interface.h>
#endif

// libgomp's entry points: the shards run on the OpenMP team that oneDNN's
// kernels use (Debian's libdnnl is built with gcc's OpenMP), so the two never
// compete for the cores, and the team's threads are the ones already warm.
// Declared here rather than through <omp.h>, so that the file compiles the
// same with gcc and clang (see intra_op_threads.cc). GOMP_parallel is what gcc
// emits for `#pragma omp parallel`: it runs fn(data) on every thread of a team
// of num_threads (the caller included) and returns when all have returned.
extern "C" {
void GOMP_parallel(void (*fn)(void*), void* data, unsigned num_threads, unsigned flags);
int omp_get_thread_num(void);
int omp_get_num_threads(void);
}

namespace smrt::kernels {
namespace {

// True on a thread while it runs a shard: nested ParallelFor calls run inline.
thread_local bool in_shard = false;

struct Job {
  int64_t n;
  int64_t align;
  int shards;
  absl::FunctionRef<void(int64_t, int64_t)> fn;

  // Shard s covers [Bound(s), Bound(s + 1)): equal parts rounded down to `align`.
  int64_t Bound(int s) const {
    if (s >= shards) return n;
    return (n * s / shards) / align * align;
  }
};

// Runs on each thread of the team. OpenMP may give fewer threads than asked
// (OMP_THREAD_LIMIT, nesting): the team then takes the shards in turn.
void RunShards(void* data) {
  const Job& job = *static_cast<const Job*>(data);
#ifdef SMRT_TSAN
  // TSan does not see libgomp's (uninstrumented) fork and join.
  __tsan_acquire(const_cast<Job*>(&job));
#endif
  const bool was_in_shard = in_shard;
  in_shard = true;
  for (int s = omp_get_thread_num(); s < job.shards; s += omp_get_num_threads()) {
    const int64_t begin = job.Bound(s), end = job.Bound(s + 1);
    if (begin < end) job.fn(begin, end);
  }
  in_shard = was_in_shard;
#ifdef SMRT_TSAN
  __tsan_release(const_cast<Job*>(&job));
#endif
}

}  // namespace

int ParallelShards(int64_t n, int64_t min_shard, int64_t align) {
  if (in_shard || n <= 0) return 1;
  min_shard = std::max<int64_t>(min_shard, std::max<int64_t>(align, 1));
  const int64_t by_work = n / min_shard;
  if (by_work < 2) return 1;
  const int threads = IntraOpThreads();
  return static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(by_work, threads)));
}

void ParallelFor(int64_t n, int64_t min_shard, int64_t align,
                 absl::FunctionRef<void(int64_t begin, int64_t end)> fn) {
  const int shards = ParallelShards(n, min_shard, align);
  if (shards <= 1) {
    if (n > 0) fn(0, n);
    return;
  }
  Job job{n, std::max<int64_t>(align, 1), shards, fn};
#ifdef SMRT_TSAN
  __tsan_release(&job);
#endif
  GOMP_parallel(RunShards, &job, static_cast<unsigned>(shards), 0);
#ifdef SMRT_TSAN
  __tsan_acquire(&job);
#endif
}

}  // namespace smrt::kernels
