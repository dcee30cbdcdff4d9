#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "memory/sub_allocator.h"

namespace smrt::memory {

void* HostSubAllocator::Alloc(size_t alignment, size_t bytes) {
  if (bytes == 0 || bytes % alignment != 0) return nullptr;  // aligned_alloc's contract
  return std::aligned_alloc(alignment, bytes);
}

void HostSubAllocator::Free(void* ptr, size_t) { std::free(ptr); }

std::optional<BackingMemoryInfo> HostSubAllocator::MemoryInfo() const {
  std::ifstream in("/proc/meminfo");
  if (!in) return std::nullopt;
  BackingMemoryInfo info;
  bool have_free = false, have_total = false;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string key;
    size_t kib = 0;
    if (!(fields >> key >> kib)) continue;
    if (key == "MemAvailable:") {
      info.free_bytes = kib * 1024;
      have_free = true;
    } else if (key == "MemTotal:") {
      info.total_bytes = kib * 1024;
      have_total = true;
    }
  }
  if (!have_free || !have_total) return std::nullopt;
  return info;
}

}  // namespace smrt::memory
