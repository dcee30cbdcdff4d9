#include <algorithm>

#include "kernels/cuda/element_bytes.h"
#include "kernels/cuda/transpose.h"

namespace smrt::kernels::cuda {
namespace {

template <typename T>
__global__ void TransposeKernel(TransposePlan plan, const T* __restrict__ in,
                                T* __restrict__ out, int64_t n) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    out[i] = in[TransposeSourceOffset(plan, i)];
  }
}

template <typename T>
cudaError_t Launch(const TransposePlan& plan, const void* in, void* out, int64_t n,
                   cudaStream_t stream) {
  const int threads = 256;
  const int64_t blocks = std::min<int64_t>((n + threads - 1) / threads, 65535 * 8);
  TransposeKernel<T><<<static_cast<unsigned>(blocks), threads, 0, stream>>>(
      plan, static_cast<const T*>(in), static_cast<T*>(out), n);
  return cudaGetLastError();
}

}  // namespace

TransposePlan MakeTransposePlan(const int64_t* in_dims, const int* perm, int rank) {
  TransposePlan plan;
  plan.rank = rank;
  int64_t strides[kMaxTransposeRank] = {};
  int64_t s = 1;
  for (int d = rank - 1; d >= 0; --d) {
    strides[d] = s;
    s *= in_dims[d];
  }
  for (int d = 0; d < rank; ++d) {
    plan.out_dims[d] = in_dims[perm[d]];
    plan.in_strides[d] = strides[perm[d]];
  }
  return plan;
}

void SimplifyTranspose(const std::vector<int64_t>& in_dims, const std::vector<int>& perm,
                       std::vector<int64_t>& dims, std::vector<int>& out_perm) {
  // Output order of the input dims larger than 1.
  std::vector<int> order;
  for (int p : perm) {
    if (in_dims[p] != 1) order.push_back(p);
  }
  // Runs of input dims consecutive but for size-1 dims between them (which
  // leave them contiguous), in output order.
  std::vector<int> kept_index(in_dims.size(), -1);
  int kept = 0;
  for (size_t d = 0; d < in_dims.size(); ++d) {
    if (in_dims[d] != 1) kept_index[d] = kept++;
  }
  std::vector<std::vector<int>> runs;
  for (int p : order) {
    if (!runs.empty() && kept_index[runs.back().back()] + 1 == kept_index[p]) {
      runs.back().push_back(p);
    } else {
      runs.push_back({p});
    }
  }
  // Each run is one input dim; number them in input order.
  std::vector<int> by_input(runs.size());
  for (size_t i = 0; i < runs.size(); ++i) by_input[i] = static_cast<int>(i);
  std::sort(by_input.begin(), by_input.end(),
            [&](int a, int b) { return runs[a].front() < runs[b].front(); });
  std::vector<int> input_index(runs.size());
  dims.assign(runs.size(), 1);
  for (size_t j = 0; j < by_input.size(); ++j) {
    input_index[by_input[j]] = static_cast<int>(j);
    for (int d : runs[by_input[j]]) dims[j] *= in_dims[d];
  }
  out_perm.resize(runs.size());
  for (size_t i = 0; i < runs.size(); ++i) out_perm[i] = input_index[i];
  if (dims.empty()) {  // every dim is 1: one element
    dims = {1};
    out_perm = {0};
  }
}

cudaError_t LaunchTranspose(const TransposePlan& plan, const void* in, void* out, int64_t n,
                            int elem_size, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  if (plan.rank < 0 || plan.rank > kMaxTransposeRank) return cudaErrorInvalidValue;
  return BySize(elem_size, [&](auto element) {
    return Launch<decltype(element)>(plan, in, out, n, stream);
  });
}

}  // namespace smrt::kernels::cuda
