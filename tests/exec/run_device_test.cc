// RunDevice (exec/run_device.h), one Run's view of a device, over a fake
// device whose "device memory" is host memory: what a run frees is parked and
// reused by that run, given back only after the run's stream was waited for,
// and tensors that outlive the run go straight back.
#include "exec/run_device.h"

#include <atomic>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace smrt::exec {
namespace {

// Counts what it allocates and frees; logs frees into a shared event list.
class FakeDevice : public kernels::DeviceContext {
 public:
  explicit FakeDevice(std::vector<std::string>* events) : events_(events) {}
  absl::string_view device_type() const override { return "FAKE"; }
  absl::StatusOr<Tensor> Allocate(DataType dtype, const Shape& shape,
                                  absl::string_view) override {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    const size_t bytes = static_cast<size_t>(n) * DataTypeSize(dtype);
    if (capacity >= 0 && in_use_ + static_cast<int64_t>(bytes) > capacity) {
      return absl::ResourceExhaustedError("the fake device is full");
    }
    in_use_ += static_cast<int64_t>(bytes);
    ++allocations_;
    std::atomic<int>* frees = &frees_;
    std::atomic<int64_t>* in_use = &in_use_;
    std::vector<std::string>* events = events_;
    std::mutex* mu = &mu_;
    std::shared_ptr<void> storage(
        new char[bytes == 0 ? 1 : bytes], [frees, in_use, bytes, events, mu](void* p) {
          delete[] static_cast<char*>(p);
          ++*frees;
          *in_use -= static_cast<int64_t>(bytes);
          std::lock_guard<std::mutex> lock(*mu);
          events->push_back("free");
        });
    return Tensor::DeviceStorage(dtype, shape, std::move(storage));
  }
  void* stream() const override { return nullptr; }
  int allocations() const { return allocations_; }
  int frees() const { return frees_; }
  std::mutex mu_;
  int64_t capacity = -1;  // bytes; -1: no limit

 private:
  std::vector<std::string>* events_;
  std::atomic<int> allocations_{0};
  std::atomic<int> frees_{0};
  std::atomic<int64_t> in_use_{0};
};

struct Fixture {
  std::vector<std::string> events;
  FakeDevice base{&events};
  int stream_token = 0;
  std::unique_ptr<RunDevice> Run() {
    return std::make_unique<RunDevice>(
        base, &stream_token,
        [this](void* s) {
          EXPECT_EQ(s, &stream_token);
          std::lock_guard<std::mutex> lock(base.mu_);
          events.push_back("sync");
        },
        [this](void* s) {
          EXPECT_EQ(s, &stream_token);
          std::lock_guard<std::mutex> lock(base.mu_);
          events.push_back("give_back");
        });
  }
};

TEST(RunDeviceTest, WhatARunFreesParksAndTheRunReusesIt) {
  Fixture f;
  std::unique_ptr<RunDevice> run = f.Run();
  EXPECT_EQ(run->stream(), &f.stream_token);
  EXPECT_EQ(run->device_type(), "FAKE");
  absl::StatusOr<Tensor> a = run->Allocate(DataType::kFloat, {100}, "a");
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_TRUE(a->on_device());
  const void* where = a->raw_data();
  *a = Tensor();
  EXPECT_EQ(f.base.frees(), 0);  // not back to the device: queued work may read it
  EXPECT_EQ(run->parked(), 1);
  // 320 bytes fit the 400 parked: the same buffer, no new allocation.
  absl::StatusOr<Tensor> b = run->Allocate(DataType::kFloat, {8, 10}, "b");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->raw_data(), where);
  EXPECT_EQ(b->shape(), (Shape{8, 10}));
  EXPECT_EQ(run->reused(), 1);
  EXPECT_EQ(f.base.allocations(), 1);
  *b = Tensor();
  // 40 bytes would waste 360 of it: a buffer of its own.
  absl::StatusOr<Tensor> c = run->Allocate(DataType::kFloat, {10}, "c");
  ASSERT_TRUE(c.ok());
  EXPECT_NE(c->raw_data(), where);
  EXPECT_EQ(f.base.allocations(), 2);
}

