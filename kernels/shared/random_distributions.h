// TensorFlow's random distributions over a Philox stream, bit for bit:
// how words become floats (23 random mantissa bits, then minus 1), the
// Box-Muller transform, integer range reduction, and how an output tensor is
// cut into groups (tensorflow/core/lib/random/random_distributions.h and
// kernels/random_op_cpu.h).
//
// Every distribution here fills a group of kGroup outputs. Fixed ones use
// exactly one Philox block per group, so group g reads block g. Truncated
// normals reject samples, so group g starts at block g * kGroup * 256 / 4 and
// reads single words from there; that is why stateful ops reserve 256 blocks
// per output. Both layouts make the answer independent of how TensorFlow
// shards the work across threads.
#ifndef SMRT_KERNELS_SHARED_RANDOM_DISTRIBUTIONS_H_
#define SMRT_KERNELS_SHARED_RANDOM_DISTRIBUTIONS_H_

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "kernels/shared/philox.h"

namespace smrt::kernels::random {

// [0, 1) from the low 10 (half) or 7 (bfloat16) bits of a word's low half.
inline Eigen::half Uint16ToHalf(uint32_t x) {
  const uint16_t bits = static_cast<uint16_t>((15u << 10) | (x & 0x3ffu));
  return Eigen::half(static_cast<float>(Eigen::numext::bit_cast<Eigen::half>(bits)) - 1.0f);
}
inline Eigen::bfloat16 Uint16ToBfloat16(uint32_t x) {
  const uint16_t bits = static_cast<uint16_t>((127u << 7) | (x & 0x7fu));
  return Eigen::bfloat16(static_cast<float>(Eigen::numext::bit_cast<Eigen::bfloat16>(bits)) - 1.0f);
}

inline void SinCos(float v, float* s, float* c) {
#if defined(__GLIBC__)
  sincosf(v, s, c);  // what TensorFlow calls on Linux
#else
  *s = std::sin(v);
  *c = std::cos(v);
#endif
}
inline void SinCos(double v, double* s, double* c) {
#if defined(__GLIBC__)
  sincos(v, s, c);
#else
  *s = std::sin(v);
  *c = std::cos(v);
#endif
}

// Two standard normals from two words. The arithmetic mirrors TensorFlow's,
// including 2*pi in double and the log/sqrt in float.
inline void BoxMullerFloat(uint32_t x0, uint32_t x1, float* f0, float* f1) {
  float u1 = Uint32ToFloat(x0);
  if (u1 < 1.0e-7f) u1 = 1.0e-7f;
  const float v1 = static_cast<float>(2.0 * M_PI * static_cast<double>(Uint32ToFloat(x1)));
  const float u2 = std::sqrt(-2.0f * std::log(u1));
  SinCos(v1, f0, f1);
  *f0 *= u2;
  *f1 *= u2;
}

// Two standard normals from four words.
inline void BoxMullerDouble(uint32_t x0, uint32_t x1, uint32_t x2, uint32_t x3, double* d0,
                            double* d1) {
  double u1 = Uint64ToDouble(x0, x1);
  if (u1 < 1.0e-7) u1 = 1.0e-7;
  const double v1 = 2 * M_PI * Uint64ToDouble(x2, x3);
  const double u2 = std::sqrt(-2.0 * std::log(u1));
  SinCos(v1, d0, d1);
  *d0 *= u2;
  *d1 *= u2;
}

template <typename T>
constexpr bool kIsWide = sizeof(T) == 8;  // 64-bit outputs take two words each

// Uniform [0, 1) for half, bfloat16, float, double.
template <typename T>
struct UniformReal {
  static constexpr bool kVariable = false;
  static constexpr int kGroup = kIsWide<T> ? 2 : 4;
  void operator()(Philox& gen, T* out) const {
    const Philox::Block s = gen();
    for (int i = 0; i < kGroup; ++i) {
      if constexpr (std::is_same_v<T, double>) {
        out[i] = Uint64ToDouble(s[2 * i], s[2 * i + 1]);
      } else if constexpr (std::is_same_v<T, float>) {
        out[i] = Uint32ToFloat(s[i]);
      } else if constexpr (std::is_same_v<T, Eigen::half>) {
        out[i] = Uint16ToHalf(s[i]);
      } else {
        out[i] = Uint16ToBfloat16(s[i]);
      }
    }
  }
};

// Integers in [lo, lo + range): the word(s) modulo range, added to lo in
// unsigned arithmetic (TensorFlow's SignedAdd gives the same bits).
template <typename T>
struct UniformInt {
  using U = std::make_unsigned_t<T>;
  static constexpr bool kVariable = false;
  static constexpr int kGroup = kIsWide<T> ? 2 : 4;
  T lo;
  U range;
  UniformInt(T low, T high)
      : lo(low), range(static_cast<U>(static_cast<U>(high) - static_cast<U>(low))) {}
  void operator()(Philox& gen, T* out) const {
    const Philox::Block s = gen();
    for (int i = 0; i < kGroup; ++i) {
      U bits;
      if constexpr (kIsWide<T>) {
        bits = s[2 * i] | static_cast<uint64_t>(s[2 * i + 1]) << 32;
      } else {
        bits = s[i];
      }
      out[i] = static_cast<T>(static_cast<U>(static_cast<U>(lo) + bits % range));
    }
  }
};

// Every value of the type equally likely.
template <typename T>
struct UniformFullInt {
  static constexpr bool kVariable = false;
  static constexpr int kGroup = kIsWide<T> ? 2 : 4;
  void operator()(Philox& gen, T* out) const {
    const Philox::Block s = gen();
    for (int i = 0; i < kGroup; ++i) {
      if constexpr (kIsWide<T>) {
        out[i] = static_cast<T>(s[2 * i] | static_cast<uint64_t>(s[2 * i + 1]) << 32);
      } else {
        out[i] = static_cast<T>(s[i]);
      }
    }
  }
};

// Standard normal; half and bfloat16 round the float result.
template <typename T>
struct Normal {
  static constexpr bool kVariable = false;
  static constexpr int kGroup = kIsWide<T> ? 2 : 4;
  void operator()(Philox& gen, T* out) const {
    const Philox::Block s = gen();
    if constexpr (std::is_same_v<T, double>) {
      BoxMullerDouble(s[0], s[1], s[2], s[3], &out[0], &out[1]);
    } else {
      for (int i = 0; i < 4; i += 2) {
        float f[2];
        BoxMullerFloat(s[i], s[i + 1], &f[0], &f[1]);
        out[i] = static_cast<T>(f[0]);
        out[i + 1] = static_cast<T>(f[1]);
      }
    }
  }
};

// Standard normal with |x| < 2, by rejection.
template <typename T>
struct TruncatedNormal {
  static constexpr bool kVariable = true;
  static constexpr int kGroup = kIsWide<T> ? 2 : 4;
  void operator()(SingleSample& words, T* out) const {
    int n = 0;
    while (true) {
      if constexpr (std::is_same_v<T, double>) {
        const uint32_t x0 = words(), x1 = words(), x2 = words(), x3 = words();
        double d[2];
        BoxMullerDouble(x0, x1, x2, x3, &d[0], &d[1]);
        for (double v : d) {
          if (std::fabs(v) < 2.0) {
            out[n++] = v;
            if (n == kGroup) return;
          }
        }
      } else {
        const uint32_t x0 = words(), x1 = words();
        float f[2];
        BoxMullerFloat(x0, x1, &f[0], &f[1]);
        for (float v : f) {
          if (std::fabs(v) < 2.0f) {
            out[n++] = static_cast<T>(v);
            if (n == kGroup) return;
          }
        }
      }
    }
  }
};

// Blocks a variable-samples group may use; stateful ops reserve this many per
// output (TensorFlow's kReservedSamplesPerOutput).
inline constexpr uint64_t kReservedBlocksPerOutput = 256;

// Fills data[0, size) from `gen` as TensorFlow's FillPhiloxRandom does.
template <typename T, typename Dist>
void FillPhilox(const Philox& gen, T* data, int64_t size, const Dist& dist) {
  constexpr int kGroup = Dist::kGroup;
  const int64_t groups = (size + kGroup - 1) / kGroup;
  Philox sequential = gen;
  T tail[kGroup];
  for (int64_t g = 0; g < groups; ++g) {
    const bool full = (g + 1) * kGroup <= size;
    T* out = full ? data + g * kGroup : tail;
    if constexpr (Dist::kVariable) {
      Philox at = gen;
      at.Skip(static_cast<uint64_t>(g) * kGroup * kReservedBlocksPerOutput / 4);
      SingleSample words(&at);
      dist(words, out);
    } else {
      dist(sequential, out);
    }
    if (!full) std::copy(tail, tail + (size - g * kGroup), data + g * kGroup);
  }
}

// Multinomial sampling as TensorFlow's CPU kernel does it when it runs as one
// shard: for each row, an unnormalized CDF of exp(logit - max) in double over
// the finite logits, then num_samples uniform doubles (two words each,
// consecutive across rows) looked up with upper_bound. Out is row-major
// [rows, num_samples].
template <typename T, typename Out>
void SampleMultinomial(const Philox& gen, const T* logits, int64_t rows, int64_t classes,
                       int64_t num_samples, Out* out) {
  Philox local = gen;
  SingleSample words(&local);
  std::vector<double> cdf(static_cast<size_t>(classes));
  for (int64_t b = 0; b < rows; ++b) {
    const T* row = logits + b * classes;
    T max = std::numeric_limits<T>::lowest();
    for (int64_t j = 0; j < classes; ++j) {
      if (Eigen::numext::isfinite(row[j])) max = std::max(max, row[j]);
    }
    const double max_logit = static_cast<double>(max);
    double total = 0;
    for (int64_t j = 0; j < classes; ++j) {
      const double e = std::exp(static_cast<double>(row[j]) - max_logit);
      if (Eigen::numext::isfinite(row[j])) total += e;
      cdf[j] = total;
    }
    for (int64_t k = 0; k < num_samples; ++k) {
      const uint32_t x0 = words(), x1 = words();
      const double to_find = Uint64ToDouble(x0, x1) * total;
      out[b * num_samples + k] =
          static_cast<Out>(std::upper_bound(cdf.begin(), cdf.end(), to_find) - cdf.begin());
    }
  }
}

}  // namespace smrt::kernels::random

#endif  // SMRT_KERNELS_SHARED_RANDOM_DISTRIBUTIONS_H_
