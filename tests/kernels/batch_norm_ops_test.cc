// FusedBatchNorm{,V2,V3} against TensorFlow goldens (tests/generators/kernel_goldens/nn.py),
// in inference and training mode, plus shape inference and error cases.
#include <cmath>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gtest/gtest.h"
#include "testing/kernel_test.h"

namespace smrt::kernels {
namespace {

Tensor Golden(const std::string& name) { return ReadGolden("kernels/nn/" + name); }

AttrMap BnAttrs(const std::string& op, float epsilon, bool is_training) {
  AttrMap a;
  a.Set("T", DataType::kFloat);
  if (op != "FusedBatchNorm") a.Set("U", DataType::kFloat);
  a.Set("epsilon", epsilon);
  a.Set("is_training", is_training);
  return a;
}

std::vector<Tensor> Inputs(const std::string& prefix, Tensor mean, Tensor variance) {
  return {Golden(prefix + "_x"), Golden(prefix + "_scale"), Golden(prefix + "_offset"),
          std::move(mean), std::move(variance)};
}

std::vector<Tensor> Inputs(const std::string& prefix) {
  return Inputs(prefix, Golden(prefix + "_mean"), Golden(prefix + "_variance"));
}

TEST(BatchNormOpsTest, InferenceMatchesTensorFlowForEveryVersion) {
  for (const std::string op : {"FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3"}) {
    SCOPED_TRACE(op);
    absl::StatusOr<std::vector<Tensor>> out =
        RunOp(op, BnAttrs(op, 0.001f, false), Inputs("bn_nhwc"));
    ASSERT_TRUE(out.ok()) << out.status();
    ASSERT_EQ(out->size(), op == "FusedBatchNormV3" ? 6u : 5u);
    EXPECT_TRUE(TensorsNear((*out)[0], Golden("bn_nhwc_inference_y"), 1e-5, 1e-5));
    // Inference returns the given statistics.
    EXPECT_TRUE(TensorsNear((*out)[1], Golden("bn_nhwc_mean"), 0, 0));
    EXPECT_TRUE(TensorsNear((*out)[2], Golden("bn_nhwc_variance"), 0, 0));
    EXPECT_TRUE(TensorsNear((*out)[3], Golden("bn_nhwc_mean"), 0, 0));
    EXPECT_TRUE(TensorsNear((*out)[4], Golden("bn_nhwc_variance"), 0, 0));
  }
}

TEST(BatchNormOpsTest, NchwAndFiveDimensional) {
  AttrMap a = BnAttrs("FusedBatchNormV3", 1e-4f, false);
  a.Set("data_format", std::string("NCHW"));
  absl::StatusOr<std::vector<Tensor>> out = RunOp("FusedBatchNormV3", a, Inputs("bn_nchw"));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(TensorsNear((*out)[0], Golden("bn_nchw_y"), 1e-5, 1e-5));

  a.Set("data_format", std::string("NDHWC"));
  out = RunOp("FusedBatchNormV3", a, Inputs("bn_ndhwc"));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(TensorsNear((*out)[0], Golden("bn_ndhwc_y"), 1e-5, 1e-5));
}

TEST(BatchNormOpsTest, TrainingIsTheDefaultAndMatchesTensorFlow) {
  AttrMap a;
  a.Set("T", DataType::kFloat);
  a.Set("U", DataType::kFloat);
  a.Set("epsilon", 0.001f);  // is_training left to its default: true
  Tensor empty = MakeTensor<float>({0}, {});
  absl::StatusOr<std::vector<Tensor>> out =
      RunOp("FusedBatchNormV3", a, Inputs("bn_nhwc", empty, empty));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(TensorsNear((*out)[0], Golden("bn_nhwc_training_y"), 1e-5, 1e-5));
  EXPECT_TRUE(TensorsNear((*out)[1], Golden("bn_nhwc_training_batch_mean"), 1e-6, 1e-5));
  EXPECT_TRUE(TensorsNear((*out)[2], Golden("bn_nhwc_training_batch_variance"), 1e-6, 1e-5));
  EXPECT_TRUE(TensorsNear((*out)[3], Golden("bn_nhwc_training_reserve_space_1"), 1e-6, 1e-5));
  EXPECT_TRUE(TensorsNear((*out)[4], Golden("bn_nhwc_training_reserve_space_2"), 1e-6, 1e-5));
  EXPECT_EQ((*out)[5].num_elements(), 0);

  a.Set("exponential_avg_factor", 0.25f);
  out = RunOp("FusedBatchNormV3", a, Inputs("bn_nhwc"));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(TensorsNear((*out)[0], Golden("bn_nhwc_training_avg_y"), 1e-5, 1e-5));
  EXPECT_TRUE(TensorsNear((*out)[1], Golden("bn_nhwc_training_avg_batch_mean"), 1e-6, 1e-5));
  EXPECT_TRUE(
      TensorsNear((*out)[2], Golden("bn_nhwc_training_avg_batch_variance"), 1e-6, 1e-5));
}

TEST(BatchNormOpsTest, TrainingWithOneElementPerChannel) {
  // n == 1: the unbiased variance divides by max(n - 1, 1).
  AttrMap a = BnAttrs("FusedBatchNormV3", 1e-4f, true);
  Tensor ones = MakeTensor<float>({2}, {1, 1});
  Tensor empty = MakeTensor<float>({0}, {});
  absl::StatusOr<std::vector<Tensor>> out =
      RunOp("FusedBatchNormV3", a,
            {MakeTensor<float>({1, 1, 1, 2}, {3, 4}), ones, ones, empty, empty});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{1, 1}));
  EXPECT_EQ(Values<float>((*out)[1]), (std::vector<float>{3, 4}));
  EXPECT_EQ(Values<float>((*out)[2]), (std::vector<float>{0, 0}));
}

