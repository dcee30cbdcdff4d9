// Regression (saved_model_fuzzer, 2026-12-03): a Reshape whose shape input
// was declared with 10^18 elements made shape inference build a shape of
// that rank (std::length_error, abort). Now its rank stays unknown.
#include "gtest/gtest.h"
#include "kernels/kernel.h"
#include "kernels/registry.h"

namespace smrt::kernels {
namespace {

TEST(ShapeLengthRegressionTest, HugeDeclaredShapeInputLeavesTheRankUnknown) {
  const OpSpec* reshape = KernelRegistry::Default().FindOp("Reshape");
  ASSERT_NE(reshape, nullptr);
  AttrMap attrs;
  std::vector<ValueInfo> inputs = {
      ValueInfo{DataType::kFloat, PartialShape::Known({2, 3})},
      ValueInfo{DataType::kInt32, PartialShape::Known({int64_t{1000000000000000000}})}};
  InferenceContext ctx("r", "Reshape", attrs, inputs, {}, 1);
  ASSERT_TRUE(reshape->infer(ctx).ok());
  EXPECT_FALSE(ctx.outputs()[0].shape.known_rank);

  inputs[1].shape = PartialShape::Known({3});  // a real shape input: rank 3
  InferenceContext ok("r", "Reshape", attrs, inputs, {}, 1);
  ASSERT_TRUE(reshape->infer(ok).ok());
  EXPECT_EQ(ok.outputs()[0].shape.rank(), 3);
}

}  // namespace
}  // namespace smrt::kernels
