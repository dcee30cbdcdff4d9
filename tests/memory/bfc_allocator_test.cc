// The BFC arena against a recording fake backing: bins, best fit, splits,
// coalescing, growth steps, reservations, limits, fragmentation, trim,
// threads, alignment and edge-case sizes.
#include "memory/bfc_allocator.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "fake_sub_allocator.h"
#include "gtest/gtest.h"

namespace smrt::memory {
namespace {

using testing::BackingRecord;
using testing::FakeSubAllocator;

constexpr size_t KiB = 1024;
constexpr size_t MiB = 1024 * 1024;

struct Arena {
  std::shared_ptr<BackingRecord> record = std::make_shared<BackingRecord>();
  std::unique_ptr<BfcAllocator> bfc;
};

Arena Make(BfcOptions options, std::shared_ptr<BackingRecord> record = nullptr) {
  Arena a;
  if (record) a.record = std::move(record);
  absl::StatusOr<std::unique_ptr<BfcAllocator>> bfc =
      BfcAllocator::Create(std::make_unique<FakeSubAllocator>(a.record), options, "test_bfc");
  EXPECT_TRUE(bfc.ok()) << bfc.status();
  if (bfc.ok()) a.bfc = *std::move(bfc);
  return a;
}

BfcOptions Growth(size_t initial) {
  BfcOptions o;
  o.allow_growth = true;
  o.initial_region_bytes = initial;
  return o;
}

void* Alloc(BfcAllocator& bfc, size_t bytes, const char* name = "t") {
  absl::StatusOr<void*> p = bfc.Allocate(bytes, name);
  EXPECT_TRUE(p.ok()) << p.status();
  return p.ok() ? *p : nullptr;
}

char* At(void* p, size_t offset) { return static_cast<char*>(p) + offset; }

TEST(BfcAllocatorTest, BinsDoubleFrom256Bytes) {
  EXPECT_EQ(BfcAllocator::BinForSize(256), 0);
  EXPECT_EQ(BfcAllocator::BinForSize(512), 1);
  EXPECT_EQ(BfcAllocator::BinForSize(768), 1);
  EXPECT_EQ(BfcAllocator::BinForSize(1024), 2);
  EXPECT_EQ(BfcAllocator::BinForSize(2048 - 256), 2);
  EXPECT_EQ(BfcAllocator::BinForSize(1 * MiB), 12);
  EXPECT_EQ(BfcAllocator::BinForSize(size_t{256} << 19), 19);
  EXPECT_EQ(BfcAllocator::BinForSize(size_t{256} << 20), 20);
  EXPECT_EQ(BfcAllocator::BinForSize(size_t{1} << 40), BfcAllocator::kNumBins - 1);
}

TEST(BfcAllocatorTest, FreeChunksSitInTheirSizeClassBin) {
  Arena a = Make(Growth(1 * MiB));
  void* p = Alloc(*a.bfc, 1000);
  std::vector<BfcAllocator::ChunkInfo> chunks = a.bfc->Chunks();
  ASSERT_EQ(chunks.size(), 2u);
  EXPECT_EQ(chunks[0].ptr, p);
  EXPECT_EQ(chunks[0].bin, -1);
  EXPECT_EQ(chunks[1].size, 1 * MiB - 1024);
  EXPECT_EQ(chunks[1].bin, 11);  // [512 KiB, 1 MiB)
  EXPECT_TRUE(a.bfc->CheckInvariants().ok()) << a.bfc->CheckInvariants();
}

TEST(BfcAllocatorTest, RoundsTo256AndAligns) {
  Arena a = Make(Growth(1 * MiB));
  for (size_t bytes : {size_t{1}, size_t{255}, size_t{256}, size_t{257}, size_t{1000},
                       size_t{4097}, size_t{65537}}) {
    void* p = Alloc(*a.bfc, bytes);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % kAllocatorAlignment, 0u) << bytes;
    std::memset(p, 0xab, bytes);  // the memory is really there
  }
  const std::vector<size_t> want = {256, 256, 256, 512, 1024, 4352, 65792};
  std::vector<size_t> got;
  for (const auto& c : a.bfc->Chunks()) {
    if (c.in_use) got.push_back(c.size);
  }
  EXPECT_EQ(got, want);
  EXPECT_EQ(a.bfc->GetStats().bytes_in_use, 256 * 3 + 512 + 1024 + 4352 + 65792);
}

TEST(BfcAllocatorTest, ZeroBytesIsNullAndFreeingNullIsANoOp) {
  Arena a = Make(Growth(1 * MiB));
  absl::StatusOr<void*> p = a.bfc->Allocate(0, "empty");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(*p, nullptr);
  a.bfc->Deallocate(nullptr);
  const AllocatorStats s = a.bfc->GetStats();
  EXPECT_EQ(s.num_allocs, 0);
  EXPECT_EQ(s.bytes_reserved, 0);  // nothing asked of the backing
  EXPECT_TRUE(a.record->calls.empty());
}

TEST(BfcAllocatorTest, HugeAndOverflowingRequestsAreErrorsNotAborts) {
  Arena a = Make(Growth(1 * MiB));
  for (size_t bytes : {std::numeric_limits<size_t>::max(), std::numeric_limits<size_t>::max() - 100,
                       std::numeric_limits<size_t>::max() / 2, size_t{1} << 62}) {
    absl::StatusOr<void*> p = a.bfc->Allocate(bytes, "huge");
    ASSERT_FALSE(p.ok()) << bytes;
    EXPECT_EQ(p.status().code(), absl::StatusCode::kResourceExhausted) << p.status();
    EXPECT_TRUE(absl::StrContains(p.status().message(), "'huge'")) << p.status();
  }
  EXPECT_TRUE(a.bfc->CheckInvariants().ok()) << a.bfc->CheckInvariants();
  EXPECT_NE(Alloc(*a.bfc, 1000), nullptr);  // still works afterwards
}

TEST(BfcAllocatorTest, SplitsOnlyWhenTheRestIsAtLeastTheRequest) {
  Arena a = Make(Growth(1 * MiB));
  void* small = Alloc(*a.bfc, 1 * KiB);
  ASSERT_EQ(a.bfc->Chunks().size(), 2u);  // 1 KiB used + the rest free
  a.bfc->Deallocate(small);
  ASSERT_EQ(a.bfc->Chunks().size(), 1u);  // merged back
  // 600 KiB from a 1 MiB chunk: the remainder (424 KiB) is smaller than the
  // request, so TensorFlow's rule hands over the whole chunk.
  void* big = Alloc(*a.bfc, 600 * KiB);
  std::vector<BfcAllocator::ChunkInfo> chunks = a.bfc->Chunks();
  ASSERT_EQ(chunks.size(), 1u);
  EXPECT_EQ(chunks[0].ptr, big);
  EXPECT_EQ(a.bfc->GetStats().bytes_in_use, static_cast<int64_t>(1 * MiB));
  a.bfc->Deallocate(big);
  // 512 KiB: exactly half, split.
  Alloc(*a.bfc, 512 * KiB);
  EXPECT_EQ(a.bfc->Chunks().size(), 2u);
}

TEST(BfcAllocatorTest, BestFitTakesTheSmallestHoleThatFits) {
  Arena a = Make(Growth(1 * MiB));
  void* h4 = Alloc(*a.bfc, 4 * KiB);
  Alloc(*a.bfc, 256);  // guards keep the holes apart
  void* h2 = Alloc(*a.bfc, 2 * KiB);
  Alloc(*a.bfc, 256);
  void* h3 = Alloc(*a.bfc, 3 * KiB);
  Alloc(*a.bfc, 256);
  a.bfc->Deallocate(h4);
  a.bfc->Deallocate(h2);
  a.bfc->Deallocate(h3);
  ASSERT_TRUE(a.bfc->CheckInvariants().ok()) << a.bfc->CheckInvariants();
  EXPECT_EQ(Alloc(*a.bfc, 2 * KiB), h2);        // exact fit, not the first hole
  EXPECT_EQ(Alloc(*a.bfc, 2 * KiB + 512), h3);  // 3 KiB beats 4 KiB and the tail
  EXPECT_EQ(Alloc(*a.bfc, 1 * KiB), h4);        // the 4 KiB hole, split
  std::vector<BfcAllocator::ChunkInfo> chunks = a.bfc->Chunks();
  ASSERT_GE(chunks.size(), 2u);
  EXPECT_EQ(chunks[0].size, 1 * KiB);
  EXPECT_TRUE(chunks[0].in_use);
  EXPECT_EQ(chunks[1].ptr, At(h4, 1 * KiB));
  EXPECT_EQ(chunks[1].size, 3 * KiB);
  EXPECT_FALSE(chunks[1].in_use);
  EXPECT_TRUE(a.bfc->CheckInvariants().ok()) << a.bfc->CheckInvariants();
}

TEST(BfcAllocatorTest, CoalescesWithBothNeighbours) {
  Arena a = Make(Growth(1 * MiB));
  void* x = Alloc(*a.bfc, 1 * KiB);
  void* y = Alloc(*a.bfc, 1 * KiB);
  void* z = Alloc(*a.bfc, 1 * KiB);
  void* guard = Alloc(*a.bfc, 1 * KiB);
  a.bfc->Deallocate(x);
  a.bfc->Deallocate(z);
  ASSERT_EQ(a.bfc->Chunks().size(), 5u);  // x free, y, z free, guard, tail
  a.bfc->Deallocate(y);                   // merges with x (before) and z (after)
  std::vector<BfcAllocator::ChunkInfo> chunks = a.bfc->Chunks();
  ASSERT_EQ(chunks.size(), 3u);
  EXPECT_EQ(chunks[0].ptr, x);
  EXPECT_EQ(chunks[0].size, 3 * KiB);
  EXPECT_FALSE(chunks[0].in_use);
  EXPECT_EQ(chunks[1].ptr, guard);
  EXPECT_TRUE(a.bfc->CheckInvariants().ok()) << a.bfc->CheckInvariants();
  // Freeing the guard merges everything back into the region's one chunk.
  a.bfc->Deallocate(guard);
  chunks = a.bfc->Chunks();
  ASSERT_EQ(chunks.size(), 1u);
  EXPECT_EQ(chunks[0].size, 1 * MiB);
  EXPECT_EQ(a.bfc->GetStats().largest_free_chunk, static_cast<int64_t>(1 * MiB));
}

TEST(BfcAllocatorTest, NeverCoalescesAcrossRegions) {
  Arena a = Make(Growth(1 * MiB));
  void* p = Alloc(*a.bfc, 1 * MiB);
  void* q = Alloc(*a.bfc, 1 * MiB);  // a second region
  ASSERT_EQ(a.bfc->GetStats().num_regions, 2);
  a.bfc->Deallocate(p);
  a.bfc->Deallocate(q);
  for (const auto& c : a.bfc->Chunks()) EXPECT_FALSE(c.in_use);
  EXPECT_EQ(a.bfc->Chunks().size(), 2u);  // one free chunk per region
  EXPECT_TRUE(a.bfc->CheckInvariants().ok()) << a.bfc->CheckInvariants();
}

TEST(BfcAllocatorTest, GrowthDoublesRegionSizes) {
  Arena a = Make(Growth(1 * MiB));
  EXPECT_TRUE(a.record->AllocSizes().empty());  // nothing reserved up front
  for (int i = 0; i < 4; ++i) Alloc(*a.bfc, 768 * KiB);
  // 1 MiB (one 768 KiB, not split), 2 MiB (two), 4 MiB (the fourth).
  EXPECT_EQ(a.record->AllocSizes(), (std::vector<size_t>{1 * MiB, 2 * MiB, 4 * MiB}));
  for (int i = 0; i < 6; ++i) Alloc(*a.bfc, 768 * KiB);  // the 4 MiB region holds 5
  EXPECT_EQ(a.record->AllocSizes(),
            (std::vector<size_t>{1 * MiB, 2 * MiB, 4 * MiB, 8 * MiB}));
  EXPECT_EQ(a.bfc->GetStats().bytes_reserved, static_cast<int64_t>(15 * MiB));
  EXPECT_TRUE(a.bfc->CheckInvariants().ok()) << a.bfc->CheckInvariants();
}

TEST(BfcAllocatorTest, GrowthCoversARequestLargerThanTheNextRegion) {
  Arena a = Make(Growth(1 * MiB));
  Alloc(*a.bfc, 5 * MiB);   // doubles 1 -> 8 MiB to fit
  Alloc(*a.bfc, 1 * KiB);   // next region: 8 MiB again (the step already grew)
  Alloc(*a.bfc, 8 * MiB);   // does not fit the rest: 16 MiB
  EXPECT_EQ(a.record->AllocSizes(), (std::vector<size_t>{8 * MiB, 8 * MiB, 16 * MiB}));
}

TEST(BfcAllocatorTest, NoGrowthReservesTheFractionOfFreeMemoryAtStart) {
  auto record = std::make_shared<BackingRecord>();
  record->info = BackingMemoryInfo{64 * MiB, 80 * MiB};
  BfcOptions o;
  o.allow_growth = false;
  o.memory_fraction = 0.5;
  Arena a = Make(o, record);
  ASSERT_NE(a.bfc, nullptr);
  EXPECT_EQ(record->AllocSizes(), std::vector<size_t>{32 * MiB});
  AllocatorStats s = a.bfc->GetStats();
  EXPECT_EQ(s.bytes_reserved, static_cast<int64_t>(32 * MiB));
  EXPECT_EQ(s.bytes_limit, static_cast<int64_t>(32 * MiB));
  EXPECT_EQ(s.bytes_in_use, 0);
  for (int i = 0; i < 4; ++i) Alloc(*a.bfc, 8 * MiB);  // exactly fills it
  EXPECT_EQ(record->AllocSizes().size(), 1u);          // never asks again
  absl::StatusOr<void*> more = a.bfc->Allocate(256, "one_more");
  EXPECT_EQ(more.status().code(), absl::StatusCode::kResourceExhausted) << more.status();
  EXPECT_EQ(record->AllocSizes().size(), 1u);
}

TEST(BfcAllocatorTest, BadOptionsAreInvalidArgument) {
  for (double fraction : {0.0, -0.5, 1.5}) {
    BfcOptions o;
    o.memory_fraction = fraction;
    auto r = BfcAllocator::Create(
        std::make_unique<FakeSubAllocator>(std::make_shared<BackingRecord>()), o, "bad");
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument) << fraction;
    EXPECT_TRUE(absl::StrContains(r.status().message(), "memory_fraction")) << r.status();
  }
  BfcOptions o;
  o.allow_growth = false;  // and the fake reports no free memory: nothing to size it by
  auto r = BfcAllocator::Create(
      std::make_unique<FakeSubAllocator>(std::make_shared<BackingRecord>()), o, "bad");
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument) << r.status();
  EXPECT_TRUE(absl::StrContains(r.status().message(), "memory_limit_bytes")) << r.status();
  o.memory_limit_bytes = -1;
  r = BfcAllocator::Create(
      std::make_unique<FakeSubAllocator>(std::make_shared<BackingRecord>()), o, "bad");
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument) << r.status();
}

