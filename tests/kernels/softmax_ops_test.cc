// Softmax and LogSoftmax against TensorFlow goldens (tests/generators/kernel_goldens/nn.py),
// plus edge cases.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "kernels/registry.h"
#include "testing/kernel_test.h"

namespace smrt::kernels {
namespace {

Tensor Golden(const std::string& name) { return ReadGolden("kernels/nn/" + name); }

AttrMap TypeAttr(DataType t) {
  AttrMap a;
  a.Set("T", t);
  return a;
}

TEST(SoftmaxOpsTest, MatchesTensorFlow) {
  struct Case {
    std::string name;
    DataType type;
  };
  for (const Case& c : std::vector<Case>{{"softmax_2d", DataType::kFloat},
                                         {"softmax_3d_f64", DataType::kDouble},
                                         {"softmax_large", DataType::kFloat}}) {
    SCOPED_TRACE(c.name);
    const Tensor x = Golden(c.name + "_x");
    absl::StatusOr<std::vector<Tensor>> out = RunOp("Softmax", TypeAttr(c.type), {x});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_TRUE(TensorsNear((*out)[0], Golden(c.name + "_softmax"), 1e-6, 1e-5));
    out = RunOp("LogSoftmax", TypeAttr(c.type), {x});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_TRUE(TensorsNear((*out)[0], Golden(c.name + "_log_softmax"), 1e-5, 1e-5));
  }
}

// Every backend built (the reference kernel and oneDNN's), not only the one
// the registry picks, against the float goldens.
TEST(SoftmaxOpsTest, EveryBackendMatchesTensorFlow) {
  const Tensor x = Golden("softmax_large_x");
  for (const char* op : {"Softmax", "LogSoftmax"}) {
    const Tensor want = Golden(std::string("softmax_large_") + (op[0] == 'S' ? "softmax" : "log_softmax"));
    int backends = 0;
    for (const KernelSpec& k : KernelRegistry::Default().Kernels(op)) {
      if (std::find(k.types.begin(), k.types.end(), DataType::kFloat) == k.types.end()) continue;
      if (k.device != kCpu) continue;  // device kernels: tests/cuda
      SCOPED_TRACE(std::string(op) + " on " + k.backend);
      std::unique_ptr<KernelState> state = k.make_state ? k.make_state() : nullptr;
      KernelContext ctx("node", op, TypeAttr(DataType::kFloat), {x}, 1);
      ctx.set_kernel_state(state.get());
      ASSERT_TRUE(k.compute(ctx).ok());
      EXPECT_TRUE(TensorsNear(ctx.output(0), want, 1e-6, 1e-5));
      ++backends;
    }
    EXPECT_GE(backends, 1);  // the reference kernel, and oneDNN's when built
  }
}

// Rows with one dominant logit, where log_softmax is log(1 + tiny) near 0, and
// rows of one logit, where it is exactly 0: every backend within two roundings
// of a sum near 1 (2^-23 each; the sums add in another order than TF's Eigen
// reduction), not a fixed 1e-5 (an approximate log is off by 1.4e-6 there,
// more than the value itself).
TEST(SoftmaxOpsTest, EveryBackendIsExactNearZero) {
  for (const char* name : {"softmax_peaked", "softmax_single"}) {
    const Tensor x = Golden(std::string(name) + "_x");
    for (const char* op : {"Softmax", "LogSoftmax"}) {
      const Tensor want =
          Golden(std::string(name) + (op[0] == 'S' ? "_softmax" : "_log_softmax"));
      for (const KernelSpec& k : KernelRegistry::Default().Kernels(op)) {
        if (k.device != kCpu) continue;
        if (std::find(k.types.begin(), k.types.end(), DataType::kFloat) == k.types.end()) {
          continue;
        }
        SCOPED_TRACE(std::string(name) + " " + op + " on " + k.backend);
        std::unique_ptr<KernelState> state = k.make_state ? k.make_state() : nullptr;
        KernelContext ctx("node", op, TypeAttr(DataType::kFloat), {x}, 1);
        ctx.set_kernel_state(state.get());
        ASSERT_TRUE(k.compute(ctx).ok());
        EXPECT_TRUE(TensorsNear(ctx.output(0), want, 2.5e-7, 4e-7));
      }
    }
  }
  absl::StatusOr<std::vector<Tensor>> out =
      RunOp("LogSoftmax", TypeAttr(DataType::kFloat), {Golden("softmax_single_x")});
  ASSERT_TRUE(out.ok()) << out.status();
  for (float v : Values<float>((*out)[0])) EXPECT_EQ(v, 0.0f);
}

TEST(SoftmaxOpsTest, InfinitiesAndNaN) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  AttrMap a = TypeAttr(DataType::kFloat);
  // TensorFlow: [-inf, 1] -> log_softmax [-inf, 0]; [inf, 1] and [nan, 1] -> NaN rows.
  absl::StatusOr<std::vector<Tensor>> out =
      RunOp("LogSoftmax", a, {MakeTensor<float>({2}, {-inf, 1})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{-inf, 0}));
  out = RunOp("Softmax", a, {MakeTensor<float>({2, 2}, {inf, 1, nan, 1})});
  ASSERT_TRUE(out.ok()) << out.status();
  for (float v : Values<float>((*out)[0])) EXPECT_TRUE(std::isnan(v));
}

TEST(SoftmaxOpsTest, EmptyAndScalar) {
  AttrMap a = TypeAttr(DataType::kFloat);
  for (const Shape& s : {Shape{2, 0}, Shape{0, 3}}) {
    absl::StatusOr<std::vector<Tensor>> out = RunOp("Softmax", a, {MakeTensor<float>(s, {})});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0].shape(), s);
  }
  absl::StatusOr<std::vector<Tensor>> out = RunOp("LogSoftmax", a, {Scalar<float>(1.0f)});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(out.status().message(), ">= 1 dimension")) << out.status();
  EXPECT_EQ(RunOp("Softmax", TypeAttr(DataType::kInt32), {MakeTensor<int32_t>({2}, {1, 2})})
                .status()
                .code(),
            absl::StatusCode::kUnimplemented);
}

TEST(SoftmaxOpsTest, Inference) {
  absl::StatusOr<std::vector<ValueInfo>> out =
      InferOp("Softmax", TypeAttr(DataType::kFloat),
              {{DataType::kFloat, PartialShape::Known({-1, 10})}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape, PartialShape::Known({-1, 10}));
  out = InferOp("LogSoftmax", TypeAttr(DataType::kFloat),
                {{DataType::kFloat, PartialShape::Known({})}});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace smrt::kernels
