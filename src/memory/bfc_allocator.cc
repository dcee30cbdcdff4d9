#include "memory/bfc_allocator.h"

#include <algorithm>
#include <cstdint>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/log.h"

namespace smrt::memory {
namespace {

constexpr size_t kMaxSize = std::numeric_limits<size_t>::max();

size_t RoundDown(size_t bytes) { return bytes / kAllocatorAlignment * kAllocatorAlignment; }

int Log2Floor(size_t v) {
  int r = -1;
  while (v != 0) {
    v >>= 1;
    ++r;
  }
  return r;
}

}  // namespace

int BfcAllocator::BinForSize(size_t bytes) {
  const size_t units = bytes / kMinChunkSize;  // 256-byte units; bin i starts at 2^i units
  if (units == 0) return 0;
  return std::min(Log2Floor(units), kNumBins - 1);
}

absl::StatusOr<std::unique_ptr<BfcAllocator>> BfcAllocator::Create(
    std::unique_ptr<SubAllocator> backing, const BfcOptions& options, std::string name) {
  if (backing == nullptr) return absl::InvalidArgumentError("BFC arena " + name + ": no backing");
  if (!(options.memory_fraction > 0 && options.memory_fraction <= 1)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "BFC arena ", name, ": memory_fraction must be in (0, 1], got ", options.memory_fraction));
  }
  if (options.memory_limit_bytes < 0 ||
      (options.memory_limit_bytes > 0 &&
       static_cast<uint64_t>(options.memory_limit_bytes) < kAllocatorAlignment)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "BFC arena ", name, ": memory_limit_bytes must be 0 (no explicit limit) or at least ",
        kAllocatorAlignment, ", got ", options.memory_limit_bytes));
  }
  size_t limit = RoundDown(kMaxSize);
  if (options.memory_limit_bytes > 0) {
    limit = RoundDown(static_cast<size_t>(options.memory_limit_bytes));
  } else if (std::optional<BackingMemoryInfo> info = backing->MemoryInfo()) {
    limit = RoundDown(static_cast<size_t>(static_cast<double>(info->free_bytes) *
                                          options.memory_fraction));
    if (limit == 0) {
      return absl::ResourceExhaustedError(
          absl::StrCat("BFC arena ", name, ": backing '", backing->name(), "' reports ",
                       HumanBytes(static_cast<int64_t>(info->free_bytes)), " free"));
    }
  } else if (!options.allow_growth) {
    return absl::InvalidArgumentError(absl::StrCat(
        "BFC arena ", name, ": allow_growth=false needs memory_limit_bytes, since backing '",
        backing->name(), "' cannot report its free memory"));
  }
  size_t first = 0;
  if (options.allow_growth) {
    if (!RoundUpToAlignment(std::max<size_t>(options.initial_region_bytes, 1), &first)) {
      first = limit;
    }
    first = std::min(first, limit);
  } else {
    first = limit;
  }
  std::unique_ptr<BfcAllocator> arena(
      new BfcAllocator(std::move(backing), std::move(name), limit, first));
  if (!options.allow_growth) {
    std::lock_guard<std::mutex> lock(arena->mu_);
    std::string why = arena->Extend(limit);
    if (!why.empty()) {
      return absl::ResourceExhaustedError(
          absl::StrCat("BFC arena ", arena->name_, " (allow_growth=false) could not reserve ",
                       HumanBytes(static_cast<int64_t>(limit)), " at start: ", why,
                       "; lower memory_fraction / memory_limit_bytes or allow growth"));
    }
  }
  return arena;
}

BfcAllocator::BfcAllocator(std::unique_ptr<SubAllocator> backing, std::string name, size_t limit,
                           size_t first_region_bytes)
    : backing_(std::move(backing)),
      name_(std::move(name)),
      limit_(limit),
      next_region_bytes_(first_region_bytes) {}

BfcAllocator::~BfcAllocator() {
  for (const auto& [ptr, region] : regions_) backing_->Free(ptr, region.size);
}

