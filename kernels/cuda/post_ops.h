// The fused ops' post-ops (ops/fused_ops.h) on CUDA: checks the args as
// ApplyPostOps does, then queues one epilogue kernel (epilogue.h). Shared by
// _SmrtFusedMatMul and _SmrtFusedConv2D.
#ifndef SMRT_KERNELS_CUDA_POST_OPS_H_
#define SMRT_KERNELS_CUDA_POST_OPS_H_

#include <cuda_runtime.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "kernels/cuda/epilogue.h"
#include "kernels/kernel.h"
#include "ops/fused_ops.h"

namespace smrt::kernels::cuda {

// The epilogue for an output of `out_shape`, its args read from ctx's inputs
// (device tensors); called before any device work. InvalidArgument naming
// the node for an arg of the wrong dtype or shape, as ApplyPostOps;
// Unimplemented past kMaxEpilogueSteps post-ops.
absl::StatusOr<Epilogue> PreparePostOps(const KernelContext& ctx, const FusedOps& ops,
                                        const Shape& out_shape);

// Queues `e` on `out` (float32, float16 or bfloat16, on the device) in place.
absl::Status RunPostOps(const KernelContext& ctx, const Epilogue& e, Tensor& out,
                        cudaStream_t stream);

}  // namespace smrt::kernels::cuda

#endif  // SMRT_KERNELS_CUDA_POST_OPS_H_
