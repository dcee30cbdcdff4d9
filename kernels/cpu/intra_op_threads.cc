#include "kernels/cpu/intra_op_threads.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>

#include "core/cpu_budget.h"
#include "kernels/cpu/thread_team.h"

namespace smrt::kernels {
namespace {

thread_local int thread_count = 0;  // the innermost scope's; 0: the default
std::atomic<int> runs_in_flight{0};

// OMP_NUM_THREADS as libgomp reads it: the first entry of a list ("4,2").
int FromOmpNumThreads() {
  const char* env = std::getenv("OMP_NUM_THREADS");
  if (env == nullptr) return 0;
  char* end = nullptr;
  const long value = std::strtol(env, &end, 10);
  if (end == env || value <= 0) return 0;
  return static_cast<int>(std::min<long>(value, kMaxTeamSize));
}

}  // namespace

int DefaultIntraOpThreads() {
  static const int threads = [] {
    const int from_env = FromOmpNumThreads();
    if (from_env > 0) return from_env;
    return std::clamp(DetectCpuBudget().threads, 1, kMaxTeamSize);
  }();
  return threads;
}

int IntraOpThreads() {
  if (InTeam()) return TeamCallerThreads();
  return thread_count > 0 ? thread_count : DefaultIntraOpThreads();
}

IntraOpThreadsScope::IntraOpThreadsScope(int threads) {
  if (threads <= 0) return;
  set_ = true;
  previous_ = thread_count;
  thread_count = std::min(threads, kMaxTeamSize);
}

IntraOpThreadsScope::~IntraOpThreadsScope() {
  if (set_) thread_count = previous_;
}

namespace {
int EnterRun(int threads) {
  const int runs = runs_in_flight.fetch_add(1, std::memory_order_relaxed) + 1;
  if (threads > 0) return threads;
  return std::max(1, DefaultIntraOpThreads() / runs);
}
}  // namespace

RunThreadsScope::RunThreadsScope(int threads) : scope_(EnterRun(threads)) {}

RunThreadsScope::~RunThreadsScope() { runs_in_flight.fetch_sub(1, std::memory_order_relaxed); }

int RunsInFlight() { return runs_in_flight.load(std::memory_order_relaxed); }

}  // namespace smrt::kernels
