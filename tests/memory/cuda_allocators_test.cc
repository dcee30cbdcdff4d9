// The CUDA allocators' logic against a fake libcudart (a function table
// acting out a device with a memory pool), so it is tested on machines
// without a GPU. The real runtime is exercised by the GPU tests.
#include "memory/cuda_allocators.h"

#include <cstdint>
#include <map>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"

namespace smrt::memory {
namespace {

using device::CudaRuntimeApi;

constexpr size_t MiB = 1024 * 1024;

// One fake device: cudaMalloc hands out addresses from a counter, the pool
// tracks reserved bytes (freed memory stays reserved until trimmed).
struct FakeDevice {
  size_t free_bytes = 1024 * MiB;
  size_t total_bytes = 2048 * MiB;
  int pools_supported = 1;
  int pool_alloc_error = 0;  // cudaMallocFromPoolAsync returns this when set
  uintptr_t next = 0x7f0000000000;
  std::map<void*, size_t> live;
  std::vector<size_t> mallocs;         // cudaMalloc sizes
  std::vector<void*> streams_used;     // streams passed to pool calls
  uint64_t release_threshold = 0;
  uint64_t pool_reserved = 0;
  int syncs = 0;
  int trims = 0;
};
FakeDevice* g_dev = nullptr;
int g_fake_pool = 0;

void* NextAddress(size_t bytes) {
  void* p = reinterpret_cast<void*>(g_dev->next);
  g_dev->next += (bytes + 511) / 512 * 512;
  return p;
}

CudaRuntimeApi FakeApi() {
  CudaRuntimeApi api;
  api.SetDevice = [](int d) { return d == 0 ? 0 : 101; };  // cudaErrorInvalidDevice
  api.MemGetInfo = [](size_t* f, size_t* t) {
    *f = g_dev->free_bytes;
    *t = g_dev->total_bytes;
    return 0;
  };
  api.Malloc = [](void** p, size_t bytes) {
    if (bytes > g_dev->free_bytes) return 2;  // cudaErrorMemoryAllocation
    *p = NextAddress(bytes);
    g_dev->live[*p] = bytes;
    g_dev->free_bytes -= bytes;
    g_dev->mallocs.push_back(bytes);
    return 0;
  };
  api.Free = [](void* p) {
    g_dev->free_bytes += g_dev->live[p];
    g_dev->live.erase(p);
    return 0;
  };
  api.DeviceGetAttribute = [](int* v, int attr, int) {
    *v = attr == device::kCudaDevAttrMemoryPoolsSupported ? g_dev->pools_supported : 0;
    return 0;
  };
  api.DeviceGetDefaultMemPool = [](void** pool, int) {
    *pool = &g_fake_pool;
    return 0;
  };
  api.MemPoolSetAttribute = [](void* pool, int attr, void* value) {
    if (pool != &g_fake_pool || attr != device::kCudaMemPoolAttrReleaseThreshold) return 1;
    g_dev->release_threshold = *static_cast<uint64_t*>(value);
    return 0;
  };
  api.MemPoolGetAttribute = [](void*, int attr, void* value) {
    if (attr != device::kCudaMemPoolAttrReservedMemCurrent) return 1;
    *static_cast<uint64_t*>(value) = g_dev->pool_reserved;
    return 0;
  };
  api.MallocFromPoolAsync = [](void** p, size_t bytes, void* pool, void* stream) {
    if (pool != &g_fake_pool) return 1;
    if (g_dev->pool_alloc_error != 0) return g_dev->pool_alloc_error;
    *p = NextAddress(bytes);
    g_dev->live[*p] = bytes;
    g_dev->pool_reserved += bytes;
    g_dev->streams_used.push_back(stream);
    return 0;
  };
  api.FreeAsync = [](void* p, void* stream) {
    g_dev->live.erase(p);  // stays reserved in the pool
    g_dev->streams_used.push_back(stream);
    return 0;
  };
  api.StreamSynchronize = [](void*) {
    ++g_dev->syncs;
    return 0;
  };
  api.MemPoolTrimTo = [](void*, size_t keep) {
    ++g_dev->trims;
    uint64_t in_use = 0;
    for (auto& [p, b] : g_dev->live) in_use += b;
    g_dev->pool_reserved = std::max<uint64_t>(in_use, keep);
    return 0;
  };
  api.GetErrorName = [](int e) { return e == 2 ? "cudaErrorMemoryAllocation" : "cudaErrorUnknown"; };
  api.GetErrorString = [](int e) { return e == 2 ? "out of memory" : "unknown error"; };
  return api;
}

class CudaAllocatorsTest : public ::testing::Test {
 protected:
  void SetUp() override { g_dev = &dev_; }
  void TearDown() override { g_dev = nullptr; }
  FakeDevice dev_;
  CudaRuntimeApi api_ = FakeApi();
};

TEST_F(CudaAllocatorsTest, BfcOverCudaMallocReservesTheFractionAtStart) {
  GpuAllocatorOptions o;
  o.kind = GpuAllocatorKind::kBfc;
  o.bfc.allow_growth = false;
  o.bfc.memory_fraction = 0.5;
  auto a = CreateCudaAllocator(api_, 0, o);
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ((*a)->name(), "cuda:0_bfc");
  EXPECT_EQ(dev_.mallocs, std::vector<size_t>{512 * MiB});
  auto p = (*a)->Allocate(100 * MiB, "conv1/kernel");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(dev_.mallocs.size(), 1u);  // served from the reservation
  (*a)->Deallocate(*p);
  EXPECT_EQ((*a)->TrimMemory(), static_cast<int64_t>(512 * MiB));
  EXPECT_TRUE(dev_.live.empty());
}

TEST_F(CudaAllocatorsTest, BfcOverCudaMallocGrows) {
  GpuAllocatorOptions o;
  o.bfc.allow_growth = true;
  o.bfc.initial_region_bytes = 2 * MiB;
  auto a = CreateCudaAllocator(api_, 0, o);
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_TRUE(dev_.mallocs.empty());
  for (int i = 0; i < 3; ++i) ASSERT_TRUE((*a)->Allocate(2 * MiB, "x").ok());
  EXPECT_EQ(dev_.mallocs, (std::vector<size_t>{2 * MiB, 4 * MiB}));
  EXPECT_EQ((*a)->GetStats().bytes_limit, static_cast<int64_t>(1024 * MiB * 9 / 10 / 256 * 256));
}

TEST_F(CudaAllocatorsTest, BfcOnAMissingDeviceIsAnError) {
  GpuAllocatorOptions o;
  auto a = CreateCudaAllocator(api_, 3, o);
  EXPECT_EQ(a.status().code(), absl::StatusCode::kInvalidArgument) << a.status();
  EXPECT_TRUE(absl::StrContains(a.status().message(), "cudaSetDevice failed: cudaErrorUnknown"))
      << a.status();
}

TEST_F(CudaAllocatorsTest, AsyncSetsTheReleaseThresholdToTheLimit) {
  GpuAllocatorOptions o;
  o.kind = GpuAllocatorKind::kCudaMallocAsync;
  o.bfc.memory_limit_bytes = 64 * MiB;
  auto a = CreateCudaAllocator(api_, 0, o);
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ((*a)->name(), "cuda:0_malloc_async");
  EXPECT_EQ(dev_.release_threshold, 64 * MiB);
  EXPECT_EQ((*a)->GetStats().bytes_limit, static_cast<int64_t>(64 * MiB));
  o.release_threshold_bytes = 8 * MiB;
  a = CreateCudaAllocator(api_, 0, o);
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(dev_.release_threshold, 8 * MiB);
}

TEST_F(CudaAllocatorsTest, AsyncAllocatesOnItsStreamAndKeepsStats) {
  CudaAsyncOptions o;
  o.memory_limit_bytes = 64 * MiB;
  int stream_token = 0;
  o.stream = &stream_token;
  auto a = CudaAsyncAllocator::Create(api_, 0, o);
  ASSERT_TRUE(a.ok()) << a.status();
  auto p = (*a)->Allocate(1000, "bias");
  auto q = (*a)->Allocate(10 * MiB, "weights");
  ASSERT_TRUE(p.ok() && q.ok());
  EXPECT_EQ(dev_.live.at(*p), 1024u);  // rounded to 256
  int other = 0;
  auto r = (*a)->AllocateOnStream(1 * MiB, "scratch", &other);
  ASSERT_TRUE(r.ok());
  AllocatorStats s = (*a)->GetStats();
  EXPECT_EQ(s.bytes_in_use, static_cast<int64_t>(1024 + 11 * MiB));
  EXPECT_EQ(s.num_allocs, 3);
  EXPECT_EQ(s.num_live_allocs, 3);
  EXPECT_EQ(s.bytes_reserved, static_cast<int64_t>(1024 + 11 * MiB));
  (*a)->Deallocate(*q);
  (*a)->DeallocateOnStream(*r, &other);
  ASSERT_EQ(dev_.streams_used.size(), 5u);
  EXPECT_EQ(dev_.streams_used[0], &stream_token);
  EXPECT_EQ(dev_.streams_used[2], &other);
  EXPECT_EQ(dev_.streams_used[3], &stream_token);
  EXPECT_EQ(dev_.streams_used[4], &other);
  s = (*a)->GetStats();
  EXPECT_EQ(s.bytes_in_use, 1024);
  EXPECT_EQ(s.peak_bytes_in_use, static_cast<int64_t>(1024 + 11 * MiB));
  (*a)->ResetPeak();
  EXPECT_EQ((*a)->GetStats().peak_bytes_in_use, 1024);
  // Trim synchronizes the stream, then gives the pool's cached memory back.
  EXPECT_EQ((*a)->TrimMemory(), static_cast<int64_t>(11 * MiB));
  EXPECT_EQ(dev_.syncs, 1);
  EXPECT_EQ(dev_.trims, 1);
  EXPECT_EQ((*a)->GetStats().bytes_reserved, 1024);
  EXPECT_EQ(*(*a)->Allocate(0, "empty"), nullptr);
}

TEST_F(CudaAllocatorsTest, AsyncOverTheLimitNamesTheTensorBeforeAskingTheDriver) {
  CudaAsyncOptions o;
  o.memory_limit_bytes = 16 * MiB;
  auto a = CudaAsyncAllocator::Create(api_, 0, o);
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE((*a)->Allocate(10 * MiB, "a").ok());
  auto b = (*a)->Allocate(7 * MiB, "encoder/layer_3/attention:0");
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_TRUE(absl::StrContains(b.status().message(), "'encoder/layer_3/attention:0'"));
  EXPECT_TRUE(absl::StrContains(b.status().message(), "7340032 bytes")) << b.status();
  EXPECT_EQ(dev_.live.size(), 1u);  // the driver was not asked
  auto huge = (*a)->Allocate(~size_t{0}, "huge");
  EXPECT_EQ(huge.status().code(), absl::StatusCode::kResourceExhausted);
}

TEST_F(CudaAllocatorsTest, AsyncDriverOutOfMemoryIsResourceExhaustedWithTheCudaError) {
  CudaAsyncOptions o;
  auto a = CudaAsyncAllocator::Create(api_, 0, o);  // limit: 0.9 of 1 GiB free
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ((*a)->GetStats().bytes_limit, static_cast<int64_t>(1024 * MiB * 9 / 10));
  dev_.pool_alloc_error = 2;
  auto p = (*a)->Allocate(1 * MiB, "logits");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_TRUE(absl::StrContains(p.status().message(), "cudaErrorMemoryAllocation (2): out of memory"))
      << p.status();
  EXPECT_TRUE(absl::StrContains(p.status().message(), "'logits'")) << p.status();
  dev_.pool_alloc_error = 999;
  p = (*a)->Allocate(1 * MiB, "logits");
  EXPECT_EQ(p.status().code(), absl::StatusCode::kInternal) << p.status();
  EXPECT_EQ((*a)->GetStats().num_allocs, 0);
}

TEST_F(CudaAllocatorsTest, AsyncNeedsMemoryPools) {
  dev_.pools_supported = 0;
  auto a = CudaAsyncAllocator::Create(api_, 0, CudaAsyncOptions{});
  EXPECT_EQ(a.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(absl::StrContains(a.status().message(), "SMRT_GPU_ALLOCATOR=bfc")) << a.status();
  dev_.pools_supported = 1;
  a = CudaAsyncAllocator::Create(api_, 5, CudaAsyncOptions{});
  EXPECT_EQ(a.status().code(), absl::StatusCode::kInternal);
  EXPECT_TRUE(absl::StrContains(a.status().message(), "cudaSetDevice")) << a.status();
}

}  // namespace
}  // namespace smrt::memory
