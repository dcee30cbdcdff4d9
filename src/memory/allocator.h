// The allocator interface every arena in smrt implements: the BFC arena (host
// and CUDA share one implementation over different backings) and the
// stream-ordered CUDA pool allocator. Callers name what they allocate, so an
// out-of-memory error can say which tensor did not fit.
#ifndef SMRT_MEMORY_ALLOCATOR_H_
#define SMRT_MEMORY_ALLOCATOR_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace smrt::memory {

// Every pointer an Allocator returns is aligned to this many bytes (as
// TensorFlow's BFC allocator and cudaMalloc guarantee).
inline constexpr size_t kAllocatorAlignment = 256;

// A snapshot of an allocator, in bytes unless said otherwise. Mirrors
// tf.config.experimental.get_memory_info ("current", "peak") and adds what a
// deployer needs to size a limit and see fragmentation.
struct AllocatorStats {
  int64_t bytes_in_use = 0;       // held by live allocations (rounded sizes)
  int64_t peak_bytes_in_use = 0;  // high-water mark of bytes_in_use since creation/ResetPeak
  int64_t bytes_limit = 0;        // the most this allocator will hold; 0 = no limit
  int64_t bytes_reserved = 0;     // obtained from the backing (device or OS), used or not
  int64_t num_allocs = 0;         // successful allocations since creation
  int64_t num_live_allocs = 0;    // allocations not yet freed
  int64_t largest_alloc_size = 0; // largest single allocation since creation
  int64_t largest_free_chunk = 0; // largest block an allocation could get without growing
  int64_t total_free = 0;         // bytes_reserved - bytes_in_use
  int64_t num_regions = 0;        // blocks obtained from the backing
  // 1 - largest_free_chunk / total_free: 0 when all free memory is one block
  // (or there is none), near 1 when it is scattered in small pieces.
  double fragmentation = 0;

  std::string DebugString() const;
};

class Allocator {
 public:
  virtual ~Allocator() = default;

  // Returns `bytes` bytes aligned to kAllocatorAlignment, or
  // ResourceExhausted naming `name` (the tensor or buffer) and the size when
  // the request does not fit under the limit or the backing is out of
  // memory. Never aborts. A zero-byte request returns nullptr (OK), which
  // Deallocate accepts. Thread-safe.
  virtual absl::StatusOr<void*> Allocate(size_t bytes, absl::string_view name) = 0;

  // Frees a pointer this allocator returned (nullptr is a no-op). Thread-safe.
  virtual void Deallocate(void* ptr) = 0;

  virtual AllocatorStats GetStats() const = 0;

  // Sets peak_bytes_in_use to the current bytes_in_use.
  virtual void ResetPeak() = 0;

  // Returns every fully free block to the backing (device or OS); memory in
  // use is untouched. Returns the bytes released.
  virtual int64_t TrimMemory() = 0;

  // "host_bfc", "cuda:0_bfc", "cuda:0_malloc_async": for messages.
  virtual const std::string& name() const = 0;
};

// Rounds up to kAllocatorAlignment; false when that overflows size_t.
bool RoundUpToAlignment(size_t bytes, size_t* rounded);

// "1.50 MiB (1572864 bytes)": sizes in error messages.
std::string HumanBytes(int64_t bytes);

}  // namespace smrt::memory

#endif  // SMRT_MEMORY_ALLOCATOR_H_
