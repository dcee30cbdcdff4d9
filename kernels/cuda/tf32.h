// What the precision load option "tf32" changes in the libraries' calls.
// The allow_tf32 pass marks float32 convolutions, matmuls and einsums with
// kAllowTf32Attr; their cuDNN descriptors then take CUDNN_DEFAULT_MATH (TF32
// tensor cores allowed on Ampere and later GPUs; earlier ones compute in
// fp32 either way) instead of CUDNN_FMA_MATH, and their cuBLAS/cuBLASLt calls
// CUBLAS_COMPUTE_32F_FAST_TF32 instead of CUBLAS_COMPUTE_32F. 16-bit data is
// not affected (its tensor-core products are exact in fp32). Host-only
// choices, tested without a GPU.
#ifndef SMRT_KERNELS_CUDA_TF32_H_
#define SMRT_KERNELS_CUDA_TF32_H_

#include <cublas_v2.h>
#include <cudnn.h>

#include "kernels/kernel.h"
#include "ops/fused_ops.h"

namespace smrt::kernels::cuda {

// Whether the node may compute its float32 products in TF32.
inline bool AllowsTf32(const KernelContext& ctx) {
  return ctx.attrs().GetOr<bool>(kAllowTf32Attr, false).value_or(false);
}

// The math type of a convolution descriptor for `data`.
inline cudnnMathType_t ConvMathType(cudnnDataType_t data, bool tf32) {
  if (data != CUDNN_DATA_FLOAT) return CUDNN_TENSOR_OP_MATH;
  return tf32 ? CUDNN_DEFAULT_MATH : CUDNN_FMA_MATH;
}

// Whether an algorithm cudnnFind* measured with math type `found` computes
// as ConvMathType(data, tf32) allows: float32 without TF32 takes no tensor
// ops, with TF32 no conversion to 16 bits (ALLOW_CONVERSION would round the
// operands to float16).
inline bool ConvMathAllowed(cudnnMathType_t found, cudnnDataType_t data, bool tf32) {
  if (data != CUDNN_DATA_FLOAT) return true;
  if (found == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION) return false;
  return tf32 || found != CUDNN_TENSOR_OP_MATH;
}

// The compute type of a product of float32 (tf32 as allowed) or 16-bit
// operands: fp32 accumulation throughout.
inline cublasComputeType_t GemmComputeType(DataType dtype, bool tf32) {
  return dtype == DataType::kFloat && tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
}

}  // namespace smrt::kernels::cuda

#endif  // SMRT_KERNELS_CUDA_TF32_H_
