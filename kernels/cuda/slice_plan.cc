#include "kernels/cuda/slice_plan.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace smrt::kernels::cuda {

absl::StatusOr<SliceGather> PlanSliceGather(const Shape& in_dims, const std::vector<int64_t>& begin,
                                            const std::vector<int64_t>& strides,
                                            const Shape& sizes) {
  SliceGather g;
  const int rank = static_cast<int>(in_dims.size());
  for (int64_t s : sizes) {
    if (s == 0) return g;
  }
  // (size, step) per kept dim, innermost first.
  std::vector<std::pair<int64_t, int64_t>> dims;
  int64_t in_stride = 1;
  for (int d = rank - 1; d >= 0; --d) {
    g.base += begin[d] * in_stride;
    const int64_t step = strides[d] * in_stride;
    in_stride *= in_dims[d];
    if (sizes[d] == 1) continue;
    if (!dims.empty() && step == dims.back().second * dims.back().first) {
      dims.back().first *= sizes[d];
    } else {
      dims.emplace_back(sizes[d], step);
    }
  }
  if (dims.empty()) dims.emplace_back(1, 0);  // one element
  if (dims.size() > static_cast<size_t>(kMaxTransposeRank)) {
    return absl::UnimplementedError(
        absl::StrCat("the box takes ", dims.size(), " dims that cannot be merged; the CUDA kernel "
                     "gathers at most ", kMaxTransposeRank));
  }
  g.plan.rank = static_cast<int>(dims.size());
  for (int d = 0; d < g.plan.rank; ++d) {
    g.plan.out_dims[d] = dims[dims.size() - 1 - d].first;
    g.plan.in_strides[d] = dims[dims.size() - 1 - d].second;
  }
  return g;
}

absl::StatusOr<SliceGather> PlanReverseGather(const Shape& dims, const std::vector<bool>& flip) {
  std::vector<int64_t> begin(dims.size(), 0), strides(dims.size(), 1);
  for (size_t d = 0; d < dims.size(); ++d) {
    if (flip[d]) {
      begin[d] = dims[d] - 1;  // -1 for an empty dim: an empty box, begin unread
      strides[d] = -1;
    }
  }
  return PlanSliceGather(dims, begin, strides, dims);
}

absl::StatusOr<SliceGather> PlanSplitPieceGather(const Shape& dims, int axis, int64_t offset,
                                                 int64_t size) {
  std::vector<int64_t> begin(dims.size(), 0), strides(dims.size(), 1);
  begin[axis] = offset;
  Shape sizes = dims;
  sizes[axis] = size;
  return PlanSliceGather(dims, begin, strides, sizes);
}

}  // namespace smrt::kernels::cuda
