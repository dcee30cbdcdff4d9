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
#include "ops/resize_shapes.h"

namespace smrt::kernels {

// The image dtypes the resize ops take (T).
const std::vector<DataType>& ResizeImageTypes();

// The resize attrs and the size check of ops/resize_shapes.h.
using ops::ReadResizeFlags;
using ops::ResizeFlags;
using ops::ResizeSizeError;

// TensorFlow's CalculateResizeScale, in float.
float ResizeScale(int64_t in, int64_t out, bool align_corners);

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
