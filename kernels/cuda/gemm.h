// A row-major float32 product (or a strided batch of them) through cuBLAS,
// shared by MatMul, BatchMatMulV2 and _SmrtFusedMatMul.
//
// cuBLAS is column-major; a row-major matrix read column-major is its
// transpose. So the row-major product C = op(A) op(B) (m x n) is computed as
// the column-major C^T = op(B)^T op(A)^T: B's operand first, n and m swapped,
// each leading dimension the stored row length of its operand.
#ifndef SMRT_KERNELS_CUDA_GEMM_H_
#define SMRT_KERNELS_CUDA_GEMM_H_

#include <cuda_runtime.h>

#include <cstdint>

#include "absl/status/status.h"
#include "kernels/kernel.h"

namespace smrt::kernels::cuda {

// The operands' layout for one product (or a batch of them).
struct Gemm {
  bool trans_a = false, trans_b = false;
  int64_t m = 0, n = 0, k = 0;
  int64_t lda = 0, ldb = 0;  // stored row length of x and y
  int64_t batch = 1;
  int64_t stride_a = 0, stride_b = 0;  // elements between matrices; 0 repeats one
};

// c = op(a) op(b) (batch x m x n, row-major), queued on `stream`; fp32
// arithmetic (no TF32 unless ctx's node allows it: tf32.h). Zeros when k is
// 0. Errors name ctx's op and node.
absl::Status RunGemm(const KernelContext& ctx, const Gemm& g, const float* a, const float* b,
                     float* c, cudaStream_t stream);

// The same for a, b and c of `dtype`: float32 as above; float16 or bfloat16
// accumulated in fp32 and rounded once (cublasGemmEx), as the CPU kernels
// compute them in float.
absl::Status RunGemm(const KernelContext& ctx, const Gemm& g, DataType dtype, const void* a,
                     const void* b, void* c, cudaStream_t stream);

}  // namespace smrt::kernels::cuda

#endif  // SMRT_KERNELS_CUDA_GEMM_H_
