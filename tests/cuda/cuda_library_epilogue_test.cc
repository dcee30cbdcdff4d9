// The fused ops through the libraries' own epilogues: _SmrtFusedMatMul in
// cuBLASLt's, _SmrtFusedConv2D's bias (+ residual) + ReLU in
// cudnnConvolutionBiasActivationForward. Without a GPU: which post-ops each
// library takes, and cuBLASLt's column-major layouts of every transpose case,
// checked against a host product that reads the operands through them. With
// a GPU: the second call of a node (the one that takes the library's path
// once the first agreed) against the CPU kernel, with no disagreement
// reported.
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cuda_test_util.h"
#include "gtest/gtest.h"
#include "kernels/cuda/agreement.h"
#include "kernels/cuda/epilogue_plan.h"
#include "kernels/registry.h"
#include "testing/kernel_test.h"

namespace smrt::kernels::cuda {
namespace {

FusedOps Ops(const std::vector<std::string>& names) {
  AttrMap attrs;
  attrs.Set("fused_ops", names);
  int args = 0;
  for (const std::string& n : names) args += n == "BiasAdd" || n == "Add";
  absl::StatusOr<FusedOps> ops = ParseFusedOps(attrs, 2 + args);
  EXPECT_TRUE(ops.ok()) << ops.status();
  return *ops;
}

TEST(CudaLibraryEpilogueTest, EpiloguesCuBlasLtComputesAsThePostOps) {
  struct Case {
    std::vector<std::string> ops;
    std::optional<LtEpilogue> want;
    int bias_arg;
  };
  const Case cases[] = {
      {{"BiasAdd"}, LtEpilogue::kBias, 2},
      {{"BiasAdd", "Relu"}, LtEpilogue::kReluBias, 2},
      {{"BiasAdd", "GeluTanh"}, LtEpilogue::kGeluBias, 2},
      {{"Relu"}, LtEpilogue::kRelu, -1},
      {{"GeluTanh"}, LtEpilogue::kGelu, -1},
      // cuBLASLt's GELU is the tanh form; the rest have no cuBLASLt epilogue.
      {{"BiasAdd", "GeluErf"}, std::nullopt, -1},
      {{"BiasAdd", "Relu6"}, std::nullopt, -1},
      {{"BiasAdd", "Add", "Relu"}, std::nullopt, -1},
      {{"Add"}, std::nullopt, -1},
      {{"Relu", "BiasAdd"}, std::nullopt, -1},
      {{"BiasAdd", "Relu", "Relu"}, std::nullopt, -1},
      {{"Sigmoid"}, std::nullopt, -1},
  };
  for (const Case& c : cases) {
    std::optional<LtEpiloguePlan> plan = PlanLtEpilogue(Ops(c.ops));
    ASSERT_EQ(plan.has_value(), c.want.has_value()) << c.ops.size() << " " << c.ops[0];
    if (!plan) continue;
    EXPECT_EQ(plan->epilogue, *c.want) << c.ops[0];
    EXPECT_EQ(plan->bias_arg, c.bias_arg) << c.ops[0];
  }
}

// op(X)[r][c] of a column-major operand as cuBLASLt reads it.
float At(const std::vector<float>& data, const LtLayout& l, bool trans, uint64_t r, uint64_t c) {
  const uint64_t row = trans ? c : r, col = trans ? r : c;
  EXPECT_LT(row, l.rows);
  EXPECT_LT(col, l.cols);
  return data[row + col * static_cast<uint64_t>(l.ld)];
}

TEST(CudaLibraryEpilogueTest, LayoutsMakeCuBlasLtComputeTheRowMajorProduct) {
  const int64_t m = 3, k = 5, n = 4;
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      // Row-major a (m x k, or k x m stored when transposed) and b.
      const Tensor a = RandomFloats(ta ? Shape{k, m} : Shape{m, k}, 1);
      const Tensor b = RandomFloats(tb ? Shape{n, k} : Shape{k, n}, 2);
      Gemm g;
      g.trans_a = ta;
      g.trans_b = tb;
      g.m = m;
      g.n = n;
      g.k = k;
      g.lda = a.dim(1);
      g.ldb = b.dim(1);
      const LtLayouts l = PlanLtLayouts(g);
      EXPECT_EQ(l.d.rows, static_cast<uint64_t>(n));
      EXPECT_EQ(l.d.cols, static_cast<uint64_t>(m));
      EXPECT_EQ(l.d.ld, n);
      const std::vector<float> av(a.data<float>(), a.data<float>() + a.num_elements());
      const std::vector<float> bv(b.data<float>(), b.data<float>() + b.num_elements());
      // cuBLASLt: D (n x m, column-major) = op(A) op(B), A = our b, B = our a.
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < n; ++j) {
          float lt = 0, want = 0;
          for (int64_t p = 0; p < k; ++p) {
            lt += At(bv, l.a, l.trans_a, j, p) * At(av, l.b, l.trans_b, p, i);
            const float x = ta ? av[p * m + i] : av[i * k + p];
            const float y = tb ? bv[j * k + p] : bv[p * n + j];
            want += x * y;
          }
          // D[j + i * ld] is our row-major c[i][j].
          EXPECT_FLOAT_EQ(lt, want) << "ta=" << ta << " tb=" << tb << " (" << i << "," << j << ")";
        }
      }
    }
  }
}

