// smrt's own fork-join runtime for intra-op parallelism: what oneDNN's
// OpenMP regions and ParallelFor run on (openmp_entry_points.cc routes
// libdnnl's GOMP_parallel here instead of to libgomp).
//
// Why not libgomp: a region is cut into n parts, one per "thread number", and
// libgomp binds part i to OS thread i and spins at every join. On a CPU that
// other processes share, one descheduled thread stalls the whole op until the
// scheduler runs it again, while the others spin away their time slices:
// latency went up 100 times with busy neighbours (issue 33, BENCHMARKS.md).
// Here the parts of a region are claimed, not assigned: the calling thread
// starts on part 0 at once and takes every part no worker has claimed yet, so
// a worker that is late (asleep, descheduled) costs nothing, and the join waits
// only for parts already under way. Waits spin briefly, then sleep.
//
// Each calling thread has a team of its own (created on first use, like
// libgomp's), with n - 1 workers for a region of n parts, so a part that waits
// for the others at a barrier always has a thread for each: parts are never
// queued behind one that blocks.
#ifndef SMRT_KERNELS_CPU_THREAD_TEAM_H_
#define SMRT_KERNELS_CPU_THREAD_TEAM_H_

#include <cstdint>

namespace smrt::kernels {

// The most parts one region may have (a larger request is cut to this).
inline constexpr int kMaxTeamSize = 1024;

// Runs fn(data) once for every part 0..n-1 and returns when all have
// returned. Inside fn, TeamThreadNum() is the part and TeamNumThreads() is n.
// Called from inside a part (nested), it runs fn(data) once on the caller as
// a team of one, as OpenMP runs an inactive nested region.
void RunTeam(void (*fn)(void*), void* data, int n);

// Inside a part: the part's number and the region's size, else 0 and 1.
int TeamThreadNum();
int TeamNumThreads();
// True inside a part of a region of more than one part.
bool InTeamRegion();
// True on a thread inside any region (also a nested team of one).
bool InTeam();
// The intra-op thread count the region's caller had (IntraOpThreads());
// 0 outside a region.
int TeamCallerThreads();
// Every part of the current region waits here until all have arrived. A
// no-op outside a region or in a team of one.
void TeamBarrier();

// What the runtime has done in this process, for tests and `smrt doctor`.
struct TeamCounters {
  uint64_t regions = 0;        // RunTeam calls with more than one part
  uint64_t parts_by_workers = 0;  // parts run by a worker, not the caller
  int workers = 0;             // worker threads alive, all teams
};
TeamCounters GetTeamCounters();

// How long an idle worker, a joining caller or a part at a barrier spins
// before it sleeps, in microseconds. From OMP_WAIT_POLICY at first use
// (passive: 0; active: 10000), else the default below. Tests may change it.
inline constexpr int kDefaultSpinMicros = 100;
int TeamSpinMicros();
void SetTeamSpinMicros(int micros);

}  // namespace smrt::kernels

#endif  // SMRT_KERNELS_CPU_THREAD_TEAM_H_
