// Range's size, as TensorFlow computes it: in the Tidx type (float16 and
// bfloat16 included, so their rounding decides the count). Shape inference
// (ops/defs/gather_tile_ops.cc) uses it on constant inputs and the kernels
// on every input.
#ifndef SMRT_OPS_RANGE_SHAPES_H_
#define SMRT_OPS_RANGE_SHAPES_H_

#include <Eigen/Core>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "core/attr_map.h"
#include "smrt/tensor.h"

namespace smrt::ops {

template <typename T>
struct RangeTag {
  using type = T;
};

namespace range_internal {

template <typename T>
constexpr bool kIsEigenFloat = std::is_same_v<T, Eigen::half> || std::is_same_v<T, Eigen::bfloat16>;

// A value for messages.
template <typename T>
auto Printable(T v) {
  if constexpr (kIsEigenFloat<T>) {
    return static_cast<float>(v);
  } else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    return static_cast<int64_t>(v);
  } else if constexpr (std::is_integral_v<T>) {
    return static_cast<uint64_t>(v);
  } else {
    return v;
  }
}

template <typename T>
absl::StatusOr<T> RangeScalar(const Tensor& t, absl::string_view what, DataType dtype) {
  if (t.dtype() != dtype || t.num_elements() != 1 || t.rank() > 1) {
    return absl::InvalidArgumentError(absl::StrCat("Range: ", what, " must be a scalar of type ",
                                                   DataTypeName(dtype), ", got ", t.DebugString()));
  }
  return t.data<T>()[0];
}

}  // namespace range_internal

// Calls fn(RangeTag<T>{}) for Range's Tidx dtypes.
template <typename Fn>
absl::Status VisitRangeType(DataType dtype, Fn&& fn) {
  switch (dtype) {
    case DataType::kFloat:
      return fn(RangeTag<float>{});
    case DataType::kDouble:
      return fn(RangeTag<double>{});
    case DataType::kHalf:
      return fn(RangeTag<Eigen::half>{});
    case DataType::kBFloat16:
      return fn(RangeTag<Eigen::bfloat16>{});
    case DataType::kInt8:
      return fn(RangeTag<int8_t>{});
    case DataType::kInt16:
      return fn(RangeTag<int16_t>{});
    case DataType::kInt32:
      return fn(RangeTag<int32_t>{});
    case DataType::kInt64:
      return fn(RangeTag<int64_t>{});
    case DataType::kUInt16:
      return fn(RangeTag<uint16_t>{});
    case DataType::kUInt32:
      return fn(RangeTag<uint32_t>{});
    case DataType::kUInt64:
      return fn(RangeTag<uint64_t>{});
    default:
      break;
  }
  return absl::UnimplementedError(
      absl::StrCat("Range does not support Tidx=", DataTypeName(dtype)));
}

// The number of elements of Range(start, limit, delta), as TensorFlow counts
// them: ceil(|limit - start| / |delta|), computed in T for floating types.
template <typename T>
absl::StatusOr<int64_t> RangeSize(T start, T limit, T delta) {
  if (delta == T(0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Range: requires delta != 0, got start ", range_internal::Printable(start), ", limit ",
        range_internal::Printable(limit), ", delta ", range_internal::Printable(delta)));
  }
  const bool forward = delta > T(0);
  if (forward ? !(start <= limit) : !(start >= limit)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Range: requires start ", forward ? "<=" : ">=", " limit when delta ",
        forward ? "> 0" : "< 0", ", got start ", range_internal::Printable(start), ", limit ",
        range_internal::Printable(limit), ", delta ", range_internal::Printable(delta)));
  }
  if constexpr (std::is_integral_v<T>) {
    // Exact in 64 bits: the distance always fits in uint64.
    using W = std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>;
    const uint64_t diff = forward ? static_cast<uint64_t>(static_cast<W>(limit)) -
                                        static_cast<uint64_t>(static_cast<W>(start))
                                  : static_cast<uint64_t>(static_cast<W>(start)) -
                                        static_cast<uint64_t>(static_cast<W>(limit));
    const uint64_t step = forward ? static_cast<uint64_t>(static_cast<W>(delta))
                                  : uint64_t{0} - static_cast<uint64_t>(static_cast<W>(delta));
    const uint64_t size = diff / step + (diff % step != 0 ? 1 : 0);
    if (size > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return absl::InvalidArgumentError(absl::StrCat("Range: ", size, " elements is too many"));
    }
    return static_cast<int64_t>(size);
  } else {
    using std::abs;  // half_impl::abs/ceil are found by argument-dependent lookup
    using std::ceil;
    const T size = ceil(abs((limit - start) / delta));
    double s;
    if constexpr (range_internal::kIsEigenFloat<T>) {
      s = static_cast<float>(size);
    } else {
      s = static_cast<double>(size);
    }
    if (!(s < 9.0e18)) {  // also rejects NaN and infinity
      return absl::InvalidArgumentError(absl::StrCat(
          "Range: ((limit - start) / delta) must be finite and fit in int64, got start ",
          range_internal::Printable(start), ", limit ", range_internal::Printable(limit),
          ", delta ", range_internal::Printable(delta)));
    }
    return static_cast<int64_t>(s);
  }
}

// Reads Range's three inputs as T and calls fn(start, limit, delta, size).
template <typename T, typename Fn>
absl::Status WithRange(const Tensor& start_t, const Tensor& limit_t, const Tensor& delta_t,
                       DataType dtype, Fn&& fn) {
  absl::StatusOr<T> start = range_internal::RangeScalar<T>(start_t, "start", dtype);
  if (!start.ok()) return start.status();
  absl::StatusOr<T> limit = range_internal::RangeScalar<T>(limit_t, "limit", dtype);
  if (!limit.ok()) return limit.status();
  absl::StatusOr<T> delta = range_internal::RangeScalar<T>(delta_t, "delta", dtype);
  if (!delta.ok()) return delta.status();
  absl::StatusOr<int64_t> size = RangeSize<T>(*start, *limit, *delta);
  if (!size.ok()) return size.status();
  return fn(*start, *limit, *delta, *size);
}

inline absl::StatusOr<DataType> RangeDType(const AttrMap& attrs) {
  return attrs.GetOr<DataType>("Tidx", DataType::kInt32);
}

}  // namespace smrt::ops

#endif  // SMRT_OPS_RANGE_SHAPES_H_
