#include <algorithm>

#include "kernels/cuda/direct_conv.h"
#include "kernels/cuda/half_math.h"

namespace smrt::kernels::cuda {
namespace {

template <typename T>
__global__ void DirectConvKernel(const T* __restrict__ in, const T* __restrict__ filter,
                                 T* __restrict__ out, DirectConvGeometry g, int64_t total) {
  const int64_t per_group = g.out_c / g.groups;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t o = i % g.out_c;
    int64_t rest = i / g.out_c;
    const int64_t ox = rest % g.out_w;
    rest /= g.out_w;
    const int64_t oy = rest % g.out_h;
    const int64_t b = rest / g.out_h;
    const int64_t c0 = (o / per_group) * g.k_c;  // the group's first input channel
    float sum = 0.0f;
    for (int64_t ky = 0; ky < g.k_h; ++ky) {
      const int64_t y = oy * g.stride_h - g.pad_top + ky * g.dil_h;
      if (y < 0 || y >= g.in_h) continue;
      for (int64_t kx = 0; kx < g.k_w; ++kx) {
        const int64_t x = ox * g.stride_w - g.pad_left + kx * g.dil_w;
        if (x < 0 || x >= g.in_w) continue;
        const T* src = in + ((b * g.in_h + y) * g.in_w + x) * g.in_c + c0;
        const T* f = filter + (ky * g.k_w + kx) * g.k_c * g.out_c + o;
        for (int64_t c = 0; c < g.k_c; ++c) sum += Widen(src[c]) * Widen(f[c * g.out_c]);
      }
    }
    out[i] = Narrow<T>(sum);
  }
}

}  // namespace

template <typename T>
cudaError_t LaunchDirectConv(const T* in, const T* filter, T* out, const DirectConvGeometry& g,
                             cudaStream_t stream) {
  const int64_t total = g.batch * g.out_h * g.out_w * g.out_c;
  if (total == 0) return cudaSuccess;
  if (g.groups <= 0 || g.out_c % g.groups != 0) return cudaErrorInvalidValue;
  const int threads = 256;
  const int64_t blocks = std::min<int64_t>((total + threads - 1) / threads, 65535 * 8);
  DirectConvKernel<T><<<static_cast<unsigned>(blocks), threads, 0, stream>>>(in, filter, out, g,
                                                                             total);
  return cudaGetLastError();
}

template cudaError_t LaunchDirectConv<float>(const float*, const float*, float*,
                                             const DirectConvGeometry&, cudaStream_t);
template cudaError_t LaunchDirectConv<__half>(const __half*, const __half*, __half*,
                                              const DirectConvGeometry&, cudaStream_t);
template cudaError_t LaunchDirectConv<__nv_bfloat16>(const __nv_bfloat16*, const __nv_bfloat16*,
                                                     __nv_bfloat16*, const DirectConvGeometry&,
                                                     cudaStream_t);

}  // namespace smrt::kernels::cuda
