// Stateful random ops on device pointers (no absl or smrt headers besides
// the Philox generator, which compiles for both): each output is computed
// from the generator where the node's stream stands, so a seeded node gives
// the CPU kernel's numbers (kernels/shared/random_distributions.h),
// which are TensorFlow's. What an output reads is defined here for the host
// and the device alike, so tests check it on a machine without a GPU.
#ifndef SMRT_KERNELS_CUDA_RANDOM_H_
#define SMRT_KERNELS_CUDA_RANDOM_H_

#include <cuda_runtime.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "kernels/shared/philox.h"

namespace smrt::kernels::cuda {

using random::Philox;

// The block a fixed-size fill's group `group` reads: TensorFlow's
// FillPhiloxRandom gives group g (4 outputs of 32 bits, or 2 of 64) block g.
__host__ __device__ inline Philox::Block FillBlock(Philox gen, int64_t group) {
  gen.Skip(static_cast<uint64_t>(group));
  return gen();
}

// RandomUniform float32, output i: [0, 1) from its word.
__host__ __device__ inline float UniformFloatAt(const Philox& gen, int64_t i) {
  return random::Uint32ToFloat(FillBlock(gen, i / 4)[i % 4]);
}

// RandomUniformInt (T int32_t or int64_t), output i: lo + its word(s) modulo
// range, in unsigned arithmetic.
template <typename T>
__host__ __device__ inline T UniformIntAt(const Philox& gen, int64_t i, T lo,
                                          std::make_unsigned_t<T> range) {
  using U = std::make_unsigned_t<T>;
  constexpr bool kWide = sizeof(T) == 8;
  constexpr int kGroup = kWide ? 2 : 4;
  const Philox::Block s = FillBlock(gen, i / kGroup);
  const int k = static_cast<int>(i % kGroup);
  U bits;
  if constexpr (kWide) {
    bits = s[2 * k] | static_cast<uint64_t>(s[2 * k + 1]) << 32;
  } else {
    bits = s[k];
  }
  return static_cast<T>(static_cast<U>(static_cast<U>(lo) + bits % range));
}

// Multinomial's sample s (counted over rows, row-major): TensorFlow's CPU
// kernel run as one shard gives it words 2s and 2s + 1 of the stream, scales
// their double by the row's total of exp(logit - max) over the finite logits
// (in double, in class order) and takes the first class whose running total
// exceeds it (upper_bound over the CDF); `classes` when none does. On a
// device, exp is CUDA's (within an ulp of the host's), so a sample exactly
// on a class boundary may differ.
__host__ __device__ inline int64_t MultinomialSampleAt(const Philox& gen, const float* row,
                                                       int64_t classes, int64_t s) {
  const Philox::Block w = FillBlock(gen, s / 2);
  const int k = static_cast<int>(2 * (s % 2));
  float max = -FLT_MAX;
  for (int64_t j = 0; j < classes; ++j) {
    const float x = row[j];
    if (x - x == 0.0f && max < x) max = x;  // x - x is 0 for finite x only
  }
  const double m = max;
  double total = 0.0;
  for (int64_t j = 0; j < classes; ++j) {
    if (row[j] - row[j] == 0.0f) total += ::exp(static_cast<double>(row[j]) - m);
  }
  const double to_find = random::Uint64ToDouble(w[k], w[k + 1]) * total;
  double cdf = 0.0;
  for (int64_t j = 0; j < classes; ++j) {
    if (row[j] - row[j] == 0.0f) cdf += ::exp(static_cast<double>(row[j]) - m);
    if (cdf > to_find) return j;
  }
  return classes;
}

// out[i] = UniformFloatAt(gen, i) for i < n.
cudaError_t LaunchRandomUniform(const Philox& gen, float* out, int64_t n, cudaStream_t stream);

// out[i] = UniformIntAt(gen, i, lo, hi - lo) for i < n; T is int32_t or
// int64_t, lo < hi.
template <typename T>
cudaError_t LaunchRandomUniformInt(const Philox& gen, T lo, T hi, T* out, int64_t n,
                                   cudaStream_t stream);

// out[b * num_samples + k] = MultinomialSampleAt(gen, logits + b * classes,
// classes, b * num_samples + k); Out is int32_t or int64_t.
template <typename Out>
cudaError_t LaunchMultinomial(const Philox& gen, const float* logits, int64_t rows,
                              int64_t classes, int64_t num_samples, Out* out,
                              cudaStream_t stream);

}  // namespace smrt::kernels::cuda

#endif  // SMRT_KERNELS_CUDA_RANDOM_H_
