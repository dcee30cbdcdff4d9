// cuBLAS, opened with dlopen on first use so that the CUDA backend (and every
// program linked with it) still loads where no CUDA libraries are installed.
// <cublas_v2.h> is included for its types only; the functions are resolved
// by name.
#ifndef SMRT_KERNELS_CUDA_CUBLAS_LOADER_H_
#define SMRT_KERNELS_CUDA_CUBLAS_LOADER_H_

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace smrt::kernels::cuda {

struct CublasApi {
  decltype(&cublasCreate_v2) create = nullptr;
  decltype(&cublasDestroy_v2) destroy = nullptr;
  decltype(&cublasSetStream_v2) set_stream = nullptr;
  decltype(&cublasSetMathMode) set_math_mode = nullptr;
  decltype(&cublasSgemm_v2) sgemm = nullptr;
  decltype(&cublasSgemmStridedBatched) sgemm_strided_batched = nullptr;
  // float16/bfloat16 operands, float accumulation. Spelled out: C++ sees an
  // inline overload of each (cudaDataType compute type) beside the library's.
  cublasStatus_t (*gemm_ex)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                            const void*, const void*, cudaDataType, int, const void*,
                            cudaDataType, int, const void*, void*, cudaDataType, int,
                            cublasComputeType_t, cublasGemmAlgo_t) = nullptr;
  cublasStatus_t (*gemm_strided_batched_ex)(cublasHandle_t, cublasOperation_t, cublasOperation_t,
                                            int, int, int, const void*, const void*,
                                            cudaDataType, int, long long, const void*,
                                            cudaDataType, int, long long, const void*, void*,
                                            cudaDataType, int, long long, int,
                                            cublasComputeType_t, cublasGemmAlgo_t) = nullptr;
};

// The functions, loaded once (libcublas.so.13, then .so.12, then
// libcublas.so); FailedPrecondition naming each library tried and why it
// failed, or the symbol that is missing. Thread-safe; never unloaded.
absl::StatusOr<const CublasApi*> Cublas();

// This host thread's cuBLAS handle (made on first use with the default,
// non-TF32 math mode; destroyed when the thread exits), bound to `stream`.
// Errors name `op` and `node`.
absl::StatusOr<cublasHandle_t> CublasHandleOn(cudaStream_t stream, absl::string_view op,
                                              absl::string_view node);

// Internal status naming the cuBLAS call, op and node; OK for CUBLAS_STATUS_SUCCESS.
absl::Status CublasStatus(cublasStatus_t status, absl::string_view op, absl::string_view node,
                          absl::string_view call);

}  // namespace smrt::kernels::cuda

#endif  // SMRT_KERNELS_CUDA_CUBLAS_LOADER_H_
