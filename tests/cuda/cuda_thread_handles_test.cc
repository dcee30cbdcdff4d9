// The library handles' cache (kernels/cuda/thread_handles.h): one handle per
// host thread and GPU, made once, freed when the thread ends. Host only:
// the handles here are plain numbers.
#include "kernels/cuda/thread_handles.h"

#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace smrt::kernels::cuda {
namespace {

std::vector<long> g_destroyed;  // NOLINT: the destroy callback is a plain function

void Destroy(long h) { g_destroyed.push_back(h); }

TEST(CudaThreadHandlesTest, EachDeviceGetsAHandleOfItsOwnMadeOnce) {
  g_destroyed.clear();
  int made = 0;
  {
    ThreadHandles<long> handles(Destroy);
    auto create = [&]() -> absl::StatusOr<long> { return 100 + ++made; };
    absl::StatusOr<long> d0 = handles.For(0, create);
    absl::StatusOr<long> d2 = handles.For(2, create);
    absl::StatusOr<long> d0_again = handles.For(0, create);
    absl::StatusOr<long> d2_again = handles.For(2, create);
    ASSERT_TRUE(d0.ok() && d2.ok() && d0_again.ok() && d2_again.ok());
    EXPECT_NE(*d0, *d2);
    EXPECT_EQ(*d0, *d0_again);
    EXPECT_EQ(*d2, *d2_again);
    EXPECT_EQ(made, 2);
    EXPECT_EQ(handles.size(), 2);
    EXPECT_TRUE(g_destroyed.empty());
  }
  EXPECT_EQ(g_destroyed, (std::vector<long>{101, 102}));  // device 1 never had one
}

TEST(CudaThreadHandlesTest, AFailedCreateIsReturnedAndTriedAgain) {
  g_destroyed.clear();
  {
    ThreadHandles<long> handles(Destroy);
    absl::StatusOr<long> failed = handles.For(
        1, []() -> absl::StatusOr<long> { return absl::InternalError("cudnnCreate failed"); });
    EXPECT_EQ(failed.status().message(), "cudnnCreate failed");
    EXPECT_EQ(handles.size(), 0);
    absl::StatusOr<long> made = handles.For(1, []() -> absl::StatusOr<long> { return 7; });
    ASSERT_TRUE(made.ok());
    EXPECT_EQ(*made, 7);
  }
  EXPECT_EQ(g_destroyed, (std::vector<long>{7}));
}

TEST(CudaThreadHandlesTest, ThreadLocalCachesGiveEachThreadItsOwnHandles) {
  g_destroyed.clear();
  std::vector<long> seen(2);
  int next = 0;
  auto use = [&](int t) {
    thread_local ThreadHandles<long> handles(Destroy);
    seen[t] = *handles.For(0, [&]() -> absl::StatusOr<long> { return ++next + 10 * t; });
  };
  std::thread a(use, 0);
  a.join();  // one after the other: `next` and g_destroyed need no lock
  std::thread b(use, 1);
  b.join();
  EXPECT_NE(seen[0], seen[1]);
  EXPECT_EQ(g_destroyed, seen);  // each freed when its thread ended
}

}  // namespace
}  // namespace smrt::kernels::cuda
