// float16/bfloat16 kernels (half_precision_ops.cc) against TensorFlow's CPU
// kernels on the same 16-bit inputs (tests/generators/kernel_goldens/half.py).
#include <limits>

#include "Eigen/Core"
#include "gtest/gtest.h"
#include "kernels/bfloat16_test_util.h"
#include "testing/kernel_test.h"

namespace smrt::kernels {
namespace {

Tensor Golden(const std::string& name) { return ReadGolden("kernels/half/" + name); }

// Output dtype must be the 16-bit type, and values within one ulp of
// TensorFlow's (TF and smrt both compute in float and round once; summation
// order inside an op may move a result across a rounding boundary).
void ExpectMatches(const absl::StatusOr<std::vector<Tensor>>& out, const std::string& golden,
                   DataType dtype, double ulp) {
  ASSERT_TRUE(out.ok()) << out.status();
  const Tensor& y = (*out)[0];
  EXPECT_EQ(y.dtype(), dtype) << golden;
  EXPECT_TRUE(TensorsNear(ToFloat(y), ToFloat(Golden(golden)), ulp, ulp)) << golden;
}

constexpr double kHalfUlp = 1.0 / 1024;  // 2^-10: one float16 ulp at 1

TEST(HalfPrecisionOpsTest, ConvolutionsMatchTensorFlow) {
  AttrMap conv;
  conv.Set("T", DataType::kHalf);
  conv.Set("strides", std::vector<int64_t>{1, 2, 2, 1});
  conv.Set("padding", std::string("SAME"));
  ExpectMatches(RunOp("Conv2D", conv, {Golden("x"), Golden("w")}), "conv", DataType::kHalf,
                4 * kHalfUlp);
  AttrMap dw;
  dw.Set("T", DataType::kHalf);
  dw.Set("strides", std::vector<int64_t>{1, 1, 1, 1});
  dw.Set("padding", std::string("VALID"));
  ExpectMatches(RunOp("DepthwiseConv2dNative", dw, {Golden("x"), Golden("dw")}), "depthwise",
                DataType::kHalf, 4 * kHalfUlp);
}

TEST(HalfPrecisionOpsTest, MatMulsMatchTensorFlow) {
  AttrMap mm;
  mm.Set("T", DataType::kHalf);
  ExpectMatches(RunOp("MatMul", mm, {Golden("a"), Golden("b")}), "matmul", DataType::kHalf,
                4 * kHalfUlp);
  AttrMap bmm;
  bmm.Set("T", DataType::kBFloat16);
  ExpectMatches(RunOp("BatchMatMulV2", bmm, {ToBFloat16(Golden("ba")), ToBFloat16(Golden("bb"))}),
                "bmm_bf16", DataType::kBFloat16, 1.0 / 64);
}

TEST(HalfPrecisionOpsTest, BatchNormKeepsFloatStatistics) {
  AttrMap bn;
  bn.Set("T", DataType::kHalf);
  bn.Set("U", DataType::kFloat);
  bn.Set("epsilon", 1e-3f);
  bn.Set("is_training", false);
  absl::StatusOr<std::vector<Tensor>> out =
      RunOp("FusedBatchNormV3", bn, {Golden("x"), Golden("scale"), Golden("offset"),
                                     Golden("mean"), Golden("var")});
  ExpectMatches(out, "bn", DataType::kHalf, 2 * kHalfUlp);
  ASSERT_TRUE(out.ok());
  for (size_t i = 1; i < out->size(); ++i) {
    if ((*out)[i].valid()) {
      EXPECT_EQ((*out)[i].dtype(), DataType::kFloat) << "output " << i;
    }
  }
}

TEST(HalfPrecisionOpsTest, PoolingAndSoftmaxMatchTensorFlow) {
  AttrMap avg;
  avg.Set("T", DataType::kHalf);
  avg.Set("ksize", std::vector<int64_t>{1, 3, 3, 1});
  avg.Set("strides", std::vector<int64_t>{1, 2, 2, 1});
  avg.Set("padding", std::string("VALID"));
  ExpectMatches(RunOp("AvgPool", avg, {Golden("x")}), "avgpool", DataType::kHalf, kHalfUlp);
  AttrMap max;
  max.Set("T", DataType::kHalf);
  max.Set("ksize", std::vector<int64_t>{1, 2, 2, 1});
  max.Set("strides", std::vector<int64_t>{1, 2, 2, 1});
  max.Set("padding", std::string("SAME"));
  ExpectMatches(RunOp("MaxPool", max, {Golden("x")}), "maxpool", DataType::kHalf, 0);
  AttrMap sm;
  sm.Set("T", DataType::kHalf);
  ExpectMatches(RunOp("Softmax", sm, {Golden("a")}), "softmax", DataType::kHalf, kHalfUlp);
}

// Windows of -inf and NaN alone give float16's lowest (-65504), where
// TensorFlow's float16 MaxPool starts; a bfloat16 one gives -inf, as
// TensorFlow's (oneDNN's) does.
TEST(HalfPrecisionOpsTest, MaxPoolOfMaskedWindowsStartsFromTheLowest) {
  AttrMap max;
  max.Set("T", DataType::kHalf);
  max.Set("ksize", std::vector<int64_t>{1, 2, 2, 1});
  max.Set("strides", std::vector<int64_t>{1, 2, 2, 1});
  max.Set("padding", std::string("VALID"));
  const absl::StatusOr<std::vector<Tensor>> half = RunOp("MaxPool", max, {Golden("x_masked")});
  ExpectMatches(half, "maxpool_masked", DataType::kHalf, 0);
  EXPECT_EQ(static_cast<float>((*half)[0].data<Eigen::half>()[0]), -65504.0f);
  max.Set("T", DataType::kBFloat16);
  const absl::StatusOr<std::vector<Tensor>> bf16 =
      RunOp("MaxPool", max, {ToBFloat16(ToFloat(Golden("x_masked")))});
  ASSERT_TRUE(bf16.ok()) << bf16.status();
  const Tensor y = ToFloat((*bf16)[0]);
  EXPECT_EQ(y.data<float>()[0], -std::numeric_limits<float>::infinity());
  EXPECT_EQ(y.data<float>()[3], 3.5f);
}

}  // namespace
}  // namespace smrt::kernels
