// StridedSlice's and Slice's shape maths (ops/slice_shapes.h), which the CPU
// and CUDA kernels check alike.
#ifndef SMRT_KERNELS_SHARED_STRIDED_SLICE_UTIL_H_
#define SMRT_KERNELS_SHARED_STRIDED_SLICE_UTIL_H_

#include "ops/slice_shapes.h"

namespace smrt::kernels {

using ops::PlanStridedSlice;
using ops::SliceSizes;
using ops::StridedSliceMasks;
using ops::StridedSliceMasksFromAttrs;
using ops::StridedSlicePlan;

}  // namespace smrt::kernels

#endif  // SMRT_KERNELS_SHARED_STRIDED_SLICE_UTIL_H_