// The preferences a buffer's address gives cuBLASLt: an arena tensor 64
// bytes in is aligned to 64, not to the default 256.
TEST(CudaLibraryEpilogueTest, AlignmentsAreTheAddresses) {
  alignas(256) static char buffer[1024];
  EXPECT_EQ(LtAlignment(buffer), 256u);
  EXPECT_EQ(LtAlignment(buffer + 512), 256u);
  EXPECT_EQ(LtAlignment(buffer + 64), 64u);
  EXPECT_EQ(LtAlignment(buffer + 192), 64u);
  EXPECT_EQ(LtAlignment(buffer + 4), 4u);
  EXPECT_EQ(LtAlignment(buffer + 6), 2u);
  EXPECT_EQ(LtAlignment(buffer + 7), 1u);
}

// A node whose library path agreed once still computes a call the library
// declines (no algorithm for these buffers, no workspace): the tested path
// runs it. Where both fail, the library's error is the one reported.
TEST(CudaLibraryEpilogueTest, AgreementIsRelativeAndExactForNaNAndInfinities) {
  EXPECT_TRUE(Agree(100.05, 100.0, 1e-3));
  EXPECT_FALSE(Agree(100.2, 100.0, 1e-3));
  EXPECT_TRUE(Agree(1e-4, 0.0, 1e-3));  // absolute below 1
  EXPECT_FALSE(Agree(2e-3, 0.0, 1e-3));
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(Agree(nan, nan, 1e-3));
  EXPECT_FALSE(Agree(0.0, nan, 1e-3));
  EXPECT_FALSE(Agree(nan, 0.0, 1e-3));
  EXPECT_TRUE(Agree(inf, inf, 1e-3));
  EXPECT_TRUE(Agree(-inf, -inf, 1e-3));
  // A tested infinity does not accept any library value (its relative
  // bound would be infinite).
  EXPECT_FALSE(Agree(3.0, inf, 1e-3));
  EXPECT_FALSE(Agree(-inf, inf, 1e-3));
  EXPECT_FALSE(Agree(65504.0, inf, 1e-2));
  EXPECT_FALSE(Agree(inf, 3.0, 1e-3));
}

TEST(CudaLibraryEpilogueTest, AnAgreedLibraryThatDeclinesACallFallsBack) {
  KernelContext ctx("mm", kFusedMatMul, AttrMap(), {}, 1);
  Tensor out = RandomFloats({2, 2}, 1);
  Verdicts verdicts;
  verdicts.Set("float32 2x2", true);
  int tested = 0, library = 0;
  absl::Status tested_result = absl::OkStatus();
  auto run_tested = [&]() {
    ++tested;
    return tested_result;
  };
  auto run_library = [&](void*) {
    ++library;
    return absl::UnimplementedError("cuBLASLt has no algorithm for this product");
  };
  EXPECT_TRUE(RunChecked(ctx, verdicts, "float32 2x2", out, nullptr, run_tested, run_library,
                         "cuBLASLt", "cuBLAS")
                  .ok());
  EXPECT_EQ(library, 1);
  EXPECT_EQ(tested, 1);
  tested_result = absl::InternalError("an illegal memory access was encountered");
  absl::Status both = RunChecked(ctx, verdicts, "float32 2x2", out, nullptr, run_tested,
                                 run_library, "cuBLASLt", "cuBLAS");
  EXPECT_EQ(both.code(), absl::StatusCode::kUnimplemented) << both;
  // The verdict stays: the next call tries the library again.
  EXPECT_EQ(verdicts.Find("float32 2x2"), std::optional<bool>(true));
}

