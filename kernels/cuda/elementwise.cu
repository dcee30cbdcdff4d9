#include <algorithm>
#include <cmath>
#include <type_traits>

#include "kernels/cuda/elementwise.h"
#include "kernels/cuda/elementwise_math.h"
#include "kernels/cuda/grid.h"
#include "kernels/cuda/half_math.h"

namespace smrt::kernels::cuda {
namespace {

// float, float16 and bfloat16: the types with floating-point ops.
template <typename T>
constexpr bool kFloating = std::is_same_v<Compute<T>, float>;

// The offsets in a and b of output element i.
__device__ __forceinline__ void BroadcastOffsets(const BroadcastIndex& index, int64_t i,
                                                 int64_t* ao, int64_t* bo) {
  int64_t rest = i;
  *ao = 0;
  *bo = 0;
  for (int d = index.rank - 1; d >= 0; --d) {
    const int64_t c = rest % index.dims[d];
    rest /= index.dims[d];
    *ao += c * index.a_strides[d];
    *bo += c * index.b_strides[d];
  }
}

// One thread per output element, grid-stride so any n fits the grid.
template <BinaryOp op, typename T>
__global__ void BroadcastBinaryKernel(const T* __restrict__ a, const T* __restrict__ b,
                                      T* __restrict__ out, int64_t n, BroadcastIndex index) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += step) {
    int64_t ao, bo;
    BroadcastOffsets(index, i, &ao, &bo);
    out[i] = Narrow<T>(ApplyBinary<op, T>(Widen(a[ao]), Widen(b[bo])));
  }
}

template <BinaryOp op, typename T>
cudaError_t Binary(const T* a, const T* b, T* out, int64_t n, const BroadcastIndex& index,
                   cudaStream_t stream) {
  BroadcastBinaryKernel<op, T><<<Blocks(n), kThreads, 0, stream>>>(a, b, out, n, index);
  return cudaGetLastError();
}

template <CompareOp op, typename T>
__global__ void BroadcastCompareKernel(const T* __restrict__ a, const T* __restrict__ b,
                                       bool* __restrict__ out, int64_t n, BroadcastIndex index) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += step) {
    int64_t ao, bo;
    BroadcastOffsets(index, i, &ao, &bo);
    out[i] = ApplyCompare<op>(Widen(a[ao]), Widen(b[bo]));
  }
}

template <CompareOp op, typename T>
cudaError_t Compare(const T* a, const T* b, bool* out, int64_t n, const BroadcastIndex& index,
                    cudaStream_t stream) {
  BroadcastCompareKernel<op, T><<<Blocks(n), kThreads, 0, stream>>>(a, b, out, n, index);
  return cudaGetLastError();
}

__global__ void LogicalNotKernel(const bool* __restrict__ in, bool* __restrict__ out, int64_t n) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += step) {
    out[i] = !in[i];
  }
}

template <UnaryOp op, typename T>
__global__ void UnaryKernel(const T* __restrict__ in, T* __restrict__ out, int64_t n,
                            float alpha) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += step) {
    out[i] = Narrow<T>(ApplyUnary<op, T>(Widen(in[i]), alpha));
  }
}

template <UnaryOp op, typename T>
cudaError_t Unary(const T* in, T* out, int64_t n, cudaStream_t stream, float alpha = 0.0f) {
  UnaryKernel<op, T><<<Blocks(n), kThreads, 0, stream>>>(in, out, n, alpha);
  return cudaGetLastError();
}

template <ClassifyOp op, typename T>
__global__ void ClassifyKernel(const T* __restrict__ in, bool* __restrict__ out, int64_t n) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += step) {
    out[i] = ApplyClassify<op>(Widen(in[i]));
  }
}

template <typename T>
__global__ void BiasAddKernel(const T* __restrict__ value, const T* __restrict__ bias,
                              T* __restrict__ out, int64_t n, int64_t channels, int64_t inner) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += step) {
    out[i] = Narrow<T>(Widen(value[i]) + Widen(bias[(i / inner) % channels]));
  }
}

}  // namespace

