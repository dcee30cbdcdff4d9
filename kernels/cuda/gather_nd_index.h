// The device-side GatherNdIndex made from the CPU kernel's GatherNdPlan, for
// the CUDA kernel and the tests that walk it on the host.
#ifndef SMRT_KERNELS_CUDA_GATHER_ND_INDEX_H_
#define SMRT_KERNELS_CUDA_GATHER_ND_INDEX_H_

#include "kernels/shared/gather_nd_util.h"
#include "kernels/cuda/gather_nd.h"

namespace smrt::kernels::cuda {

// plan.depth must be at most kMaxGatherNdDepth.
inline GatherNdIndex MakeGatherNdIndex(const GatherNdPlan& plan, const Shape& params_shape) {
  GatherNdIndex index;
  index.depth = static_cast<int>(plan.depth);
  for (int k = 0; k < index.depth; ++k) {
    index.dims[k] = params_shape[k];
    index.strides[k] = plan.strides[k];
  }
  index.slice = plan.slice;
  return index;
}

}  // namespace smrt::kernels::cuda

#endif  // SMRT_KERNELS_CUDA_GATHER_ND_INDEX_H_
