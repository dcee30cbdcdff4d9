// The CUDA backend's kernels, for KernelRegistry::Default() in builds with
// SMRT_WITH_CUDA. Each op's kernels live in their own file; this is the list.
#ifndef SMRT_KERNELS_CUDA_REGISTER_H_
#define SMRT_KERNELS_CUDA_REGISTER_H_

#include <vector>

#include "kernels/kernel.h"

namespace smrt::kernels::cuda {

inline constexpr char kCudaDevice[] = "CUDA";

// Elementwise: Add, AddV2, Mul (broadcasting) and Relu, float32 and int32.
std::vector<KernelSpec> ElementwiseKernels();

inline std::vector<KernelSpec> CudaKernels() { return ElementwiseKernels(); }

}  // namespace smrt::kernels::cuda

#endif  // SMRT_KERNELS_CUDA_REGISTER_H_
