#include "kernels/cpu/thread_team.h"

#include <linux/futex.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "kernels/cpu/intra_op_threads.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define SMRT_CPU_RELAX() _mm_pause()
#elif defined(__aarch64__)
#define SMRT_CPU_RELAX() asm volatile("yield" ::: "memory")
#else
#define SMRT_CPU_RELAX() \
  do {                   \
  } while (0)
#endif

namespace smrt::kernels {
namespace {

// Futex on a 32-bit atomic (Linux): sleep while *word == expected; wake.
void FutexWait(std::atomic<uint32_t>* word, uint32_t expected) {
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAIT_PRIVATE, expected, nullptr,
          nullptr, 0);
}
void FutexWakeAll(std::atomic<uint32_t>* word) {
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAKE_PRIVATE, INT32_MAX, nullptr,
          nullptr, 0);
}

int SpinMicrosFromEnvironment() {
  const char* policy = std::getenv("OMP_WAIT_POLICY");
  if (policy != nullptr) {
    if (strcasecmp(policy, "passive") == 0) return 0;
    if (strcasecmp(policy, "active") == 0) return 10000;
  }
  return kDefaultSpinMicros;
}

std::atomic<int>& SpinMicros() {
  static std::atomic<int> micros{SpinMicrosFromEnvironment()};
  return micros;
}

std::atomic<uint64_t> regions_run{0};
std::atomic<uint64_t> worker_parts{0};
std::atomic<int> workers_alive{0};

// Spins until done() or the spin time is over; true if done() held.
template <typename Done>
bool SpinUntil(Done done) {
  if (done()) return true;
  const int micros = SpinMicros().load(std::memory_order_relaxed);
  if (micros <= 0) return false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::microseconds(micros);
  for (;;) {
    for (int i = 0; i < 64; ++i) {
      SMRT_CPU_RELAX();
      if (done()) return true;
    }
    if (std::chrono::steady_clock::now() >= deadline) return false;
  }
}

// The region state word: generation (32 bits) | parts (16) | next unclaimed part (16).
constexpr uint64_t Pack(uint32_t generation, uint32_t parts, uint32_t next) {
  return (static_cast<uint64_t>(generation) << 32) | (static_cast<uint64_t>(parts) << 16) | next;
}
constexpr uint32_t Generation(uint64_t s) { return static_cast<uint32_t>(s >> 32); }
constexpr uint32_t Parts(uint64_t s) { return static_cast<uint32_t>(s >> 16) & 0xffff; }
constexpr uint32_t Next(uint64_t s) { return static_cast<uint32_t>(s) & 0xffff; }
static_assert(kMaxTeamSize < 0xffff, "parts must fit the state word");

class Team;

// What a thread is doing inside a region.
struct PartContext {
  bool in_region = false;
  Team* team = nullptr;  // the region's team; null outside one and in a team of one
  int part = 0;
  int parts = 1;
  int caller_threads = 0;
  int active_levels = 0;  // enclosing regions of more than one part
};
thread_local PartContext context;

class Team {
 public:
  Team() = default;
  Team(const Team&) = delete;
  Team& operator=(const Team&) = delete;

  ~Team() {
    stop_.store(true, std::memory_order_seq_cst);
    wake_seq_.fetch_add(1, std::memory_order_seq_cst);
    FutexWakeAll(&wake_seq_);
    for (std::thread& t : workers_) t.join();
    workers_alive.fetch_sub(static_cast<int>(workers_.size()), std::memory_order_relaxed);
  }

