// XlaReduceWindow and XlaReduce through a loaded model, since their reducer
// is a function attr the executor compiles for the node
// (tests/data/kernels/xla_reduce, made by tests/generators/kernel_goldens/xla_reduce.py).
#include <Eigen/Core>
#include <string>

#include "gtest/gtest.h"
#include "kernels/testing/op_runner.h"
#include "smrt/model.h"
#include "testing/goldens.h"
#include "testing/paths.h"

namespace smrt {
namespace {

using testing::ReadGolden;
using kernels::testing::TensorsNear;

Tensor Golden(const std::string& name) { return ReadGolden("kernels/xla_reduce/" + name); }

// float16 widened to float32 (TensorsNear compares 32- and 64-bit types).
Tensor Widened(const Tensor& t) {
  if (t.dtype() != DataType::kHalf) return t;
  absl::StatusOr<Tensor> f = Tensor::Create(DataType::kFloat, t.shape());
  EXPECT_TRUE(f.ok());
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    f->data<float>()[i] = static_cast<float>(t.data<Eigen::half>()[i]);
  }
  return *f;
}

TEST(XlaReduceModelTest, MatchesTensorFlow) {
  absl::StatusOr<std::unique_ptr<Model>> m =
      Model::Load(testing::TestDataDir() + "/kernels/xla_reduce/model");
  ASSERT_TRUE(m.ok()) << m.status();
  absl::StatusOr<NamedTensors> out = (*m)->Run(
      "serving_default", {{"x", Golden("in_x")}, {"y", Golden("in_y")}, {"h", Golden("in_h")}});
  ASSERT_TRUE(out.ok()) << out.status();
  // Fast-path reducers (Maximum, AddV2, Mul, Minimum) and function calls
  // (rw_custom_max: Greater + Select, r_custom_add: Neg + Sub).
  for (const char* name : {"rw_max", "rw_sum_dilated", "rw_custom_max", "rw_int_mul",
                           "rw_half_min", "r_int_min", "r_sum", "r_custom_add"}) {
    ASSERT_TRUE(out->count(name)) << name;
    const Tensor& got = out->at(name);
    const Tensor want = Golden(std::string("out_") + name);
    ASSERT_EQ(got.dtype(), want.dtype()) << name;
    EXPECT_TRUE(TensorsNear(Widened(got), Widened(want), 1e-5, 1e-5)) << name;
  }
}

}  // namespace
}  // namespace smrt
