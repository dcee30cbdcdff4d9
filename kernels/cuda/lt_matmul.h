// _SmrtFusedMatMul's product and epilogue in one cuBLASLt call (epilogue_plan.h
// says which post-ops it takes). cuBLASLt is opened with dlopen on first use,
// as cuBLAS is (cublas_loader.h); where it does not load, or offers no
// algorithm for a shape, the caller keeps cuBLAS plus smrt's epilogue kernel.
#ifndef SMRT_KERNELS_CUDA_LT_MATMUL_H_
#define SMRT_KERNELS_CUDA_LT_MATMUL_H_

#include <cuda_runtime.h>

#include "absl/status/status.h"
#include "kernels/cuda/gemm.h"
#include "kernels/cuda/epilogue_plan.h"
#include "kernels/kernel.h"

namespace smrt::kernels::cuda {

// OK when libcublasLt loads and has every function smrt calls.
absl::Status CublasLtAvailable();

// d = epilogue(op(a) op(b) [+ bias]) for g (batch 1) of `dtype` (float32:
// fp32 arithmetic, TF32 only where ctx's node allows it (tf32.h);
// float16/bfloat16: fp32 accumulation), queued on
// `stream`; `bias` is read when the epilogue has one. Unimplemented when
// cuBLASLt offers no algorithm; errors name ctx's op and node.
absl::Status RunLtMatmul(const KernelContext& ctx, const Gemm& g, DataType dtype, const void* a,
                         const void* b, const void* bias, LtEpilogue epilogue, void* d,
                         cudaStream_t stream);

}  // namespace smrt::kernels::cuda

#endif  // SMRT_KERNELS_CUDA_LT_MATMUL_H_
