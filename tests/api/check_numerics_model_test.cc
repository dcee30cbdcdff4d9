// tf.debugging.check_numerics in an exported graph (the committed zoo model
// checks_module, tests/generators/zoo/checks.py): the run stops with
// TensorFlow's message when the checked tensor holds NaN or Inf, and
// forwards it otherwise. (LoadOptions::check_numerics, smrt's own check of
// every node, is tests/hostile/limits_test.cc.)
#include <cmath>
#include <memory>
#include <string>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "smrt/model.h"
#include "testing/paths.h"

namespace smrt {
namespace {

Tensor Row(float a, float b, float c, float d) {
  Tensor t = *Tensor::Create(DataType::kFloat, {1, 4});
  float *p = t.data<float>();
  p[0] = a, p[1] = b, p[2] = c, p[3] = d;
  return t;
}

TEST(CheckNumericsModelTest, NanStopsTheRunWithTheGraphsMessage) {
  absl::StatusOr<std::unique_ptr<Model>> m =
      Model::Load(testing::TestDataDir() + "/zoo/checks_module/saved_model");
  ASSERT_TRUE(m.ok()) << m.status();
  absl::StatusOr<NamedTensors> ok = (*m)->Run("serving_default", {{"x", Row(1, 2, -0.5f, 3)}});
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_NEAR(ok->at("log").data<float>()[1], std::log(3.0f), 1e-6);
  // The graph's assert_all_finite is only a control input, which smrt prunes
  // (TensorFlow would stop there first); check_numerics is on the data path.
  absl::StatusOr<NamedTensors> bad =
      (*m)->Run("serving_default", {{"x", Row(1, std::nanf(""), 0, 0)}});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(bad.status().message(), "log of |x|+1 : Tensor had NaN values"))
      << bad.status();
}

}  // namespace
}  // namespace smrt