TEST(BfcAllocatorTest, FailedReservationIsResourceExhausted) {
  auto record = std::make_shared<BackingRecord>();
  record->capacity = 10 * MiB;
  BfcOptions o;
  o.allow_growth = false;
  o.memory_limit_bytes = 16 * MiB;
  auto r = BfcAllocator::Create(std::make_unique<FakeSubAllocator>(record), o, "gpu");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kResourceExhausted) << r.status();
  EXPECT_TRUE(absl::StrContains(r.status().message(), "allow_growth=false")) << r.status();
  EXPECT_EQ(record->live, 0u);
}

TEST(BfcAllocatorTest, OverTheLimitNamesTheTensorAndTheSize) {
  BfcOptions o = Growth(1 * MiB);
  o.memory_limit_bytes = 4 * MiB;
  Arena a = Make(o);
  void* p = Alloc(*a.bfc, 2 * MiB);  // a 2 MiB region
  ASSERT_NE(p, nullptr);
  absl::StatusOr<void*> q = a.bfc->Allocate(3 * MiB, "dense/kernel:0");
  ASSERT_FALSE(q.ok());
  EXPECT_EQ(q.status().code(), absl::StatusCode::kResourceExhausted);
  const std::string msg(q.status().message());
  EXPECT_TRUE(absl::StrContains(msg, "tensor 'dense/kernel:0'")) << msg;
  EXPECT_TRUE(absl::StrContains(msg, "3145728 bytes")) << msg;
  EXPECT_TRUE(absl::StrContains(msg, "limit of 4.00 MiB")) << msg;
  EXPECT_TRUE(absl::StrContains(msg, "test_bfc")) << msg;
  AllocatorStats s = a.bfc->GetStats();
  EXPECT_EQ(s.bytes_limit, static_cast<int64_t>(4 * MiB));
  EXPECT_LE(s.bytes_reserved, s.bytes_limit);
  EXPECT_EQ(s.num_allocs, 1);
  EXPECT_TRUE(a.bfc->CheckInvariants().ok()) << a.bfc->CheckInvariants();
  // What the limit leaves still fits.
  EXPECT_NE(Alloc(*a.bfc, 2 * MiB), nullptr);
  EXPECT_EQ(a.bfc->GetStats().bytes_reserved, static_cast<int64_t>(4 * MiB));
}

