// Elementwise CUDA kernels on device pointers (no absl or smrt headers, so
// nvcc sees only CUDA and the standard library): binaries with NumPy
// broadcasting, unaries, and BiasAdd. elementwise_kernels.cc and
// bias_add_kernels.cc adapt them to the kernel registry.
//
// Each result is what the CPU reference kernel computes: integer
// Add/Sub/Mul/Neg/Square wrap (two's complement), Maximum/Minimum return a
// NaN operand, float division and square roots are IEEE (no fast math).
// float16 (__half) and bfloat16 (__nv_bfloat16) compute in float and round
// once on store, their intermediates where the CPU rounds them
// (elementwise_math.h holds the formulas).
#ifndef SMRT_KERNELS_CUDA_ELEMENTWISE_H_
#define SMRT_KERNELS_CUDA_ELEMENTWISE_H_

#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/cuda/half_math.h"

namespace smrt::kernels::cuda {

// kDivNoNan is a / b with 0 where b is 0; kReluGrad is a (the gradients)
// where b (the features) is above 0, else 0.
enum class BinaryOp {
  kAdd, kSub, kMul, kDiv, kMaximum, kMinimum, kSquaredDifference, kDivNoNan, kReluGrad
};

// Binaries with a bool output. The comparisons take float, float16,
// bfloat16 and int64 (Equal and NotEqual bool too; an int32 comparison stays
// on the host, as in TensorFlow); kLogicalAnd and kLogicalOr take bool.
enum class CompareOp {
  kLess, kLessEqual, kGreater, kGreaterEqual, kEqual, kNotEqual, kLogicalAnd, kLogicalOr
};

// kRelu, kRelu6, kNeg, kSquare, kAbs: float, float16, bfloat16, int32 and
// int64; the rest floating point only.
enum class UnaryOp {
  kRelu, kRelu6, kNeg, kSquare, kAbs,
  kSigmoid, kTanh, kExp, kSqrt, kRsqrt, kElu, kLog, kLog1p, kErf, kErfc, kFloor, kCeil,
  kReciprocal, kLeakyRelu, kSoftplus, kSoftsign, kSelu, kSign, kRound, kSin, kCos, kExpm1,
};

// Bool results of one floating-point operand.
enum class ClassifyOp { kIsNan, kIsFinite };

inline constexpr int kMaxBroadcastRank = 8;

// How output element i maps to its inputs: decompose i over `dims`
// (row-major), then offset = sum(coord[d] * strides[d]); a stride of 0
// repeats the input along that dim. Passed to kernels by value; made by
// MakeBroadcastIndex (broadcast_index.h).
struct BroadcastIndex {
  int rank = 0;
  int64_t dims[kMaxBroadcastRank] = {};
  int64_t a_strides[kMaxBroadcastRank] = {};
  int64_t b_strides[kMaxBroadcastRank] = {};
};

// out[i] = a[..] op b[..] for the n = product(out_shape) outputs, queued on
// `stream`. T is float, __half, __nv_bfloat16, int32_t or int64_t (kDiv,
// kDivNoNan and kReluGrad: floating point only). Returns the launch error, if
// any (cudaErrorInvalidValue for an op T does not have).
template <typename T>
cudaError_t LaunchBinary(BinaryOp op, const T* a, const T* b, T* out, int64_t n,
                         const BroadcastIndex& index, cudaStream_t stream);

// out[i] = a[..] op b[..] as bool, broadcast as LaunchBinary. T is float,
// __half, __nv_bfloat16 or int64_t (comparisons) or bool (kEqual, kNotEqual,
// kLogicalAnd, kLogicalOr); other pairs are cudaErrorInvalidValue.
template <typename T>
cudaError_t LaunchCompare(CompareOp op, const T* a, const T* b, bool* out, int64_t n,
                          const BroadcastIndex& index, cudaStream_t stream);

// out[i] = !in[i] for n bools (LogicalNot).
cudaError_t LaunchLogicalNot(const bool* in, bool* out, int64_t n, cudaStream_t stream);

// out[i] = op(in[i]) for n elements; T is float, __half, __nv_bfloat16,
// int32_t or int64_t (the integers only for kRelu, kRelu6, kNeg, kSquare,
// kAbs, else cudaErrorInvalidValue). `alpha` is kLeakyRelu's slope below zero
// and kSoftplus's threshold (SoftplusThreshold); the other ops ignore it.
template <typename T>
cudaError_t LaunchUnary(UnaryOp op, const T* in, T* out, int64_t n, cudaStream_t stream,
                        float alpha = 0.0f);

// out[i] = op(in[i]) as bool for n elements; T is float, __half or
// __nv_bfloat16.
template <typename T>
cudaError_t LaunchClassify(ClassifyOp op, const T* in, bool* out, int64_t n,
                           cudaStream_t stream);

// out[i] = value[i] + bias[(i / inner) % channels] for n elements: the bias
// runs along the dim whose inner stride is `inner` (1 for NHWC, H*W for NCHW).
// T is float, __half or __nv_bfloat16.
template <typename T>
cudaError_t LaunchBiasAdd(const T* value, const T* bias, T* out, int64_t n, int64_t channels,
                          int64_t inner, cudaStream_t stream);

}  // namespace smrt::kernels::cuda

#endif  // SMRT_KERNELS_CUDA_ELEMENTWISE_H_