TEST(CudaLibraryEpilogueTest, ConvolutionsFuseBiasResidualAndReluOnly) {
  struct Case {
    std::vector<std::string> ops;
    bool fused;
    int residual_arg;
  };
  const Case cases[] = {
      {{"BiasAdd", "Relu"}, true, -1},
      {{"BiasAdd", "Add", "Relu"}, true, 3},
      {{"BiasAdd"}, false, -1},  // IDENTITY takes one algorithm only
      {{"BiasAdd", "Relu6"}, false, -1},
      {{"Relu"}, false, -1},
      {{"BiasAdd", "Relu", "Add"}, false, -1},
      {{"Add", "BiasAdd", "Relu"}, false, -1},
      {{"BiasAdd", "Add"}, false, -1},
  };
  for (const Case& c : cases) {
    std::optional<CudnnFusionPlan> plan = PlanCudnnFusion(Ops(c.ops));
    ASSERT_EQ(plan.has_value(), c.fused) << c.ops.size() << " " << c.ops.back();
    if (!plan) continue;
    EXPECT_EQ(plan->bias_arg, 2);
    EXPECT_EQ(plan->residual_arg, c.residual_arg);
  }
}

class CudaGpuLibraryEpilogueTest : public testing::GpuTest {};

TEST_F(CudaGpuLibraryEpilogueTest, FusedMatMulsSecondCallsMatchTheCpu) {
  const auto kernel = KernelRegistry::Default().FindKernel(kFusedMatMul, kCudaDevice,
                                                          TypeAttr(DataType::kFloat));
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  for (DataType t : {DataType::kFloat, DataType::kHalf}) {
    for (const std::vector<std::string>& ops :
         {std::vector<std::string>{"BiasAdd"}, {"BiasAdd", "Relu"}, {"BiasAdd", "GeluTanh"},
          {"Relu"}}) {
      for (bool tb : {false, true}) {
        AttrMap attrs = TypeAttr(t);
        attrs.Set("fused_ops", ops);
        attrs.Set("transpose_b", tb);
        AttrMap cast = TypeAttr(DataType::kFloat, "SrcT");
        cast.Set("DstT", t);
        auto typed = [&](const Tensor& f) {
          if (t == DataType::kFloat) return f;
          absl::StatusOr<std::vector<Tensor>> c = RunOp("Cast", cast, {f});
          EXPECT_TRUE(c.ok()) << c.status();
          return (*c)[0];
        };
        std::vector<Tensor> inputs = {typed(RandomFloats({24, 64}, 3)),
                                      typed(RandomFloats(tb ? Shape{40, 64} : Shape{64, 40}, 4))};
        if (ops[0] == "BiasAdd") inputs.push_back(typed(RandomFloats({40}, 5)));
        absl::StatusOr<std::vector<Tensor>> cpu = RunOp(kFusedMatMul, attrs, inputs);
        ASSERT_TRUE(cpu.ok()) << cpu.status();
        std::unique_ptr<KernelState> state = (*kernel)->make_state();
        ::testing::internal::CaptureStderr();
        for (int call = 0; call < 2; ++call) {  // the first compares, the second takes the verdict
          absl::StatusOr<Tensor> gpu =
              testing::RunOnGpu(device_.get(), kFusedMatMul, attrs, inputs, {}, state.get());
          ASSERT_TRUE(gpu.ok()) << gpu.status();
          const double tol = t == DataType::kFloat ? 1e-4 : 4e-3;
          EXPECT_TRUE(TensorsNear(*gpu, (*cpu)[0], tol, tol)) << ops.back() << " call " << call;
        }
        const std::string err = ::testing::internal::GetCapturedStderr();
        EXPECT_EQ(err.find("cuBLASLt"), std::string::npos) << err;
      }
    }
  }
}

