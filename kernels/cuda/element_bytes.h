// Elements moved as units of their size, for the CUDA kernels that only copy
// values (gather, GatherNd, select, transpose, one-hot): one instantiation
// per element size rather than per dtype (no absl or smrt headers).
#ifndef SMRT_KERNELS_CUDA_ELEMENT_BYTES_H_
#define SMRT_KERNELS_CUDA_ELEMENT_BYTES_H_

#include <cuda_runtime.h>

namespace smrt::kernels::cuda {

template <int kBytes>
struct alignas(kBytes) Element {
  unsigned char b[kBytes];
};

// fn(Element<elem_size>{}) for elem_size 1, 2, 4, 8 or 16 (every fixed-size
// dtype); cudaErrorInvalidValue for another size.
template <typename Fn>
cudaError_t BySize(int elem_size, Fn&& fn) {
  switch (elem_size) {
    case 1: return fn(Element<1>{});
    case 2: return fn(Element<2>{});
    case 4: return fn(Element<4>{});
    case 8: return fn(Element<8>{});
    case 16: return fn(Element<16>{});
  }
  return cudaErrorInvalidValue;
}

}  // namespace smrt::kernels::cuda

#endif  // SMRT_KERNELS_CUDA_ELEMENT_BYTES_H_