template <typename T>
cudaError_t LaunchBinary(BinaryOp op, const T* a, const T* b, T* out, int64_t n,
                         const BroadcastIndex& index, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  switch (op) {
    case BinaryOp::kAdd: return Binary<BinaryOp::kAdd, T>(a, b, out, n, index, stream);
    case BinaryOp::kSub: return Binary<BinaryOp::kSub, T>(a, b, out, n, index, stream);
    case BinaryOp::kMul: return Binary<BinaryOp::kMul, T>(a, b, out, n, index, stream);
    case BinaryOp::kDiv:
    case BinaryOp::kDivNoNan:
    case BinaryOp::kReluGrad:
      if constexpr (kFloating<T>) {
        if (op == BinaryOp::kDiv) return Binary<BinaryOp::kDiv, T>(a, b, out, n, index, stream);
        if (op == BinaryOp::kDivNoNan) {
          return Binary<BinaryOp::kDivNoNan, T>(a, b, out, n, index, stream);
        }
        return Binary<BinaryOp::kReluGrad, T>(a, b, out, n, index, stream);
      } else {
        return cudaErrorInvalidValue;
      }
    case BinaryOp::kMaximum: return Binary<BinaryOp::kMaximum, T>(a, b, out, n, index, stream);
    case BinaryOp::kMinimum: return Binary<BinaryOp::kMinimum, T>(a, b, out, n, index, stream);
    case BinaryOp::kSquaredDifference:
      return Binary<BinaryOp::kSquaredDifference, T>(a, b, out, n, index, stream);
  }
  return cudaErrorInvalidValue;
}

template <typename T>
cudaError_t LaunchCompare(CompareOp op, const T* a, const T* b, bool* out, int64_t n,
                          const BroadcastIndex& index, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  switch (op) {
    case CompareOp::kEqual: return Compare<CompareOp::kEqual, T>(a, b, out, n, index, stream);
    case CompareOp::kNotEqual:
      return Compare<CompareOp::kNotEqual, T>(a, b, out, n, index, stream);
    default: break;
  }
  if constexpr (!std::is_same_v<T, bool>) {
    switch (op) {
      case CompareOp::kLess: return Compare<CompareOp::kLess, T>(a, b, out, n, index, stream);
      case CompareOp::kLessEqual:
        return Compare<CompareOp::kLessEqual, T>(a, b, out, n, index, stream);
      case CompareOp::kGreater:
        return Compare<CompareOp::kGreater, T>(a, b, out, n, index, stream);
      case CompareOp::kGreaterEqual:
        return Compare<CompareOp::kGreaterEqual, T>(a, b, out, n, index, stream);
      default: break;
    }
  } else {
    switch (op) {
      case CompareOp::kLogicalAnd:
        return Compare<CompareOp::kLogicalAnd, T>(a, b, out, n, index, stream);
      case CompareOp::kLogicalOr:
        return Compare<CompareOp::kLogicalOr, T>(a, b, out, n, index, stream);
      default: break;
    }
  }
  return cudaErrorInvalidValue;
}

cudaError_t LaunchLogicalNot(const bool* in, bool* out, int64_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  LogicalNotKernel<<<Blocks(n), kThreads, 0, stream>>>(in, out, n);
  return cudaGetLastError();
}

template <typename T>
cudaError_t LaunchUnary(UnaryOp op, const T* in, T* out, int64_t n, cudaStream_t stream,
                        float alpha) {
  if (n == 0) return cudaSuccess;
  switch (op) {
    case UnaryOp::kRelu: return Unary<UnaryOp::kRelu, T>(in, out, n, stream);
    case UnaryOp::kRelu6: return Unary<UnaryOp::kRelu6, T>(in, out, n, stream);
    case UnaryOp::kNeg: return Unary<UnaryOp::kNeg, T>(in, out, n, stream);
    case UnaryOp::kSquare: return Unary<UnaryOp::kSquare, T>(in, out, n, stream);
    case UnaryOp::kAbs: return Unary<UnaryOp::kAbs, T>(in, out, n, stream);
    default: break;
  }
  if constexpr (kFloating<T>) {
    switch (op) {
      case UnaryOp::kSigmoid: return Unary<UnaryOp::kSigmoid, T>(in, out, n, stream);
      case UnaryOp::kTanh: return Unary<UnaryOp::kTanh, T>(in, out, n, stream);
      case UnaryOp::kExp: return Unary<UnaryOp::kExp, T>(in, out, n, stream);
      case UnaryOp::kSqrt: return Unary<UnaryOp::kSqrt, T>(in, out, n, stream);
      case UnaryOp::kRsqrt: return Unary<UnaryOp::kRsqrt, T>(in, out, n, stream);
      case UnaryOp::kElu: return Unary<UnaryOp::kElu, T>(in, out, n, stream);
      case UnaryOp::kLog: return Unary<UnaryOp::kLog, T>(in, out, n, stream);
      case UnaryOp::kLog1p: return Unary<UnaryOp::kLog1p, T>(in, out, n, stream);
      case UnaryOp::kErf: return Unary<UnaryOp::kErf, T>(in, out, n, stream);
      case UnaryOp::kErfc: return Unary<UnaryOp::kErfc, T>(in, out, n, stream);
      case UnaryOp::kFloor: return Unary<UnaryOp::kFloor, T>(in, out, n, stream);
      case UnaryOp::kCeil: return Unary<UnaryOp::kCeil, T>(in, out, n, stream);
      case UnaryOp::kReciprocal: return Unary<UnaryOp::kReciprocal, T>(in, out, n, stream);
      case UnaryOp::kLeakyRelu:
        return Unary<UnaryOp::kLeakyRelu, T>(in, out, n, stream, alpha);
      case UnaryOp::kSoftplus: return Unary<UnaryOp::kSoftplus, T>(in, out, n, stream, alpha);
      case UnaryOp::kSoftsign: return Unary<UnaryOp::kSoftsign, T>(in, out, n, stream);
      case UnaryOp::kSelu: return Unary<UnaryOp::kSelu, T>(in, out, n, stream);
      case UnaryOp::kSign: return Unary<UnaryOp::kSign, T>(in, out, n, stream);
      case UnaryOp::kRound: return Unary<UnaryOp::kRound, T>(in, out, n, stream);
      case UnaryOp::kSin: return Unary<UnaryOp::kSin, T>(in, out, n, stream);
      case UnaryOp::kCos: return Unary<UnaryOp::kCos, T>(in, out, n, stream);
      case UnaryOp::kExpm1: return Unary<UnaryOp::kExpm1, T>(in, out, n, stream);
      default: break;
    }
  }
  return cudaErrorInvalidValue;
}

