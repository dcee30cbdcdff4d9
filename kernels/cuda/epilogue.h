// The post-ops of the fused ops (ops/fused_ops.h) on a device buffer, in
// one pass: bias along the last dim, residual Add, activations, in order.
// float16/bfloat16 buffers are computed in float and rounded once.
// No absl or smrt headers, so nvcc sees only CUDA and the standard library.
#ifndef SMRT_KERNELS_CUDA_EPILOGUE_H_
#define SMRT_KERNELS_CUDA_EPILOGUE_H_

#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/cuda/half_math.h"

namespace smrt::kernels::cuda {

inline constexpr int kMaxEpilogueSteps = 8;

// Same order and formulas as kernels::Activation / ApplyActivation.
enum class EpilogueActivation {
  kRelu, kRelu6, kElu, kLeakyRelu, kSigmoid, kTanh, kSwish, kHardSwish, kGeluErf, kGeluTanh
};

struct EpilogueStep {
  enum Kind { kBiasAdd, kAdd, kActivation } kind = kActivation;
  EpilogueActivation activation = EpilogueActivation::kRelu;
  const void* arg = nullptr;  // kBiasAdd: [channels]; kAdd: n values; of y's type
};

// Passed to the kernel by value.
struct Epilogue {
  int num_steps = 0;
  EpilogueStep steps[kMaxEpilogueSteps];
  float leakyrelu_alpha = 0.2f;
};

// y[i] = steps applied in order to y[i], for n elements whose last dim has
// `channels` values. T is float, __half or __nv_bfloat16. In place; returns
// the launch error (cudaSuccess and no launch when there are no steps or no
// elements).
template <typename T>
cudaError_t LaunchEpilogue(const Epilogue& e, T* y, int64_t n, int64_t channels,
                           cudaStream_t stream);

}  // namespace smrt::kernels::cuda

#endif  // SMRT_KERNELS_CUDA_EPILOGUE_H_
