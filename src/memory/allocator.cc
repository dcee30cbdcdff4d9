#include "memory/allocator.h"

#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace smrt::memory {

bool RoundUpToAlignment(size_t bytes, size_t* rounded) {
  if (bytes > std::numeric_limits<size_t>::max() - (kAllocatorAlignment - 1)) return false;
  *rounded = (bytes + kAllocatorAlignment - 1) / kAllocatorAlignment * kAllocatorAlignment;
  return true;
}

std::string HumanBytes(int64_t bytes) {
  const double b = static_cast<double>(bytes);
  if (bytes >= (int64_t{1} << 30)) {
    return absl::StrFormat("%.2f GiB (%d bytes)", b / double(int64_t{1} << 30), bytes);
  }
  if (bytes >= (int64_t{1} << 20)) {
    return absl::StrFormat("%.2f MiB (%d bytes)", b / double(int64_t{1} << 20), bytes);
  }
  if (bytes >= 1024) return absl::StrFormat("%.1f KiB (%d bytes)", b / 1024.0, bytes);
  return absl::StrCat(bytes, " bytes");
}

std::string AllocatorStats::DebugString() const {
  return absl::StrFormat(
      "in use %d, peak %d, limit %d, reserved %d, allocs %d (%d live), largest alloc %d, "
      "largest free chunk %d, free %d, regions %d, fragmentation %.3f",
      bytes_in_use, peak_bytes_in_use, bytes_limit, bytes_reserved, num_allocs, num_live_allocs,
      largest_alloc_size, largest_free_chunk, total_free, num_regions, fragmentation);
}

}  // namespace smrt::memory
