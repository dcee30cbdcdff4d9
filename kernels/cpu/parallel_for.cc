#include "kernels/cpu/parallel_for.h"

#include <algorithm>

#include "kernels/cpu/intra_op_threads.h"
#include "kernels/cpu/thread_team.h"

namespace smrt::kernels {
namespace {

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

// Runs for each part of the team; a region has exactly `shards` parts.
void RunShard(void* data) {
  const Job& job = *static_cast<const Job*>(data);
  const int s = TeamThreadNum();
  const int64_t begin = job.Bound(s), end = job.Bound(s + 1);
  if (begin < end) job.fn(begin, end);
}

}  // namespace

int ParallelShards(int64_t n, int64_t min_shard, int64_t align) {
  if (InTeam() || n <= 0) return 1;
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
  RunTeam(RunShard, &job, shards);
}

}  // namespace smrt::kernels
