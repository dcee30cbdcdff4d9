#include "ops/pad_shapes.h"

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "ops/array_shapes.h"

namespace smrt::ops {

absl::StatusOr<PadMode> MirrorMode(const AttrMap& attrs) {
  absl::StatusOr<std::string> mode = attrs.Get<std::string>("mode");
  if (!mode.ok()) return mode.status();
  if (*mode == "REFLECT") return PadMode::kReflect;
  if (*mode == "SYMMETRIC") return PadMode::kSymmetric;
  return absl::InvalidArgumentError(
      absl::StrCat("MirrorPad: mode must be REFLECT or SYMMETRIC, got \"", *mode, "\""));
}

absl::StatusOr<std::vector<PadAmount>> ReadPaddings(absl::string_view op, const Tensor& paddings,
                                                    int rank) {
  if (paddings.rank() != 2 || paddings.dim(1) != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat(op, ": paddings must be a matrix with 2 columns, got shape ",
                     ShapeToString(paddings.shape())));
  }
  if (paddings.dim(0) != rank) {
    return absl::InvalidArgumentError(absl::StrCat(op, ": the first dimension of paddings ",
                                                   ShapeToString(paddings.shape()),
                                                   " must be the rank of the input (", rank, ")"));
  }
  absl::StatusOr<std::vector<int64_t>> v = IntValues(paddings, "paddings");
  if (!v.ok()) return v.status();
  std::vector<PadAmount> out(rank);
  for (int d = 0; d < rank; ++d) {
    out[d] = {(*v)[2 * d], (*v)[2 * d + 1]};
    if (out[d].before < 0 || out[d].after < 0) {
      return absl::InvalidArgumentError(absl::StrCat(op, ": paddings must be non-negative, got ",
                                                     out[d].before, " ", out[d].after,
                                                     " for dimension ", d));
    }
  }
  return out;
}

absl::StatusOr<Shape> PaddedDims(absl::string_view op, const Shape& dims,
                                 const std::vector<PadAmount>& pads, PadMode mode) {
  Shape out(dims.size(), -1);
  for (size_t d = 0; d < dims.size(); ++d) {
    if (dims[d] < 0) continue;
    if (mode != PadMode::kConstant) {
      // REFLECT mirrors around the edge element, so at most dim - 1 fit.
      const int64_t limit = mode == PadMode::kReflect ? dims[d] - 1 : dims[d];
      if (pads[d].before > limit || pads[d].after > limit) {
        return absl::InvalidArgumentError(
            absl::StrCat(op, ": paddings (", pads[d].before, ", ", pads[d].after, ") of dimension ",
                         d, " must be no greater than ", limit, " in ",
                         mode == PadMode::kReflect ? "REFLECT" : "SYMMETRIC",
                         " mode for input shape ", ShapeToString(dims)));
      }
    }
    if (__builtin_add_overflow(dims[d], pads[d].before, &out[d]) ||
        __builtin_add_overflow(out[d], pads[d].after, &out[d])) {
      return absl::InvalidArgumentError(absl::StrCat(op, ": padded dimension ", d, " of ",
                                                     ShapeToString(dims), " overflows int64"));
    }
  }
  return out;
}

absl::Status CheckConstantValues(const Tensor& input, const Tensor& constant) {
  if (constant.rank() != 0 || constant.dtype() != input.dtype()) {
    return absl::InvalidArgumentError(
        absl::StrCat("PadV2: constant_values must be a scalar of the input's dtype (",
                     DataTypeName(input.dtype()), "), got ", constant.DebugString()));
  }
  return absl::OkStatus();
}

}  // namespace smrt::ops
