#include "memory/cuda_allocators.h"

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/log.h"
#include "memory/bfc_allocator.h"

namespace smrt::memory {

using device::CudaRuntimeApi;
using device::kCudaSuccess;

void* CudaSubAllocator::Alloc(size_t alignment, size_t bytes) {
  if (api_.SetDevice(device_) != kCudaSuccess) return nullptr;
  void* p = nullptr;
  if (api_.Malloc(&p, bytes) != kCudaSuccess) return nullptr;
  if (reinterpret_cast<uintptr_t>(p) % alignment != 0) {  // cudaMalloc gives 256; be sure
    api_.Free(p);
    return nullptr;
  }
  return p;
}

void CudaSubAllocator::Free(void* ptr, size_t) {
  if (api_.SetDevice(device_) == kCudaSuccess) api_.Free(ptr);
}

std::optional<BackingMemoryInfo> CudaSubAllocator::MemoryInfo() const {
  size_t free_bytes = 0, total_bytes = 0;
  if (api_.SetDevice(device_) != kCudaSuccess ||
      api_.MemGetInfo(&free_bytes, &total_bytes) != kCudaSuccess) {
    return std::nullopt;
  }
  return BackingMemoryInfo{free_bytes, total_bytes};
}

absl::StatusOr<std::unique_ptr<CudaAsyncAllocator>> CudaAsyncAllocator::Create(
    const CudaRuntimeApi& api, int device, const CudaAsyncOptions& options) {
  const std::string where = absl::StrCat("cuda_malloc_async on cuda:", device);
  auto failed = [&](const char* call, int err) {
    return absl::InternalError(absl::StrCat(where, ": ", call, " failed: ", api.ErrorText(err)));
  };
  if (!(options.memory_fraction > 0 && options.memory_fraction <= 1)) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, ": memory_fraction must be in (0, 1], got ", options.memory_fraction));
  }
  if (options.memory_limit_bytes < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, ": memory_limit_bytes must be 0 or more, got ", options.memory_limit_bytes));
  }
  if (int err = api.SetDevice(device); err != kCudaSuccess) return failed("cudaSetDevice", err);
  int pools = 0;
  if (int err = api.DeviceGetAttribute(&pools, device::kCudaDevAttrMemoryPoolsSupported, device);
      err != kCudaSuccess) {
    return failed("cudaDeviceGetAttribute(cudaDevAttrMemoryPoolsSupported)", err);
  }
  if (pools == 0) {
    return absl::FailedPreconditionError(
        absl::StrCat(where, ": the device or driver does not support memory pools; use "
                            "SMRT_GPU_ALLOCATOR=bfc"));
  }
  size_t limit = static_cast<size_t>(options.memory_limit_bytes);
  if (limit == 0) {
    size_t free_bytes = 0, total_bytes = 0;
    if (int err = api.MemGetInfo(&free_bytes, &total_bytes); err != kCudaSuccess) {
      return failed("cudaMemGetInfo", err);
    }
    limit = static_cast<size_t>(static_cast<double>(free_bytes) * options.memory_fraction);
  }
  void* pool = nullptr;
  if (int err = api.DeviceGetDefaultMemPool(&pool, device); err != kCudaSuccess) {
    return failed("cudaDeviceGetDefaultMemPool", err);
  }
  uint64_t threshold =
      options.release_threshold_bytes != 0 ? options.release_threshold_bytes : limit;
  if (int err = api.MemPoolSetAttribute(pool, device::kCudaMemPoolAttrReleaseThreshold,
                                        &threshold);
      err != kCudaSuccess) {
    return failed("cudaMemPoolSetAttribute(cudaMemPoolAttrReleaseThreshold)", err);
  }
  return std::unique_ptr<CudaAsyncAllocator>(
      new CudaAsyncAllocator(api, device, pool, limit, threshold, options.stream));
}

CudaAsyncAllocator::CudaAsyncAllocator(const CudaRuntimeApi& api, int device, void* pool,
                                       size_t limit, uint64_t release_threshold, Stream stream)
    : api_(api),
      device_(device),
      pool_(pool),
      limit_(limit),
      release_threshold_(release_threshold),
      stream_(stream),
      name_(absl::StrCat("cuda:", device, "_malloc_async")) {}

