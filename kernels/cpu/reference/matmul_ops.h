// MatMul as functions, for kernels built on it (the fused matmul).
#ifndef SMRT_KERNELS_CPU_REFERENCE_MATMUL_OPS_H_
#define SMRT_KERNELS_CPU_REFERENCE_MATMUL_OPS_H_

#include "absl/status/status.h"
#include "kernels/kernel.h"

namespace smrt::kernels {

// 2-D MatMul over inputs 0 and 1 with transpose_a / transpose_b; other
// inputs and attrs are ignored. Shape inference: ops::matmul::InferMatMul.
absl::Status ComputeMatMul2D(KernelContext& ctx);

}  // namespace smrt::kernels

#endif  // SMRT_KERNELS_CPU_REFERENCE_MATMUL_OPS_H_
