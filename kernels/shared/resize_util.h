// The geometry of ResizeBilinear, ResizeNearestNeighbor and ResizeBicubic,
// planned on the host for the CPU kernels (image_ops.cc) and the CUDA ones,
// so that both check the same things, give the same messages and sample
// with the same float32 scales.
#ifndef SMRT_KERNELS_SHARED_RESIZE_UTIL_H_
#define SMRT_KERNELS_SHARED_RESIZE_UTIL_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/attr_map.h"
#include "kernels/kernel.h"

namespace smrt::kernels {

// The image dtypes the resize ops take (T).
const std::vector<DataType>& ResizeImageTypes();

struct ResizeFlags {
  bool align_corners = false;
  bool half_pixel_centers = false;
};

// The align_corners and half_pixel_centers attrs; InvalidArgument when both
// are true, as TensorFlow.
absl::StatusOr<ResizeFlags> ReadResizeFlags(const AttrMap& attrs);

// TensorFlow's CalculateResizeScale, in float.
float ResizeScale(int64_t in, int64_t out, bool align_corners);

// InvalidArgument for an output size that is not positive.
absl::Status ResizeSizeError(const std::vector<int64_t>& size);

struct ResizeGeometry {
  ResizeFlags flags;
  int64_t batch = 0, in_h = 0, in_w = 0, channels = 0, out_h = 0, out_w = 0;
  float height_scale = 0, width_scale = 0;
};

// TensorFlow's ImageResizerState::ValidateAndCalculateOutputSize, for a
// node whose input 0 is the NHWC images and input 1 the (host) size.
absl::StatusOr<ResizeGeometry> MakeResizeGeometry(const KernelContext& ctx);

}  // namespace smrt::kernels

#endif  // SMRT_KERNELS_SHARED_RESIZE_UTIL_H_
