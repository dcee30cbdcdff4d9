#include "gtest/gtest.h"
#include "testing/kernel_test.h"

namespace smrt::kernels {
namespace {

AttrMap FloatAttrs() {
  AttrMap a;
  a.Set("T", DataType::kFloat);
  return a;
}

Tensor G(const std::string& name) { return ReadGolden("kernels/training/" + name); }

TEST(TrainingOpsTest, BiasAddGradMatchesTensorFlow) {
  for (const char* format : {"NHWC", "NCHW"}) {
    AttrMap a = FloatAttrs();
    a.Set("data_format", std::string(format));
    absl::StatusOr<std::vector<Tensor>> out = RunOp("BiasAddGrad", a, {G("bias_grad_in")});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_TRUE(TensorsNear((*out)[0],
                            G(std::string("bias_grad_") + (format[1] == 'H' ? "nhwc" : "nchw")),
                            1e-5, 1e-5))
        << format;
  }
  EXPECT_FALSE(RunOp("BiasAddGrad", FloatAttrs(), {MakeTensor<float>({3}, {1, 2, 3})}).ok());
}

TEST(TrainingOpsTest, ReluGradMatchesTensorFlow) {
  absl::StatusOr<std::vector<Tensor>> out =
      RunOp("ReluGrad", FloatAttrs(), {G("relu_grad_g"), G("relu_grad_f")});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(TensorsNear((*out)[0], G("relu_grad"), 0, 0));
  EXPECT_FALSE(RunOp("ReluGrad", FloatAttrs(),
                     {MakeTensor<float>({2}, {1, 2}), MakeTensor<float>({3}, {1, 2, 3})})
                   .ok());
}

TEST(TrainingOpsTest, SoftmaxCrossEntropyMatchesTensorFlow) {
  absl::StatusOr<std::vector<Tensor>> out = RunOp("SoftmaxCrossEntropyWithLogits", FloatAttrs(),
                                                  {G("xent_logits"), G("xent_labels")});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(TensorsNear((*out)[0], G("xent_loss"), 1e-5, 1e-5));
  EXPECT_TRUE(TensorsNear((*out)[1], G("xent_backprop"), 1e-6, 1e-5));
}

TEST(TrainingOpsTest, SparseSoftmaxCrossEntropyMatchesTensorFlowAndChecksLabels) {
  AttrMap a = FloatAttrs();
  a.Set("Tlabels", DataType::kInt64);
  absl::StatusOr<std::vector<Tensor>> out =
      RunOp("SparseSoftmaxCrossEntropyWithLogits", a, {G("xent_logits"), G("sparse_labels")});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(TensorsNear((*out)[0], G("sparse_loss"), 1e-5, 1e-5));
  EXPECT_TRUE(TensorsNear((*out)[1], G("sparse_backprop"), 1e-6, 1e-5));
  absl::StatusOr<std::vector<Tensor>> bad = RunOp(
      "SparseSoftmaxCrossEntropyWithLogits", a,
      {G("xent_logits"), MakeTensor<int64_t>({4}, {0, 6, 0, 0})});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("label 6 at row 1"), std::string::npos) << bad.status();
}

}  // namespace
}  // namespace smrt::kernels
