// Cast between float32, int32, int64 and bool on device pointers, as the CPU
// kernel: float to integer truncates toward zero, NaN and out-of-range
// values give the integer's minimum; anything to bool is "!= 0" (NaN is
// true); int64 to int32 keeps the low 32 bits.
#ifndef SMRT_KERNELS_CUDA_CAST_H_
#define SMRT_KERNELS_CUDA_CAST_H_

#include <cuda_runtime.h>

#include <cstdint>

namespace smrt::kernels::cuda {

enum class CastType { kFloat, kInt32, kInt64, kBool };

// out[i] = (To) in[i] for n elements; cudaErrorInvalidValue when from == to.
cudaError_t LaunchCast(CastType from, CastType to, const void* in, void* out, int64_t n,
                       cudaStream_t stream);

}  // namespace smrt::kernels::cuda

#endif  // SMRT_KERNELS_CUDA_CAST_H_
