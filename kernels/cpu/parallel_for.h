// Intra-op parallelism for the reference kernels: splits a loop over [0, n)
// into contiguous shards run by the calling thread and its team
// (thread_team.h), the one oneDNN's kernels run on too (one set of threads
// for both, so they never compete for the cores). The shard count follows IntraOpThreads() (intra_op_threads of
// the Run, else every core). Each index is handled exactly once and shards
// never overlap, so a kernel whose iterations are independent gives the same
// bits at any thread count; `align` keeps shard boundaries on multiples of a
// vector width, so that vectorised loops split the same way as in one piece.
#ifndef SMRT_KERNELS_CPU_PARALLEL_FOR_H_
#define SMRT_KERNELS_CPU_PARALLEL_FOR_H_

#include <cstdint>

#include "absl/functional/function_ref.h"

namespace smrt::kernels {

// The least number of float elements of a cheap elementwise loop (a few ns
// each) worth handing to another thread: waking a worker costs microseconds.
inline constexpr int64_t kMinShardElements = 16384;

// Calls fn(begin, end) over shards covering [0, n) and returns when all have
// run. `min_shard` is the least work worth a thread (in indices); shard
// boundaries other than 0 and n are multiples of `align`. Called from inside a
// shard it runs inline, as does any n below 2 * min_shard.
void ParallelFor(int64_t n, int64_t min_shard, int64_t align,
                 absl::FunctionRef<void(int64_t begin, int64_t end)> fn);

// How many shards ParallelFor(n, min_shard, align, ...) makes on this thread now.
int ParallelShards(int64_t n, int64_t min_shard, int64_t align);

}  // namespace smrt::kernels

#endif  // SMRT_KERNELS_CPU_PARALLEL_FOR_H_
