// bfloat16 convolutions and matmuls on oneDNN (AMX or AVX512_BF16, fp32
// accumulation; what precision=bfloat16 runs on such CPUs) against the
// reference bfloat16 kernels (half_precision_ops.cc, checked against
// TensorFlow's own bf16 kernels), on the same bf16 operands: both compute in
// float32 and round once, so they agree within a bf16 rounding or two
// (summation order moves results across rounding boundaries). Skips on CPUs
// without bf16 instructions, where the oneDNN kernels refuse bf16 nodes.
#include <string>
#include <vector>

#include "Eigen/Core"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "kernels/bfloat16_test_util.h"
#include "kernels/registry.h"
#include "ops/fused_ops.h"
#include "testing/kernel_test.h"

namespace smrt::kernels {
namespace {

constexpr double kBf16Ulp = 1.0 / 128;  // 2^-7: one bfloat16 ulp at 1

void ExpectSameAsReference(const std::string& op, const AttrMap& attrs,
                           const std::vector<Tensor>& inputs) {
  const KernelSpec* onednn = CpuKernel(op, "onednn", DataType::kBFloat16);
  const KernelSpec* reference = CpuKernel(op, "reference", DataType::kBFloat16);
  ASSERT_NE(reference, nullptr);
  ASSERT_NE(onednn, nullptr);
  if (!onednn->supports(attrs)) GTEST_SKIP() << "no bf16 instructions: oneDNN runs no bf16 " << op;
  absl::StatusOr<Tensor> want = RunKernel(*reference, attrs, inputs, nullptr);
  ASSERT_TRUE(want.ok()) << want.status();
  for (bool constant : {false, true}) {
    SCOPED_TRACE(constant ? "constant weights" : "weights as inputs");
    AttrMap a = attrs;
    a.Set("weights_constant", constant);
    std::unique_ptr<KernelState> state = onednn->make_state();
    for (int run = 0; run < 2; ++run) {  // the second run reuses the plan
      absl::StatusOr<Tensor> got = RunKernel(*onednn, a, inputs, state.get());
      ASSERT_TRUE(got.ok()) << got.status();
      EXPECT_EQ(got->dtype(), DataType::kBFloat16);
      EXPECT_EQ(got->shape(), want->shape());
      EXPECT_TRUE(TensorsNear(ToFloat(*got), ToFloat(*want), 2 * kBf16Ulp, 2 * kBf16Ulp));
    }
  }
}

struct ConvCase {
  std::string name;
  Shape x, w;
  bool depthwise = false;
  std::vector<int64_t> strides = {1, 1, 1, 1};
  std::string padding = "SAME";
  std::vector<std::string> fused_ops;
};

TEST(OneDnnBf16Test, ConvolutionsMatchTheReferenceBf16Kernels) {
  std::vector<ConvCase> cases;
  cases.push_back({"3x3_bias_relu", {2, 9, 8, 16}, {3, 3, 16, 32}});
  cases.back().fused_ops = {"BiasAdd", "Relu"};
  cases.push_back({"strided_valid_bias_sum_relu6", {1, 11, 10, 8}, {3, 3, 8, 16}});
  cases.back().strides = {1, 2, 2, 1};
  cases.back().padding = "VALID";
  cases.back().fused_ops = {"BiasAdd", "Add", "Relu6"};
  cases.push_back({"depthwise_bias_relu6", {1, 12, 12, 32}, {3, 3, 32, 1}});
  cases.back().depthwise = true;
  cases.back().fused_ops = {"BiasAdd", "Relu6"};
  cases.push_back({"grouped_swish", {1, 6, 6, 8}, {3, 3, 4, 8}});
  cases.back().fused_ops = {"BiasAdd", "Swish"};
  cases.push_back({"pointwise_plain", {4, 7, 7, 64}, {1, 1, 64, 24}});
  for (const ConvCase& c : cases) {
    SCOPED_TRACE(c.name);
    AttrMap attrs;
    attrs.Set("T", DataType::kBFloat16);
    attrs.Set("strides", c.strides);
    attrs.Set("dilations", std::vector<int64_t>{1, 1, 1, 1});
    attrs.Set("padding", c.padding);
    attrs.Set("depthwise", c.depthwise);
    attrs.Set("fused_ops", c.fused_ops);
    Tensor x = ToBFloat16(RandomFloats(c.x, 1, -2, 2));
    Tensor w = ToBFloat16(RandomFloats(c.w, 2, -0.5, 0.5));
    std::vector<Tensor> inputs = {x, w};
    const int64_t oc = c.depthwise ? c.w[2] * c.w[3] : c.w[3];
    for (const std::string& op : c.fused_ops) {
      if (op == "BiasAdd") inputs.push_back(ToBFloat16(RandomFloats({oc}, 3)));
      if (op == "Add") {
        // The output's shape: VALID 3x3 stride 2 over 11x10.
        inputs.push_back(ToBFloat16(RandomFloats({c.x[0], 5, 4, oc}, 4)));
      }
    }
    ExpectSameAsReference(kFusedConv2D, attrs, inputs);
    if (HasFatalFailure() || IsSkipped()) return;
  }
}

TEST(OneDnnBf16Test, MatMulsMatchTheReferenceBf16Kernels) {
  struct Case {
    bool ta, tb;
    std::vector<std::string> ops;
  };
  for (const Case& c : {Case{false, false, {"BiasAdd", "GeluErf"}}, Case{true, false, {"Relu"}},
                        Case{false, true, {"BiasAdd"}}, Case{true, true, {}}}) {
    SCOPED_TRACE(absl::StrCat(c.ta, c.tb, " ", c.ops.size()));
    const int64_t m = 7, k = 96, n = 40;
    AttrMap attrs;
    attrs.Set("T", DataType::kBFloat16);
    attrs.Set("transpose_a", c.ta);
    attrs.Set("transpose_b", c.tb);
    attrs.Set("fused_ops", c.ops);
    std::vector<Tensor> inputs = {
        ToBFloat16(RandomFloats(c.ta ? Shape{k, m} : Shape{m, k}, 9, -2, 2)),
        ToBFloat16(RandomFloats(c.tb ? Shape{n, k} : Shape{k, n}, 10, -0.3, 0.3))};
    if (!c.ops.empty() && c.ops[0] == "BiasAdd") {
      inputs.push_back(ToBFloat16(RandomFloats({n}, 11)));
    }
    ExpectSameAsReference(kFusedMatMul, attrs, inputs);
    if (HasFatalFailure() || IsSkipped()) return;
  }
}

// bf16 nodes run on oneDNN, not on the widening reference kernels, wherever
// the CPU has bf16 instructions: what makes precision=bfloat16 fast.
TEST(OneDnnBf16Test, TheRegistryPrefersOneDnnForBf16) {
  AttrMap attrs;
  attrs.Set("T", DataType::kBFloat16);
  attrs.Set("strides", std::vector<int64_t>{1, 1, 1, 1});
  attrs.Set("padding", std::string("SAME"));
  attrs.Set("fused_ops", std::vector<std::string>{"BiasAdd", "Relu"});
  const KernelRegistry& r = KernelRegistry::Default();
  ApplyAttrDefaults(*r.FindOp(kFusedConv2D), attrs);
  absl::StatusOr<const KernelSpec*> k = r.FindKernel(kFusedConv2D, kCpu, attrs);
  ASSERT_TRUE(k.ok()) << k.status();
  const bool bf16_here = CpuKernel(kFusedConv2D, "onednn", DataType::kBFloat16)->supports(attrs);
  // Without bf16 instructions the reference kernel (which widens) serves it.
  EXPECT_EQ((*k)->backend, bf16_here ? "onednn" : "reference");
}

}  // namespace
}  // namespace smrt::kernels
