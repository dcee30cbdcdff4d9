// Cast among float32, float16, bfloat16, int32, int64 and bool on device
// pointers, as the CPU kernel: float to integer truncates toward zero, NaN
// and out-of-range values give the integer's minimum; to float16/bfloat16
// rounds to nearest even (Truncate=true clears the float's low bits first,
// as TensorFlow's LSBZeroSetter, for float to float16/bfloat16 only);
// anything to bool is "!= 0" (NaN is true); int64 to int32 keeps the low 32
// bits. CastOne is the per-element formula, on the host too.
#ifndef SMRT_KERNELS_CUDA_CAST_H_
#define SMRT_KERNELS_CUDA_CAST_H_

#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "kernels/cuda/half_math.h"

namespace smrt::kernels::cuda {

enum class CastType { kFloat, kInt32, kInt64, kBool, kHalf, kBFloat16 };

// out[i] = (To) in[i] for n elements; cudaErrorInvalidValue when from == to.
cudaError_t LaunchCast(CastType from, CastType to, bool truncate, const void* in, void* out,
                       int64_t n, cudaStream_t stream);

template <typename To, typename From>
__host__ __device__ inline To CastOne(From v, bool truncate) {
  constexpr bool kFromFloating = std::is_same_v<Compute<From>, float>;
  if constexpr (std::is_same_v<To, bool>) {
    return Widen(v) != Compute<From>(0);
  } else if constexpr (kFromFloating && std::is_integral_v<To>) {
    const double t = trunc(static_cast<double>(Widen(v)));
    constexpr double kLimit = static_cast<double>(uint64_t{1} << (8 * sizeof(To) - 1));
    if (!(t >= -kLimit && t < kLimit)) return static_cast<To>(uint64_t{1} << (8 * sizeof(To) - 1));
    return static_cast<To>(t);
  } else if constexpr (std::is_same_v<From, int64_t> && std::is_same_v<To, int32_t>) {
    return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(v)));
  } else if constexpr (kIsHalfLike<To>) {
    if constexpr (std::is_same_v<From, float>) {
      if (truncate) {  // the low bits cleared, unless the value is NaN
        const uint32_t u = FloatBits(v);
        const int bits = std::is_same_v<To, __half> ? 13 : 16;
        if ((u & 0x7fffffffu) <= 0x7f800000u) v = FloatFromBits(u & (~uint32_t{0} << bits));
      }
      return Narrow<To>(v);
    } else if constexpr (std::is_same_v<From, bool>) {
      return Narrow<To>(v ? 1.0f : 0.0f);
    } else {
      return Narrow<To>(static_cast<float>(Widen(v)));
    }
  } else {
    return static_cast<To>(Widen(v));
  }
}

}  // namespace smrt::kernels::cuda

#endif  // SMRT_KERNELS_CUDA_CAST_H_