// A loop whose buffers grow each step cannot reuse what it parked: when the
// device is full, the run waits for its stream, gives its parked buffers
// back and gets the memory (before, the run failed with most of the device
// parked).
TEST(RunDeviceTest, AFullDeviceTakesBackWhatTheRunParkedAfterAWait) {
  Fixture f;
  f.base.capacity = 1000;
  std::unique_ptr<RunDevice> run = f.Run();
  for (int64_t step = 1; step <= 4; ++step) {
    absl::StatusOr<Tensor> t = run->Allocate(DataType::kUInt8, {step * 150}, "grows");
    ASSERT_TRUE(t.ok()) << "step " << step << ": " << t.status();
  }  // 150 + 300 + 450 parked; 600 more does not fit beside them
  EXPECT_EQ(f.events, (std::vector<std::string>{"sync", "free", "free", "free"}));
  EXPECT_EQ(run->parked(), 1);
  // Over what the device holds at all: the error, after giving back again.
  absl::StatusOr<Tensor> too_big = run->Allocate(DataType::kUInt8, {1001}, "too_big");
  EXPECT_EQ(too_big.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(run->parked(), 0);
}

TEST(RunDeviceTest, TheRunWaitsForItsStreamBeforeGivingBuffersBack) {
  Fixture f;
  {
    std::unique_ptr<RunDevice> run = f.Run();
    for (int i = 0; i < 3; ++i) {
      absl::StatusOr<Tensor> t = run->Allocate(DataType::kInt32, {16 << i}, "t");
      ASSERT_TRUE(t.ok());
    }  // each parks as it goes
    EXPECT_EQ(run->parked(), 3);
    EXPECT_TRUE(f.events.empty());
  }
  EXPECT_EQ(f.events,
            (std::vector<std::string>{"sync", "free", "free", "free", "give_back"}));
  EXPECT_EQ(f.base.frees(), f.base.allocations());
}

TEST(RunDeviceTest, TensorsThatOutliveTheRunGoStraightBack) {
  Fixture f;
  Tensor kept;  // a kernel's cached filter, say
  {
    std::unique_ptr<RunDevice> run = f.Run();
    absl::StatusOr<Tensor> t = run->Allocate(DataType::kHalf, {3, 3}, "filter");
    ASSERT_TRUE(t.ok());
    kept = *t;
  }
  EXPECT_EQ(f.base.frees(), 0);
  kept = Tensor();
  EXPECT_EQ(f.base.frees(), 1);
  EXPECT_EQ(f.events.back(), "free");
}

TEST(RunDeviceTest, EmptyTensorsComeFromTheDevice) {
  Fixture f;
  std::unique_ptr<RunDevice> run = f.Run();
  absl::StatusOr<Tensor> t = run->Allocate(DataType::kFloat, {0, 4}, "empty");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->num_elements(), 0);
  EXPECT_EQ(run->parked(), 0);
}

TEST(RunDeviceTest, ManyThreadsAllocateAndFreeOneRunsMemory) {
  Fixture f;
  {
    std::unique_ptr<RunDevice> run = f.Run();
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t) {
      threads.emplace_back([&run, t] {
        std::mt19937 rng(t);
        std::vector<Tensor> live;
        for (int i = 0; i < 500; ++i) {
          absl::StatusOr<Tensor> x =
              run->Allocate(DataType::kFloat, {1 + static_cast<int64_t>(rng() % 256)}, "x");
          ASSERT_TRUE(x.ok());
          static_cast<float*>(x->raw_data())[0] = 1.0f;  // touch it
          live.push_back(*std::move(x));
          if (live.size() > 4) live.erase(live.begin() + static_cast<long>(rng() % live.size()));
        }
      });
    }
    for (std::thread& th : threads) th.join();
    EXPECT_GT(run->reused(), 0);
  }
  EXPECT_EQ(f.base.frees(), f.base.allocations());
  EXPECT_LT(f.base.allocations(), 8 * 500);
}

}  // namespace
}  // namespace smrt::exec
