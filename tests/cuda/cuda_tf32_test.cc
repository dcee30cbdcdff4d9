// The precision load option "tf32" in the CUDA kernels (tf32.h). Without a
// GPU: the math types and compute types each node gets. With a GPU: marked
// convolutions, matmuls, batched matmuls and einsums stay within TF32's
// rounding of the CPU's float32 answers (operands rounded to 10 mantissa
// bits: a few 1e-3 relative for these sums), unmarked ones within fp32's.
#include <cstdio>
#include <string>
#include <vector>

#include "cuda_test_util.h"
#include "gtest/gtest.h"
#include "kernels/cuda/tf32.h"
#include "ops/fused_ops.h"
#include "testing/kernel_test.h"

namespace smrt::kernels::cuda {
namespace {

TEST(CudaTf32Test, OnlyMarkedFloat32ProductsMayUseTf32) {
  EXPECT_EQ(ConvMathType(CUDNN_DATA_FLOAT, false), CUDNN_FMA_MATH);
  EXPECT_EQ(ConvMathType(CUDNN_DATA_FLOAT, true), CUDNN_DEFAULT_MATH);
  for (bool tf32 : {false, true}) {
    EXPECT_EQ(ConvMathType(CUDNN_DATA_HALF, tf32), CUDNN_TENSOR_OP_MATH);
    EXPECT_EQ(ConvMathType(CUDNN_DATA_BFLOAT16, tf32), CUDNN_TENSOR_OP_MATH);
    EXPECT_EQ(GemmComputeType(DataType::kHalf, tf32), CUBLAS_COMPUTE_32F);
    EXPECT_EQ(GemmComputeType(DataType::kBFloat16, tf32), CUBLAS_COMPUTE_32F);
  }
  EXPECT_EQ(GemmComputeType(DataType::kFloat, false), CUBLAS_COMPUTE_32F);
  EXPECT_EQ(GemmComputeType(DataType::kFloat, true), CUBLAS_COMPUTE_32F_FAST_TF32);
  // Algorithms cudnnFind measured: float32 takes tensor ops only with TF32,
  // and never a conversion of its operands to float16.
  EXPECT_TRUE(ConvMathAllowed(CUDNN_FMA_MATH, CUDNN_DATA_FLOAT, false));
  EXPECT_TRUE(ConvMathAllowed(CUDNN_DEFAULT_MATH, CUDNN_DATA_FLOAT, false));
  EXPECT_FALSE(ConvMathAllowed(CUDNN_TENSOR_OP_MATH, CUDNN_DATA_FLOAT, false));
  EXPECT_TRUE(ConvMathAllowed(CUDNN_TENSOR_OP_MATH, CUDNN_DATA_FLOAT, true));
  EXPECT_TRUE(ConvMathAllowed(CUDNN_DEFAULT_MATH, CUDNN_DATA_FLOAT, true));
  for (bool tf32 : {false, true}) {
    EXPECT_FALSE(ConvMathAllowed(CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION, CUDNN_DATA_FLOAT, tf32));
    EXPECT_TRUE(ConvMathAllowed(CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION, CUDNN_DATA_HALF, tf32));
  }
}

class CudaGpuTf32Test : public testing::GpuTest {
 protected:
  // op with and without the mark, against the CPU.
  void Check(const std::string& op, AttrMap attrs, const std::vector<Tensor>& inputs,
             double tf32_tol) {
    SCOPED_TRACE(op);
    ExpectLikeCpu(op, attrs, inputs, 1e-4);
    attrs.Set(kAllowTf32Attr, true);
    ExpectLikeCpu(op, attrs, inputs, tf32_tol);
  }
};

TEST_F(CudaGpuTf32Test, MarkedProductsStayWithinTf32sRounding) {
  const AttrMap f32 = TypeAttr(DataType::kFloat);
  Check("MatMul", f32, {RandomFloats({24, 64}, 1), RandomFloats({64, 40}, 2)}, 5e-3);
  AttrMap bmm = f32;
  bmm.Set("adj_y", true);
  Check("BatchMatMulV2", bmm, {RandomFloats({3, 8, 64}, 3), RandomFloats({3, 8, 64}, 4)}, 5e-3);
  AttrMap einsum = f32;
  einsum.Set("equation", std::string("abc,cde->abde"));
  einsum.Set("N", int64_t{2});
  Check("Einsum", einsum, {RandomFloats({2, 5, 32}, 5), RandomFloats({32, 4, 8}, 6)}, 5e-3);
  AttrMap conv = f32;
  conv.Set("strides", std::vector<int64_t>{1, 1, 1, 1});
  conv.Set("padding", std::string("SAME"));
  Check("Conv2D", conv, {RandomFloats({2, 9, 9, 16}, 7), RandomFloats({3, 3, 16, 32}, 8)}, 1e-2);
  AttrMap fused = conv;
  fused.Set("fused_ops", std::vector<std::string>{"BiasAdd", "Relu"});
  Check(kFusedConv2D, fused,
        {RandomFloats({2, 9, 9, 16}, 7), RandomFloats({3, 3, 16, 32}, 8), RandomFloats({32}, 9)},
        1e-2);
  AttrMap fused_mm = f32;
  fused_mm.Set("fused_ops", std::vector<std::string>{"BiasAdd", "Relu"});
  Check(kFusedMatMul, fused_mm,
        {RandomFloats({24, 64}, 1), RandomFloats({64, 40}, 2), RandomFloats({40}, 10)}, 5e-3);
}

// TensorFlow's own example: 1.0001 is 1 in TF32, so a TF32 product of
// fill(1.0001) and ones gives 2 where fp32 gives 2.0002. Whether this GPU
// and library took TF32 for the shape is printed, not required (TF32 is
// allowed, not forced; GPUs before Ampere have none).
TEST_F(CudaGpuTf32Test, ReportsWhetherTheLibrariesTookTf32) {
  Tensor a = *Tensor::Create(DataType::kFloat, {64, 64});
  Tensor b = *Tensor::Create(DataType::kFloat, {64, 64});
  for (int64_t i = 0; i < a.num_elements(); ++i) {
    a.data<float>()[i] = 1.0001f;
    b.data<float>()[i] = 1.0f / 64;
  }
  AttrMap attrs = TypeAttr(DataType::kFloat);
  attrs.Set(kAllowTf32Attr, true);
  absl::StatusOr<Tensor> gpu = testing::RunOnGpu(device_.get(), "MatMul", attrs, {a, b});
  ASSERT_TRUE(gpu.ok()) << gpu.status();
  const float v = gpu->data<float>()[0];
  EXPECT_NEAR(v, 1.0001f, 2e-4);
  std::printf("MatMul with TF32 allowed gave %.7f (%s)\n", v,
              v == 1.0f ? "TF32 taken" : "fp32 taken");
}

}  // namespace
}  // namespace smrt::kernels::cuda
