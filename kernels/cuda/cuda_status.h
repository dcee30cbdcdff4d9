// The one place CUDA runtime errors become absl::Status (Internal, or
// ResourceExhausted for out-of-memory), naming the op, the node and the call.
#ifndef SMRT_KERNELS_CUDA_CUDA_STATUS_H_
#define SMRT_KERNELS_CUDA_CUDA_STATUS_H_

#include <cuda_runtime.h>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace smrt::kernels::cuda {

inline absl::Status CudaStatus(cudaError_t err, absl::string_view op, absl::string_view node,
                               absl::string_view call) {
  if (err == cudaSuccess) return absl::OkStatus();
  const std::string text =
      absl::StrCat("CUDA kernel ", op, " for node '", node, "': ", call, " failed: ",
                   cudaGetErrorName(err), " (", static_cast<int>(err), "): ",
                   cudaGetErrorString(err));
  if (err == cudaErrorMemoryAllocation) return absl::ResourceExhaustedError(text);
  return absl::InternalError(text);
}

}  // namespace smrt::kernels::cuda

#endif  // SMRT_KERNELS_CUDA_CUDA_STATUS_H_