absl::StatusOr<void*> CudaAsyncAllocator::AllocateOnStream(size_t bytes, absl::string_view name,
                                                           Stream stream) {
  if (bytes == 0) return nullptr;
  size_t rounded = 0;
  if (!RoundUpToAlignment(bytes, &rounded)) {
    return absl::ResourceExhaustedError(absl::StrCat("allocator ", name_, ": tensor '", name,
                                                     "' asks for ", bytes,
                                                     " bytes, more than any device holds"));
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (rounded > limit_ - std::min(limit_, bytes_in_use_)) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "out of memory in ", name_, " allocating tensor '", name, "' of ",
        HumanBytes(static_cast<int64_t>(bytes)), ": in use ",
        HumanBytes(static_cast<int64_t>(bytes_in_use_)), " of a limit of ",
        HumanBytes(static_cast<int64_t>(limit_))));
  }
  void* p = nullptr;
  if (int err = api_.SetDevice(device_); err != kCudaSuccess) {
    return absl::InternalError(absl::StrCat(name_, ": cudaSetDevice failed: ", api_.ErrorText(err)));
  }
  if (int err = api_.MallocFromPoolAsync(&p, rounded, pool_, stream); err != kCudaSuccess) {
    const std::string text = absl::StrCat("cudaMallocFromPoolAsync failed allocating tensor '",
                                          name, "' of ", HumanBytes(static_cast<int64_t>(bytes)),
                                          " in ", name_, ": ", api_.ErrorText(err));
    if (err == device::kCudaErrorMemoryAllocation) return absl::ResourceExhaustedError(text);
    return absl::InternalError(text);
  }
  sizes_[p] = rounded;
  bytes_in_use_ += rounded;
  peak_bytes_in_use_ = std::max(peak_bytes_in_use_, bytes_in_use_);
  largest_alloc_ = std::max(largest_alloc_, rounded);
  ++num_allocs_;
  return p;
}

void CudaAsyncAllocator::DeallocateOnStream(void* ptr, Stream stream) {
  if (ptr == nullptr) return;
  std::unique_lock<std::mutex> lock(mu_);
  auto it = sizes_.find(ptr);
  if (it == sizes_.end()) {
    lock.unlock();  // the sink runs on this thread
    Log(LogLevel::kError,
        absl::StrFormat("%s: ignoring free of %p, which it did not allocate", name_, ptr));
    return;
  }
  bytes_in_use_ -= it->second;
  sizes_.erase(it);
  if (int err = api_.FreeAsync(ptr, stream); err != kCudaSuccess) {
    lock.unlock();
    Log(LogLevel::kError, absl::StrCat(name_, ": cudaFreeAsync failed: ", api_.ErrorText(err)));
  }
}

uint64_t CudaAsyncAllocator::PoolReserved() const {
  uint64_t reserved = 0;
  if (api_.MemPoolGetAttribute(const_cast<void*>(pool_), device::kCudaMemPoolAttrReservedMemCurrent,
                               &reserved) != kCudaSuccess) {
    return 0;
  }
  return reserved;
}

AllocatorStats CudaAsyncAllocator::GetStats() const {
  std::lock_guard<std::mutex> lock(mu_);
  AllocatorStats s;
  s.bytes_in_use = static_cast<int64_t>(bytes_in_use_);
  s.peak_bytes_in_use = static_cast<int64_t>(peak_bytes_in_use_);
  s.bytes_limit = static_cast<int64_t>(limit_);
  s.bytes_reserved = static_cast<int64_t>(PoolReserved());
  s.num_allocs = num_allocs_;
  s.num_live_allocs = static_cast<int64_t>(sizes_.size());
  s.largest_alloc_size = static_cast<int64_t>(largest_alloc_);
  s.total_free = std::max<int64_t>(0, s.bytes_reserved - s.bytes_in_use);
  return s;
}

void CudaAsyncAllocator::ResetPeak() {
  std::lock_guard<std::mutex> lock(mu_);
  peak_bytes_in_use_ = bytes_in_use_;
}

int64_t CudaAsyncAllocator::TrimMemory() {
  std::lock_guard<std::mutex> lock(mu_);
  const uint64_t before = PoolReserved();
  // Frees queued on the stream return to the pool only once they run.
  if (api_.StreamSynchronize(stream_) != kCudaSuccess) return 0;
  if (api_.MemPoolTrimTo(pool_, 0) != kCudaSuccess) return 0;
  const uint64_t after = PoolReserved();
  return before > after ? static_cast<int64_t>(before - after) : 0;
}

absl::StatusOr<std::unique_ptr<Allocator>> CreateCudaAllocator(const CudaRuntimeApi& api,
                                                               int device,
                                                               const GpuAllocatorOptions& options,
                                                               void* stream) {
  if (options.kind == GpuAllocatorKind::kCudaMallocAsync) {
    CudaAsyncOptions async;
    async.stream = stream;
    async.memory_limit_bytes = options.bfc.memory_limit_bytes;
    async.memory_fraction = options.bfc.memory_fraction;
    async.release_threshold_bytes = options.release_threshold_bytes;
    absl::StatusOr<std::unique_ptr<CudaAsyncAllocator>> a =
        CudaAsyncAllocator::Create(api, device, async);
    if (!a.ok()) return a.status();
    return std::unique_ptr<Allocator>(*std::move(a));
  }
  if (int err = api.SetDevice(device); err != kCudaSuccess) {
    return absl::InvalidArgumentError(absl::StrCat("CUDA device ", device,
                                                   ": cudaSetDevice failed: ", api.ErrorText(err)));
  }
  absl::StatusOr<std::unique_ptr<BfcAllocator>> b =
      BfcAllocator::Create(std::make_unique<CudaSubAllocator>(api, device), options.bfc,
                           absl::StrCat("cuda:", device, "_bfc"));
  if (!b.ok()) return b.status();
  return std::unique_ptr<Allocator>(*std::move(b));
}

}  // namespace smrt::memory