TEST(BfcAllocatorTest, UnderTheLimitFreeRegionsAreReturnedToMakeRoom) {
  BfcOptions o = Growth(1 * MiB);
  o.memory_limit_bytes = 3 * MiB;
  Arena a = Make(o);
  a.bfc->Deallocate(Alloc(*a.bfc, 512 * KiB));  // a 1 MiB region, now free
  void* big = Alloc(*a.bfc, 2 * MiB + 512 * KiB);
  ASSERT_NE(big, nullptr);
  const std::vector<testing::BackingCall> frees = a.record->Frees();
  ASSERT_EQ(frees.size(), 1u);
  EXPECT_EQ(frees[0].bytes, 1 * MiB);
  EXPECT_EQ(a.bfc->GetStats().bytes_reserved, static_cast<int64_t>(3 * MiB));
}

TEST(BfcAllocatorTest, BacksOffWhenTheBackingIsShortThenReportsIt) {
  auto record = std::make_shared<BackingRecord>();
  record->capacity = 3 * MiB;
  Arena a = Make(Growth(4 * MiB), record);
  void* p = Alloc(*a.bfc, 2 * MiB);  // 4 MiB fails; 90% steps down until one fits
  ASSERT_NE(p, nullptr);
  const std::vector<size_t> sizes = record->AllocSizes();
  ASSERT_EQ(sizes.size(), 1u);
  EXPECT_LE(sizes[0], 3 * MiB);
  EXPECT_GE(sizes[0], 2 * MiB);
  absl::StatusOr<void*> q = a.bfc->Allocate(2 * MiB, "activations");
  ASSERT_FALSE(q.ok());
  EXPECT_EQ(q.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_TRUE(absl::StrContains(q.status().message(), "backing 'fake'")) << q.status();
  EXPECT_TRUE(absl::StrContains(q.status().message(), "'activations'")) << q.status();
}

TEST(BfcAllocatorTest, FragmentationOfACheckerboard) {
  BfcOptions o;
  o.allow_growth = false;
  o.memory_limit_bytes = 1 * MiB;
  Arena a = Make(o);
  std::vector<void*> blocks;
  for (int i = 0; i < 16; ++i) blocks.push_back(Alloc(*a.bfc, 64 * KiB));
  AllocatorStats s = a.bfc->GetStats();
  EXPECT_EQ(s.total_free, 0);
  EXPECT_EQ(s.fragmentation, 0.0);
  for (int i = 0; i < 16; i += 2) a.bfc->Deallocate(blocks[i]);
  s = a.bfc->GetStats();
  EXPECT_EQ(s.total_free, static_cast<int64_t>(512 * KiB));
  EXPECT_EQ(s.largest_free_chunk, static_cast<int64_t>(64 * KiB));
  EXPECT_DOUBLE_EQ(s.fragmentation, 1.0 - 64.0 / 512.0);
  // A 128 KiB tensor does not fit although half the arena is free.
  EXPECT_EQ(a.bfc->Allocate(128 * KiB, "x").status().code(),
            absl::StatusCode::kResourceExhausted);
  a.bfc->Deallocate(blocks[1]);  // joins blocks 0..2 into 192 KiB
  s = a.bfc->GetStats();
  EXPECT_EQ(s.largest_free_chunk, static_cast<int64_t>(192 * KiB));
  EXPECT_DOUBLE_EQ(s.fragmentation, 1.0 - 192.0 / 576.0);
  for (int i = 3; i < 16; i += 2) a.bfc->Deallocate(blocks[i]);
  s = a.bfc->GetStats();
  EXPECT_EQ(s.largest_free_chunk, static_cast<int64_t>(1 * MiB));
  EXPECT_EQ(s.fragmentation, 0.0);
}

TEST(BfcAllocatorTest, TrimReturnsExactlyTheFreeRegions) {
  Arena a = Make(Growth(1 * MiB));
  void* r1 = Alloc(*a.bfc, 1 * MiB);      // region 1 MiB
  void* r2 = Alloc(*a.bfc, 1 * MiB);      // region 2 MiB, split
  void* r2b = Alloc(*a.bfc, 1 * MiB);     // the rest of it
  void* r3 = Alloc(*a.bfc, 3 * MiB);      // region 4 MiB, whole
  ASSERT_EQ(a.bfc->GetStats().num_regions, 3);
  std::memset(r2b, 0x5a, 1 * MiB);
  a.bfc->Deallocate(r1);
  a.bfc->Deallocate(r2);  // region 2 keeps r2b in use
  a.bfc->Deallocate(r3);
  EXPECT_EQ(a.bfc->TrimMemory(), static_cast<int64_t>(5 * MiB));
  std::vector<testing::BackingCall> frees = a.record->Frees();
  ASSERT_EQ(frees.size(), 2u);
  std::vector<std::pair<void*, size_t>> got = {{frees[0].ptr, frees[0].bytes},
                                               {frees[1].ptr, frees[1].bytes}};
  std::sort(got.begin(), got.end(), [](auto& x, auto& y) { return x.second < y.second; });
  EXPECT_EQ(got[0], std::make_pair(r1, 1 * MiB));
  EXPECT_EQ(got[1], std::make_pair(r3, 4 * MiB));
  AllocatorStats s = a.bfc->GetStats();
  EXPECT_EQ(s.bytes_reserved, static_cast<int64_t>(2 * MiB));
  EXPECT_EQ(s.num_regions, 1);
  EXPECT_EQ(s.bytes_in_use, static_cast<int64_t>(1 * MiB));
  EXPECT_EQ(static_cast<unsigned char*>(r2b)[12345], 0x5a);  // untouched
  EXPECT_TRUE(a.bfc->CheckInvariants().ok()) << a.bfc->CheckInvariants();
  EXPECT_EQ(a.bfc->TrimMemory(), 0);
  a.bfc->Deallocate(r2b);
  EXPECT_EQ(a.bfc->TrimMemory(), static_cast<int64_t>(2 * MiB));
  EXPECT_EQ(a.record->live, 0u);
  // Allocating after a full trim grows again.
  EXPECT_NE(Alloc(*a.bfc, 1 * KiB), nullptr);
}

TEST(BfcAllocatorTest, StatsCountAllocsPeaksAndReset) {
  Arena a = Make(Growth(1 * MiB));
  AllocatorStats s = a.bfc->GetStats();
  EXPECT_EQ(s.bytes_limit, 0);  // the fake reports no free memory: no limit
  void* p = Alloc(*a.bfc, 100 * KiB);
  void* q = Alloc(*a.bfc, 300 * KiB);
  a.bfc->Deallocate(p);
  s = a.bfc->GetStats();
  EXPECT_EQ(s.num_allocs, 2);
  EXPECT_EQ(s.num_live_allocs, 1);
  EXPECT_EQ(s.bytes_in_use, static_cast<int64_t>(300 * KiB));
  EXPECT_EQ(s.peak_bytes_in_use, static_cast<int64_t>(400 * KiB));
  EXPECT_EQ(s.largest_alloc_size, static_cast<int64_t>(300 * KiB));
  EXPECT_EQ(s.bytes_reserved, static_cast<int64_t>(1 * MiB));
  EXPECT_EQ(s.total_free, static_cast<int64_t>(1 * MiB - 300 * KiB));
  EXPECT_EQ(s.num_regions, 1);
  a.bfc->ResetPeak();
  EXPECT_EQ(a.bfc->GetStats().peak_bytes_in_use, static_cast<int64_t>(300 * KiB));
  a.bfc->Deallocate(q);
  s = a.bfc->GetStats();
  EXPECT_EQ(s.bytes_in_use, 0);
  EXPECT_EQ(s.peak_bytes_in_use, static_cast<int64_t>(300 * KiB));
  EXPECT_FALSE(s.DebugString().empty());
}

TEST(BfcAllocatorTest, ForeignFreeIsIgnored) {
  Arena a = Make(Growth(1 * MiB));
  void* p = Alloc(*a.bfc, 1 * KiB);
  int local = 0;
  a.bfc->Deallocate(&local);
  a.bfc->Deallocate(At(p, 256));  // inside a chunk, not its start
  EXPECT_EQ(a.bfc->GetStats().num_live_allocs, 1);
  a.bfc->Deallocate(p);
  a.bfc->Deallocate(p);  // double free
  EXPECT_EQ(a.bfc->GetStats().num_live_allocs, 0);
  EXPECT_TRUE(a.bfc->CheckInvariants().ok()) << a.bfc->CheckInvariants();
}

TEST(BfcAllocatorTest, DestructorReturnsEveryRegion) {
  auto record = std::make_shared<BackingRecord>();
  {
    Arena a = Make(Growth(1 * MiB), record);
    Alloc(*a.bfc, 1 * MiB);
    Alloc(*a.bfc, 3 * MiB);
  }
  EXPECT_EQ(record->live, 0u);
  EXPECT_EQ(record->Frees().size(), 2u);
}

TEST(BfcAllocatorTest, ManyThreadsKeepTheArenaConsistent) {
  BfcOptions o = Growth(256 * KiB);
  o.memory_limit_bytes = 64 * MiB;
  Arena a = Make(o);
  constexpr int kThreads = 8;
  constexpr int kOps = 3000;
  std::atomic<int64_t> allocs{0};
  std::atomic<int> corrupted{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 rng(1234 + t);
      std::vector<std::pair<unsigned char*, size_t>> mine;
      for (int i = 0; i < kOps; ++i) {
        if (mine.empty() || rng() % 3 != 0) {
          const size_t bytes = 1 + rng() % (16 * KiB);
          absl::StatusOr<void*> p = a.bfc->Allocate(bytes, "worker");
          if (!p.ok()) continue;  // the limit may be reached; never an abort
          allocs.fetch_add(1);
          auto* b = static_cast<unsigned char*>(*p);
          std::memset(b, t + 1, bytes);  // overlapping blocks would be overwritten
          mine.emplace_back(b, bytes);
        } else {
          const size_t k = rng() % mine.size();
          auto [b, bytes] = mine[k];
          for (size_t j = 0; j < bytes; j += 61) {
            if (b[j] != t + 1) corrupted.fetch_add(1);
          }
          a.bfc->Deallocate(b);
          mine[k] = mine.back();
          mine.pop_back();
        }
      }
      for (auto [b, bytes] : mine) a.bfc->Deallocate(b);
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(corrupted.load(), 0);
  ASSERT_TRUE(a.bfc->CheckInvariants().ok()) << a.bfc->CheckInvariants();
  const AllocatorStats s = a.bfc->GetStats();
  EXPECT_EQ(s.bytes_in_use, 0);
  EXPECT_EQ(s.num_live_allocs, 0);
  EXPECT_EQ(s.num_allocs, allocs.load());
  EXPECT_GT(s.peak_bytes_in_use, 0);
  EXPECT_LE(s.peak_bytes_in_use, s.bytes_reserved);
  EXPECT_LE(s.bytes_reserved, s.bytes_limit);
  // All free: every region is one chunk, and trim returns all of it.
  EXPECT_EQ(s.fragmentation == 0.0, s.num_regions == 1);
  EXPECT_EQ(a.bfc->TrimMemory(), s.bytes_reserved);
  EXPECT_EQ(a.record->live, 0u);
}

TEST(BfcAllocatorTest, HostBackingWorks) {
  auto host = std::make_unique<HostSubAllocator>();
  std::optional<BackingMemoryInfo> info = host->MemoryInfo();
  ASSERT_TRUE(info.has_value());  // Linux has /proc/meminfo
  EXPECT_GT(info->total_bytes, 0u);
  EXPECT_LE(info->free_bytes, info->total_bytes);
  auto bfc = BfcAllocator::Create(std::move(host), Growth(1 * MiB), "host_bfc");
  ASSERT_TRUE(bfc.ok()) << bfc.status();
  EXPECT_GT((*bfc)->GetStats().bytes_limit, 0);  // 0.9 of MemAvailable
  void* p = Alloc(**bfc, 3 * MiB);
  std::memset(p, 1, 3 * MiB);
  (*bfc)->Deallocate(p);
  EXPECT_EQ((*bfc)->TrimMemory(), static_cast<int64_t>(4 * MiB));
}

}  // namespace
}  // namespace smrt::memory

