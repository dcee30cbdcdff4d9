// A best-fit-with-coalescing arena in TensorFlow's design
// (tensorflow/core/common_runtime/bfc_allocator.h): memory comes from a
// SubAllocator in large regions; each region is cut into chunks; free chunks
// sit in size-class bins (bin i holds sizes in [256 << i, 256 << (i+1)), the
// last bin everything larger); an allocation takes the smallest free chunk
// that fits (best fit), splits off the rest when that is at least as large
// as the request, and a freed chunk merges with free neighbours on both
// sides. Device-agnostic: the host arena and a CUDA arena differ only in
// their SubAllocator.
//
// Sizing, as TensorFlow's GPU options:
//   limit = memory_limit_bytes when set, else memory_fraction of the
//           backing's free memory (no limit when the backing cannot tell);
//   allow_growth=false: the whole limit is reserved as one region at Create;
//   allow_growth=true: the first region is initial_region_bytes and each
//           later one doubles in size (capped by what the limit leaves).
// Going over the limit is a ResourceExhausted error, never an abort.
#ifndef SMRT_MEMORY_BFC_ALLOCATOR_H_
#define SMRT_MEMORY_BFC_ALLOCATOR_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "memory/allocator.h"
#include "memory/sub_allocator.h"

namespace smrt::memory {

struct BfcOptions {
  bool allow_growth = true;
  // Share of the backing's free memory the arena may hold, in (0, 1]; used
  // when memory_limit_bytes is 0.
  double memory_fraction = 0.9;
  // Hard cap in bytes; 0 = derive from memory_fraction.
  int64_t memory_limit_bytes = 0;
  // allow_growth: size of the first region (rounded up to 256 bytes).
  size_t initial_region_bytes = size_t{2} << 20;
};

class BfcAllocator : public Allocator {
 public:
  static constexpr int kNumBins = 21;
  static constexpr size_t kMinChunkSize = kAllocatorAlignment;
  // A chunk is split when the remainder is at least the request, or at
  // least this (so a huge chunk never serves a slightly smaller request whole).
  static constexpr size_t kMaxInternalFragmentation = size_t{128} << 20;

  // InvalidArgument for bad options (memory_fraction outside (0, 1], no way
  // to size a non-growing arena); ResourceExhausted when allow_growth=false
  // and the backing cannot provide the reservation.
  static absl::StatusOr<std::unique_ptr<BfcAllocator>> Create(
      std::unique_ptr<SubAllocator> backing, const BfcOptions& options, std::string name);

  // Returns every region to the backing, whether or not chunks are in use.
  ~BfcAllocator() override;

  absl::StatusOr<void*> Allocate(size_t bytes, absl::string_view name) override;
  void Deallocate(void* ptr) override;
  AllocatorStats GetStats() const override;
  void ResetPeak() override;
  int64_t TrimMemory() override;
  const std::string& name() const override { return name_; }

  // The bin a free chunk of `bytes` (a multiple of 256) lives in.
  static int BinForSize(size_t bytes);

  // Every chunk in address order within regions, regions in address order:
  // for tests and memory dumps.
  struct ChunkInfo {
    const void* ptr;
    size_t size;
    bool in_use;
    int region;  // index into the region order above
    int bin;     // -1 when in use
  };
  std::vector<ChunkInfo> Chunks() const;

  // Checks the arena's structure: chunks tile each region exactly, no two
  // free neighbours, every free chunk in its bin and no other, counters equal
  // to sums. OK, or Internal saying what is broken. For tests.
  absl::Status CheckInvariants() const;

 private:
  using ChunkHandle = int32_t;
  static constexpr ChunkHandle kNone = -1;
  struct Chunk {
    char* ptr = nullptr;
    size_t size = 0;
    bool in_use = false;
    ChunkHandle prev = kNone, next = kNone;  // neighbours within the region
  };
  struct Region {
    size_t size = 0;
    ChunkHandle first = kNone;  // the chunk at the region's start (stable)
  };
  using Bin = std::set<std::pair<size_t, char*>>;  // free chunks by (size, address)

  BfcAllocator(std::unique_ptr<SubAllocator> backing, std::string name, size_t limit,
               size_t first_region_bytes);

  // Requires mu_.
  ChunkHandle NewChunk();
  void DeleteChunk(ChunkHandle h);
  void InsertFree(ChunkHandle h);
  void RemoveFree(ChunkHandle h);
  void* FindChunk(size_t rounded);
  void Split(ChunkHandle h, size_t first_size);
  void Merge(ChunkHandle a, ChunkHandle b);  // b follows a; b is deleted
  // Obtains a region large enough for `rounded`; an empty string on success,
  // else why not (for the error message).
  std::string Extend(size_t rounded);
  size_t LargestFreeLocked() const;
  size_t TrimLocked();  // returns bytes released

  const std::unique_ptr<SubAllocator> backing_;
  const std::string name_;
  const size_t limit_;

  mutable std::mutex mu_;
  size_t next_region_bytes_;
  std::vector<Chunk> chunks_;
  std::vector<ChunkHandle> free_handles_;
  absl::flat_hash_map<char*, ChunkHandle> by_ptr_;  // every chunk, free or in use
  std::map<char*, Region> regions_;
  Bin bins_[kNumBins];
  size_t bytes_in_use_ = 0;
  size_t peak_bytes_in_use_ = 0;
  size_t bytes_reserved_ = 0;
  int64_t num_allocs_ = 0;
  int64_t num_live_allocs_ = 0;
  size_t largest_alloc_ = 0;
};

}  // namespace smrt::memory

#endif  // SMRT_MEMORY_BFC_ALLOCATOR_H_
