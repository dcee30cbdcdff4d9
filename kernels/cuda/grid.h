// The launch shape of the CUDA kernels that take one element per thread:
// blocks of kThreads threads, enough for every element up to a cap, past
// which the kernels grid-stride (no absl or smrt headers).
#ifndef SMRT_KERNELS_CUDA_GRID_H_
#define SMRT_KERNELS_CUDA_GRID_H_

#include <algorithm>
#include <cstdint>

namespace smrt::kernels::cuda {

inline constexpr int kThreads = 256;
inline constexpr int64_t kMaxBlocks = 65535;

// Blocks for n elements, one per thread, at most `max_blocks`.
inline int Blocks(int64_t n, int64_t max_blocks = kMaxBlocks) {
  return static_cast<int>(std::min<int64_t>((n + kThreads - 1) / kThreads, max_blocks));
}

}  // namespace smrt::kernels::cuda

#endif  // SMRT_KERNELS_CUDA_GRID_H_
