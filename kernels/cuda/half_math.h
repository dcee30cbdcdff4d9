// float16 and bfloat16 elements on the device and the host alike. They are
// stored as CUDA's __half and __nv_bfloat16 (the same two bytes TensorFlow
// and Eigen store) and computed in float, rounded to nearest even when
// stored, as the CPU kernels do (elementwise_util.h's ComputeType and
// Rounded), with the CPU's bits: a NaN is stored as Eigen stores it (0x7e00
// for float16, 0x7fc0 for bfloat16, its sign kept). Other element types
// compute as themselves.
#ifndef SMRT_KERNELS_CUDA_HALF_MATH_H_
#define SMRT_KERNELS_CUDA_HALF_MATH_H_

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace smrt::kernels::cuda {

template <typename T>
inline constexpr bool kIsHalfLike =
    std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>;

// The type arithmetic on a T element is done in.
template <typename T>
using Compute = std::conditional_t<kIsHalfLike<T>, float, T>;

// A stored element as its compute type.
template <typename T>
__host__ __device__ inline Compute<T> Widen(T v) {
  if constexpr (std::is_same_v<T, __half>) {
    return __half2float(v);
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return __bfloat162float(v);
  } else {
    return v;
  }
}

__host__ __device__ inline uint32_t FloatBits(float f) {
#ifdef __CUDA_ARCH__
  return __float_as_uint(f);
#else
  uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  return u;
#endif
}

__host__ __device__ inline float FloatFromBits(uint32_t u) {
#ifdef __CUDA_ARCH__
  return __uint_as_float(u);
#else
  float f;
  std::memcpy(&f, &u, sizeof(f));
  return f;
#endif
}

// A computed value stored as T (nearest, ties to even; a NaN as Eigen's).
template <typename T>
__host__ __device__ inline T Narrow(Compute<T> v) {
  if constexpr (kIsHalfLike<T>) {
    const uint32_t u = FloatBits(v);
    if ((u & 0x7fffffffu) > 0x7f800000u) {  // NaN
      __half_raw raw;
      raw.x = static_cast<unsigned short>(((u >> 16) & 0x8000u) |
                                          (std::is_same_v<T, __half> ? 0x7e00u : 0x7fc0u));
      if constexpr (std::is_same_v<T, __half>) {
        return __half(raw);
      } else {
        __nv_bfloat16_raw b;
        b.x = raw.x;
        return __nv_bfloat16(b);
      }
    }
    if constexpr (std::is_same_v<T, __half>) {
      return __float2half_rn(v);
    } else {
      return __float2bfloat16_rn(v);
    }
  } else {
    return v;
  }
}

// v rounded to T's precision and back: Eigen rounds float16/bfloat16 after
// each operation, so a formula of several steps rounds its intermediates
// through this to give the CPU kernel's bits. The identity for other types.
template <typename T>
__host__ __device__ inline Compute<T> Rounded(Compute<T> v) {
  if constexpr (kIsHalfLike<T>) {
    return Widen<T>(Narrow<T>(v));
  } else {
    return v;
  }
}

}  // namespace smrt::kernels::cuda

#endif  // SMRT_KERNELS_CUDA_HALF_MATH_H_
