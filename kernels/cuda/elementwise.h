// Elementwise CUDA kernels on device pointers (no absl or smrt headers, so
// nvcc sees only CUDA and the standard library): binary Add/Mul with NumPy
// broadcasting and Relu. This is the layer an executor with device-resident
// tensors calls; register.cc adapts it to the kernel registry.
#ifndef SMRT_KERNELS_CUDA_ELEMENTWISE_H_
#define SMRT_KERNELS_CUDA_ELEMENTWISE_H_

#include <cuda_runtime.h>

#include <cstdint>

namespace smrt::kernels::cuda {

enum class BinaryOp { kAdd, kMul };

inline constexpr int kMaxBroadcastRank = 8;

// How output element i maps to its inputs: decompose i over `dims`
// (row-major), then offset = sum(coord[d] * strides[d]); a stride of 0
// repeats the input along that dim. Passed to kernels by value; made by
// MakeBroadcastIndex (broadcast_index.h).
struct BroadcastIndex {
  int rank = 0;
  int64_t dims[kMaxBroadcastRank] = {};
  int64_t a_strides[kMaxBroadcastRank] = {};
  int64_t b_strides[kMaxBroadcastRank] = {};
};

// out[i] = a[..] op b[..] for the n = product(out_shape) outputs, queued on
// `stream`. T is float or int32_t. Returns the launch error, if any.
template <typename T>
cudaError_t LaunchBinary(BinaryOp op, const T* a, const T* b, T* out, int64_t n,
                         const BroadcastIndex& index, cudaStream_t stream);

// out[i] = max(in[i], 0) (NaN stays NaN, as in TensorFlow). T is float or int32_t.
template <typename T>
cudaError_t LaunchRelu(const T* in, T* out, int64_t n, cudaStream_t stream);

}  // namespace smrt::kernels::cuda

#endif  // SMRT_KERNELS_CUDA_ELEMENTWISE_H_
