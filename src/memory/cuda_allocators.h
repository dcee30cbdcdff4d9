// The CUDA side of src/memory, over the dlopen'd libcudart (never a CUDA
// header): the backing for a BFC arena on a GPU, the stream-ordered pool
// allocator (cudaMallocAsync), and the factory that picks one from
// GpuAllocatorOptions. Compiled in every build; exercised on a real GPU only
// by the GPU tests, and here through a fake CudaRuntimeApi.
#ifndef SMRT_MEMORY_CUDA_ALLOCATORS_H_
#define SMRT_MEMORY_CUDA_ALLOCATORS_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "device/cuda_runtime.h"
#include "memory/allocator.h"
#include "memory/allocator_options.h"
#include "memory/sub_allocator.h"

namespace smrt::memory {

// Regions for a BFC arena from cudaMalloc on one device; MemoryInfo from
// cudaMemGetInfo. `api` must outlive it.
class CudaSubAllocator : public SubAllocator {
 public:
  CudaSubAllocator(const device::CudaRuntimeApi& api, int device) : api_(api), device_(device) {}
  void* Alloc(size_t alignment, size_t bytes) override;
  void Free(void* ptr, size_t bytes) override;
  std::optional<BackingMemoryInfo> MemoryInfo() const override;
  std::string name() const override { return "cuda:" + std::to_string(device_); }

 private:
  const device::CudaRuntimeApi& api_;
  const int device_;
};

// An allocator whose frees (and allocations) are ordered on a stream: memory
// freed on a stream is reused by later work on that stream without a
// synchronization.
class StreamOrderedAllocator : public Allocator {
 public:
  using Stream = void*;  // a cudaStream_t; nullptr is the legacy default stream

  // As Allocate, ordered on `stream`: the memory is usable by work queued
  // on `stream` after this call.
  virtual absl::StatusOr<void*> AllocateOnStream(size_t bytes, absl::string_view name,
                                                 Stream stream) = 0;
  // Returns `ptr` once work already queued on `stream` is done.
  virtual void DeallocateOnStream(void* ptr, Stream stream) = 0;
};

struct CudaAsyncOptions {
  int64_t memory_limit_bytes = 0;  // 0: memory_fraction of the device's free memory
  double memory_fraction = 0.9;
  uint64_t release_threshold_bytes = 0;  // 0: the limit
  // The stream Allocate/Deallocate use; nullptr is the default stream.
  StreamOrderedAllocator::Stream stream = nullptr;
};

// cudaMallocFromPoolAsync / cudaFreeAsync on the device's default memory
// pool, with its release threshold set so the pool keeps freed memory cached
// (TensorFlow's cuda_malloc_async). The limit is enforced here, on rounded
// sizes, so going over it is a ResourceExhausted error naming the tensor
// before the driver is asked. TrimMemory synchronizes the stream and trims
// the pool to zero.
class CudaAsyncAllocator : public StreamOrderedAllocator {
 public:
  // FailedPrecondition when the device does not support memory pools;
  // Internal with the CUDA error text when a pool call fails.
  static absl::StatusOr<std::unique_ptr<CudaAsyncAllocator>> Create(
      const device::CudaRuntimeApi& api, int device, const CudaAsyncOptions& options);

  absl::StatusOr<void*> Allocate(size_t bytes, absl::string_view name) override {
    return AllocateOnStream(bytes, name, stream_);
  }
  void Deallocate(void* ptr) override { DeallocateOnStream(ptr, stream_); }
  absl::StatusOr<void*> AllocateOnStream(size_t bytes, absl::string_view name,
                                         Stream stream) override;
  void DeallocateOnStream(void* ptr, Stream stream) override;
  // bytes_reserved is the pool's reserved memory; largest_free_chunk and
  // fragmentation are 0 (the pool does not expose its layout).
  AllocatorStats GetStats() const override;
  void ResetPeak() override;
  int64_t TrimMemory() override;
  const std::string& name() const override { return name_; }

  uint64_t release_threshold() const { return release_threshold_; }

 private:
  CudaAsyncAllocator(const device::CudaRuntimeApi& api, int device, void* pool, size_t limit,
                     uint64_t release_threshold, Stream stream);
  uint64_t PoolReserved() const;

  const device::CudaRuntimeApi& api_;
  const int device_;
  void* const pool_;
  const size_t limit_;
  const uint64_t release_threshold_;
  const Stream stream_;
  const std::string name_;

  mutable std::mutex mu_;
  absl::flat_hash_map<void*, size_t> sizes_;
  size_t bytes_in_use_ = 0;
  size_t peak_bytes_in_use_ = 0;
  size_t largest_alloc_ = 0;
  int64_t num_allocs_ = 0;
};

// The allocator for CUDA device `device` that `options` asks for: a BFC
// arena over CudaSubAllocator ("cuda:N_bfc") or CudaAsyncAllocator
// ("cuda:N_malloc_async"), which allocates and frees in the order of
// `stream` (a cudaStream_t; nullptr: the default stream).
absl::StatusOr<std::unique_ptr<Allocator>> CreateCudaAllocator(const device::CudaRuntimeApi& api,
                                                               int device,
                                                               const GpuAllocatorOptions& options,
                                                               void* stream = nullptr);

}  // namespace smrt::memory

#endif  // SMRT_MEMORY_CUDA_ALLOCATORS_H_
