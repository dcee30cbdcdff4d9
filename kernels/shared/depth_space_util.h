// SpaceToDepth / DepthToSpace (NHWC): the block size and the output shape
// (ops/space_batch_shapes.h), for the CPU and CUDA kernels alike, so that both
// check the same things and give the same messages.
#ifndef SMRT_KERNELS_SHARED_DEPTH_SPACE_UTIL_H_
#define SMRT_KERNELS_SHARED_DEPTH_SPACE_UTIL_H_

#include "ops/space_batch_shapes.h"

namespace smrt::kernels {

using ops::DepthOutputShape;
using ops::ReadBlockSize;

}  // namespace smrt::kernels

#endif  // SMRT_KERNELS_SHARED_DEPTH_SPACE_UTIL_H_
