// Einsum on oneDNN (kernels/cpu/onednn/einsum.cc) for dense-layer equations,
// against the reference Einsum (checked against TensorFlow's goldens):
// float32 within summation-order differences, bfloat16 within two bf16
// roundings of the float32 answer on the same bf16 operands; other
// equations stay with the reference kernel. _SmrtFusedEinsum on both
// backends against the reference Einsum, then the bias and activation.
#include <string>
#include <vector>

#include "Eigen/Core"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "kernels/bfloat16_test_util.h"
#include "kernels/post_ops.h"
#include "kernels/registry.h"
#include "ops/weight_attrs.h"
#include "testing/kernel_test.h"

namespace smrt::kernels {
namespace {

Tensor Convert(const Tensor& t, DataType type) {
  return type == DataType::kFloat ? t : ToBFloat16(t);
}

AttrMap EinsumAttrs(const std::string& equation, DataType type) {
  AttrMap a;
  a.Set("equation", equation);
  a.Set("T", type);
  a.Set("N", int64_t{2});
  return a;
}

TEST(OneDnnEinsumTest, DenseEquationsMatchTheReference) {
  const KernelSpec* onednn = CpuKernel("Einsum", "onednn", DataType::kFloat);
  const KernelSpec* reference = CpuKernel("Einsum", "reference", DataType::kFloat);
  ASSERT_NE(onednn, nullptr);
  ASSERT_NE(reference, nullptr);
  struct Case {
    std::string equation;
    Shape x, w;
  };
  const std::vector<Case> cases = {
      {"abc,cd->abd", {2, 7, 48}, {48, 40}},          // EinsumDense
      {"abc,cde->abde", {1, 9, 64}, {64, 4, 16}},     // Q, K, V heads
      {"abcd,cde->abe", {2, 9, 4, 16}, {4, 16, 32}},  // attention output
      {"ab,bc->ac", {5, 33}, {33, 7}},                // a plain matmul
      {"bc,cd->bd", {0, 8}, {8, 3}},                  // no rows
      {"abc,cd->abd", {2, 3, 0}, {0, 5}},             // nothing to contract: zeros
  };
  int checked = 0;
  for (DataType type : {DataType::kFloat, DataType::kBFloat16}) {
    for (const Case& c : cases) {
      SCOPED_TRACE(absl::StrCat(c.equation, " ", DataTypeShortName(type)));
      const AttrMap attrs = EinsumAttrs(c.equation, type);
      if (!onednn->supports(attrs)) {
        ASSERT_EQ(type, DataType::kBFloat16);  // only bf16 may be missing (no bf16 CPU)
        continue;
      }
      const Tensor x = Convert(RandomFloats(c.x, 21, -2, 2), type);
      const Tensor w = Convert(RandomFloats(c.w, 22, -0.5, 0.5), type);
      // The reference Einsum has no bfloat16 kernel: it answers in float32
      // on the same (bf16-rounded) operands.
      absl::StatusOr<Tensor> want = RunKernel(*reference, EinsumAttrs(c.equation, DataType::kFloat),
                                              {ToFloat(x), ToFloat(w)}, nullptr);
      ASSERT_TRUE(want.ok()) << want.status().ToString();
      const double tol = type == DataType::kFloat ? 1e-4 : 2.0 / 128;
      for (bool constant : {false, true}) {
        AttrMap a = attrs;
        a.Set(ops::kWeightsConstantAttr, constant);
        std::unique_ptr<KernelState> state = onednn->make_state();
        for (int run = 0; run < 2; ++run) {
          absl::StatusOr<Tensor> got = RunKernel(*onednn, a, {x, w}, state.get());
          ASSERT_TRUE(got.ok()) << got.status();
          ASSERT_EQ(got->shape(), want->shape());
          ASSERT_EQ(got->dtype(), type);
          EXPECT_TRUE(TensorsNear(ToFloat(*got), ToFloat(*want), tol, tol));
        }
      }
      ++checked;
    }
  }
  EXPECT_GE(checked, 6);
}

TEST(OneDnnEinsumTest, OtherEquationsStayWithTheReference) {
  const KernelSpec* onednn = CpuKernel("Einsum", "onednn", DataType::kFloat);
  ASSERT_NE(onednn, nullptr);
  for (const char* equation : {"bij,bjk->bik", "abc,dc->abd", "abc,cd->adb", "ii->i",
                               "abc,cd->abcd", "aab,bc->ac", "...c,cd->...d", "abc,cd"}) {
    EXPECT_FALSE(onednn->supports(EinsumAttrs(equation, DataType::kFloat))) << equation;
  }
  EXPECT_TRUE(onednn->supports(EinsumAttrs("abc,cd->abd", DataType::kFloat)));
  EXPECT_FALSE(onednn->supports(EinsumAttrs("abc,cd->abd", DataType::kDouble)));
}

AttrMap FusedAttrs(const std::string& equation, DataType type, bool constant,
                   std::vector<std::string> fused_ops) {
  AttrMap a;
  a.Set("equation", equation);
  a.Set("T", type);
  a.Set("weights_constant", constant);
  a.Set("fused_ops", std::move(fused_ops));
  return a;
}

TEST(OneDnnEinsumTest, FusedEinsumAddsTheBiasOverTheAddedLabels) {
  struct Case {
    std::string equation;
    Shape x, w, bias;
  };
  const std::vector<Case> cases = {
      {"abc,cd->abd", {2, 7, 48}, {48, 40}, {40}},
      {"abc,cde->abde", {2, 9, 64}, {64, 4, 16}, {4, 16}},
      {"abcd,cde->abe", {2, 9, 4, 16}, {4, 16, 32}, {32}},
      {"abc,cd->abd", {2, 3, 0}, {0, 5}, {5}},  // nothing to contract: the bias alone
  };
  const KernelSpec* reference_einsum = CpuKernel("Einsum", "reference", DataType::kFloat);
  ASSERT_NE(reference_einsum, nullptr);
  int checked = 0;
  for (const char* backend : {"onednn", "reference"}) {
    for (DataType type : {DataType::kFloat, DataType::kBFloat16}) {
      const KernelSpec* k = CpuKernel(kFusedEinsum, backend, type);
      if (k == nullptr ||
          (k->supports && !k->supports(FusedAttrs("ab,bc->ac", type, true, {"BiasAdd"})))) {
        // Only the reference's bfloat16 (and oneDNN's without bf16 hardware)
        // may be missing.
        ASSERT_TRUE(type == DataType::kBFloat16) << backend;
        continue;
      }
      for (const Case& c : cases) {
        for (const std::string& act : {std::string(), std::string("GeluErf")}) {
          SCOPED_TRACE(
              absl::StrCat(backend, " ", c.equation, " ", DataTypeShortName(type), " ", act));
          const Tensor x = Convert(RandomFloats(c.x, 23, -2, 2), type);
          const Tensor w = Convert(RandomFloats(c.w, 24, -0.5, 0.5), type);
          const Tensor bias = Convert(RandomFloats(c.bias, 25, -1, 1), type);
          absl::StatusOr<Tensor> want =
              RunKernel(*reference_einsum, EinsumAttrs(c.equation, DataType::kFloat),
                        {ToFloat(x), ToFloat(w)}, nullptr);
          ASSERT_TRUE(want.ok()) << want.status().ToString();
          const Tensor b = ToFloat(bias);
          float* y = want->data<float>();
          for (int64_t i = 0; i < want->num_elements(); ++i) {
            y[i] += b.data<float>()[i % b.num_elements()];
            if (!act.empty()) y[i] = ApplyActivation(Activation::kGeluErf, 0.0f, y[i]);
          }
          std::vector<std::string> fused = {"BiasAdd"};
          if (!act.empty()) fused.push_back(act);
          for (bool constant : {false, true}) {
            std::unique_ptr<KernelState> state = k->make_state ? k->make_state() : nullptr;
            for (int run = 0; run < 2; ++run) {
              absl::StatusOr<Tensor> got = RunKernel(
                  *k, FusedAttrs(c.equation, type, constant, fused), {x, w, bias}, state.get());
              ASSERT_TRUE(got.ok()) << got.status();
              ASSERT_EQ(got->shape(), want->shape());
              ASSERT_EQ(got->dtype(), type);
              const double tol = type == DataType::kFloat ? 1e-4 : 3.0 / 128;
              EXPECT_TRUE(TensorsNear(ToFloat(*got), *want, tol, tol));
            }
          }
          ++checked;
        }
      }
    }
  }
  EXPECT_GE(checked, 16);
}

TEST(OneDnnEinsumTest, FusedEinsumRejectsABiasOfTheWrongSize) {
  const KernelSpec* k = CpuKernel(kFusedEinsum, "onednn", DataType::kFloat);
  ASSERT_NE(k, nullptr);
  absl::StatusOr<Tensor> got = RunKernel(
      *k, FusedAttrs("abc,cde->abde", DataType::kFloat, true, {"BiasAdd"}),
      {RandomFloats({1, 2, 8}, 1), RandomFloats({8, 2, 3}, 2), RandomFloats({3}, 3)}, nullptr);
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.status().message().find("must be 6 float32 values"), std::string::npos)
      << got.status();
}

}  // namespace
}  // namespace smrt::kernels
