// MaxPool's, MaxPoolV2's and AvgPool's attrs and window checks (as
// TensorFlow's PoolParameters), shared by their shape functions and kernels.
#ifndef SMRT_OPS_POOL_SHAPES_H_
#define SMRT_OPS_POOL_SHAPES_H_

#include <array>
#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "core/attr_map.h"
#include "ops/conv_shapes.h"

namespace smrt::ops {

enum class PoolKind { kMax, kAvg };

struct PoolAttrs {
  Layout layout = Layout::kNhwc;
  Padding padding = Padding::kValid;
  std::array<int64_t, 4> ksize{};    // NHWC order
  std::array<int64_t, 4> strides{};  // NHWC order
  std::array<std::array<int64_t, 2>, 2> pads{};
};

// data_format, padding, explicit_paddings (when allowed), ksize and strides,
// checked as TensorFlow's PoolParameters checks what does not depend on the
// input shape.
absl::StatusOr<PoolAttrs> ReadPoolAttrs(const AttrMap& attrs, PoolKind kind, bool allow_explicit);

// Output depth of a pool over `depth` input channels (-1 stays unknown).
absl::StatusOr<int64_t> PoolOutputDepth(const PoolAttrs& p, int64_t depth);

// MaxPoolV2's attrs, with ksize and strides read from its inputs 1 and 2.
absl::StatusOr<PoolAttrs> PoolAttrsFromValues(const AttrMap& attrs,
                                              const std::vector<int64_t>& ksize,
                                              const std::vector<int64_t>& strides);

}  // namespace smrt::ops

#endif  // SMRT_OPS_POOL_SHAPES_H_
