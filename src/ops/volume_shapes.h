// The attrs of Conv3D, MaxPool3D and AvgPool3D (NDHWC), checked alike by
// their shape functions and kernels.
#ifndef SMRT_OPS_VOLUME_SHAPES_H_
#define SMRT_OPS_VOLUME_SHAPES_H_

#include <array>
#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/attr_map.h"
#include "ops/conv_shapes.h"

namespace smrt::ops {

// The attrs of a 3-D window op, in NDHWC order. `window` is the pool ksize
// (unused for Conv3D, whose window is the filter).
struct VolumeAttrs {
  Padding padding = Padding::kValid;
  std::array<int64_t, 5> window{};
  std::array<int64_t, 5> strides{};
  std::array<int64_t, 5> dilations{1, 1, 1, 1, 1};
};

// data_format (NDHWC only: Unimplemented otherwise), padding, strides and
// ksize (pool) or dilations (Conv3D); InvalidArgument or Unimplemented, naming
// `op`, for values TensorFlow's CPU kernels refuse.
absl::StatusOr<VolumeAttrs> ReadVolumeAttrs(const AttrMap& attrs, absl::string_view op, bool pool);

}  // namespace smrt::ops

#endif  // SMRT_OPS_VOLUME_SHAPES_H_
