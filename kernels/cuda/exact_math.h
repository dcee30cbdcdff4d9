// Float arithmetic that rounds each product and sum on its own, on the device
// and the host alike. nvcc fuses a * b + c into one fma by default, which
// rounds once; the CPU build (baseline x86-64) never does, so a kernel that
// must give the CPU kernel's bits writes its sums and products with these.
#ifndef SMRT_KERNELS_CUDA_EXACT_MATH_H_
#define SMRT_KERNELS_CUDA_EXACT_MATH_H_

#include <cuda_runtime.h>

namespace smrt::kernels::cuda {

__host__ __device__ inline float MulRn(float a, float b) {
#ifdef __CUDA_ARCH__
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}

__host__ __device__ inline float AddRn(float a, float b) {
#ifdef __CUDA_ARCH__
  return __fadd_rn(a, b);
#else
  return a + b;
#endif
}

__host__ __device__ inline float SubRn(float a, float b) {
#ifdef __CUDA_ARCH__
  return __fsub_rn(a, b);
#else
  return a - b;
#endif
}

}  // namespace smrt::kernels::cuda

#endif  // SMRT_KERNELS_CUDA_EXACT_MATH_H_
