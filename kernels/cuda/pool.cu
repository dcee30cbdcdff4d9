#include <algorithm>
#include <cfloat>
#include <type_traits>

#include "kernels/cuda/half_math.h"
#include "kernels/cuda/pool.h"

namespace smrt::kernels::cuda {
namespace {

template <bool kMax, typename T>
__global__ void PoolKernel(const T* __restrict__ in, T* __restrict__ out, PoolWindow w,
                           int64_t total) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t c = i % w.depth;
    int64_t rest = i / w.depth;
    const int64_t ox = rest % w.out_w;
    rest /= w.out_w;
    const int64_t oy = rest % w.out_h;
    const int64_t b = rest / w.out_h;
    const int64_t y_start = oy * w.stride_h - w.pad_top;
    const int64_t x_start = ox * w.stride_w - w.pad_left;
    const int64_t y0 = y_start > 0 ? y_start : 0;
    const int64_t x0 = x_start > 0 ? x_start : 0;
    const int64_t y1 = y_start + w.k_h < w.in_h ? y_start + w.k_h : w.in_h;
    const int64_t x1 = x_start + w.k_w < w.in_w ? x_start + w.k_w : w.in_w;
    if (kMax) {
      // float16 starts from its lowest (-65504), as TensorFlow's float16
      // MaxPool does: a window of -inf and NaN alone gives it, not -inf.
      float best = std::is_same_v<T, __half> ? -65504.0f : -FLT_MAX;
      for (int64_t y = y0; y < y1; ++y) {
        for (int64_t x = x0; x < x1; ++x) {
          const float v = Widen(in[((b * w.in_h + y) * w.in_w + x) * w.depth + c]);
          best = v > best ? v : best;
        }
      }
      out[i] = Narrow<T>(best);
    } else {
      double sum = 0.0;
      for (int64_t y = y0; y < y1; ++y) {
        for (int64_t x = x0; x < x1; ++x) {
          sum += Widen(in[((b * w.in_h + y) * w.in_w + x) * w.depth + c]);
        }
      }
      const int64_t count = (y1 > y0 ? y1 - y0 : 0) * (x1 > x0 ? x1 - x0 : 0);
      out[i] = Narrow<T>(count > 0 ? static_cast<float>(sum / static_cast<double>(count)) : 0.0f);
    }
  }
}

template <bool kMax, typename T>
cudaError_t Launch(const T* in, T* out, const PoolWindow& w, cudaStream_t stream) {
  const int64_t total = w.batch * w.out_h * w.out_w * w.depth;
  if (total == 0) return cudaSuccess;
  const int threads = 256;
  const int64_t blocks = std::min<int64_t>((total + threads - 1) / threads, 65535 * 8);
  PoolKernel<kMax, T><<<static_cast<unsigned>(blocks), threads, 0, stream>>>(in, out, w, total);
  return cudaGetLastError();
}

}  // namespace

template <typename T>
cudaError_t LaunchMaxPool(const T* in, T* out, const PoolWindow& w, cudaStream_t stream) {
  return Launch<true>(in, out, w, stream);
}

template <typename T>
cudaError_t LaunchAvgPool(const T* in, T* out, const PoolWindow& w, cudaStream_t stream) {
  return Launch<false>(in, out, w, stream);
}

template cudaError_t LaunchMaxPool<float>(const float*, float*, const PoolWindow&, cudaStream_t);
template cudaError_t LaunchMaxPool<__half>(const __half*, __half*, const PoolWindow&,
                                           cudaStream_t);
template cudaError_t LaunchMaxPool<__nv_bfloat16>(const __nv_bfloat16*, __nv_bfloat16*,
                                                  const PoolWindow&, cudaStream_t);
template cudaError_t LaunchAvgPool<float>(const float*, float*, const PoolWindow&, cudaStream_t);
template cudaError_t LaunchAvgPool<__half>(const __half*, __half*, const PoolWindow&,
                                           cudaStream_t);
template cudaError_t LaunchAvgPool<__nv_bfloat16>(const __nv_bfloat16*, __nv_bfloat16*,
                                                  const PoolWindow&, cudaStream_t);

}  // namespace smrt::kernels::cuda
