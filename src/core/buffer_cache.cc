#include "core/buffer_cache.h"

#include <cstdlib>
#include <map>
#include <mutex>
#include <vector>

namespace smrt {
namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kCache = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kCache = false;
#else
constexpr bool kCache = true;
#endif
#else
constexpr bool kCache = true;
#endif

struct Cache {
  std::mutex mu;
  std::map<size_t, std::vector<void*>> free_by_capacity;  // guarded by mu
  size_t bytes = 0;                                       // guarded by mu
};

Cache& TheCache() {
  static Cache* cache = new Cache;  // never destroyed: tensors may outlive statics
  return *cache;
}

}  // namespace

size_t BufferCapacity(size_t bytes) {
  size_t aligned = (bytes + kBufferAlignment - 1) / kBufferAlignment * kBufferAlignment;
  if (aligned == 0) aligned = kBufferAlignment;
  // Blocks past the cache's size are never cached: no rounding (and none to
  // overflow for absurd sizes, which fail in aligned_alloc).
  if (aligned < kMinCachedBytes || aligned > kMaxCachedBytes) return aligned;
  // Round up to the next eighth of a power of two: 2^k * (8 + i) / 8.
  size_t high = size_t{1} << (63 - __builtin_clzll(static_cast<unsigned long long>(aligned)));
  const size_t step = high / 8;
  return (aligned + step - 1) / step * step;
}

void* AllocateBuffer(size_t bytes) {
  const size_t capacity = BufferCapacity(bytes);
  if (kCache && capacity >= kMinCachedBytes) {
    Cache& c = TheCache();
    std::lock_guard<std::mutex> lock(c.mu);
    auto it = c.free_by_capacity.find(capacity);
    if (it != c.free_by_capacity.end() && !it->second.empty()) {
      void* p = it->second.back();
      it->second.pop_back();
      c.bytes -= capacity;
      return p;
    }
  }
  return std::aligned_alloc(kBufferAlignment, capacity);
}

void FreeBuffer(void* p, size_t bytes) {
  if (p == nullptr) return;
  const size_t capacity = BufferCapacity(bytes);
  if (kCache && capacity >= kMinCachedBytes) {
    Cache& c = TheCache();
    std::lock_guard<std::mutex> lock(c.mu);
    if (c.bytes + capacity <= kMaxCachedBytes) {
      c.free_by_capacity[capacity].push_back(p);
      c.bytes += capacity;
      return;
    }
  }
  std::free(p);
}

size_t TrimBufferCache() {
  Cache& c = TheCache();
  std::map<size_t, std::vector<void*>> blocks;
  size_t bytes = 0;
  {
    std::lock_guard<std::mutex> lock(c.mu);
    blocks.swap(c.free_by_capacity);
    bytes = c.bytes;
    c.bytes = 0;
  }
  for (auto& [capacity, list] : blocks) {
    for (void* p : list) std::free(p);
  }
  return bytes;
}

size_t DropCachedBuffers(size_t bytes) {
  const size_t capacity = BufferCapacity(bytes);
  Cache& c = TheCache();
  std::vector<void*> blocks;
  {
    std::lock_guard<std::mutex> lock(c.mu);
    auto it = c.free_by_capacity.find(capacity);
    if (it == c.free_by_capacity.end()) return 0;
    blocks.swap(it->second);
    c.free_by_capacity.erase(it);
    c.bytes -= capacity * blocks.size();
  }
  for (void* p : blocks) std::free(p);
  return capacity * blocks.size();
}

size_t CachedBufferBytes() {
  Cache& c = TheCache();
  std::lock_guard<std::mutex> lock(c.mu);
  return c.bytes;
}

}  // namespace smrt
