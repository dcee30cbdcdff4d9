#include "ops/reshape_shapes.h"

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"

namespace smrt::ops {

absl::StatusOr<Shape> ReshapeTarget(const PartialShape& input, const std::vector<int64_t>& sizes) {
  int unknown_index = -1;
  int64_t product = 1;  // of the known non-zero sizes
  bool has_zero = false;
  for (size_t d = 0; d < sizes.size(); ++d) {
    int64_t size = sizes[d];
    if (size == -1) {
      if (unknown_index != -1) {
        return absl::InvalidArgumentError(
            absl::StrCat("Reshape: only one size may be -1, not both ", unknown_index, " and ", d,
                         " in the requested shape ", ShapeToString(sizes)));
      }
      unknown_index = static_cast<int>(d);
    } else if (size < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("Reshape: size ", d, " must be non-negative, not ", size,
                       " in the requested shape ", ShapeToString(sizes)));
    } else if (size == 0) {
      has_zero = true;
    } else if (__builtin_mul_overflow(product, size, &product)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Reshape: the requested shape ", ShapeToString(sizes), " has too many elements"));
    }
  }
  Shape out = sizes;
  if (!input.IsFullyKnown()) return out;

  absl::StatusOr<int64_t> input_count = NumElements(input.dims);
  if (!input_count.ok()) return input_count.status();
  if (unknown_index != -1) {
    // Like TensorFlow: when the request has a zero dim, the input's zero dims
    // are left out so that the -1 can still be resolved from the others.
    int64_t count = 1;
    bool input_has_zero = false;
    for (int64_t dim : input.dims) {
      if (dim > 0 || !has_zero) {
        if (__builtin_mul_overflow(count, dim, &count)) {
          return absl::InvalidArgumentError(absl::StrCat(
              "Reshape: input shape ", ShapeToString(input.dims), " has too many elements"));
        }
      } else {
        input_has_zero = true;
      }
    }
    int64_t missing = count / product;
    if (!input_has_zero && missing * product != count) {
      return absl::InvalidArgumentError(
          absl::StrCat("Input to reshape is a tensor with ", count, " values (shape ",
                       ShapeToString(input.dims), "), but the requested shape ",
                       ShapeToString(sizes), " requires a multiple of ", product));
    }
    out[unknown_index] = missing;
  }
  absl::StatusOr<int64_t> out_count = NumElements(out);
  if (!out_count.ok()) return out_count.status();
  if (*out_count != *input_count) {
    return absl::InvalidArgumentError(
        absl::StrCat("Input to reshape is a tensor with ", *input_count, " values (shape ",
                     ShapeToString(input.dims), "), but the requested shape ", ShapeToString(out),
                     " has ", *out_count));
  }
  return out;
}

absl::Status CheckShapeInputRank(const Tensor& shape) {
  if (shape.rank() > 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("Reshape: shape input must be 1-D, got shape ", ShapeToString(shape.shape())));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::optional<std::vector<bool>>> SqueezedDims(const Shape& dims,
                                                              const std::vector<int64_t>& axes) {
  const int rank = static_cast<int>(dims.size());
  std::vector<bool> drop(dims.size(), false);
  if (axes.empty()) {
    for (int d = 0; d < rank; ++d) {
      if (dims[d] < 0) return std::optional<std::vector<bool>>();
      drop[d] = dims[d] == 1;
    }
    return std::optional<std::vector<bool>>(std::move(drop));
  }
  for (int64_t axis : axes) {
    if (axis < -rank || axis >= rank) {
      return absl::InvalidArgumentError(absl::StrCat("Squeeze: tried to squeeze dim index ", axis,
                                                     " for a tensor of shape ", ShapeToString(dims),
                                                     " (rank ", rank, ")"));
    }
    int d = static_cast<int>(axis < 0 ? axis + rank : axis);
    if (dims[d] >= 0 && dims[d] != 1) {
      return absl::InvalidArgumentError(absl::StrCat("Squeeze: can not squeeze dim[", d,
                                                     "] of shape ", ShapeToString(dims),
                                                     ", expected a dimension of 1, got ", dims[d]));
    }
    drop[d] = true;
  }
  return std::optional<std::vector<bool>>(std::move(drop));
}

Shape DropDims(const Shape& dims, const std::vector<bool>& drop) {
  Shape out;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (!drop[d]) out.push_back(dims[d]);
  }
  return out;
}

absl::StatusOr<int> ExpandAxis(int64_t axis, int rank) {
  if (axis < -rank - 1 || axis > rank) {
    return absl::InvalidArgumentError(absl::StrCat("ExpandDims: axis ", axis, " is out of range [",
                                                   -rank - 1, ", ", rank, "] for a tensor of rank ",
                                                   rank));
  }
  return static_cast<int>(axis < 0 ? axis + rank + 1 : axis);
}

absl::StatusOr<DataType> ShapeOutType(const AttrMap& attrs) {
  absl::StatusOr<DataType> t = attrs.GetOr<DataType>("out_type", DataType::kInt32);
  if (!t.ok()) return t.status();
  if (*t != DataType::kInt32 && *t != DataType::kInt64) {
    return absl::InvalidArgumentError(
        absl::StrCat("out_type must be int32 or int64, got ", DataTypeName(*t)));
  }
  return *t;
}

}  // namespace smrt::ops
