// Host buffers for tensors, with the large ones kept for reuse. A model's
// runs allocate the same sizes call after call; glibc hands big blocks back
// to the OS (mmap, heap trimming) and the next run faults them in again,
// page by page, zeroed by the kernel. That cost half of BERT-base's run time
// once anything else disturbed the heap (profiling a run did). Freed blocks
// of at least kMinCachedBytes wait in size classes (eighths of a power of
// two, so at most 12.5% slack) for the next tensor of their class, up to
// kMaxCachedBytes in all; smaller ones go straight back to malloc.
//
// Under AddressSanitizer nothing is cached, so use-after-free on tensor
// buffers stays detectable.
#ifndef SMRT_CORE_BUFFER_CACHE_H_
#define SMRT_CORE_BUFFER_CACHE_H_

#include <cstddef>
#include <cstdint>

namespace smrt {

inline constexpr size_t kBufferAlignment = 64;
inline constexpr size_t kMinCachedBytes = size_t{256} << 10;
inline constexpr size_t kMaxCachedBytes = size_t{512} << 20;

// `bytes` rounded up to what AllocateBuffer really reserves for it.
size_t BufferCapacity(size_t bytes);

// 64-byte aligned, uninitialised; null when the machine has no memory left.
void* AllocateBuffer(size_t bytes);
// `bytes` as given to AllocateBuffer.
void FreeBuffer(void* p, size_t bytes);

// Frees every cached block (the Model destructor calls it); returns the bytes.
size_t TrimBufferCache();
// Frees the cached blocks that a buffer of `bytes` would reuse (a size the
// caller knows it will not ask for again); returns the bytes.
size_t DropCachedBuffers(size_t bytes);
// Bytes now held for reuse.
size_t CachedBufferBytes();

}  // namespace smrt

#endif  // SMRT_CORE_BUFFER_CACHE_H_