  void Run(void (*fn)(void*), void* data, int parts, int caller_threads, int active_levels) {
    while (static_cast<int>(workers_.size()) < parts - 1) {
      const int index = static_cast<int>(workers_.size());
      workers_.emplace_back([this, index] { WorkerLoop(index); });
      workers_alive.fetch_add(1, std::memory_order_relaxed);
    }
    regions_run.fetch_add(1, std::memory_order_relaxed);
    fn_.store(fn, std::memory_order_relaxed);
    data_.store(data, std::memory_order_relaxed);
    caller_threads_.store(caller_threads, std::memory_order_relaxed);
    active_levels_.store(active_levels, std::memory_order_relaxed);
    finished_.store(0, std::memory_order_relaxed);
    const uint32_t generation = ++generation_;
    // Part 0 is the caller's: the workers start claiming at 1.
    state_.store(Pack(generation, parts, 1), std::memory_order_seq_cst);
    WakeWorkers();

    RunPart(0, parts);
    int part = 0;
    while (Claim(generation, &part)) RunPart(part, parts);

    // Join: only parts already under way are left.
    const uint32_t all = static_cast<uint32_t>(parts);
    if (!SpinUntil([&] { return finished_.load(std::memory_order_acquire) == all; })) {
      caller_waiting_.store(1, std::memory_order_seq_cst);
      for (uint32_t f = finished_.load(std::memory_order_seq_cst); f != all;
           f = finished_.load(std::memory_order_seq_cst)) {
        FutexWait(&finished_, f);
      }
      caller_waiting_.store(0, std::memory_order_relaxed);
    }
  }

  // Every part of the region calls it; returns when all `parts` have.
  void Barrier(int parts) {
    const uint32_t phase = barrier_phase_.load(std::memory_order_acquire);
    if (barrier_arrived_.fetch_add(1, std::memory_order_acq_rel) + 1 ==
        static_cast<uint32_t>(parts)) {
      barrier_arrived_.store(0, std::memory_order_relaxed);
      barrier_phase_.fetch_add(1, std::memory_order_seq_cst);
      if (barrier_sleepers_.load(std::memory_order_seq_cst) > 0) FutexWakeAll(&barrier_phase_);
      return;
    }
    // Parts no thread has claimed yet must get one: a worker that sleeps is
    // woken (the caller's own parts are all claimed by now or under way).
    const uint64_t s = state_.load(std::memory_order_acquire);
    if (Next(s) < Parts(s)) WakeWorkers();
    auto passed = [&] { return barrier_phase_.load(std::memory_order_acquire) != phase; };
    if (SpinUntil(passed)) return;
    barrier_sleepers_.fetch_add(1, std::memory_order_seq_cst);
    while (barrier_phase_.load(std::memory_order_seq_cst) == phase) {
      FutexWait(&barrier_phase_, phase);
    }
    barrier_sleepers_.fetch_sub(1, std::memory_order_relaxed);
  }

 private:
  void WakeWorkers() {
    wake_seq_.fetch_add(1, std::memory_order_seq_cst);
    if (sleepers_.load(std::memory_order_seq_cst) > 0) FutexWakeAll(&wake_seq_);
  }

  // Takes the next unclaimed part of region `generation`, if any.
  bool Claim(uint32_t generation, int* part) {
    uint64_t s = state_.load(std::memory_order_acquire);
    for (;;) {
      if (Generation(s) != generation || Next(s) >= Parts(s)) return false;
      if (state_.compare_exchange_weak(s, s + 1, std::memory_order_acq_rel,
                                       std::memory_order_acquire)) {
        *part = static_cast<int>(Next(s));
        return true;
      }
    }
  }

  void RunPart(int part, int parts) {
    const PartContext saved = context;
    const int levels = active_levels_.load(std::memory_order_relaxed);
    context = PartContext{true, this, part, parts,
                          caller_threads_.load(std::memory_order_relaxed), levels + 1};
    fn_.load(std::memory_order_relaxed)(data_.load(std::memory_order_relaxed));
    context = saved;
    if (finished_.fetch_add(1, std::memory_order_seq_cst) + 1 == static_cast<uint32_t>(parts) &&
        caller_waiting_.load(std::memory_order_seq_cst) != 0) {
      FutexWakeAll(&finished_);
    }
  }

