// _SmrtFusedMatMul, _SmrtLayerNorm and Transpose on the GPU against the CPU
// kernels on the same host inputs (fixed seeds): within 1e-4 for the fused
// product, 1e-5 for layer norm, exact for transposes. Skips without a GPU.
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "cuda_test_util.h"
#include "gtest/gtest.h"
#include "kernels/cuda/kernel_util.h"
#include "ops/fused_ops.h"
#include "testing/kernel_test.h"

namespace smrt::kernels::cuda {
namespace {

class CudaGpuFusedTest : public testing::GpuTest {};

AttrMap FusedMatMulAttrs(std::vector<std::string> ops, bool ta = false, bool tb = false) {
  AttrMap a = TypeAttr(DataType::kFloat);
  a.Set("fused_ops", std::move(ops));
  a.Set("transpose_a", ta);
  a.Set("transpose_b", tb);
  a.Set("leakyrelu_alpha", 0.3f);
  a.Set("weights_constant", true);
  return a;
}

TEST_F(CudaGpuFusedTest, FusedMatMulAppliesEveryPostOpLikeTheCpu) {
  const int64_t m = 37, k = 65, n = 129;
  uint32_t seed = 1;
  const std::vector<std::string> activations = {"Relu",    "Relu6",     "Elu",     "LeakyRelu",
                                                "Sigmoid", "Tanh",      "Swish",   "HardSwish",
                                                "GeluErf", "GeluTanh"};
  for (const std::string& act : activations) {
    SCOPED_TRACE(act);
    const Tensor a = RandomFloats({m, k}, seed++, -2, 2);
    const Tensor b = RandomFloats({k, n}, seed++, -0.5, 0.5);
    const Tensor bias = RandomFloats({n}, seed++, -3, 3);
    const Tensor residual = RandomFloats({m, n}, seed++, -3, 3);
    ExpectLikeCpu(kFusedMatMul, FusedMatMulAttrs({"BiasAdd", act}), {a, b, bias}, 1e-4);
    ExpectLikeCpu(kFusedMatMul, FusedMatMulAttrs({"BiasAdd", "Add", act}),
                  {a, b, bias, residual}, 1e-4);
  }
}

TEST_F(CudaGpuFusedTest, FusedMatMulTransposesAndOrdersPostOps) {
  const Tensor a = RandomFloats({19, 33}, 50);   // transposed: m = 33, k = 19
  const Tensor b = RandomFloats({47, 19}, 51);   // transposed: n = 47
  const Tensor bias = RandomFloats({47}, 52, -2, 2);
  const Tensor residual = RandomFloats({33, 47}, 53, -2, 2);
  ExpectLikeCpu(kFusedMatMul, FusedMatMulAttrs({"BiasAdd"}, true, true), {a, b, bias}, 1e-4);
  // An activation before the Add, then another after it.
  ExpectLikeCpu(kFusedMatMul, FusedMatMulAttrs({"Relu", "Add", "Tanh"}, true, true),
                {a, b, residual}, 1e-4);
  ExpectLikeCpu(kFusedMatMul, FusedMatMulAttrs({}, true, true), {a, b}, 1e-4);
  // An empty product (k = 0) is the post-ops applied to zeros.
  ExpectLikeCpu(kFusedMatMul, FusedMatMulAttrs({"BiasAdd", "Sigmoid"}),
                {RandomFloats({4, 0}, 54), RandomFloats({0, 47}, 55), bias}, 1e-5);
}

TEST_F(CudaGpuFusedTest, FusedMatMulRejectsAMisshapenBias) {
  AttrMap attrs = FusedMatMulAttrs({"BiasAdd"});
  absl::StatusOr<Tensor> out = RunOnGpu(
      device_.get(), kFusedMatMul, attrs,
      {RandomFloats({3, 4}, 1), RandomFloats({4, 5}, 2), RandomFloats({4}, 3)});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument) << out.status();
  EXPECT_TRUE(absl::StrContains(out.status().message(), "bias must be a vector of 5 values"))
      << out.status();
}

TEST_F(CudaGpuFusedTest, LayerNormMatchesTheCpu) {
  uint32_t seed = 200;
  struct Case {
    Shape x;
    bool scalar_params;
    float shift;  // rows of large values test the mean's precision
  };
  for (const Case& c : std::vector<Case>{{{4, 8}, false, 0},
                                         {{3, 5, 768}, false, 0},
                                         {{2, 1000}, true, 0},
                                         {{7, 33}, false, 1000},
                                         {{70000, 3}, false, 0},  // grid-strided rows
                                         {{0, 16}, false, 0}}) {
    SCOPED_TRACE(ShapeToString(c.x));
    const int64_t depth = c.x.back();
    const Shape p = c.scalar_params ? Shape{1} : Shape{depth};
    Tensor x = RandomFloats(c.x, seed++, c.shift - 2, c.shift + 2);
    AttrMap attrs = TypeAttr(DataType::kFloat);
    attrs.Set("epsilon", 1e-3f);
    ExpectLikeCpu(kLayerNorm, attrs,
                  {x, RandomFloats(p, seed++, 0.5, 1.5), RandomFloats(p, seed++, -1, 1)}, 1e-5);
  }
  // A row of one repeated value has variance 0.
  AttrMap attrs = TypeAttr(DataType::kFloat);
  attrs.Set("epsilon", 1e-5f);
  ExpectLikeCpu(kLayerNorm, attrs,
                {MakeTensor<float>({2, 4}, {3, 3, 3, 3, 1, 2, 3, 4}), MakeTensor<float>({1}, {2}),
                 MakeTensor<float>({1}, {0.5})},
                1e-5);
}

TEST_F(CudaGpuFusedTest, TransposeMatchesTheCpuForEveryElementSize) {
  struct Case {
    Shape in;
    std::vector<int32_t> perm;
  };
  const std::vector<Case> cases = {
      {{3, 5}, {1, 0}},
      {{2, 3, 4}, {2, 0, 1}},
      {{2, 3, 4, 5}, {0, 3, 1, 2}},   // NHWC -> NCHW
      {{2, 3, 4, 5}, {-1, 0, -3, 2}},  // negative entries
      {{1, 7, 1, 9}, {1, 0, 3, 2}},   // order kept: a view
      {{2, 1, 2, 1, 2, 1, 2, 3}, {7, 6, 5, 4, 3, 2, 1, 0}},
      {{0, 4, 3}, {2, 1, 0}},
      {{129, 257}, {1, 0}},
      {{2, 3, 2, 3, 2, 3, 2, 3, 2, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 9, 8}},  // rank 10, 3 runs
  };
  uint32_t seed = 300;
  for (DataType t : {DataType::kFloat, DataType::kInt8, DataType::kHalf, DataType::kInt64,
                     DataType::kComplex128, DataType::kBool}) {
    for (const Case& c : cases) {
      SCOPED_TRACE(absl::StrCat(DataTypeName(t), " ", ShapeToString(c.in)));
      absl::StatusOr<Tensor> x = Tensor::Create(t, c.in);
      ASSERT_TRUE(x.ok());
      auto* bytes = static_cast<uint8_t*>(x->raw_data());
      for (size_t i = 0; i < x->byte_size(); ++i) {
        bytes[i] = static_cast<uint8_t>((seed * 131 + i * 7) % (t == DataType::kBool ? 2 : 251));
      }
      ++seed;
      const Tensor perm32 = MakeTensor<int32_t>({static_cast<int64_t>(c.perm.size())}, c.perm);
      std::vector<int64_t> p64(c.perm.begin(), c.perm.end());
      const Tensor perm64 = MakeTensor<int64_t>({static_cast<int64_t>(p64.size())}, p64);
      AttrMap attrs = TypeAttr(t);
      attrs.Set("Tperm", DataType::kInt32);
      ExpectSameBytesAsCpu("Transpose", attrs, {*x, perm32}, {1});
      attrs.Set("Tperm", DataType::kInt64);
      ExpectSameBytesAsCpu("Transpose", attrs, {*x, perm64}, {1});
    }
  }
}

}  // namespace
}  // namespace smrt::kernels::cuda
