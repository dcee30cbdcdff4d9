#include <algorithm>
#include <cmath>

#include "kernels/cuda/epilogue.h"
#include "kernels/cuda/half_math.h"

namespace smrt::kernels::cuda {
namespace {

// TensorFlow's float sigmoid: e / (1 + e), 1 where e overflows.
__device__ float Sigmoid(float x) {
  const float e = expf(x);
  if (isinf(e)) return 1.0f;
  return e / (1.0f + e);
}

__device__ float Activate(EpilogueActivation a, float alpha, float x) {
  switch (a) {
    case EpilogueActivation::kRelu: return x < 0.0f ? 0.0f : x;
    case EpilogueActivation::kRelu6: return x < 0.0f ? 0.0f : (x > 6.0f ? 6.0f : x);
    case EpilogueActivation::kElu: return x < 0.0f ? expf(x) - 1.0f : x;
    case EpilogueActivation::kLeakyRelu: return x > 0.0f ? x : x * alpha;
    case EpilogueActivation::kSigmoid: return Sigmoid(x);
    case EpilogueActivation::kTanh: return tanhf(x);
    case EpilogueActivation::kSwish: return x * Sigmoid(x);
    case EpilogueActivation::kHardSwish: {
      float r = x + 3.0f;
      r = r < 0.0f ? 0.0f : (r > 6.0f ? 6.0f : r);
      return x * r / 6.0f;
    }
    case EpilogueActivation::kGeluErf: return 0.5f * x * (1.0f + erff(x * 0.70710678118654752f));
    case EpilogueActivation::kGeluTanh:
      return 0.5f * x * (1.0f + tanhf(0.79788456080286536f * (x + 0.044715f * x * x * x)));
  }
  return x;
}

template <typename T>
__global__ void EpilogueKernel(Epilogue e, T* __restrict__ y, int64_t n, int64_t channels) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    float v = Widen(y[i]);
    for (int s = 0; s < e.num_steps; ++s) {
      const EpilogueStep& step = e.steps[s];
      const T* arg = static_cast<const T*>(step.arg);
      switch (step.kind) {
        case EpilogueStep::kBiasAdd: v += Widen(arg[i % channels]); break;
        case EpilogueStep::kAdd: v += Widen(arg[i]); break;
        case EpilogueStep::kActivation: v = Activate(step.activation, e.leakyrelu_alpha, v); break;
      }
    }
    y[i] = Narrow<T>(v);
  }
}

}  // namespace

template <typename T>
cudaError_t LaunchEpilogue(const Epilogue& e, T* y, int64_t n, int64_t channels,
                           cudaStream_t stream) {
  if (e.num_steps == 0 || n == 0) return cudaSuccess;
  if (e.num_steps < 0 || e.num_steps > kMaxEpilogueSteps || channels <= 0) {
    return cudaErrorInvalidValue;
  }
  const int threads = 256;
  const int64_t blocks = std::min<int64_t>((n + threads - 1) / threads, 65535 * 8);
  EpilogueKernel<T><<<static_cast<unsigned>(blocks), threads, 0, stream>>>(e, y, n, channels);
  return cudaGetLastError();
}

template cudaError_t LaunchEpilogue<float>(const Epilogue&, float*, int64_t, int64_t,
                                           cudaStream_t);
template cudaError_t LaunchEpilogue<__half>(const Epilogue&, __half*, int64_t, int64_t,
                                            cudaStream_t);
template cudaError_t LaunchEpilogue<__nv_bfloat16>(const Epilogue&, __nv_bfloat16*, int64_t,
                                                   int64_t, cudaStream_t);

}  // namespace smrt::kernels::cuda
