// The host BFC arena against the system allocator, for the sizes tensors
// have: one thread and contended. Build with -DSMRT_BUILD_BENCHMARKS=ON; run
//   build/bin/smrt_allocator_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <cstdlib>
#include <memory>
#include <random>
#include <vector>

#include "benchmark/benchmark.h"
#include "memory/bfc_allocator.h"

namespace smrt::memory {
namespace {

std::vector<size_t> TensorSizes() {  // 256 B .. 4 MiB, log-uniform, fixed seed
  std::mt19937 rng(42);
  std::vector<size_t> sizes(1024);
  for (size_t& s : sizes) s = size_t{256} << (rng() % 15);
  return sizes;
}

BfcAllocator& SharedArena() {
  static BfcAllocator* arena = [] {
    BfcOptions o;
    o.allow_growth = true;
    return BfcAllocator::Create(std::make_unique<HostSubAllocator>(), o, "bench_bfc")
        ->release();
  }();
  return *arena;
}

// Allocates 16 live blocks, frees them in a rotating order: a pattern of
// activations whose lifetimes overlap.
void BM_BfcAllocFree(benchmark::State& state) {
  BfcAllocator& arena = SharedArena();
  const std::vector<size_t> sizes = TensorSizes();
  std::vector<void*> live(16, nullptr);
  size_t i = 0;
  for (auto _ : state) {
    void*& slot = live[i % live.size()];
    arena.Deallocate(slot);
    slot = *arena.Allocate(sizes[i % sizes.size()], "bench");
    // Not DoNotOptimize(slot): GCC 12 with benchmark's "+m,r" constraint lost
    // the store to `live` here; the vector is memory, so a clobber is enough.
    benchmark::ClobberMemory();
    ++i;
  }
  for (void* p : live) arena.Deallocate(p);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_BfcAllocFree)->ThreadRange(1, 4)->UseRealTime();

void BM_AlignedAllocFree(benchmark::State& state) {
  const std::vector<size_t> sizes = TensorSizes();
  std::vector<void*> live(16, nullptr);
  size_t i = 0;
  for (auto _ : state) {
    void*& slot = live[i % live.size()];
    std::free(slot);
    slot = std::aligned_alloc(256, sizes[i % sizes.size()]);
    benchmark::ClobberMemory();
    ++i;
  }
  for (void* p : live) std::free(p);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_AlignedAllocFree)->ThreadRange(1, 4)->UseRealTime();

}  // namespace
}  // namespace smrt::memory

BENCHMARK_MAIN();
