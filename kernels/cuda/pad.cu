#include <algorithm>
#include <cstring>

#include "kernels/cuda/pad.h"

namespace smrt::kernels::cuda {
namespace {

template <typename T>
__global__ void PadKernel(PadPlan plan, const T* __restrict__ in, T* __restrict__ out, int64_t n,
                          T fill) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t offset = PadSourceOffset(plan, i);
    out[i] = offset >= 0 ? in[offset] : fill;
  }
}

template <typename T>
__global__ void FillKernel(T* __restrict__ out, int64_t n, T value) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    out[i] = value;
  }
}

int64_t Blocks(int64_t n, int threads) {
  return std::min<int64_t>((n + threads - 1) / threads, 65535 * 8);
}

template <typename T>
cudaError_t Launch(const PadPlan& plan, const void* in, void* out, int64_t n, const void* fill,
                   cudaStream_t stream) {
  T value;
  std::memcpy(&value, fill, sizeof(T));
  const int threads = 256;
  PadKernel<T><<<static_cast<unsigned>(Blocks(n, threads)), threads, 0, stream>>>(
      plan, static_cast<const T*>(in), static_cast<T*>(out), n, value);
  return cudaGetLastError();
}

template <typename T>
cudaError_t Fill(void* out, int64_t n, const void* value, cudaStream_t stream) {
  T v;
  std::memcpy(&v, value, sizeof(T));
  const int threads = 256;
  FillKernel<T><<<static_cast<unsigned>(Blocks(n, threads)), threads, 0, stream>>>(
      static_cast<T*>(out), n, v);
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchPad(const PadPlan& plan, const void* in, void* out, int64_t n, int elem_size,
                      const void* fill, cudaStream_t stream) {
  switch (elem_size) {
    case 1: return Launch<uint8_t>(plan, in, out, n, fill, stream);
    case 2: return Launch<uint16_t>(plan, in, out, n, fill, stream);
    case 4: return Launch<uint32_t>(plan, in, out, n, fill, stream);
    case 8: return Launch<uint64_t>(plan, in, out, n, fill, stream);
    default: return cudaErrorInvalidValue;
  }
}

cudaError_t LaunchFill(void* out, int64_t n, int elem_size, const void* value,
                       cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  switch (elem_size) {
    case 1: return Fill<uint8_t>(out, n, value, stream);
    case 2: return Fill<uint16_t>(out, n, value, stream);
    case 4: return Fill<uint32_t>(out, n, value, stream);
    case 8: return Fill<uint64_t>(out, n, value, stream);
    default: return cudaErrorInvalidValue;
  }
}

cudaError_t LaunchPadNhwc(const void* in, void* out, int64_t n, int64_t h, int64_t w, int64_t c,
                          int64_t top, int64_t bottom, int64_t left, int64_t right, int elem_size,
                          cudaStream_t stream) {
  PadPlan plan;
  plan.rank = 4;
  const int64_t in_dims[4] = {n, h, w, c};
  const int64_t before[4] = {0, top, left, 0};
  const int64_t after[4] = {0, bottom, right, 0};
  int64_t total = 1;
  for (int d = 0; d < 4; ++d) {
    plan.in_dims[d] = in_dims[d];
    plan.before[d] = before[d];
    plan.out_dims[d] = in_dims[d] + before[d] + after[d];
    total *= plan.out_dims[d];
  }
  if (total == 0) return cudaSuccess;
  const uint64_t zero = 0;
  return LaunchPad(plan, in, out, total, elem_size, &zero, stream);
}

}  // namespace smrt::kernels::cuda
