// GatherNd on device pointers, for any element size (no absl or smrt
// headers). Row i of the indices holds `depth` coordinates into params; the
// output's row i is the params slice they start. Where a row's slice starts
// is defined here for the host and the device alike, so tests check it on a
// machine without a GPU.
#ifndef SMRT_KERNELS_CUDA_GATHER_ND_H_
#define SMRT_KERNELS_CUDA_GATHER_ND_H_

#include <cuda_runtime.h>

#include <cstdint>

namespace smrt::kernels::cuda {

inline constexpr int kMaxGatherNdDepth = 8;

// Passed to the kernel by value; made from the CPU kernel's GatherNdPlan.
struct GatherNdIndex {
  int depth = 0;
  int64_t dims[kMaxGatherNdDepth] = {};     // params' first `depth` dims
  int64_t strides[kMaxGatherNdDepth] = {};  // params elements per coordinate step
  int64_t slice = 0;                        // params elements per row
};

// The params offset row `coord` (depth values) starts at; false when a
// coordinate is outside its dim.
template <typename I>
__host__ __device__ inline bool GatherNdOffset(const GatherNdIndex& index, const I* coord,
                                               int64_t* offset) {
  int64_t o = 0;
  for (int k = 0; k < index.depth; ++k) {
    const int64_t c = static_cast<int64_t>(coord[k]);
    if (c < 0 || c >= index.dims[k]) return false;
    o += c * index.strides[k];
  }
  *offset = o;
  return true;
}

// out (rows * slice elements of elem_size 1, 2, 4, 8 or 16 bytes) from
// params and int32 (index_bytes 4) or int64 (8) indices. A row with a bad
// coordinate is zero, and *first_bad (set to UINT64_MAX by the caller) is
// lowered to the first such row. cudaErrorInvalidValue for other sizes.
cudaError_t LaunchGatherNd(const void* params, const void* indices, int index_bytes, void* out,
                           int64_t rows, const GatherNdIndex& index, int elem_size,
                           unsigned long long* first_bad, cudaStream_t stream);

}  // namespace smrt::kernels::cuda

#endif  // SMRT_KERNELS_CUDA_GATHER_ND_H_
