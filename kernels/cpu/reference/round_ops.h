// float32 values rounded to float16 or bfloat16 precision and kept as float32
// (_SmrtRoundTo, ops/fused_ops.h): the bits of a Cast to the 16-bit type
// and back, with Eigen's rounding, in integer steps the compiler vectorizes.
#ifndef SMRT_KERNELS_CPU_REFERENCE_ROUND_OPS_H_
#define SMRT_KERNELS_CPU_REFERENCE_ROUND_OPS_H_

#include <cstdint>
#include <cstring>

namespace smrt::kernels {

inline uint32_t BitsOfFloat(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  return u;
}

inline float FloatOfBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof(f));
  return f;
}

// The float16 nearest to f (ties to even), as a float: infinity from 65520
// up, half's subnormals in steps of 2^-24, a NaN as sign | 0x7fc00000.
inline float RoundToHalf(float f) {
  const uint32_t u = BitsOfFloat(f);
  const uint32_t sign = u & 0x80000000u;
  const uint32_t a = u ^ sign;
  uint32_t r;
  if (a > 0x7f800000u) {
    r = 0x7fc00000u;
  } else if (a < 0x38800000u) {  // below 2^-14: a multiple of 2^-24, exactly
    const float m = FloatOfBits(a) + 0.5f;
    r = BitsOfFloat(m - 0.5f);
  } else {
    r = (a + 0xfffu + ((a >> 13) & 1u)) & 0xffffe000u;  // 10 mantissa bits kept
    if (r >= 0x47800000u) r = 0x7f800000u;             // 65536 and up: infinity
  }
  return FloatOfBits(r | sign);
}

// The bfloat16 nearest to f (ties to even), as a float; a NaN as
// sign | 0x7fc00000.
inline float RoundToBFloat16(float f) {
  const uint32_t u = BitsOfFloat(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return FloatOfBits((u & 0x80000000u) | 0x7fc00000u);
  return FloatOfBits((u + 0x7fffu + ((u >> 16) & 1u)) & 0xffff0000u);
}

}  // namespace smrt::kernels

#endif  // SMRT_KERNELS_CPU_REFERENCE_ROUND_OPS_H_
