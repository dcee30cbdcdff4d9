// Helpers for the misc kernels (scans, one-hot, top-k, einsum...): a dtype
// dispatch over the real number types, integer arithmetic that wraps like
// TensorFlow's without undefined behaviour, a total order for sorting floats,
// and small checks on scalar and vector inputs.
#ifndef SMRT_KERNELS_CPU_REFERENCE_MISC_UTIL_H_
#define SMRT_KERNELS_CPU_REFERENCE_MISC_UTIL_H_

#include <Eigen/Core>
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "kernels/shared/array_util.h"
#include "smrt/tensor.h"

namespace smrt::kernels::misc {

template <typename T>
struct Tag {
  using type = T;
};

// The real number types: floating (float, double, half, bfloat16) and integer.
inline const std::vector<DataType>& RealTypes() {
  static const std::vector<DataType>* types = new std::vector<DataType>{
      DataType::kFloat, DataType::kDouble, DataType::kHalf,   DataType::kBFloat16,
      DataType::kInt8,  DataType::kInt16,  DataType::kInt32,  DataType::kInt64,
      DataType::kUInt8, DataType::kUInt16, DataType::kUInt32, DataType::kUInt64,
  };
  return *types;
}

// Calls fn(Tag<T>{}) for a real dtype (Eigen::half and Eigen::bfloat16 for the
// 16-bit floats); fn returns absl::Status. Unimplemented names `op` otherwise.
template <typename Fn>
absl::Status VisitRealType(DataType dtype, absl::string_view op, Fn&& fn) {
  switch (dtype) {
    case DataType::kFloat: return fn(Tag<float>{});
    case DataType::kDouble: return fn(Tag<double>{});
    case DataType::kHalf: return fn(Tag<Eigen::half>{});
    case DataType::kBFloat16: return fn(Tag<Eigen::bfloat16>{});
    case DataType::kInt8: return fn(Tag<int8_t>{});
    case DataType::kInt16: return fn(Tag<int16_t>{});
    case DataType::kInt32: return fn(Tag<int32_t>{});
    case DataType::kInt64: return fn(Tag<int64_t>{});
    case DataType::kUInt8: return fn(Tag<uint8_t>{});
    case DataType::kUInt16: return fn(Tag<uint16_t>{});
    case DataType::kUInt32: return fn(Tag<uint32_t>{});
    case DataType::kUInt64: return fn(Tag<uint64_t>{});
    default: break;
  }
  return absl::UnimplementedError(
      absl::StrCat(op, " does not support tensors of type ", DataTypeName(dtype)));
}

// a + b and a * b; integers wrap modulo 2^bits as TensorFlow's do in practice.
template <typename T>
T WrapAdd(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
  } else {
    return a + b;
  }
}
template <typename T>
T WrapMul(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
  } else {
    return a * b;
  }
}

template <typename T>
constexpr bool kIsFloating = !std::is_integral_v<T>;

template <typename T>
bool IsNan(T v) {
  if constexpr (kIsFloating<T>) {
    return std::isnan(static_cast<double>(v));
  } else {
    (void)v;
    return false;
  }
}

// A strict weak order "a sorts before b" for descending sorts in which NaN is
// the largest value (the comparison must stay valid for std::sort).
template <typename T>
bool GreaterNanFirst(T a, T b) {
  if constexpr (kIsFloating<T>) {
    const bool na = IsNan(a), nb = IsNan(b);
    if (na || nb) return na && !nb;
    return static_cast<double>(a) > static_cast<double>(b);
  } else {
    return a > b;
  }
}

// The single value of a rank-0 integer tensor; `what` names it in errors.
inline absl::StatusOr<int64_t> ScalarInput(const Tensor& t, absl::string_view op,
                                           absl::string_view what) {
  if (t.rank() != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(op, ": ", what, " must be a scalar, got shape ", ShapeToString(t.shape())));
  }
  return IntScalar(t, what);
}

}  // namespace smrt::kernels::misc

#endif  // SMRT_KERNELS_CPU_REFERENCE_MISC_UTIL_H_
