#include "kernels/cuda/slice_plan.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace smrt::kernels::cuda {

namespace {

// The gather over `walk`, (size, step) per output dim from the innermost out,
// starting at input element `base`: size-1 dims dropped, neighbours the input
// holds contiguously (or both repeated, step 0) merged.
absl::StatusOr<SliceGather> GatherOf(const std::vector<std::pair<int64_t, int64_t>>& walk,
                                     int64_t base) {
  SliceGather g;
  for (const auto& [size, step] : walk) {
    if (size == 0) return g;  // no elements: an empty plan
  }
  g.base = base;
  std::vector<std::pair<int64_t, int64_t>> dims;
  for (const auto& [size, step] : walk) {
    if (size == 1) continue;
    if (!dims.empty() && step == dims.back().second * dims.back().first) {
      dims.back().first *= size;
    } else {
      dims.emplace_back(size, step);
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

}  // namespace

absl::StatusOr<SliceGather> PlanSliceGather(const Shape& in_dims, const std::vector<int64_t>& begin,
                                            const std::vector<int64_t>& strides,
                                            const Shape& sizes) {
  std::vector<std::pair<int64_t, int64_t>> walk;
  int64_t base = 0, in_stride = 1;
  for (int d = static_cast<int>(in_dims.size()) - 1; d >= 0; --d) {
    base += begin[d] * in_stride;
    walk.emplace_back(sizes[d], strides[d] * in_stride);
    in_stride *= in_dims[d];
  }
  for (int64_t s : sizes) {
    if (s == 0) return SliceGather{};  // begin may be outside an empty box
  }
  return GatherOf(walk, base);
}

absl::StatusOr<SliceGather> PlanTileGather(const Shape& in_dims,
                                           const std::vector<int64_t>& multiples) {
  // Output dim d of in_dims[d] * multiples[d] is (multiples[d], in_dims[d])
  // row-major: the copy index repeats the input (step 0).
  std::vector<std::pair<int64_t, int64_t>> walk;
  int64_t in_stride = 1;
  for (int d = static_cast<int>(in_dims.size()) - 1; d >= 0; --d) {
    walk.emplace_back(in_dims[d], in_stride);
    walk.emplace_back(multiples[d], 0);
    in_stride *= in_dims[d];
  }
  return GatherOf(walk, 0);
}

absl::StatusOr<SliceGather> PlanBroadcastToGather(const Shape& in_dims, const Shape& target) {
  const int lead = static_cast<int>(target.size() - in_dims.size());
  std::vector<std::pair<int64_t, int64_t>> walk;
  int64_t in_stride = 1;
  for (int d = static_cast<int>(target.size()) - 1; d >= 0; --d) {
    const bool stretched = d < lead || in_dims[d - lead] == 1;
    walk.emplace_back(target[d], stretched ? 0 : in_stride);
    if (!stretched) in_stride *= in_dims[d - lead];
  }
  return GatherOf(walk, 0);
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
