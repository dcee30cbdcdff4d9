// ResizeBilinear and ResizeNearestNeighbor of NHWC images on device pointers
// (no absl headers: nvcc sees only CUDA, the standard library and
// exact_math.h). The sampling is TensorFlow's CPU arithmetic in float32, each
// product and sum rounded on its own (exact_math.h), so the GPU gives the CPU
// kernel's bits. The per-element functions run on the host too.
#ifndef SMRT_KERNELS_CUDA_RESIZE_H_
#define SMRT_KERNELS_CUDA_RESIZE_H_

#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>

#include "kernels/cuda/exact_math.h"

namespace smrt::kernels::cuda {

// Made from the CPU kernels' ResizeGeometry (resize_util.h).
struct ResizePlan {
  int64_t in_h = 0, in_w = 0, channels = 0, out_h = 0, out_w = 0;
  float height_scale = 0, width_scale = 0;
  bool align_corners = false, half_pixel_centers = false;
};

// The two source rows (or columns) output index i blends and the weight of
// the upper one: TensorFlow's compute_interpolation_weights.
struct BilinearTap {
  int64_t lower = 0, upper = 0;
  float lerp = 0;
};

__host__ __device__ inline BilinearTap BilinearTapOf(int64_t i, int64_t in, float scale,
                                                     bool half_pixel_centers) {
  const float v = half_pixel_centers
                      ? SubRn(MulRn(AddRn(static_cast<float>(i), 0.5f), scale), 0.5f)
                      : MulRn(static_cast<float>(i), scale);
  const float f = floorf(v);
  BilinearTap t;
  const int64_t lower = static_cast<int64_t>(f);
  t.lower = lower < 0 ? 0 : (lower > in - 1 ? in - 1 : lower);
  const int64_t upper = static_cast<int64_t>(ceilf(v));
  t.upper = upper > in - 1 ? in - 1 : (upper < 0 ? 0 : upper);
  t.lerp = SubRn(v, f);
  return t;
}

// Output element i of ResizeBilinear (row-major over batch, out_h, out_w,
// channels) from `in`, as a float.
template <typename T>
__host__ __device__ inline float BilinearValue(const ResizePlan& p, const T* in, int64_t i) {
  const int64_t c = i % p.channels;
  int64_t rest = i / p.channels;
  const int64_t x = rest % p.out_w;
  rest /= p.out_w;
  const int64_t y = rest % p.out_h;
  const int64_t b = rest / p.out_h;
  const BilinearTap ty = BilinearTapOf(y, p.in_h, p.height_scale, p.half_pixel_centers);
  const BilinearTap tx = BilinearTapOf(x, p.in_w, p.width_scale, p.half_pixel_centers);
  const int64_t row = p.in_w * p.channels;
  const T* image = in + b * p.in_h * row;
  const T* top = image + ty.lower * row;
  const T* bottom = image + ty.upper * row;
  const float top_left = static_cast<float>(top[tx.lower * p.channels + c]);
  const float top_right = static_cast<float>(top[tx.upper * p.channels + c]);
  const float bottom_left = static_cast<float>(bottom[tx.lower * p.channels + c]);
  const float bottom_right = static_cast<float>(bottom[tx.upper * p.channels + c]);
  const float t = AddRn(top_left, MulRn(SubRn(top_right, top_left), tx.lerp));
  const float u = AddRn(bottom_left, MulRn(SubRn(bottom_right, bottom_left), tx.lerp));
  return AddRn(t, MulRn(SubRn(u, t), ty.lerp));
}

// The source index output index i copies in ResizeNearestNeighbor.
__host__ __device__ inline int64_t NearestIndexOf(int64_t i, int64_t in, float scale,
                                                  bool align_corners, bool half_pixel_centers) {
  // TensorFlow's HalfPixelScalerForNN leaves out the -0.5: the floor does it.
  const float v = half_pixel_centers ? MulRn(AddRn(static_cast<float>(i), 0.5f), scale)
                                     : MulRn(static_cast<float>(i), scale);
  const int64_t r = align_corners ? static_cast<int64_t>(roundf(v)) : static_cast<int64_t>(floorf(v));
  return r > in - 1 ? in - 1 : (r < 0 ? 0 : r);
}

// The input element output element i copies in ResizeNearestNeighbor.
__host__ __device__ inline int64_t NearestSourceOffset(const ResizePlan& p, int64_t i) {
  const int64_t c = i % p.channels;
  int64_t rest = i / p.channels;
  const int64_t x = rest % p.out_w;
  rest /= p.out_w;
  const int64_t y = rest % p.out_h;
  const int64_t b = rest / p.out_h;
  const int64_t sy = NearestIndexOf(y, p.in_h, p.height_scale, p.align_corners,
                                    p.half_pixel_centers);
  const int64_t sx = NearestIndexOf(x, p.in_w, p.width_scale, p.align_corners,
                                    p.half_pixel_centers);
  return ((b * p.in_h + sy) * p.in_w + sx) * p.channels + c;
}

// out[i] = BilinearValue(plan, in, i) for the n outputs; T is float or
// uint8_t (else cudaErrorInvalidValue). Returns the launch error, if any.
template <typename T>
cudaError_t LaunchResizeBilinear(const ResizePlan& plan, const T* in, float* out, int64_t n,
                                 cudaStream_t stream);

// out[i] = in[NearestSourceOffset(plan, i)] for n elements of elem_size
// bytes (1, 2, 4 or 8, else cudaErrorInvalidValue).
cudaError_t LaunchResizeNearest(const ResizePlan& plan, const void* in, void* out, int64_t n,
                                int elem_size, cudaStream_t stream);

}  // namespace smrt::kernels::cuda

#endif  // SMRT_KERNELS_CUDA_RESIZE_H_
