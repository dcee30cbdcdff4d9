// smrt's fork-join runtime (kernels/cpu/thread_team.h) and the OpenMP entry
// points that put oneDNN on it (openmp_entry_points.cc): every part runs once,
// barriers hold across parts, regions from many callers at once stay apart,
// oneDNN's regions run on smrt's teams, and OpenMP code that is not oneDNN's
// still runs on libgomp.
#include "kernels/cpu/thread_team.h"

#include <atomic>
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "core/cpu_budget.h"
#include "gtest/gtest.h"
#include "kernels/cpu/intra_op_threads.h"
#include "kernels/cpu/openmp_binding.h"
#include "kernels/cpu/sgemm.h"
#include "kernels/cpu/tsan.h"

extern "C" {
void GOMP_parallel(void (*fn)(void*), void* data, unsigned num_threads, unsigned flags);
void GOMP_barrier(void);
int omp_get_thread_num(void);
int omp_get_num_threads(void);
int omp_get_max_threads(void);
int omp_in_parallel(void);
}

namespace smrt::kernels {
namespace {

struct Counts {
  std::vector<std::atomic<int>> runs;
  std::atomic<int> wrong_size{0};
  explicit Counts(int n) : runs(n) {}
};

void CountPart(void* data) {
  auto* c = static_cast<Counts*>(data);
  if (TeamNumThreads() != static_cast<int>(c->runs.size())) c->wrong_size++;
  c->runs[TeamThreadNum()]++;
}

TEST(ThreadTeamTest, EveryPartRunsOnceWithItsNumber) {
  for (int n : {2, 3, 4, 7, 16}) {
    for (int round = 0; round < 50; ++round) {
      Counts c(n);
      RunTeam(CountPart, &c, n);
      for (int p = 0; p < n; ++p) EXPECT_EQ(c.runs[p].load(), 1) << "n=" << n << " part " << p;
      EXPECT_EQ(c.wrong_size.load(), 0);
    }
  }
  EXPECT_FALSE(InTeam());
  EXPECT_EQ(TeamThreadNum(), 0);
  EXPECT_EQ(TeamNumThreads(), 1);
}

TEST(ThreadTeamTest, PartsAreSharedWithWorkersWhenTheCallerIsSlow) {
  const TeamCounters before = GetTeamCounters();
  struct Slow {
    static void Part(void*) {
      // Long enough for three new threads to start on a loaded machine.
      if (TeamThreadNum() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(300));
    }
  };
  RunTeam(Slow::Part, nullptr, 4);
  const TeamCounters after = GetTeamCounters();
  EXPECT_EQ(after.regions, before.regions + 1);
  // While the caller sleeps in part 0, parts 1-3 can only have gone to workers.
  EXPECT_EQ(after.parts_by_workers, before.parts_by_workers + 3);
  EXPECT_GE(after.workers, 3);
}

// Each part adds its number in phase k, then checks after the barrier that
// every part has: a barrier that let one part through early fails it.
struct Phases {
  int n;
  std::vector<std::atomic<int>> sums;
  std::atomic<int> errors{0};
  Phases(int parts, int phases) : n(parts), sums(phases) {}
};

void PhasedPart(void* data) {
  auto* p = static_cast<Phases*>(data);
  const int expected = p->n * (p->n - 1) / 2 + p->n;
  for (size_t k = 0; k < p->sums.size(); ++k) {
    p->sums[k] += TeamThreadNum() + 1;
    TeamBarrier();
    if (p->sums[k].load() != expected) p->errors++;
    TeamBarrier();
  }
}

TEST(ThreadTeamTest, BarrierHoldsEveryPartAcrossPhases) {
  for (int n : {2, 3, 5}) {
    Phases p(n, 40);
    RunTeam(PhasedPart, &p, n);
    EXPECT_EQ(p.errors.load(), 0) << "n=" << n;
  }
}

TEST(ThreadTeamTest, BarrierHoldsWithoutSpinning) {
  const int spin = TeamSpinMicros();
  SetTeamSpinMicros(0);  // every wait sleeps at once: the futex paths
  Phases p(3, 40);
  RunTeam(PhasedPart, &p, 3);
  EXPECT_EQ(p.errors.load(), 0);
  for (int round = 0; round < 200; ++round) {
    Counts c(2);
    RunTeam(CountPart, &c, 2);
    EXPECT_EQ(c.runs[0].load() + c.runs[1].load(), 2);
  }
  SetTeamSpinMicros(spin);
}

TEST(ThreadTeamTest, NestedRegionRunsOnItsPartAsATeamOfOne) {
  struct Nested {
    std::atomic<int> inner_runs{0};
    std::atomic<int> errors{0};
    static void Inner(void* data) {
      auto* n = static_cast<Nested*>(data);
      n->inner_runs++;
      if (TeamNumThreads() != 1 || TeamThreadNum() != 0 || !InTeamRegion()) n->errors++;
      TeamBarrier();  // a no-op in a team of one
    }
    static void Outer(void* data) {
      const int part = TeamThreadNum();
      RunTeam(Inner, data, 4);
      if (TeamThreadNum() != part || TeamNumThreads() != 3) {
        static_cast<Nested*>(data)->errors++;
      }
    }
  };
  Nested n;
  RunTeam(Nested::Outer, &n, 3);
  EXPECT_EQ(n.inner_runs.load(), 3);
  EXPECT_EQ(n.errors.load(), 0);
}

TEST(ThreadTeamTest, PartsSeeTheCallersThreadCount) {
  IntraOpThreadsScope threads(3);
  struct Seen {
    std::atomic<int> errors{0};
    static void Part(void* data) {
      if (IntraOpThreads() != 3) static_cast<Seen*>(data)->errors++;
    }
  };
  Seen s;
  RunTeam(Seen::Part, &s, 3);
  EXPECT_EQ(s.errors.load(), 0);
}

// Many callers at once, each with its own team, regions with barriers: the
// concurrency the executor's inter-op pool and concurrent Runs create.
TEST(ThreadTeamTest, ConcurrentCallersKeepTheirRegionsApart) {
  std::atomic<int> errors{0};
  std::vector<std::thread> callers;
  for (int t = 0; t < 4; ++t) {
    callers.emplace_back([&, t] {
      for (int round = 0; round < 100; ++round) {
        Phases p(2 + (t + round) % 3, 3);
        RunTeam(PhasedPart, &p, p.n);
        errors += p.errors.load();
        Counts c(1 + round % 4);
        RunTeam(CountPart, &c, static_cast<int>(c.runs.size()));
        for (auto& r : c.runs) errors += r.load() != 1;
      }
    });
  }
  for (std::thread& t : callers) t.join();
  EXPECT_EQ(errors.load(), 0);
}

TEST(ThreadTeamTest, DefaultThreadsFollowTheCpuBudget) {
  if (std::getenv("OMP_NUM_THREADS") != nullptr) GTEST_SKIP() << "OMP_NUM_THREADS is set";
  EXPECT_EQ(DefaultIntraOpThreads(), DetectCpuBudget().threads);
  EXPECT_EQ(IntraOpThreads(), DefaultIntraOpThreads());
}

// Concurrent Runs share the default threads; an explicit count stays as it is.
TEST(ThreadTeamTest, RunsInFlightShareTheDefaultThreads) {
  ASSERT_EQ(RunsInFlight(), 0);
  {
    RunThreadsScope first(0);
    EXPECT_EQ(IntraOpThreads(), DefaultIntraOpThreads());
    std::thread([] {
      RunThreadsScope second(0);
      EXPECT_EQ(RunsInFlight(), 2);
      EXPECT_EQ(IntraOpThreads(), std::max(1, DefaultIntraOpThreads() / 2));
      RunThreadsScope explicit_count(3);
      EXPECT_EQ(IntraOpThreads(), 3);
    }).join();
  }
  EXPECT_EQ(RunsInFlight(), 0);
}

// oneDNN's parallel regions bind to smrt's GOMP_parallel.
TEST(ThreadTeamTest, OneDnnRunsOnSmrtTeams) {
  EXPECT_TRUE(OneDnnUsesSmrtTeams());
  IntraOpThreadsScope threads(2);
  const uint64_t before = DnnlRegionsOnSmrtTeams();
  const int m = 256, n = 256, k = 256;
  std::vector<float> a(m * k, 1.0f), b(k * n, 0.5f), c(m * n, 0.0f);
  ASSERT_TRUE(OneDnnSgemm(false, false, m, n, k, a.data(), k, b.data(), n, c.data(), n));
  for (float v : c) ASSERT_EQ(v, 128.0f);
#ifndef SMRT_TSAN  // sgemm runs on one thread under TSan (sgemm.cc)
  EXPECT_GT(DnnlRegionsOnSmrtTeams(), before);
#endif
}

// A program's own OpenMP code (not oneDNN's) calls the same symbols: it must
// still get libgomp's team, with its own thread numbers.
TEST(ThreadTeamTest, OtherOpenMpCodeStillRunsOnLibgomp) {
  struct Seen {
    std::mutex mu;
    std::set<int> numbers;
    int sizes_wrong = 0;
    int not_parallel = 0;
  };
  Seen seen;
  GOMP_parallel(
      [](void* data) {
        auto* s = static_cast<Seen*>(data);
        {
          std::lock_guard<std::mutex> lock(s->mu);
          s->numbers.insert(omp_get_thread_num());
          if (omp_get_num_threads() != 2) s->sizes_wrong++;
          if (!omp_in_parallel()) s->not_parallel++;
        }
        GOMP_barrier();
      },
      &seen, 2, 0);
  // Under the mutex: libgomp's join is invisible to ThreadSanitizer.
  std::lock_guard<std::mutex> lock(seen.mu);
  EXPECT_EQ(seen.numbers, (std::set<int>{0, 1}));
  EXPECT_EQ(seen.sizes_wrong, 0);
  EXPECT_EQ(seen.not_parallel, 0);
  EXPECT_FALSE(omp_in_parallel());
  EXPECT_EQ(omp_get_thread_num(), 0);
}

}  // namespace
}  // namespace smrt::kernels
