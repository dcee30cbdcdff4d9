// Large tensor buffers are reused by size class, bounded, and given back on
// trim; small ones and tensors' contents are unaffected.
#include "core/buffer_cache.h"

#include <cstring>
#include <vector>

#include "gtest/gtest.h"
#include "smrt/tensor.h"

namespace smrt {
namespace {

#if defined(__SANITIZE_ADDRESS__)
#define SMRT_NO_CACHE 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SMRT_NO_CACHE 1
#endif
#endif

TEST(BufferCacheTest, CapacityRoundsLargeSizesToEighthsOfAPowerOfTwo) {
  EXPECT_EQ(BufferCapacity(0), 64u);
  EXPECT_EQ(BufferCapacity(100), 128u);
  EXPECT_EQ(BufferCapacity(kMinCachedBytes), kMinCachedBytes);
  EXPECT_EQ(BufferCapacity(kMinCachedBytes + 1), kMinCachedBytes + kMinCachedBytes / 8);
  const size_t mib = size_t{1} << 20;
  EXPECT_EQ(BufferCapacity(3 * mib), 3 * mib);  // 2 MiB * 12/8
  EXPECT_EQ(BufferCapacity(3 * mib + 1), 3 * mib + mib / 4);
  for (size_t b : {kMinCachedBytes + 7, 5 * mib + 3, 77 * mib}) {
    EXPECT_GE(BufferCapacity(b), b);
    EXPECT_LE(BufferCapacity(b), b + b / 8 + 64);
  }
  EXPECT_EQ(BufferCapacity(kMaxCachedBytes + 64), kMaxCachedBytes + 64);  // not cached: exact
}

#ifndef SMRT_NO_CACHE
TEST(BufferCacheTest, AFreedLargeBlockServesTheNextOfItsClass) {
  TrimBufferCache();
  const size_t bytes = size_t{1} << 20;
  void* a = AllocateBuffer(bytes);
  ASSERT_NE(a, nullptr);
  FreeBuffer(a, bytes);
  EXPECT_EQ(CachedBufferBytes(), BufferCapacity(bytes));
  void* other = AllocateBuffer(bytes * 2);  // another class: not this block
  EXPECT_NE(other, a);
  void* b = AllocateBuffer(bytes - 100);  // same class
  EXPECT_EQ(b, a);
  EXPECT_EQ(CachedBufferBytes(), 0u);
  FreeBuffer(b, bytes - 100);
  FreeBuffer(other, bytes * 2);
  EXPECT_EQ(TrimBufferCache(), BufferCapacity(bytes) + BufferCapacity(bytes * 2));
  EXPECT_EQ(CachedBufferBytes(), 0u);
}

TEST(BufferCacheTest, DroppingAClassFreesOnlyItsBlocks) {
  TrimBufferCache();
  const size_t bytes = size_t{1} << 20;
  void* a = AllocateBuffer(bytes);
  void* b = AllocateBuffer(bytes - 64);
  void* other = AllocateBuffer(bytes * 2);
  FreeBuffer(a, bytes);
  FreeBuffer(b, bytes - 64);
  FreeBuffer(other, bytes * 2);
  EXPECT_EQ(DropCachedBuffers(bytes - 1000), 2 * BufferCapacity(bytes));
  EXPECT_EQ(CachedBufferBytes(), BufferCapacity(bytes * 2));
  EXPECT_EQ(DropCachedBuffers(bytes), 0u);
  EXPECT_EQ(TrimBufferCache(), BufferCapacity(bytes * 2));
}

TEST(BufferCacheTest, SmallBlocksAreNotKeptAndTheCacheIsBounded) {
  TrimBufferCache();
  void* small = AllocateBuffer(1000);
  FreeBuffer(small, 1000);
  EXPECT_EQ(CachedBufferBytes(), 0u);
  const size_t block = kMaxCachedBytes / 4;
  std::vector<void*> blocks;
  for (int i = 0; i < 6; ++i) blocks.push_back(AllocateBuffer(block));
  for (void* p : blocks) FreeBuffer(p, block);
  EXPECT_EQ(CachedBufferBytes(), 4 * BufferCapacity(block));  // two went back to malloc
  EXPECT_LE(CachedBufferBytes(), kMaxCachedBytes);
  TrimBufferCache();
}
#endif

TEST(BufferCacheTest, ARecycledTensorBufferStartsZeroed) {
  TrimBufferCache();
  const Shape shape = {512, 1024};  // 2 MiB of float
  {
    Tensor t = *Tensor::Create(DataType::kFloat, shape);
    for (int64_t i = 0; i < t.num_elements(); ++i) t.data<float>()[i] = 7.0f;
  }
  Tensor u = *Tensor::Create(DataType::kFloat, shape);
  for (int64_t i = 0; i < u.num_elements(); ++i) ASSERT_EQ(u.data<float>()[i], 0.0f) << i;
  TrimBufferCache();
}

}  // namespace
}  // namespace smrt
