#include "kernels/cuda/gemm.h"

#include <climits>

#include "absl/strings/str_cat.h"
#include "kernels/cuda/cublas_loader.h"
#include "kernels/cuda/cuda_status.h"
#include "kernels/cuda/kernel_util.h"

namespace smrt::kernels::cuda {

absl::Status RunGemm(const KernelContext& ctx, const Gemm& g, const float* a, const float* b,
                     float* c, cudaStream_t stream) {
  for (int64_t v : {g.m, g.n, g.k, g.lda, g.ldb, g.batch}) {
    if (v > INT_MAX) {
      return AtNode(ctx, absl::UnimplementedError(absl::StrCat(
                             "a dimension of ", v, " is more than cuBLAS's int API takes (m=", g.m,
                             ", n=", g.n, ", k=", g.k, ", batch=", g.batch, ")")));
    }
  }
  if (g.k == 0) {  // an empty sum: zeros, without asking cuBLAS about ld = 0
    return CudaStatus(cudaMemsetAsync(c, 0, sizeof(float) * g.batch * g.m * g.n, stream),
                      ctx.op(), ctx.node_name(), "cudaMemsetAsync");
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
  if (g.batch == 1) {
    return CublasStatus((*api)->sgemm(*h, op_b, op_a, n, m, k, &alpha, b, ldb, a, lda, &beta, c,
                                      n),
                        ctx.op(), ctx.node_name(), "cublasSgemm");
  }
  return CublasStatus(
      (*api)->sgemm_strided_batched(*h, op_b, op_a, n, m, k, &alpha, b, ldb, g.stride_b, a, lda,
                                    g.stride_a, &beta, c, n, g.m * g.n,
                                    static_cast<int>(g.batch)),
      ctx.op(), ctx.node_name(), "cublasSgemmStridedBatched");
}

}  // namespace smrt::kernels::cuda
