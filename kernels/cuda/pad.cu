#include <algorithm>

#include "kernels/cuda/pad.h"

namespace smrt::kernels::cuda {
namespace {

__global__ void PadNhwcKernel(const float* __restrict__ in, float* __restrict__ out,
                              int64_t total, int64_t h, int64_t w, int64_t c, int64_t out_h,
                              int64_t out_w, int64_t top, int64_t left) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t ci = i % c;
    int64_t rest = i / c;
    const int64_t x = rest % out_w - left;
    rest /= out_w;
    const int64_t y = rest % out_h - top;
    const int64_t b = rest / out_h;
    out[i] = (y >= 0 && y < h && x >= 0 && x < w) ? in[((b * h + y) * w + x) * c + ci] : 0.0f;
  }
}

}  // namespace

cudaError_t LaunchPadNhwc(const float* in, float* out, int64_t n, int64_t h, int64_t w,
                          int64_t c, int64_t top, int64_t bottom, int64_t left, int64_t right,
                          cudaStream_t stream) {
  const int64_t out_h = h + top + bottom, out_w = w + left + right;
  const int64_t total = n * out_h * out_w * c;
  if (total == 0) return cudaSuccess;
  const int threads = 256;
  const int64_t blocks = std::min<int64_t>((total + threads - 1) / threads, 65535 * 8);
  PadNhwcKernel<<<static_cast<unsigned>(blocks), threads, 0, stream>>>(in, out, total, h, w, c,
                                                                       out_h, out_w, top, left);
  return cudaGetLastError();
}

}  // namespace smrt::kernels::cuda
