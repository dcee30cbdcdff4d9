// Sum, Mean and Max of float32 over the middle of an (outer, reduce, inner)
// view of a row-major tensor, on device pointers (no absl or smrt headers).
#ifndef SMRT_KERNELS_CUDA_REDUCE_H_
#define SMRT_KERNELS_CUDA_REDUCE_H_

#include <cuda_runtime.h>

#include <cstdint>

namespace smrt::kernels::cuda {

enum class ReduceOp { kSum, kMean, kMax };

// out[o, i] = op over r of in[o, r, i], accumulated in double as the CPU
// kernel does: kSum 0 and kMax -inf over no elements, kMean NaN; kMax
// propagates NaN. One block per output when inner is 1, else one thread per
// output. Returns the launch error, if any.
cudaError_t LaunchReduce(ReduceOp op, const float* in, float* out, int64_t outer,
                         int64_t reduce, int64_t inner, cudaStream_t stream);

}  // namespace smrt::kernels::cuda

#endif  // SMRT_KERNELS_CUDA_REDUCE_H_