template <typename T>
cudaError_t LaunchClassify(ClassifyOp op, const T* in, bool* out, int64_t n,
                           cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  if (op == ClassifyOp::kIsNan) {
    ClassifyKernel<ClassifyOp::kIsNan, T><<<Blocks(n), kThreads, 0, stream>>>(in, out, n);
  } else {
    ClassifyKernel<ClassifyOp::kIsFinite, T><<<Blocks(n), kThreads, 0, stream>>>(in, out, n);
  }
  return cudaGetLastError();
}

template <typename T>
cudaError_t LaunchBiasAdd(const T* value, const T* bias, T* out, int64_t n, int64_t channels,
                          int64_t inner, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  BiasAddKernel<T><<<Blocks(n), kThreads, 0, stream>>>(value, bias, out, n, channels, inner);
  return cudaGetLastError();
}

#define SMRT_FLOATING_INSTANCES(T)                                                          \
  template cudaError_t LaunchBinary<T>(BinaryOp, const T*, const T*, T*, int64_t,            \
                                       const BroadcastIndex&, cudaStream_t);                 \
  template cudaError_t LaunchCompare<T>(CompareOp, const T*, const T*, bool*, int64_t,       \
                                        const BroadcastIndex&, cudaStream_t);                \
  template cudaError_t LaunchUnary<T>(UnaryOp, const T*, T*, int64_t, cudaStream_t, float); \
  template cudaError_t LaunchClassify<T>(ClassifyOp, const T*, bool*, int64_t, cudaStream_t);  \
  template cudaError_t LaunchBiasAdd<T>(const T*, const T*, T*, int64_t, int64_t, int64_t,   \
                                        cudaStream_t);
SMRT_FLOATING_INSTANCES(float)
SMRT_FLOATING_INSTANCES(__half)
SMRT_FLOATING_INSTANCES(__nv_bfloat16)
#undef SMRT_FLOATING_INSTANCES
#define SMRT_INTEGER_INSTANCES(T)                                                          \
  template cudaError_t LaunchBinary<T>(BinaryOp, const T*, const T*, T*, int64_t,            \
                                       const BroadcastIndex&, cudaStream_t);                 \
  template cudaError_t LaunchUnary<T>(UnaryOp, const T*, T*, int64_t, cudaStream_t, float);
SMRT_INTEGER_INSTANCES(int32_t)
SMRT_INTEGER_INSTANCES(int64_t)
#undef SMRT_INTEGER_INSTANCES
template cudaError_t LaunchCompare<int64_t>(CompareOp, const int64_t*, const int64_t*, bool*,
                                            int64_t, const BroadcastIndex&, cudaStream_t);
template cudaError_t LaunchCompare<bool>(CompareOp, const bool*, const bool*, bool*, int64_t,
                                         const BroadcastIndex&, cudaStream_t);

}  // namespace smrt::kernels::cuda
