// The per-element formulas of the elementwise kernels (elementwise.cu), on the
// device and the host alike, so tests can check them on a machine without a
// GPU. Each takes and returns the compute type of the stored element type T
// (half_math.h: float for float16/bfloat16) and rounds a formula's
// intermediate results to T where the CPU kernel (Eigen) does.
#ifndef SMRT_KERNELS_CUDA_ELEMENTWISE_MATH_H_
#define SMRT_KERNELS_CUDA_ELEMENTWISE_MATH_H_

#include <cuda_runtime.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "kernels/cuda/elementwise.h"
#include "kernels/cuda/half_math.h"

namespace smrt::kernels::cuda {

// Two's-complement wrapping, as the CPU kernels (signed overflow is
// undefined in C++, so go through the unsigned type). I is int32_t or int64_t.
template <typename I>
__host__ __device__ inline I WrapAdd(I a, I b) {
  using U = std::make_unsigned_t<I>;
  return static_cast<I>(static_cast<U>(a) + static_cast<U>(b));
}
template <typename I>
__host__ __device__ inline I WrapSub(I a, I b) {
  using U = std::make_unsigned_t<I>;
  return static_cast<I>(static_cast<U>(a) - static_cast<U>(b));
}
template <typename I>
__host__ __device__ inline I WrapMul(I a, I b) {
  using U = std::make_unsigned_t<I>;
  return static_cast<I>(static_cast<U>(a) * static_cast<U>(b));
}

template <BinaryOp op, typename T>
__host__ __device__ inline Compute<T> ApplyBinary(Compute<T> a, Compute<T> b) {
  using C = Compute<T>;
  constexpr bool kInt = std::is_integral_v<C>;
  if constexpr (op == BinaryOp::kAdd) {
    if constexpr (kInt) return WrapAdd(a, b); else return a + b;
  } else if constexpr (op == BinaryOp::kSub) {
    if constexpr (kInt) return WrapSub(a, b); else return a - b;
  } else if constexpr (op == BinaryOp::kMul) {
    if constexpr (kInt) return WrapMul(a, b); else return a * b;
  } else if constexpr (op == BinaryOp::kDiv) {
    static_assert(!kInt, "integer division is not a CUDA kernel here");
    return a / b;
  } else if constexpr (op == BinaryOp::kMaximum) {
    if constexpr (!kInt) {
      if (a != a) return a;  // NaN
      if (b != b) return b;
    }
    return a < b ? b : a;
  } else if constexpr (op == BinaryOp::kMinimum) {
    if constexpr (!kInt) {
      if (a != a) return a;
      if (b != b) return b;
    }
    return b < a ? b : a;
  } else if constexpr (op == BinaryOp::kDivNoNan) {
    static_assert(!kInt, "DivNoNan is floating point only");
    return b == C(0) ? C(0) : a / b;
  } else if constexpr (op == BinaryOp::kReluGrad) {
    static_assert(!kInt, "ReluGrad is floating point only");
    return b > C(0) ? a : C(0);  // a NaN feature gives 0, as on the CPU
  } else {  // kSquaredDifference
    if constexpr (kInt) {
      const C d = WrapSub(a, b);
      return WrapMul(d, d);
    } else {
      const C d = Rounded<T>(a - b);
      return d * d;
    }
  }
}

template <CompareOp op, typename C>
__host__ __device__ inline bool ApplyCompare(C a, C b) {
  // IEEE: every ordered comparison with a NaN is false, NotEqual true.
  if constexpr (op == CompareOp::kLess) return a < b;
  else if constexpr (op == CompareOp::kLessEqual) return a <= b;
  else if constexpr (op == CompareOp::kGreater) return a > b;
  else if constexpr (op == CompareOp::kGreaterEqual) return a >= b;
  else if constexpr (op == CompareOp::kEqual) return a == b;
  else if constexpr (op == CompareOp::kNotEqual) return a != b;
  else if constexpr (op == CompareOp::kLogicalAnd) return a && b;
  else return a || b;  // kLogicalOr
}

// Softplus's threshold for T, as Eigen's (and the CPU kernel's): log of T's
// epsilon, plus 2, each step rounded to T. Computed on the host (the C
// library's log) and passed to the kernel as `alpha`.
template <typename T>
inline float SoftplusThreshold() {
  // Eigen's epsilons: float's, 2^-13 for float16 (not float16's 2^-10), 2^-7
  // for bfloat16.
  const float eps = std::is_same_v<T, float> ? FLT_EPSILON
                    : std::is_same_v<T, __half> ? 0.0001220703125f
                                                : 0.0078125f;
  return Rounded<T>(Rounded<T>(std::log(eps)) + 2.0f);
}

// `alpha` is kLeakyRelu's slope below zero, rounded to T as the CPU rounds it,
// or kSoftplus's threshold (SoftplusThreshold<T>()).
template <UnaryOp op, typename T>
__host__ __device__ inline Compute<T> ApplyUnary(Compute<T> x, float alpha) {
  using C = Compute<T>;
  constexpr bool kInt = std::is_integral_v<C>;
  if constexpr (op == UnaryOp::kRelu) {
    return x < C(0) ? C(0) : x;  // NaN < 0 is false: NaN passes through
  } else if constexpr (op == UnaryOp::kRelu6) {
    if (x < C(0)) return C(0);
    return x > C(6) ? C(6) : x;
  } else if constexpr (op == UnaryOp::kNeg) {
    if constexpr (kInt) return WrapSub(C(0), x); else return -x;
  } else if constexpr (op == UnaryOp::kSquare) {
    if constexpr (kInt) return WrapMul(x, x); else return x * x;
  } else if constexpr (op == UnaryOp::kAbs) {
    if constexpr (kInt) return x < 0 ? WrapSub(C(0), x) : x; else return fabsf(x);  // INT_MIN stays
  } else {
    static_assert(!kInt, "transcendental unaries are floating point only");
    if constexpr (op == UnaryOp::kSigmoid) {
      // As the CPU kernel (Eigen's form): e / (1 + e), 1 where e overflows.
      const float e = Rounded<T>(expf(x));
      if (e > FLT_MAX) return 1.0f;
      return e / Rounded<T>(1.0f + e);
    } else if constexpr (op == UnaryOp::kTanh) {
      return tanhf(x);
    } else if constexpr (op == UnaryOp::kExp) {
      return expf(x);
    } else if constexpr (op == UnaryOp::kSqrt) {
      return sqrtf(x);
    } else if constexpr (op == UnaryOp::kRsqrt) {
      return 1.0f / sqrtf(x);  // IEEE sqrt and division, as the CPU (not rsqrtf's ~2 ulp)
    } else if constexpr (op == UnaryOp::kElu) {
      return x < 0.0f ? Rounded<T>(expf(x)) - 1.0f : x;
    } else if constexpr (op == UnaryOp::kLog) {
      return logf(x);
    } else if constexpr (op == UnaryOp::kLog1p) {
      return log1pf(x);
    } else if constexpr (op == UnaryOp::kErf) {
      return erff(x);
    } else if constexpr (op == UnaryOp::kErfc) {
      return erfcf(x);
    } else if constexpr (op == UnaryOp::kFloor) {
      return floorf(x);
    } else if constexpr (op == UnaryOp::kCeil) {
      return ceilf(x);
    } else if constexpr (op == UnaryOp::kLeakyRelu) {
      return x > 0.0f ? x : x * Rounded<T>(alpha);  // as the CPU: NaN * alpha stays NaN
    } else if constexpr (op == UnaryOp::kSoftplus) {
      // Eigen's: x above -threshold, exp(x) below threshold, else log1p(exp(x)).
      if (x > -alpha) return x;
      if (x < alpha) return expf(x);
      return log1pf(Rounded<T>(expf(x)));
    } else if constexpr (op == UnaryOp::kSoftsign) {
      return x / Rounded<T>(1.0f + fabsf(x));
    } else if constexpr (op == UnaryOp::kSelu) {
      // TensorFlow's constants, rounded to T (Eigen converts through float).
      const float scale = Rounded<T>(1.0507009873554804934193349852946f);
      const float scale_alpha = Rounded<T>(1.7580993408473768599402175208123f);
      return x < 0.0f ? scale_alpha * Rounded<T>(Rounded<T>(expf(x)) - 1.0f) : scale * x;
    } else if constexpr (op == UnaryOp::kSign) {
      if (x != x) return x;  // NaN
      return static_cast<float>((0.0f < x) - (x < 0.0f));  // -0 gives +0, as the CPU
    } else if constexpr (op == UnaryOp::kRound) {
      return rintf(x);  // half to even, -0.3 to -0, as the CPU (and TensorFlow)
    } else if constexpr (op == UnaryOp::kSin) {
      return sinf(x);
    } else if constexpr (op == UnaryOp::kCos) {
      return cosf(x);
    } else if constexpr (op == UnaryOp::kExpm1) {
      return expm1f(x);
    } else {  // kReciprocal
      return 1.0f / x;
    }
  }
}

template <ClassifyOp op>
__host__ __device__ inline bool ApplyClassify(float x) {
  if constexpr (op == ClassifyOp::kIsNan) return x != x;
  else return x - x == 0.0f;  // kIsFinite: inf - inf and NaN - NaN are NaN
}

}  // namespace smrt::kernels::cuda

#endif  // SMRT_KERNELS_CUDA_ELEMENTWISE_MATH_H_
