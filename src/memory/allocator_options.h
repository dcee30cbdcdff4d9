// How a GPU arena is chosen and sized: the options of TensorFlow's
// GPUOptions (allow_growth, per_process_gpu_memory_fraction, a virtual
// device's memory_limit) and TF_GPU_ALLOCATOR, with the environment read in
// one place:
//   SMRT_GPU_ALLOCATOR=bfc|cuda_malloc_async   (like TF_GPU_ALLOCATOR)
//   SMRT_GPU_ALLOW_GROWTH=true|false            (like TF_FORCE_GPU_ALLOW_GROWTH;
//                                                also 1|0, any case)
// An empty variable counts as unset; any other value is an error that names
// the variable, the value and what it accepts.
#ifndef SMRT_MEMORY_ALLOCATOR_OPTIONS_H_
#define SMRT_MEMORY_ALLOCATOR_OPTIONS_H_

#include <cstdint>
#include <functional>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "memory/bfc_allocator.h"

namespace smrt::memory {

enum class GpuAllocatorKind {
  kBfc,              // BfcAllocator over cudaMalloc'd regions (TensorFlow's default)
  kCudaMallocAsync,  // cudaMallocAsync / cudaFreeAsync on the device's cudaMemPool
};

struct GpuAllocatorOptions {
  GpuAllocatorKind kind = GpuAllocatorKind::kBfc;
  // allow_growth, memory_fraction, memory_limit_bytes; the async mode uses
  // the limit the same way and ignores allow_growth (the pool always grows).
  BfcOptions bfc;
  // cuda_malloc_async: bytes the pool keeps cached across stream
  // synchronizations instead of returning them to the driver; 0 = the limit
  // (as TensorFlow's cuda_malloc_async allocator does).
  uint64_t release_threshold_bytes = 0;
};

absl::string_view GpuAllocatorKindName(GpuAllocatorKind kind);  // "bfc", ...
absl::StatusOr<GpuAllocatorKind> ParseGpuAllocatorKind(absl::string_view text);

// Reads an environment variable; nullptr when unset. Tests pass a fake.
using EnvLookup = std::function<const char*(const char* name)>;

// `options` with SMRT_GPU_ALLOCATOR and SMRT_GPU_ALLOW_GROWTH applied over
// it (the environment wins, as TF_FORCE_GPU_ALLOW_GROWTH does).
absl::StatusOr<GpuAllocatorOptions> ApplyGpuAllocatorEnvironment(
    GpuAllocatorOptions options, const EnvLookup& getenv);
absl::StatusOr<GpuAllocatorOptions> ApplyGpuAllocatorEnvironment(GpuAllocatorOptions options);

}  // namespace smrt::memory

#endif  // SMRT_MEMORY_ALLOCATOR_OPTIONS_H_