  void WorkerLoop(int index) {
    const std::string name = "smrt-team-" + std::to_string(index);
    pthread_setname_np(pthread_self(), name.c_str());
    uint32_t seen = 0;  // the last generation this worker looked at
    for (;;) {
      const uint32_t wake = wake_seq_.load(std::memory_order_seq_cst);
      if (stop_.load(std::memory_order_acquire)) return;
      uint64_t s = state_.load(std::memory_order_acquire);
      if (Generation(s) != seen) {
        seen = Generation(s);
        int part = 0;
        while (Claim(seen, &part)) {
          // fn and data are the region's: the claim succeeded, so the region
          // is open, and the caller writes them only between regions.
          worker_parts.fetch_add(1, std::memory_order_relaxed);
          RunPart(part, static_cast<int>(Parts(s)));
        }
        continue;
      }
      auto news = [&] {
        return Generation(state_.load(std::memory_order_acquire)) != seen ||
               stop_.load(std::memory_order_relaxed);
      };
      if (SpinUntil(news)) continue;
      sleepers_.fetch_add(1, std::memory_order_seq_cst);
      if (!news()) FutexWait(&wake_seq_, wake);
      sleepers_.fetch_sub(1, std::memory_order_seq_cst);
    }
  }

  // Written by the caller between regions, read by the parts.
  std::atomic<void (*)(void*)> fn_{nullptr};
  std::atomic<void*> data_{nullptr};
  std::atomic<int> caller_threads_{0};
  std::atomic<int> active_levels_{0};
  uint32_t generation_ = 0;  // the caller's only

  alignas(64) std::atomic<uint64_t> state_{0};
  alignas(64) std::atomic<uint32_t> finished_{0};  // parts done; the caller sleeps on it
  std::atomic<uint32_t> caller_waiting_{0};
  alignas(64) std::atomic<uint32_t> wake_seq_{0};  // idle workers sleep on it
  std::atomic<int> sleepers_{0};
  std::atomic<bool> stop_{false};
  alignas(64) std::atomic<uint32_t> barrier_arrived_{0};
  std::atomic<uint32_t> barrier_phase_{0};
  std::atomic<int> barrier_sleepers_{0};
  std::vector<std::thread> workers_;
};

Team& ThisThreadsTeam() {
  thread_local std::unique_ptr<Team> team = std::make_unique<Team>();
  return *team;
}

}  // namespace

void RunTeam(void (*fn)(void*), void* data, int n) {
  n = std::min(n, kMaxTeamSize);
  if (context.in_region || n <= 1) {
    // Nested, or one part: run on the caller as a team of one. Inside a
    // region the caller's count and active levels carry on.
    const PartContext saved = context;
    if (!saved.in_region) context.caller_threads = IntraOpThreads();
    context.in_region = true;
    context.team = nullptr;
    context.part = 0;
    context.parts = 1;
    fn(data);
    context = saved;
    return;
  }
  ThisThreadsTeam().Run(fn, data, n, IntraOpThreads(), context.active_levels);
}

int TeamThreadNum() { return context.in_region ? context.part : 0; }
int TeamNumThreads() { return context.in_region ? context.parts : 1; }
bool InTeamRegion() { return context.active_levels > 0; }
bool InTeam() { return context.in_region; }
int TeamCallerThreads() { return context.in_region ? context.caller_threads : 0; }

void TeamBarrier() {
  if (context.team == nullptr || context.parts <= 1) return;  // a team of one
  context.team->Barrier(context.parts);
}

TeamCounters GetTeamCounters() {
  TeamCounters c;
  c.regions = regions_run.load(std::memory_order_relaxed);
  c.parts_by_workers = worker_parts.load(std::memory_order_relaxed);
  c.workers = workers_alive.load(std::memory_order_relaxed);
  return c;
}

int TeamSpinMicros() { return SpinMicros().load(std::memory_order_relaxed); }
void SetTeamSpinMicros(int micros) {
  SpinMicros().store(std::max(0, micros), std::memory_order_relaxed);
}

}  // namespace smrt::kernels