TEST(BatchNormOpsTest, EmptyInputGivesNaNStatistics) {
  Tensor c3 = MakeTensor<float>({3}, {1, 2, 3});
  absl::StatusOr<std::vector<Tensor>> out =
      RunOp("FusedBatchNormV3", BnAttrs("FusedBatchNormV3", 1e-4f, false),
            {MakeTensor<float>({0, 2, 2, 3}, {}), c3, c3, c3, c3});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), (Shape{0, 2, 2, 3}));
  for (float v : Values<float>((*out)[1])) EXPECT_TRUE(std::isnan(v));
}

TEST(BatchNormOpsTest, Errors) {
  Tensor x = MakeTensor<float>({1, 2, 2, 3}, std::vector<float>(12, 1.0f));
  Tensor c3 = MakeTensor<float>({3}, {1, 1, 1});
  Tensor c2 = MakeTensor<float>({2}, {1, 1});
  Tensor empty = MakeTensor<float>({0}, {});
  AttrMap inference = BnAttrs("FusedBatchNormV3", 1e-4f, false);

  EXPECT_TRUE(IsError(RunOp("FusedBatchNormV3", inference, {x, c2, c3, c3, c3}).status(),
                      absl::StatusCode::kInvalidArgument,
                      "scale must have the same number of elements as the channels of x, got 2 "
                      "and 3"));
  EXPECT_TRUE(IsError(RunOp("FusedBatchNormV3", inference, {x, c3, c3, empty, c3}).status(),
                      absl::StatusCode::kInvalidArgument, "mean must have the same number"));
  EXPECT_TRUE(IsError(
      RunOp("FusedBatchNormV3", inference,
            {MakeTensor<float>({2, 2, 3}, std::vector<float>(12)), c3, c3, c3, c3})
          .status(),
      absl::StatusCode::kInvalidArgument, "4 or 5-dimensional"));
  EXPECT_TRUE(IsError(
      RunOp("FusedBatchNormV3", inference,
            {x, MakeTensor<float>({1, 3}, {1, 1, 1}), c3, c3, c3}).status(),
      absl::StatusCode::kInvalidArgument, "scale must be 1-dimensional"));
  AttrMap bad_format = inference;
  bad_format.Set("data_format", std::string("HWCN"));
  EXPECT_EQ(RunOp("FusedBatchNormV3", bad_format, {x, c3, c3, c3, c3}).status().code(),
            absl::StatusCode::kInvalidArgument);
  // Training with factor 1 ignores mean/variance, but not with another factor.
  AttrMap training = BnAttrs("FusedBatchNormV3", 1e-4f, true);
  EXPECT_TRUE(RunOp("FusedBatchNormV3", training, {x, c3, c3, c2, c2}).ok());
  training.Set("exponential_avg_factor", 0.5f);
  EXPECT_FALSE(RunOp("FusedBatchNormV3", training, {x, c3, c3, c2, c2}).ok());
}

TEST(BatchNormOpsTest, Inference) {
  AttrMap a = BnAttrs("FusedBatchNormV3", 1e-4f, false);
  ValueInfo vec{DataType::kFloat, PartialShape::Known({-1})};
  absl::StatusOr<std::vector<ValueInfo>> out = InferOp(
      "FusedBatchNormV3", a,
      {{DataType::kFloat, PartialShape::Known({-1, 7, -1, 4})}, vec, vec, vec, vec});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 6u);
  EXPECT_EQ((*out)[0].shape, PartialShape::Known({-1, 7, -1, 4}));
  for (int i = 1; i <= 4; ++i) EXPECT_EQ((*out)[i].shape, PartialShape::Known({4}));
  EXPECT_FALSE((*out)[5].shape.known_rank);

  // Unknown x: channels come from scale.
  out = InferOp("FusedBatchNorm", BnAttrs("FusedBatchNorm", 1e-4f, false),
                {{DataType::kFloat, PartialShape::Unknown()},
                 {DataType::kFloat, PartialShape::Known({5})}, vec, vec, vec});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 5u);
  EXPECT_FALSE((*out)[0].shape.known_rank);
  EXPECT_EQ((*out)[2].shape, PartialShape::Known({5}));

  out = InferOp("FusedBatchNormV3", a,
                {{DataType::kFloat, PartialShape::Known({1, 2, 2, 4})},
                 {DataType::kFloat, PartialShape::Known({3})}, vec, vec, vec});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace smrt::kernels
