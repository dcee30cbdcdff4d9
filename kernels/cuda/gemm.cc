#include "kernels/cuda/gemm.h"

#include <library_types.h>

#include <climits>

#include "absl/strings/str_cat.h"
#include "kernels/cuda/cublas_loader.h"
#include "kernels/cuda/cuda_status.h"
#include "kernels/cuda/kernel_util.h"
#include "kernels/cuda/tf32.h"

namespace smrt::kernels::cuda {

absl::Status RunGemm(const KernelContext& ctx, const Gemm& g, const float* a, const float* b,
                     float* c, cudaStream_t stream) {
  return RunGemm(ctx, g, DataType::kFloat, a, b, c, stream);
}

absl::Status RunGemm(const KernelContext& ctx, const Gemm& g, DataType dtype, const void* a,
                     const void* b, void* c, cudaStream_t stream) {
  if (dtype != DataType::kFloat && dtype != DataType::kHalf && dtype != DataType::kBFloat16) {
    return AtNode(ctx, absl::UnimplementedError(absl::StrCat(
                           "no cuBLAS product for ", DataTypeName(dtype),
                           " (float, half and bfloat16 only)")));
  }
  for (int64_t v : {g.m, g.n, g.k, g.lda, g.ldb, g.batch}) {
    if (v > INT_MAX) {
      return AtNode(ctx, absl::UnimplementedError(absl::StrCat(
                             "a dimension of ", v, " is more than cuBLAS's int API takes (m=", g.m,
                             ", n=", g.n, ", k=", g.k, ", batch=", g.batch, ")")));
    }
  }
  const int64_t elem = dtype == DataType::kFloat ? 4 : 2;
  if (g.k == 0) {  // an empty sum: zeros, without asking cuBLAS about ld = 0
    return CudaStatus(cudaMemsetAsync(c, 0, elem * g.batch * g.m * g.n, stream), ctx.op(),
                      ctx.node_name(), "cudaMemsetAsync");
  }
  absl::StatusOr<cublasHandle_t> h = CublasHandleOn(stream, ctx.op(), ctx.node_name());
  if (!h.ok()) return h.status();
  absl::StatusOr<const CublasApi*> api = Cublas();
  if (!api.ok()) return api.status();
  const float alpha = 1.0f, beta = 0.0f;
  const cublasOperation_t op_a = g.trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t op_b = g.trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  const int m = static_cast<int>(g.m), n = static_cast<int>(g.n), k = static_cast<int>(g.k);
  const int lda = static_cast<int>(g.lda), ldb = static_cast<int>(g.ldb);
  const bool tf32 = dtype == DataType::kFloat && AllowsTf32(ctx);
  if (dtype == DataType::kFloat && !tf32) {  // cublasSgemm: fp32, never TF32
    const auto* fa = static_cast<const float*>(a);
    const auto* fb = static_cast<const float*>(b);
    auto* fc = static_cast<float*>(c);
    if (g.batch == 1) {
      return CublasStatus((*api)->sgemm(*h, op_b, op_a, n, m, k, &alpha, fb, ldb, fa, lda, &beta,
                                        fc, n),
                          ctx.op(), ctx.node_name(), "cublasSgemm");
    }
    return CublasStatus(
        (*api)->sgemm_strided_batched(*h, op_b, op_a, n, m, k, &alpha, fb, ldb, g.stride_b, fa,
                                      lda, g.stride_a, &beta, fc, n, g.m * g.n,
                                      static_cast<int>(g.batch)),
        ctx.op(), ctx.node_name(), "cublasSgemmStridedBatched");
  }
  const cudaDataType_t t = dtype == DataType::kHalf       ? CUDA_R_16F
                          : dtype == DataType::kBFloat16 ? CUDA_R_16BF
                                                         : CUDA_R_32F;
  const cublasComputeType_t compute = GemmComputeType(dtype, tf32);
  if (g.batch == 1) {
    return CublasStatus((*api)->gemm_ex(*h, op_b, op_a, n, m, k, &alpha, b, t, ldb, a, t, lda,
                                        &beta, c, t, n, compute, CUBLAS_GEMM_DEFAULT),
                        ctx.op(), ctx.node_name(), "cublasGemmEx");
  }
  return CublasStatus(
      (*api)->gemm_strided_batched_ex(*h, op_b, op_a, n, m, k, &alpha, b, t, ldb, g.stride_b, a,
                                      t, lda, g.stride_a, &beta, c, t, n, g.m * g.n,
                                      static_cast<int>(g.batch), compute, CUBLAS_GEMM_DEFAULT),
      ctx.op(), ctx.node_name(), "cublasGemmStridedBatchedEx");
}

}  // namespace smrt::kernels::cuda