namespace smrt::memory {
namespace {

// A rotating set of live blocks of mixed sizes (activations whose lifetimes
// overlap) must reuse freed memory: what the arena reserves stays bounded.
TEST(BfcAllocatorTest, RotatingLiveSetReusesMemory) {
  Arena a = Make(Growth(1 * MiB));
  std::mt19937 rng(42);
  std::vector<size_t> sizes(1024);
  for (size_t& s : sizes) s = size_t{256} << (rng() % 15);  // 256 B .. 4 MiB
  std::vector<void*> live(16, nullptr);
  for (size_t i = 0; i < 20000; ++i) {
    void*& slot = live[i % live.size()];
    a.bfc->Deallocate(slot);
    absl::StatusOr<void*> p = a.bfc->Allocate(sizes[i % sizes.size()], "activation");
    ASSERT_TRUE(p.ok()) << i << ": " << p.status();
    slot = *p;
    const AllocatorStats s = a.bfc->GetStats();
    ASSERT_LE(s.bytes_in_use, static_cast<int64_t>(16 * 4 * MiB)) << i << ": " << s.DebugString();
  }
  ASSERT_TRUE(a.bfc->CheckInvariants().ok()) << a.bfc->CheckInvariants();
  EXPECT_LE(a.bfc->GetStats().bytes_reserved, static_cast<int64_t>(256 * MiB))
      << a.bfc->GetStats().DebugString();
}

}  // namespace
}  // namespace smrt::memory