BfcAllocator::ChunkHandle BfcAllocator::NewChunk() {
  if (!free_handles_.empty()) {
    ChunkHandle h = free_handles_.back();
    free_handles_.pop_back();
    chunks_[h] = Chunk{};
    return h;
  }
  chunks_.emplace_back();
  return static_cast<ChunkHandle>(chunks_.size() - 1);
}

void BfcAllocator::DeleteChunk(ChunkHandle h) {
  by_ptr_.erase(chunks_[h].ptr);
  chunks_[h] = Chunk{};
  free_handles_.push_back(h);
}

void BfcAllocator::InsertFree(ChunkHandle h) {
  const Chunk& c = chunks_[h];
  bins_[BinForSize(c.size)].emplace(c.size, c.ptr);
}

void BfcAllocator::RemoveFree(ChunkHandle h) {
  const Chunk& c = chunks_[h];
  bins_[BinForSize(c.size)].erase({c.size, c.ptr});
}

void BfcAllocator::Split(ChunkHandle h, size_t first_size) {
  ChunkHandle rest = NewChunk();  // may reallocate chunks_: index, don't hold references
  Chunk& c = chunks_[h];
  Chunk& r = chunks_[rest];
  r.ptr = c.ptr + first_size;
  r.size = c.size - first_size;
  r.in_use = false;
  r.prev = h;
  r.next = c.next;
  if (c.next != kNone) chunks_[c.next].prev = rest;
  c.next = rest;
  c.size = first_size;
  by_ptr_[r.ptr] = rest;
  InsertFree(rest);
}

void BfcAllocator::Merge(ChunkHandle a, ChunkHandle b) {
  Chunk& ca = chunks_[a];
  const Chunk& cb = chunks_[b];
  ca.size += cb.size;
  ca.next = cb.next;
  if (cb.next != kNone) chunks_[cb.next].prev = a;
  DeleteChunk(b);
}

void* BfcAllocator::FindChunk(size_t rounded) {
  for (int bin = BinForSize(rounded); bin < kNumBins; ++bin) {
    auto it = bins_[bin].lower_bound({rounded, nullptr});
    if (it == bins_[bin].end()) continue;
    const ChunkHandle h = by_ptr_.at(it->second);
    bins_[bin].erase(it);
    if (chunks_[h].size >= rounded * 2 ||
        chunks_[h].size - rounded >= kMaxInternalFragmentation) {
      Split(h, rounded);
    }
    Chunk& c = chunks_[h];
    c.in_use = true;
    bytes_in_use_ += c.size;
    peak_bytes_in_use_ = std::max(peak_bytes_in_use_, bytes_in_use_);
    largest_alloc_ = std::max(largest_alloc_, c.size);
    ++num_allocs_;
    ++num_live_allocs_;
    return c.ptr;
  }
  return nullptr;
}

std::string BfcAllocator::Extend(size_t rounded) {
  const size_t available = RoundDown(limit_ - bytes_reserved_);
  if (rounded > available) {
    return absl::StrCat("the limit of ", HumanBytes(static_cast<int64_t>(limit_)), " leaves ",
                        HumanBytes(static_cast<int64_t>(available)), " to reserve");
  }
  bool increased = false;
  while (rounded > next_region_bytes_) {
    next_region_bytes_ = next_region_bytes_ <= kMaxSize / 2 ? next_region_bytes_ * 2 : rounded;
    increased = true;
  }
  size_t bytes = std::min(next_region_bytes_, available);
  void* mem = backing_->Alloc(kAllocatorAlignment, bytes);
  // Backpedal as TensorFlow does: a smaller region may still hold the request.
  while (mem == nullptr) {
    const size_t smaller = RoundDown(bytes - bytes / 10);
    if (smaller < rounded || smaller == bytes) break;
    bytes = smaller;
    mem = backing_->Alloc(kAllocatorAlignment, bytes);
  }
  if (mem == nullptr) {
    return absl::StrCat("the backing '", backing_->name(), "' could not provide a region of ",
                        HumanBytes(static_cast<int64_t>(bytes)));
  }
  if (reinterpret_cast<uintptr_t>(mem) % kAllocatorAlignment != 0) {
    backing_->Free(mem, bytes);
    return absl::StrCat("the backing '", backing_->name(), "' returned memory not aligned to ",
                        kAllocatorAlignment, " bytes");
  }
  if (!increased && next_region_bytes_ <= kMaxSize / 2) next_region_bytes_ *= 2;

  char* base = static_cast<char*>(mem);
  const ChunkHandle h = NewChunk();
  chunks_[h].ptr = base;
  chunks_[h].size = bytes;
  by_ptr_[base] = h;
  regions_[base] = Region{bytes, h};
  bytes_reserved_ += bytes;
  InsertFree(h);
  return "";
}

