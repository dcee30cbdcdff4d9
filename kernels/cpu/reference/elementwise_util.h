// Shared by the element-wise kernels (binary, unary, reductions, cast and
// select): C++ types for dtypes, a dispatch from a runtime dtype to a
// template, and integer arithmetic that wraps like TensorFlow's (two's
// complement) without undefined behaviour.
#ifndef SMRT_KERNELS_CPU_REFERENCE_ELEMENTWISE_UTIL_H_
#define SMRT_KERNELS_CPU_REFERENCE_ELEMENTWISE_UTIL_H_

#include <Eigen/Core>
#include <complex>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "kernels/kernel.h"
#include "ops/shape_fns.h"
#include "smrt/dtype.h"

namespace smrt::kernels::elementwise {

// The DataType of a C++ element type. float16 and bfloat16 elements are
// Eigen::half and Eigen::bfloat16 (2 bytes, the same bits TensorFlow stores).
template <typename T>
struct DataTypeFor;
template <>
struct DataTypeFor<float> {
  static constexpr DataType value = DataType::kFloat;
};
template <>
struct DataTypeFor<double> {
  static constexpr DataType value = DataType::kDouble;
};
template <>
struct DataTypeFor<Eigen::half> {
  static constexpr DataType value = DataType::kHalf;
};
template <>
struct DataTypeFor<Eigen::bfloat16> {
  static constexpr DataType value = DataType::kBFloat16;
};
template <>
struct DataTypeFor<int8_t> {
  static constexpr DataType value = DataType::kInt8;
};
template <>
struct DataTypeFor<int16_t> {
  static constexpr DataType value = DataType::kInt16;
};
template <>
struct DataTypeFor<int32_t> {
  static constexpr DataType value = DataType::kInt32;
};
template <>
struct DataTypeFor<int64_t> {
  static constexpr DataType value = DataType::kInt64;
};
template <>
struct DataTypeFor<uint8_t> {
  static constexpr DataType value = DataType::kUInt8;
};
template <>
struct DataTypeFor<uint16_t> {
  static constexpr DataType value = DataType::kUInt16;
};
template <>
struct DataTypeFor<uint32_t> {
  static constexpr DataType value = DataType::kUInt32;
};
template <>
struct DataTypeFor<uint64_t> {
  static constexpr DataType value = DataType::kUInt64;
};
template <>
struct DataTypeFor<bool> {
  static constexpr DataType value = DataType::kBool;
};
template <>
struct DataTypeFor<std::string> {
  static constexpr DataType value = DataType::kString;
};
template <>
struct DataTypeFor<std::complex<float>> {
  static constexpr DataType value = DataType::kComplex64;
};
template <>
struct DataTypeFor<std::complex<double>> {
  static constexpr DataType value = DataType::kComplex128;
};

template <typename T>
inline constexpr bool kIsHalfLike =
    std::is_same_v<T, Eigen::half> || std::is_same_v<T, Eigen::bfloat16>;
template <typename T>
inline constexpr bool kIsFloat = std::is_floating_point_v<T> || kIsHalfLike<T>;
// Integers other than bool.
template <typename T>
inline constexpr bool kIsInteger = std::is_integral_v<T> && !std::is_same_v<T, bool>;

// The type arithmetic on T is done in: float for float16/bfloat16 (rounded
// back on store, as Eigen does), T otherwise.
template <typename T>
using ComputeType = std::conditional_t<kIsHalfLike<T>, float, T>;

// v rounded to T's precision and back: Eigen rounds float16/bfloat16 after
// every operation, so multi-step formulas round their intermediate results
// through this to match TensorFlow. The identity for other types.
template <typename T>
ComputeType<T> Rounded(ComputeType<T> v) {
  if constexpr (kIsHalfLike<T>) {
    return static_cast<float>(static_cast<T>(v));
  } else {
    return v;
  }
}

template <typename... Ts>
struct TypeList {};

template <typename T>
struct Tag {
  using type = T;
};

template <typename... A, typename... B>
constexpr TypeList<A..., B...> operator+(TypeList<A...>, TypeList<B...>) {
  return {};
}

using FloatTypes = TypeList<float, double, Eigen::half, Eigen::bfloat16>;
using SignedIntTypes = TypeList<int8_t, int16_t, int32_t, int64_t>;
using UnsignedIntTypes = TypeList<uint8_t, uint16_t, uint32_t, uint64_t>;
using IntTypes = decltype(SignedIntTypes{} + UnsignedIntTypes{});
using SignedTypes = decltype(FloatTypes{} + SignedIntTypes{});
using RealTypes = decltype(FloatTypes{} + IntTypes{});
using ComplexTypes = TypeList<std::complex<float>, std::complex<double>>;

template <typename... Ts>
std::vector<DataType> DataTypes(TypeList<Ts...>) {
  return {DataTypeFor<Ts>::value...};
}

// Calls fn(Tag<T>{}) for the T in the list whose dtype is `dtype` and returns
// its Status; Unimplemented naming `what` when the list lacks the dtype.
template <typename... Ts, typename Fn>
absl::Status Dispatch(TypeList<Ts...>, DataType dtype, absl::string_view what, Fn&& fn) {
  absl::Status status;
  const bool found =
      ((DataTypeFor<Ts>::value == dtype ? (status = fn(Tag<Ts>{}), true) : false) || ...);
  if (!found) {
    return absl::UnimplementedError(
        absl::StrCat(what, " does not support dtype ", DataTypeName(dtype)));
  }
  return status;
}

// Unsigned type at least as wide as int in which T's +, -, * wrap without UB.
template <typename T>
using WrapType =
    std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;

template <typename T>
T WrapAdd(T a, T b) {
  if constexpr (kIsInteger<T>) {
    return static_cast<T>(static_cast<WrapType<T>>(a) + static_cast<WrapType<T>>(b));
  } else {
    return a + b;
  }
}

template <typename T>
T WrapSub(T a, T b) {
  if constexpr (kIsInteger<T>) {
    return static_cast<T>(static_cast<WrapType<T>>(a) - static_cast<WrapType<T>>(b));
  } else {
    return a - b;
  }
}

template <typename T>
T WrapMul(T a, T b) {
  if constexpr (kIsInteger<T>) {
    return static_cast<T>(static_cast<WrapType<T>>(a) * static_cast<WrapType<T>>(b));
  } else {
    return a * b;
  }
}

template <typename T>
T WrapNeg(T a) {
  if constexpr (kIsInteger<T>) {
    return static_cast<T>(WrapType<T>{0} - static_cast<WrapType<T>>(a));
  } else {
    return -a;
  }
}

// `status` with "<op> node '<name>': " before its message (same code); OK
// stays OK. Ctx is a KernelContext or an InferenceContext.
template <typename Ctx>
absl::Status AtNode(const Ctx& ctx, const absl::Status& status) {
  if (status.ok()) return status;
  return absl::Status(status.code(),
                      absl::StrCat(ctx.op(), " node '", ctx.node_name(), "': ", status.message()));
}

// InvalidArgument unless every input of the kernel has input 0's dtype.
inline absl::Status CheckSameInputTypes(const KernelContext& ctx) {
  for (int i = 1; i < ctx.num_inputs(); ++i) {
    if (ctx.input(i).dtype() != ctx.input(0).dtype()) {
      return absl::InvalidArgumentError(
          absl::StrCat(ctx.op(), " input ", i, " is ", DataTypeName(ctx.input(i).dtype()),
                       " but input 0 is ", DataTypeName(ctx.input(0).dtype())));
    }
  }
  return absl::OkStatus();
}

using ops::InferredType;

}  // namespace smrt::kernels::elementwise

#endif  // SMRT_KERNELS_CPU_REFERENCE_ELEMENTWISE_UTIL_H_
