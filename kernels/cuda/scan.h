// Cumsum and Cumprod on device pointers (no absl or smrt headers): one
// thread per (outer, inner) column scans it in order, each step rounded to
// the element type as the CPU kernel rounds it (float16/bfloat16 through
// float, integers wrapping), so the result is the CPU's, bit for bit. The
// column scan is defined here for the host and the device alike, so tests
// check it on a machine without a GPU.
#ifndef SMRT_KERNELS_CUDA_SCAN_H_
#define SMRT_KERNELS_CUDA_SCAN_H_

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "kernels/cuda/half_math.h"

namespace smrt::kernels::cuda {

template <typename T>
__host__ __device__ inline T ScanStep(T acc, T v, bool prod) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;  // two's-complement wrapping
    return static_cast<T>(prod ? static_cast<U>(acc) * static_cast<U>(v)
                               : static_cast<U>(acc) + static_cast<U>(v));
  } else {
    const Compute<T> a = Widen(acc), b = Widen(v);
    return Narrow<T>(prod ? a * b : a + b);
  }
}

// The column of `len` elements at in[0], in[stride], ... into out likewise.
template <typename T>
__host__ __device__ inline void ScanColumn(const T* in, T* out, int64_t len, int64_t stride,
                                           bool prod, bool exclusive, bool reverse) {
  T acc = Narrow<T>(Compute<T>(prod ? 1 : 0));
  for (int64_t s = 0; s < len; ++s) {
    const int64_t j = (reverse ? len - 1 - s : s) * stride;
    const T next = ScanStep(acc, in[j], prod);
    out[j] = exclusive ? acc : next;
    acc = next;
  }
}

enum class ScanType { kFloat, kDouble, kHalf, kBFloat16, kInt32, kInt64 };

// x viewed as (outer, len, inner), scanned along len into out.
cudaError_t LaunchScan(ScanType type, const void* in, void* out, int64_t outer, int64_t len,
                       int64_t inner, bool prod, bool exclusive, bool reverse,
                       cudaStream_t stream);

}  // namespace smrt::kernels::cuda

#endif  // SMRT_KERNELS_CUDA_SCAN_H_