absl::StatusOr<void*> BfcAllocator::Allocate(size_t bytes, absl::string_view name) {
  if (bytes == 0) return nullptr;
  size_t rounded = 0;
  if (!RoundUpToAlignment(bytes, &rounded)) {
    return absl::ResourceExhaustedError(absl::StrCat("arena ", name_, ": tensor '", name,
                                                     "' asks for ", bytes,
                                                     " bytes, more than any arena can hold"));
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (void* p = FindChunk(rounded)) return p;
  std::string why = Extend(rounded);
  if (!why.empty()) {
    // Whole free regions too small for the request may be holding the room it
    // needs under the limit: give them back and try once more.
    if (TrimLocked() > 0) why = Extend(rounded);
  }
  if (why.empty()) {
    if (void* p = FindChunk(rounded)) return p;
    why = "internal error: a new region did not fit the request";
  }
  return absl::ResourceExhaustedError(absl::StrCat(
      "out of memory in arena ", name_, " allocating tensor '", name, "' of ",
      HumanBytes(static_cast<int64_t>(bytes)), ": ", why, "; in use ",
      HumanBytes(static_cast<int64_t>(bytes_in_use_)), ", reserved ",
      HumanBytes(static_cast<int64_t>(bytes_reserved_)), ", largest free chunk ",
      HumanBytes(static_cast<int64_t>(LargestFreeLocked()))));
}

void BfcAllocator::Deallocate(void* ptr) {
  if (ptr == nullptr) return;
  std::unique_lock<std::mutex> lock(mu_);
  auto it = by_ptr_.find(static_cast<char*>(ptr));
  if (it == by_ptr_.end() || !chunks_[it->second].in_use) {
    lock.unlock();  // the sink runs on this thread
    Log(LogLevel::kError,
        absl::StrFormat("arena %s: ignoring free of %p, which it did not allocate", name_, ptr));
    return;
  }
  ChunkHandle h = it->second;
  chunks_[h].in_use = false;
  bytes_in_use_ -= chunks_[h].size;
  --num_live_allocs_;
  const ChunkHandle next = chunks_[h].next;
  if (next != kNone && !chunks_[next].in_use) {
    RemoveFree(next);
    Merge(h, next);
  }
  const ChunkHandle prev = chunks_[h].prev;
  if (prev != kNone && !chunks_[prev].in_use) {
    RemoveFree(prev);
    Merge(prev, h);
    h = prev;
  }
  InsertFree(h);
}

size_t BfcAllocator::LargestFreeLocked() const {
  for (int bin = kNumBins - 1; bin >= 0; --bin) {
    if (!bins_[bin].empty()) return bins_[bin].rbegin()->first;
  }
  return 0;
}

AllocatorStats BfcAllocator::GetStats() const {
  std::lock_guard<std::mutex> lock(mu_);
  AllocatorStats s;
  s.bytes_in_use = static_cast<int64_t>(bytes_in_use_);
  s.peak_bytes_in_use = static_cast<int64_t>(peak_bytes_in_use_);
  s.bytes_limit = limit_ == RoundDown(kMaxSize) ? 0 : static_cast<int64_t>(limit_);
  s.bytes_reserved = static_cast<int64_t>(bytes_reserved_);
  s.num_allocs = num_allocs_;
  s.num_live_allocs = num_live_allocs_;
  s.largest_alloc_size = static_cast<int64_t>(largest_alloc_);
  s.largest_free_chunk = static_cast<int64_t>(LargestFreeLocked());
  s.total_free = s.bytes_reserved - s.bytes_in_use;
  s.num_regions = static_cast<int64_t>(regions_.size());
  s.fragmentation = s.total_free > 0 ? 1.0 - static_cast<double>(s.largest_free_chunk) /
                                                 static_cast<double>(s.total_free)
                                     : 0.0;
  return s;
}

void BfcAllocator::ResetPeak() {
  std::lock_guard<std::mutex> lock(mu_);
  peak_bytes_in_use_ = bytes_in_use_;
}

int64_t BfcAllocator::TrimMemory() {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int64_t>(TrimLocked());
}

size_t BfcAllocator::TrimLocked() {
  size_t released = 0;
  for (auto it = regions_.begin(); it != regions_.end();) {
    const ChunkHandle h = it->second.first;
    if (chunks_[h].in_use || chunks_[h].size != it->second.size) {
      ++it;
      continue;
    }
    RemoveFree(h);
    DeleteChunk(h);
    backing_->Free(it->first, it->second.size);
    bytes_reserved_ -= it->second.size;
    released += it->second.size;
    it = regions_.erase(it);
  }
  return released;
}

std::vector<BfcAllocator::ChunkInfo> BfcAllocator::Chunks() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<ChunkInfo> out;
  int region = 0;
  for (const auto& [base, r] : regions_) {
    for (ChunkHandle h = r.first; h != kNone; h = chunks_[h].next) {
      const Chunk& c = chunks_[h];
      out.push_back({c.ptr, c.size, c.in_use, region, c.in_use ? -1 : BinForSize(c.size)});
    }
    ++region;
  }
  return out;
}

