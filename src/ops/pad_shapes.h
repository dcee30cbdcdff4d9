// How Pad, PadV2 and MirrorPad read their paddings and size their output,
// shared by their shape inference (ops/defs/pad_ops.cc) and every device's
// kernels (kernels/shared/pad_util.h), so all refuse the same paddings with
// the same message.
#ifndef SMRT_OPS_PAD_SHAPES_H_
#define SMRT_OPS_PAD_SHAPES_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/attr_map.h"
#include "smrt/tensor.h"

namespace smrt::ops {

// kConstant: Pad and PadV2. MirrorPad's REFLECT mirrors around the edge
// element (excluding it), SYMMETRIC repeats it.
enum class PadMode { kConstant, kReflect, kSymmetric };

struct PadAmount {
  int64_t before;
  int64_t after;
};

// MirrorPad's `mode` attr; InvalidArgument for anything but REFLECT or SYMMETRIC.
absl::StatusOr<PadMode> MirrorMode(const AttrMap& attrs);

// Reads and checks a paddings tensor (an integer (rank, 2) matrix of
// non-negative (before, after) counts) for an input of `rank`. `op` starts
// the error messages.
absl::StatusOr<std::vector<PadAmount>> ReadPaddings(absl::string_view op, const Tensor& paddings,
                                                    int rank);

// Output dims; input dims may be unknown (-1) during inference. In the
// mirror modes a dim takes at most dim - 1 (REFLECT) or dim (SYMMETRIC)
// padding on each side.
absl::StatusOr<Shape> PaddedDims(absl::string_view op, const Shape& dims,
                                 const std::vector<PadAmount>& pads, PadMode mode);

// OK when PadV2's constant_values is a scalar of the input's dtype.
absl::Status CheckConstantValues(const Tensor& input, const Tensor& constant);

}  // namespace smrt::ops

#endif  // SMRT_OPS_PAD_SHAPES_H_
