// oneDNN kernels keep one plan per input shape and intra-op thread count
// (kernels/cpu/onednn/dnnl_util.h, PlanCache): a primitive fixes its thread
// count when it is made, so a plan made for a Run of 2 threads, reused by a
// Run that was given 1 (concurrent callers share the cores), would still
// start 2 threads; the team counters show whether it does.
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "kernels/bfloat16_test_util.h"
#include "kernels/cpu/intra_op_threads.h"
#include "kernels/cpu/thread_team.h"
#include "kernels/registry.h"
#include "ops/fused_ops.h"
#include "testing/kernel_test.h"

namespace smrt::kernels {
namespace {

TEST(OneDnnPlanCacheTest, ARunOfOneThreadMakesItsOwnPlanAndStartsNoOtherThread) {
  const KernelSpec* conv = CpuKernel(ops::kFusedConv2D, "onednn", DataType::kFloat);
  if (conv == nullptr) GTEST_SKIP() << "built without oneDNN";
  AttrMap attrs;
  attrs.Set("T", DataType::kFloat);
  attrs.Set("strides", std::vector<int64_t>{1, 1, 1, 1});
  attrs.Set("padding", std::string("SAME"));
  attrs.Set("fused_ops", std::vector<std::string>{"Relu"});
  attrs.Set("weights_constant", true);
  const Tensor x = RandomFloats({4, 32, 32, 64}, 1), w = RandomFloats({3, 3, 64, 64}, 2);
  std::unique_ptr<KernelState> state = conv->make_state();

  uint64_t regions_at_two = 0;
  {
    IntraOpThreadsScope two(2);
    const uint64_t before = GetTeamCounters().regions;
    absl::StatusOr<Tensor> y = RunKernel(*conv, attrs, {x, w}, state.get());
    ASSERT_TRUE(y.ok()) << y.status();
    regions_at_two = GetTeamCounters().regions - before;
  }
  if (regions_at_two == 0) GTEST_SKIP() << "oneDNN ran this convolution on one thread";
  IntraOpThreadsScope one(1);
  const uint64_t before = GetTeamCounters().regions;
  absl::StatusOr<Tensor> y = RunKernel(*conv, attrs, {x, w}, state.get());
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(GetTeamCounters().regions - before, 0u);  // a region of one part is not counted
}

}  // namespace
}  // namespace smrt::kernels
