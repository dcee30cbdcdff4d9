#include "ops/index_shapes.h"

#include <Eigen/Core>

#include "absl/strings/str_cat.h"

namespace smrt::ops {
namespace {

template <typename T>
struct Tag {
  using type = T;
};

}  // namespace

absl::Status OneHotAxisError(int64_t axis, int indices_rank) {
  return absl::InvalidArgumentError(absl::StrCat("Expected axis to be -1 or between [0, ",
                                                 indices_rank + 1, ").  But received: ", axis));
}

absl::StatusOr<DataType> TopKIndexType(const AttrMap& attrs) {
  absl::StatusOr<DataType> t = attrs.GetOr<DataType>("index_type", DataType::kInt32);
  if (!t.ok()) return t.status();
  if (*t != DataType::kInt16 && *t != DataType::kInt32 && *t != DataType::kInt64) {
    return absl::InvalidArgumentError(
        absl::StrCat("index_type must be int16, int32 or int64, got ", DataTypeName(*t)));
  }
  return *t;
}

absl::StatusOr<std::vector<uint8_t>> NonZeroMask(const Tensor& t) {
  const int64_t n = t.num_elements();
  std::vector<uint8_t> mask(static_cast<size_t>(n));
  auto fill = [&](auto tag) -> absl::StatusOr<std::vector<uint8_t>> {
    using T = typename decltype(tag)::type;
    const T* p = t.data<T>();
    for (int64_t i = 0; i < n; ++i) mask[i] = p[i] != T(0);
    return mask;
  };
  switch (t.dtype()) {
    case DataType::kBool: {
      const uint8_t* p = static_cast<const uint8_t*>(t.raw_data());
      for (int64_t i = 0; i < n; ++i) mask[i] = p[i] != 0;
      return mask;
    }
    case DataType::kComplex64:
    case DataType::kComplex128: {
      const bool single = t.dtype() == DataType::kComplex64;
      for (int64_t i = 0; i < 2 * n; ++i) {
        const double v = single ? static_cast<const float*>(t.raw_data())[i]
                                : static_cast<const double*>(t.raw_data())[i];
        if (v != 0) mask[i / 2] = 1;
      }
      return mask;
    }
    case DataType::kFloat:
      return fill(Tag<float>{});
    case DataType::kDouble:
      return fill(Tag<double>{});
    case DataType::kHalf:
      return fill(Tag<Eigen::half>{});
    case DataType::kBFloat16:
      return fill(Tag<Eigen::bfloat16>{});
    case DataType::kInt8:
      return fill(Tag<int8_t>{});
    case DataType::kInt16:
      return fill(Tag<int16_t>{});
    case DataType::kInt32:
      return fill(Tag<int32_t>{});
    case DataType::kInt64:
      return fill(Tag<int64_t>{});
    case DataType::kUInt8:
      return fill(Tag<uint8_t>{});
    case DataType::kUInt16:
      return fill(Tag<uint16_t>{});
    case DataType::kUInt32:
      return fill(Tag<uint32_t>{});
    case DataType::kUInt64:
      return fill(Tag<uint64_t>{});
    default:
      return absl::UnimplementedError(
          absl::StrCat("Where does not support tensors of type ", DataTypeName(t.dtype())));
  }
}

}  // namespace smrt::ops
