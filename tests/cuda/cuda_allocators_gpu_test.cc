// The allocators of src/memory on a real GPU, through the dlopen'd libcudart:
// the BFC arena over cudaMalloc (growth and a fixed reservation) and
// cuda_malloc_async, each writing and reading back device memory, keeping
// stats, refusing to go over a limit, and giving memory back on trim.
// Skips with the CUDA error when no device is visible.
#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "device/cuda_runtime.h"
#include "gtest/gtest.h"
#include "memory/cuda_allocators.h"

namespace smrt::memory {
namespace {

constexpr size_t MiB = 1024 * 1024;

const device::CudaRuntimeApi* ApiOrSkipReason(std::string* why) {
  absl::StatusOr<const device::CudaRuntimeApi*> api = device::LoadCudaRuntime();
  if (!api.ok()) {
    *why = std::string(api.status().message());
    return nullptr;
  }
  int count = 0;
  if (int err = (*api)->GetDeviceCount(&count); err != 0 || count == 0) {
    *why = err != 0 ? absl::StrCat("no CUDA device: cudaGetDeviceCount failed: ",
                                   (*api)->ErrorText(err))
                    : "no CUDA device: cudaGetDeviceCount reports 0";
    return nullptr;
  }
  return *api;
}

void ExerciseOnDevice(Allocator& a) {
  std::vector<void*> blocks;
  for (size_t bytes : {size_t{1000}, 3 * MiB, 17 * MiB}) {
    absl::StatusOr<void*> p = a.Allocate(bytes, "gpu_tensor");
    ASSERT_TRUE(p.ok()) << a.name() << ": " << p.status();
    ASSERT_EQ(reinterpret_cast<uintptr_t>(*p) % kAllocatorAlignment, 0u);
    std::vector<uint8_t> host(bytes), back(bytes);
    for (size_t i = 0; i < bytes; ++i) host[i] = static_cast<uint8_t>(i * 7 + 1);
    ASSERT_EQ(cudaMemcpy(*p, host.data(), bytes, cudaMemcpyHostToDevice), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(back.data(), *p, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
    ASSERT_EQ(host, back) << a.name();
    blocks.push_back(*p);
  }
  AllocatorStats s = a.GetStats();
  EXPECT_EQ(s.num_live_allocs, 3) << a.name();
  EXPECT_GE(s.bytes_in_use, static_cast<int64_t>(20 * MiB + 1000)) << a.name();
  EXPECT_GE(s.bytes_reserved, s.bytes_in_use) << a.name();
  for (void* p : blocks) a.Deallocate(p);
  EXPECT_EQ(a.GetStats().bytes_in_use, 0) << a.name();
  EXPECT_GT(a.TrimMemory(), 0) << a.name();
}

TEST(CudaAllocatorsGpuTest, EveryModeAllocatesRealDeviceMemory) {
  std::string why;
  const device::CudaRuntimeApi* api = ApiOrSkipReason(&why);
  if (api == nullptr) GTEST_SKIP() << why;
  GpuAllocatorOptions growth;
  growth.bfc.allow_growth = true;
  GpuAllocatorOptions fixed;
  fixed.bfc.allow_growth = false;
  fixed.bfc.memory_fraction = 0.05;
  GpuAllocatorOptions async;
  async.kind = GpuAllocatorKind::kCudaMallocAsync;
  for (const GpuAllocatorOptions& o : {growth, fixed, async}) {
    absl::StatusOr<std::unique_ptr<Allocator>> a = CreateCudaAllocator(*api, 0, o);
    ASSERT_TRUE(a.ok()) << a.status();
    ExerciseOnDevice(**a);
  }
}

TEST(CudaAllocatorsGpuTest, LimitIsAnErrorNamingTheTensor) {
  std::string why;
  const device::CudaRuntimeApi* api = ApiOrSkipReason(&why);
  if (api == nullptr) GTEST_SKIP() << why;
  for (GpuAllocatorKind kind : {GpuAllocatorKind::kBfc, GpuAllocatorKind::kCudaMallocAsync}) {
    GpuAllocatorOptions o;
    o.kind = kind;
    o.bfc.memory_limit_bytes = 64 * MiB;
    absl::StatusOr<std::unique_ptr<Allocator>> a = CreateCudaAllocator(*api, 0, o);
    ASSERT_TRUE(a.ok()) << a.status();
    absl::StatusOr<void*> p = (*a)->Allocate(100 * MiB, "too_big:0");
    ASSERT_FALSE(p.ok());
    EXPECT_EQ(p.status().code(), absl::StatusCode::kResourceExhausted);
    EXPECT_TRUE(absl::StrContains(p.status().message(), "'too_big:0'")) << p.status();
  }
}

}  // namespace
}  // namespace smrt::memory
