#include "kernels/cuda/cublas_loader.h"

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "kernels/cuda/dynamic_library.h"
#include "kernels/cuda/kernel_util.h"
#include "kernels/cuda/thread_handles.h"

namespace smrt::kernels::cuda {
namespace {

absl::StatusOr<CublasApi> Load() {
  absl::StatusOr<void*> lib = OpenFirst({"libcublas.so.13", "libcublas.so.12", "libcublas.so"},
                                       "cuBLAS is needed for MatMul on CUDA");
  if (!lib.ok()) return lib.status();
  CublasApi api;
  SymbolResolver resolve(*lib);
  resolve(api.create, "cublasCreate_v2");
  resolve(api.destroy, "cublasDestroy_v2");
  resolve(api.set_stream, "cublasSetStream_v2");
  resolve(api.set_math_mode, "cublasSetMathMode");
  resolve(api.sgemm, "cublasSgemm_v2");
  resolve(api.sgemm_strided_batched, "cublasSgemmStridedBatched");
  resolve(api.gemm_ex, "cublasGemmEx");
  resolve(api.gemm_strided_batched_ex, "cublasGemmStridedBatchedEx");
  if (absl::Status s = resolve.Finish("cuBLAS"); !s.ok()) return s;
  return api;
}

const char* CublasStatusName(cublasStatus_t s) {
  switch (s) {
    case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_MAPPING_ERROR: return "CUBLAS_STATUS_MAPPING_ERROR";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_INTERNAL_ERROR: return "CUBLAS_STATUS_INTERNAL_ERROR";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
    case CUBLAS_STATUS_LICENSE_ERROR: return "CUBLAS_STATUS_LICENSE_ERROR";
  }
  return "an unknown cuBLAS status";
}

// Frees a handle when its thread ends (the library stays loaded).
void DestroyHandle(cublasHandle_t handle) {
  absl::StatusOr<const CublasApi*> api = Cublas();
  if (api.ok()) (void)(*api)->destroy(handle);
}

}  // namespace

absl::StatusOr<const CublasApi*> Cublas() {
  static const absl::StatusOr<CublasApi>* api = new absl::StatusOr<CublasApi>(Load());
  if (!api->ok()) return api->status();
  return &**api;
}

absl::Status CublasStatus(cublasStatus_t status, absl::string_view op, absl::string_view node,
                          absl::string_view call) {
  if (status == CUBLAS_STATUS_SUCCESS) return absl::OkStatus();
  const std::string text = absl::StrCat("CUDA kernel ", op, " for node '", node, "': ", call,
                                        " failed: ", CublasStatusName(status), " (",
                                        static_cast<int>(status), ")");
  if (status == CUBLAS_STATUS_ALLOC_FAILED) return absl::ResourceExhaustedError(text);
  return absl::InternalError(text);
}

absl::StatusOr<cublasHandle_t> CublasHandleOn(cudaStream_t stream, absl::string_view op,
                                              absl::string_view node) {
  absl::StatusOr<const CublasApi*> api = Cublas();
  if (!api.ok()) {
    return absl::Status(api.status().code(), absl::StrCat("CUDA kernel ", op, " for node '",
                                                          node, "': ", api.status().message()));
  }
  absl::StatusOr<int> device = CurrentDevice(op, node);
  if (!device.ok()) return device.status();
  thread_local ThreadHandles<cublasHandle_t> handles(DestroyHandle);
  absl::StatusOr<cublasHandle_t> handle =
      handles.For(*device, [&]() -> absl::StatusOr<cublasHandle_t> {
        cublasHandle_t h = nullptr;
        if (absl::Status s = CublasStatus((*api)->create(&h), op, node, "cublasCreate");
            !s.ok()) {
          return s;
        }
        // Plain fp32 arithmetic (no TF32 tensor cores), so results match the CPU.
        if (absl::Status s = CublasStatus((*api)->set_math_mode(h, CUBLAS_DEFAULT_MATH), op,
                                          node, "cublasSetMathMode(CUBLAS_DEFAULT_MATH)");
            !s.ok()) {
          (void)(*api)->destroy(h);
          return s;
        }
        return h;
      });
  if (!handle.ok()) return handle.status();
  if (absl::Status s =
          CublasStatus((*api)->set_stream(*handle, stream), op, node, "cublasSetStream");
      !s.ok()) {
    return s;
  }
  return *handle;
}

}  // namespace smrt::kernels::cuda
