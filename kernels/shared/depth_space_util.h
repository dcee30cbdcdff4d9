// SpaceToDepth / DepthToSpace (NHWC): the block size and the output shape,
// for the CPU and CUDA kernels alike, so that both check the same things and
// give the same messages.
#ifndef SMRT_KERNELS_SHARED_DEPTH_SPACE_UTIL_H_
#define SMRT_KERNELS_SHARED_DEPTH_SPACE_UTIL_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "kernels/kernel.h"

namespace smrt::kernels {

// The block_size attr: above 1 (and at most 2^30), data_format NHWC.
absl::StatusOr<int64_t> ReadBlockSize(const AttrMap& attrs, absl::string_view op);

// Output dims of SpaceToDepth (to_depth) or DepthToSpace for a rank-4 NHWC
// input; -1 dims stay unknown. InvalidArgument, as TensorFlow's, where the
// spatial dims or the depth do not divide by the block.
absl::StatusOr<Shape> DepthOutputShape(absl::string_view op, const Shape& in, int64_t b,
                                       bool to_depth);

}  // namespace smrt::kernels

#endif  // SMRT_KERNELS_SHARED_DEPTH_SPACE_UTIL_H_