TEST_F(CudaGpuLibraryEpilogueTest, FusedConvolutionsSecondCallsMatchTheCpu) {
  const auto kernel = KernelRegistry::Default().FindKernel(kFusedConv2D, kCudaDevice,
                                                          TypeAttr(DataType::kFloat));
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  for (bool residual : {false, true}) {
    AttrMap attrs = TypeAttr(DataType::kFloat);
    attrs.Set("strides", std::vector<int64_t>{1, 1, 1, 1});
    attrs.Set("padding", std::string("SAME"));
    attrs.Set("fused_ops", residual ? std::vector<std::string>{"BiasAdd", "Add", "Relu"}
                                    : std::vector<std::string>{"BiasAdd", "Relu"});
    std::vector<Tensor> inputs = {RandomFloats({2, 9, 9, 16}, 6), RandomFloats({3, 3, 16, 32}, 7),
                                  RandomFloats({32}, 8)};
    if (residual) inputs.push_back(RandomFloats({2, 9, 9, 32}, 9));
    absl::StatusOr<std::vector<Tensor>> cpu = RunOp(kFusedConv2D, attrs, inputs);
    ASSERT_TRUE(cpu.ok()) << cpu.status();
    std::unique_ptr<KernelState> state = (*kernel)->make_state();
    ::testing::internal::CaptureStderr();
    for (int call = 0; call < 2; ++call) {
      absl::StatusOr<Tensor> gpu =
          testing::RunOnGpu(device_.get(), kFusedConv2D, attrs, inputs, {}, state.get());
      ASSERT_TRUE(gpu.ok()) << gpu.status();
      EXPECT_TRUE(TensorsNear(*gpu, (*cpu)[0], 1e-4, 1e-4)) << "residual " << residual << " call "
                                                           << call;
    }
    const std::string err = ::testing::internal::GetCapturedStderr();
    EXPECT_EQ(err.find("cudnnConvolutionBiasActivationForward"), std::string::npos) << err;
  }
}

// After a first call that agreed, a NaN reaching the library's ReLU comes
// out NaN, as TensorFlow's CPU Relu gives (an epilogue computing fmaxf(x, 0)
// would give 0).
TEST_F(CudaGpuLibraryEpilogueTest, NaNsPassTheLibrariesReluEpilogues) {
  const Tensor bias = RandomFloats({40}, 5);
  Tensor a = RandomFloats({24, 64}, 3);
  Tensor a_nan = *a.Clone();
  a_nan.data<float>()[0] = std::numeric_limits<float>::quiet_NaN();  // row 0 of the product
  AttrMap matmul = TypeAttr(DataType::kFloat);
  matmul.Set("fused_ops", std::vector<std::string>{"BiasAdd", "Relu"});
  AttrMap conv = matmul;
  conv.Set("strides", std::vector<int64_t>{1, 1, 1, 1});
  conv.Set("padding", std::string("VALID"));
  const Tensor x = RandomFloats({1, 4, 4, 8}, 6);
  Tensor x_nan = *x.Clone();
  x_nan.data<float>()[0] = std::numeric_limits<float>::quiet_NaN();  // output pixel (0, 0)
  struct Case {
    const char* op;
    AttrMap attrs;
    std::vector<Tensor> first, second;
  };
  const Tensor w = RandomFloats({64, 40}, 4), f = RandomFloats({1, 1, 8, 40}, 7);
  for (const Case& c : {Case{kFusedMatMul, matmul, {a, w, bias}, {a_nan, w, bias}},
                        Case{kFusedConv2D, conv, {x, f, bias}, {x_nan, f, bias}}}) {
    const auto kernel = KernelRegistry::Default().FindKernel(c.op, kCudaDevice,
                                                            TypeAttr(DataType::kFloat));
    ASSERT_TRUE(kernel.ok()) << kernel.status();
    absl::StatusOr<std::vector<Tensor>> cpu = RunOp(c.op, c.attrs, c.second);
    ASSERT_TRUE(cpu.ok()) << cpu.status();
    ASSERT_TRUE(std::isnan((*cpu)[0].data<float>()[0]));
    std::unique_ptr<KernelState> state = (*kernel)->make_state();
    ASSERT_TRUE(testing::RunOnGpu(device_.get(), c.op, c.attrs, c.first, {}, state.get()).ok());
    absl::StatusOr<Tensor> gpu =
        testing::RunOnGpu(device_.get(), c.op, c.attrs, c.second, {}, state.get());
    ASSERT_TRUE(gpu.ok()) << gpu.status();
    EXPECT_TRUE(TensorsNear(*gpu, (*cpu)[0], 1e-4, 1e-4)) << c.op;
    EXPECT_TRUE(std::isnan(gpu->data<float>()[0])) << c.op;
  }
}

}  // namespace
}  // namespace smrt::kernels::cuda
