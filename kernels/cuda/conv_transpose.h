// Conv2DBackpropInput (Keras Conv2DTranspose) as a direct NHWC kernel on
// device pointers (no absl or smrt headers): each dx element sums the dy
// cells whose windows cover it, times the filter, in float (float16 and
// bfloat16 widened, the sum rounded once, as the CPU kernel computes them).
// The per-element function runs on the host too.
#ifndef SMRT_KERNELS_CUDA_CONV_TRANSPOSE_H_
#define SMRT_KERNELS_CUDA_CONV_TRANSPOSE_H_

#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/cuda/half_math.h"

namespace smrt::kernels::cuda {

// The CPU kernel's BackpropInputPlan (conv_util.h), in NHWC / HWIO terms:
// dx (batch, in_h, in_w, in_c), dy (batch, out_h, out_w, out_c), filter
// (k_h, k_w, in_c, out_c).
struct ConvTransposeGeometry {
  int64_t batch = 0, in_h = 0, in_w = 0, in_c = 0;
  int64_t k_h = 0, k_w = 0;
  int64_t out_h = 0, out_w = 0, out_c = 0;
  int64_t stride_h = 1, stride_w = 1, dil_h = 1, dil_w = 1;
  int64_t pad_top = 0, pad_left = 0;
};

// dx element i (row-major NHWC): the sum over the filter taps (kh, kw) whose
// forward window from dy cell (oy, ox) reads it, i.e. oy * stride_h -
// pad_top + kh * dil_h == y (and the same for x), of dy[b, oy, ox, :] .
// filter[kh, kw, c, :], accumulated in float (T: float, __half or
// __nv_bfloat16).
template <typename T>
__host__ __device__ inline float ConvTransposeValue(const ConvTransposeGeometry& g, const T* dy,
                                                    const T* filter, int64_t i) {
  const int64_t c = i % g.in_c;
  int64_t rest = i / g.in_c;
  const int64_t x = rest % g.in_w;
  rest /= g.in_w;
  const int64_t y = rest % g.in_h;
  const int64_t b = rest / g.in_h;
  float acc = 0.0f;
  for (int64_t kh = 0; kh < g.k_h; ++kh) {
    const int64_t ty = y + g.pad_top - kh * g.dil_h;
    if (ty < 0 || ty % g.stride_h != 0) continue;
    const int64_t oy = ty / g.stride_h;
    if (oy >= g.out_h) continue;
    for (int64_t kw = 0; kw < g.k_w; ++kw) {
      const int64_t tx = x + g.pad_left - kw * g.dil_w;
      if (tx < 0 || tx % g.stride_w != 0) continue;
      const int64_t ox = tx / g.stride_w;
      if (ox >= g.out_w) continue;
      const T* d = dy + ((b * g.out_h + oy) * g.out_w + ox) * g.out_c;
      const T* f = filter + ((kh * g.k_w + kw) * g.in_c + c) * g.out_c;
      for (int64_t o = 0; o < g.out_c; ++o) acc += Widen(d[o]) * Widen(f[o]);
    }
  }
  return acc;
}

// dx[i] = ConvTransposeValue(g, dy, filter, i), stored as T, for every dx
// element, one thread each; T is float, __half or __nv_bfloat16. Returns the
// launch error, if any.
template <typename T>
cudaError_t LaunchConvTranspose(const ConvTransposeGeometry& g, const T* dy, const T* filter,
                                T* dx, cudaStream_t stream);

}  // namespace smrt::kernels::cuda

#endif  // SMRT_KERNELS_CUDA_CONV_TRANSPOSE_H_
