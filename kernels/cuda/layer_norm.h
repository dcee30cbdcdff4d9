// _SmrtLayerNorm over the last axis on device pointers (no absl or smrt headers).
#ifndef SMRT_KERNELS_CUDA_LAYER_NORM_H_
#define SMRT_KERNELS_CUDA_LAYER_NORM_H_

#include <cuda_runtime.h>

#include <cstdint>

namespace smrt::kernels::cuda {

// y[r, :] = (x[r, :] - mean) / sqrt(var + epsilon) * gamma + beta for `rows`
// rows of `depth` floats, var the population variance; mean, variance and
// x - mean in double, as the CPU kernel computes them. gamma and beta hold
// `gamma_count` / `beta_count` values: 1 (broadcast) or depth. One block per
// row. Returns the launch error, if any.
cudaError_t LaunchLayerNorm(const float* x, const float* gamma, int64_t gamma_count,
                            const float* beta, int64_t beta_count, float* y, int64_t rows,
                            int64_t depth, double epsilon, cudaStream_t stream);

}  // namespace smrt::kernels::cuda

#endif  // SMRT_KERNELS_CUDA_LAYER_NORM_H_
