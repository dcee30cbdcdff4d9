// float <-> bfloat16 as loops the compiler vectorizes: round to nearest
// even, a NaN becoming the quiet NaN 0x7fc0 with its sign (Eigen's scalar
// conversion, which branches on NaN and keeps loops scalar). Shared by the
// Cast and binary kernels and by the kernels that keep a bfloat16 value's
// arithmetic in float32 (attention, layer norm).
#ifndef SMRT_KERNELS_SHARED_BFLOAT16_UTIL_H_
#define SMRT_KERNELS_SHARED_BFLOAT16_UTIL_H_

#include <cstdint>
#include <cstring>

#include "Eigen/Core"

namespace smrt::kernels {

// The bits of the bfloat16 nearest to v.
inline uint16_t BFloat16Bits(float v) {
  uint32_t u;
  std::memcpy(&u, &v, sizeof(u));
  const uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
  const uint32_t nan = ((u >> 16) & 0x8000u) | 0x7fc0u;
  return static_cast<uint16_t>((u & 0x7fffffffu) > 0x7f800000u ? nan : rounded);
}

inline Eigen::bfloat16 ToBFloat16(float v) {
  return Eigen::numext::bit_cast<Eigen::bfloat16>(BFloat16Bits(v));
}

// The float a bfloat16 holds, exactly (Eigen's conversion keeps loops scalar).
inline float FromBFloat16(Eigen::bfloat16 b) {
  const uint32_t u = static_cast<uint32_t>(Eigen::numext::bit_cast<uint16_t>(b)) << 16;
  float f;
  std::memcpy(&f, &u, sizeof(f));
  return f;
}

inline void FloatsToBFloat16(const float* in, Eigen::bfloat16* out, int64_t n) {
  auto* o = reinterpret_cast<uint16_t*>(out);
  for (int64_t i = 0; i < n; ++i) o[i] = BFloat16Bits(in[i]);
}

inline void BFloat16sToFloat(const Eigen::bfloat16* in, float* out, int64_t n) {
  const auto* b = reinterpret_cast<const uint16_t*>(in);
  for (int64_t i = 0; i < n; ++i) {
    const uint32_t u = static_cast<uint32_t>(b[i]) << 16;
    std::memcpy(out + i, &u, sizeof(u));
  }
}

}  // namespace smrt::kernels

#endif  // SMRT_KERNELS_SHARED_BFLOAT16_UTIL_H_