absl::Status BfcAllocator::CheckInvariants() const {
  std::lock_guard<std::mutex> lock(mu_);
  auto fail = [&](const std::string& what) {
    return absl::InternalError(absl::StrCat("arena ", name_, ": ", what));
  };
  size_t in_use = 0, reserved = 0, free_chunks = 0, chunk_count = 0;
  int64_t live = 0;
  for (const auto& [base, r] : regions_) {
    reserved += r.size;
    char* expect = base;
    ChunkHandle prev = kNone;
    for (ChunkHandle h = r.first; h != kNone; h = chunks_[h].next) {
      const Chunk& c = chunks_[h];
      ++chunk_count;
      if (c.ptr != expect) return fail("chunks do not tile their region");
      if (c.prev != prev) return fail("a chunk's prev link is wrong");
      if (c.size == 0 || c.size % kMinChunkSize != 0) return fail("a chunk size is not 256-aligned");
      if (reinterpret_cast<uintptr_t>(c.ptr) % kAllocatorAlignment != 0) {
        return fail("a chunk is misaligned");
      }
      auto it = by_ptr_.find(c.ptr);
      if (it == by_ptr_.end() || it->second != h) return fail("a chunk is missing from the index");
      if (c.in_use) {
        in_use += c.size;
        ++live;
      } else {
        ++free_chunks;
        if (prev != kNone && !chunks_[prev].in_use) return fail("two free chunks are neighbours");
        if (bins_[BinForSize(c.size)].count({c.size, c.ptr}) != 1) {
          return fail("a free chunk is not in its bin");
        }
      }
      expect = c.ptr + c.size;
      prev = h;
    }
    if (expect != base + r.size) return fail("chunks do not cover their region");
  }
  size_t binned = 0;
  for (int b = 0; b < kNumBins; ++b) {
    for (const auto& [size, ptr] : bins_[b]) {
      if (BinForSize(size) != b) return fail("a chunk sits in the wrong bin");
      ++binned;
    }
  }
  if (binned != free_chunks) return fail("bins hold chunks that are not free");
  if (chunk_count != by_ptr_.size()) return fail("the index holds chunks outside every region");
  if (in_use != bytes_in_use_) return fail("bytes_in_use disagrees with the chunks");
  if (reserved != bytes_reserved_) return fail("bytes_reserved disagrees with the regions");
  if (live != num_live_allocs_) return fail("num_live_allocs disagrees with the chunks");
  if (bytes_reserved_ > limit_) return fail("reserved more than the limit");
  return absl::OkStatus();
}

}  // namespace smrt::memory
