// Host-to-device upload shared by _SmrtToDevice and Const.
#ifndef SMRT_KERNELS_CUDA_COPY_H_
#define SMRT_KERNELS_CUDA_COPY_H_

#include "absl/status/status.h"
#include "kernels/kernel.h"

namespace smrt::kernels::cuda {

// Output `output` of ctx = a device copy of the host tensor `host`, queued
// on the context's stream (no copy for zero elements). Waits for the copy
// only when `host` is page-locked, whose buffer the copy still reads after
// the call returns.
absl::Status UploadTo(KernelContext& ctx, const Tensor& host, int output);

}  // namespace smrt::kernels::cuda

#endif  // SMRT_KERNELS_CUDA_COPY_H_
