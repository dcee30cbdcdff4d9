// Where an arena gets its memory from: large blocks ("regions") from the OS
// for the host arena, cudaMalloc for a CUDA arena, a recording fake in tests.
// The arena calls it rarely (on growth and trim), always under its own lock.
#ifndef SMRT_MEMORY_SUB_ALLOCATOR_H_
#define SMRT_MEMORY_SUB_ALLOCATOR_H_

#include <cstddef>
#include <optional>
#include <string>

namespace smrt::memory {

struct BackingMemoryInfo {
  size_t free_bytes = 0;   // what could still be obtained now
  size_t total_bytes = 0;  // the device's (or machine's) total
};

class SubAllocator {
 public:
  virtual ~SubAllocator() = default;

  // `bytes` bytes aligned to `alignment` (a power of two), or nullptr when
  // the backing is out of memory. Must not abort.
  virtual void* Alloc(size_t alignment, size_t bytes) = 0;

  // Releases a block Alloc returned, with the size it was asked for.
  virtual void Free(void* ptr, size_t bytes) = 0;

  // Free and total memory of what backs this allocator, or nullopt when it
  // cannot tell. Used by allow_growth=false to size the reservation.
  virtual std::optional<BackingMemoryInfo> MemoryInfo() const = 0;

  // "host", "cuda:0".
  virtual std::string name() const = 0;
};

// Host memory from aligned_alloc; MemoryInfo from /proc/meminfo
// (MemAvailable, MemTotal).
class HostSubAllocator : public SubAllocator {
 public:
  void* Alloc(size_t alignment, size_t bytes) override;
  void Free(void* ptr, size_t bytes) override;
  std::optional<BackingMemoryInfo> MemoryInfo() const override;
  std::string name() const override { return "host"; }
};

}  // namespace smrt::memory

#endif  // SMRT_MEMORY_SUB_ALLOCATOR_H_
